"""The Dask path of the public functions, read off the merged cell statistics.

:func:`locacal.calibration_report` calls the function of the same name here when
:func:`locacal._validation.has_dask` finds a Dask collection among its data
(:func:`locacal.brier_score`, :func:`locacal.ece` and :func:`locacal.lcs` go through
:mod:`locacal.metrics._dispatch` instead, :func:`locacal.calibration_curve` through
:meth:`locacal.curves._base.BaseCalibrator.from_statistics`); it reduces the input with
:func:`locacal.data.dask.statistics` (per-partition cell statistics merged in a tree, the
column never gathered) and reads its result off the merged
:class:`locacal._sufficient.ScoreStatistics` within the bounds stated there.
"""

from __future__ import annotations

from typing import Any

from locacal._sufficient import ScoreStatistics
from locacal.data.dask import statistics

__all__ = ["calibration_report"]


def _statistics(scores: Any, labels: Any, weights: Any) -> ScoreStatistics:
    """The merged :class:`ScoreStatistics` of Dask input (:func:`locacal.data.dask.statistics`)."""
    return statistics(scores, labels, weights, kind=ScoreStatistics)


def calibration_report(scores: Any, labels: Any, weights: Any, threshold: float,
                       columns: tuple[str, ...]) -> Any:
    """:func:`locacal.calibration_report` of Dask input: the columns of
    :data:`locacal._cells.CELL_COLUMNS` from the cells, NaN for the others."""
    from locacal._cells import report_from_statistics

    value, _ = report_from_statistics(_statistics(scores, labels, weights), threshold, columns)
    return value
