"""The Dask path of the calibration curve, read off the merged cell statistics.

:func:`locacal.calibration_curve` calls the function of the same name here when
:func:`locacal._validation.has_dask` finds a Dask collection among its data (the metrics go
through :mod:`locacal.metrics._dispatch`, :func:`locacal.calibration_report` through
:func:`locacal.metrics.registry.evaluate_cells`); it reduces the input with
:func:`locacal.data.dask.statistics` (per-partition cell statistics merged in a tree, the
column never gathered) and reads the curve off the merged
:class:`locacal._sufficient.ScoreStatistics` within the bounds stated there.
"""

from __future__ import annotations

from typing import Any

from locacal._sufficient import ScoreStatistics
from locacal._validation import plain
from locacal.data.dask import statistics

__all__ = ["calibration_curve"]


def _statistics(scores: Any, labels: Any, weights: Any) -> ScoreStatistics:
    """The merged :class:`ScoreStatistics` of Dask input (:func:`locacal.data.dask.statistics`)."""
    return statistics(scores, labels, weights, kind=ScoreStatistics)


def calibration_curve(scores: Any, labels: Any, weights: Any, method: str, grid: Any,
                      band: Any, level: float, interval: str, params: dict[str, Any]) -> Any:
    """:func:`locacal.calibration_curve` of Dask input: ``method="binning"`` (quantile or
    uniform bins) or ``method="local"`` (degree 0/1, rect/tricube, by default the in-memory
    default :data:`locacal.curves.local.DEFAULT_LOCAL`; the binned fit of
    :class:`locacal._cells.CellLocalCalibrator`), with the pointwise band or none."""
    from locacal._cells import CellLocalCalibrator, binning_calibrator
    from locacal.curves.bands import check_band
    from locacal.curves.local import DEFAULT_LOCAL

    if method not in ("binning", "local"):
        raise ValueError(f"method={plain(method)!r} is not available for Dask input; use 'binning' "
                         "or 'local' (curves from cell statistics)")
    if check_band(band) not in ("pointwise", None):
        raise ValueError(f"band={plain(band)!r} resamples rows, which Dask input does not "
                         "keep; use band='pointwise' or None")
    if method == "binning":
        unknown = sorted(set(params) - {"strategy", "bins"})
        if unknown:
            raise TypeError(f"method='binning' with Dask input has no option(s) {unknown}; "
                            "its options are ['strategy', 'bins']")
        calibrator, _ = binning_calibrator(_statistics(scores, labels, weights), **params)
    else:
        unknown = sorted(set(params) - {"degree", "nn", "kernel", "clip"})
        if unknown:
            raise TypeError(f"method='local' with Dask input has no option(s) {unknown}; "
                            "its options are ['degree', 'nn', 'kernel', 'clip']")
        params = {**DEFAULT_LOCAL, **params}  # the in-memory default curve
        probe = CellLocalCalibrator(**params)
        probe._check_params()  # before the pass over the data
        calibrator = CellLocalCalibrator.from_statistics(
            _statistics(scores, labels, weights), **params)
    return calibrator.curve(grid, band=band, level=level, interval=interval)
