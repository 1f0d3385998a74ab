"""Calibration tests in several subgroups at once: family-wise and adjusted p-values.

Testing each of G groups at level α rejects somewhere with probability up to 1 − (1 − α)^G
(0.64 for 20 calibrated groups at 5 %). :func:`~locacal.calibration_test` with ``by=`` tests
each group as the call on its rows would, then controls the family-wise error rate with the
single-step min-P adjustment of Westfall & Young (1993, §2.6): the family's statistic is the
largest per-group evidence, max_g (1 − p_g) = 1 − min_g p_g, and its null distribution comes
from the same consistency resamples as the groups' own tests.

With B resamples per group, the b-th resample of group g has the p-value it would have as
observed data,

.. math:: p^*_{gb} = \\frac{\\#\\{b' : T^*_{gb'} \\ge T^*_{gb}\\}}{1 + B},

and the adjusted p-value of group g and the family-wise p-value are

.. math:: \\tilde p_g = \\frac{1 + \\#\\{b : \\min_h p^*_{hb} \\le p_g\\}}{1 + B}, \\qquad
          p_{FW} = \\min_g \\tilde p_g .

Under the null the groups' label draws are independent (the rows are disjoint and each label is
Bernoulli(s_i)), so the resamples of different groups are drawn from independent streams. When a
group is tested asymptotically (no resamples), the exact min-P rule for independent p-values is
used instead, Šidák's :math:`\\tilde p_g = 1 - (1 - p_g)^G` (Šidák 1967), which is valid and
slightly conservative for the discrete resampling p-values too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["GroupedTestResult", "minp_adjust"]

#: Null values within this relative distance below a value count as ties (>=), as in the
#: one-sample test.
_TIE_RTOL = 1e-12


def _resampled_pvalues(null: np.ndarray) -> np.ndarray:
    """p*_b = #{b' : T*_b' >= T*_b} / (1 + B): each resample's p-value against the others."""
    ordered = np.sort(null)
    below = np.searchsorted(ordered, null - _TIE_RTOL * np.abs(null), side="left")
    return (null.size - below) / (1.0 + null.size)


def minp_adjust(pvalues: Sequence[float],
                nulls: Sequence[np.ndarray | None]) -> tuple[float, np.ndarray]:
    """Family-wise p-value and single-step min-P adjusted p-values of independent group tests.

    Parameters
    ----------
    pvalues : sequence of float
        The groups' own p-values.
    nulls : sequence of ndarray or None
        Each group's B resampled statistics (the same B for all), or None where the group was
        tested asymptotically.

    Returns
    -------
    (float, ndarray)
        ``p_FW`` and the adjusted p-values (formulas in the module's docstring: min-P over the
        resamples when every group has them, Šidák otherwise).
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if any(null is None for null in nulls):
        adjusted = 1.0 - (1.0 - p) ** p.size
    else:
        smallest = np.min([_resampled_pvalues(np.asarray(null)) for null in nulls], axis=0)
        ordered = np.sort(smallest)
        count = np.searchsorted(ordered, p * (1.0 + _TIE_RTOL), side="right")
        adjusted = (1.0 + count) / (1.0 + smallest.size)
    adjusted = np.minimum(adjusted, 1.0)
    return float(adjusted.min()), adjusted


@dataclass(frozen=True, eq=False)
class GroupedTestResult:
    """Result of :func:`~locacal.calibration_test` with ``by=``.

    Attributes
    ----------
    name : str
        The statistic.
    by : str
        What the groups are called.
    results : Mapping
        group -> the group's :class:`~locacal.metrics.CalibrationTestResult` (the call on
        its rows).
    pvalue : float
        Family-wise p-value of "calibrated in every group".
    adjusted : ndarray
        The groups' adjusted p-values, in the order of ``results``.
    """

    name: str
    by: str
    results: Mapping[Any, Any]
    pvalue: float
    adjusted: np.ndarray

    def to_frame(self, level: float = 0.05) -> pd.DataFrame:
        """One row per group, worst first (by adjusted p-value, then statistic): ``n``,
        ``statistic``, ``pvalue``, ``adjusted_pvalue``, ``method`` and ``flagged``
        (adjusted p-value below ``level``)."""
        rows = {group: {"n": r.n, "statistic": r.statistic, "pvalue": r.pvalue,
                        "adjusted_pvalue": float(a), "method": r.method,
                        "flagged": bool(a < level)}
                for (group, r), a in zip(self.results.items(), self.adjusted, strict=True)}
        table = pd.DataFrame.from_dict(rows, orient="index").rename_axis(self.by)
        return table.sort_values(["adjusted_pvalue", "statistic"], ascending=[True, False],
                                 kind="stable")

    def _repr_html_(self) -> str:
        from locacal._repr import frame_html, result_html

        table = self.to_frame()
        flagged = int(table["flagged"].sum())
        title = (f"Calibration test by {self.by} ({self.name}): {len(table)} groups, "
                 f"family-wise p = {self.pvalue:.3g}, {flagged} flagged at 5 %")
        styled = table.style.apply(
            lambda row: ["background-color: #fbd9c4" if row["flagged"] else ""] * len(row),
            axis=1).format(precision=4)
        return result_html(title, styled.to_html() if flagged else frame_html(table))

    def plot(self, ax: Any = None, level: float = 0.05) -> Any:
        """Dot chart of the groups' adjusted p-values (log scale), worst at the top, with
        ``level`` marked; flagged groups in vermillion. Returns the Axes."""
        from locacal.plotting import new_axes

        table = self.to_frame(level).iloc[::-1]
        ax = new_axes(ax, (5.0, max(2.0, 0.3 * len(table) + 1.0)))
        colours = np.where(table["flagged"], "#D55E00", "#0072B2")
        ax.scatter(np.maximum(table["adjusted_pvalue"], 1e-4), np.arange(len(table)),
                   c=list(colours))
        ax.set_yticks(np.arange(len(table)), [str(g) for g in table.index])
        ax.set_xscale("log")
        ax.axvline(level, color="0.5", linestyle="--", linewidth=1)
        ax.set_xlabel(f"adjusted p-value ({self.name}, min-P)")
        ax.set_ylabel(self.by)
        return ax

    def __repr__(self) -> str:
        return (f"GroupedTestResult({self.name} by {self.by}: {len(self.results)} groups, "
                f"family-wise p = {self.pvalue:.4g})")
