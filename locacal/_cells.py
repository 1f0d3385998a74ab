"""Curves, calibrators and the report read off mergeable cell statistics.

:class:`locacal._sufficient.ScoreStatistics` holds per-cell sums of a sample of any size;
this module turns them into what the in-memory functions return, so that Dask input
(:mod:`locacal.data.dask`) gets the same objects:

* :func:`report_from_statistics`: the columns of :func:`locacal.calibration_report` that the
  cells determine (:data:`CELL_COLUMNS`); the others are NaN (:data:`NOT_FROM_CELLS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from locacal._sufficient import ScoreStatistics
from locacal._validation import plain, warn
from locacal.data.bins import DEFAULT_BINS
from locacal.data.grid import CELLS, edge_index, nn_bracket
from locacal.metrics.binned import calib_mse_from_bins, ece_from_bins, ece_thresholded_with_bound
from locacal.metrics.classification import auc_with_bound, confusion_cells
from locacal.metrics.corp import corp_with_bound

__all__ = ["CELL_COLUMNS", "CELL_EXTRAS", "NOT_FROM_CELLS", "report_from_statistics",
           "wmse_with_bound"]

#: Report columns computed from the cells (bounds in :func:`report_from_statistics`).
CELL_COLUMNS = ("n", "brier", "lcs", "ece", "qmse", "accuracy", "sensitivity",
                "specificity", "auc", "log_loss", "mcb", "dsc", "unc", "spiegelhalter_z",
                "wmse")
#: The report's optional extras computed from the cells when asked for (``extra=``).
CELL_EXTRAS = ("ece_thresholded",)
#: Report columns the cells do not determine, NaN for Dask input, and why.
NOT_FROM_CELLS = {
    "true_mse": "needs the true probabilities row by row (true_p is refused for Dask input)",
    "calib_mse": "adaptive bins of sqrt(n) rows: each bin edge cuts a cell, whose rows "
                 "are about sqrt(n) / 100800 of a bin (1 % at n = 1e6, 31 % at 1e9) and "
                 "may fall on either side, so no useful bound",
    "calib_err": "the square root of calib_mse (adaptive bins of sqrt(n) rows, see there)",
    "refinement": "the mean p (1 - p) on the adaptive bins of calib_mse (see there)",
    "smece": "a kernel smoother over the rows with its own bandwidth search (Blasiok & "
             "Nakkiran 2023): not computed from the cells",
}


def wmse_with_bound(stats: ScoreStatistics, nn: float = 0.15,
                    grid_size: int = 101) -> tuple[float, float]:
    """The WMSE (:func:`locacal.metrics.wmse`) from the cells, and the bound on the part of
    its distance to the in-memory value due to the nearest-neighbour means.

    With the weights normalised to sum to the n+ rows of positive weight (cell masses
    m_c = W_c n+ / W; the counts without weights) and k = round(n+ nn), the exact mean at t
    is over the rows nearest to t of normalised weight exactly k (boundary ties shared).
    The radius h is bracketed from the cumulative masses as in
    :meth:`ScoreStatistics.local_constant` (r_lo < h <= r_hi): the cells inside
    [t - r_lo, t + r_lo] (I, mass M_I, label mass Y_I) are wholly in the window, the rest of
    it, of mass a = k - M_I, lies in the ring R of cells touching [t - r_hi, t + r_hi]
    (mass M_R, label mass Y_R). The estimate takes the ring's share a / M_R,
    (Y_I + a Y_R / M_R) / k; the exact mean is (Y_I + x) / k for some label mass x of the
    ring in [max(0, a - (M_R - Y_R)), min(a, Y_R)], so each mean is within eps(t), the
    larger distance to the ends of that interval. Then, as in
    :meth:`ScoreStatistics.lcs_with_bound`, with the density d_j of the cells
    (:meth:`ScoreStatistics.reflected_density`, relative error eta ~ 1e-6 on top),

    .. math:: |\\widetilde{\\mathrm{WMSE}} - \\mathrm{WMSE}_d| \\le
        \\frac{\\sum_j d_j \\varepsilon_j (2 |\\tau_j - \\tilde m_j| + \\varepsilon_j)}
        {\\sum_j d_j}

    over the grid tau_j = linspace(0, 1, grid_size) (all of [0, 1], as in memory).
    """
    mass, rows = stats._row_mass()
    k = min(max(float(np.round(rows * nn)), 1.0), rows)
    grid = np.linspace(0.0, 1.0, grid_size)
    cum_mass = np.concatenate([[0.0], np.cumsum(mass)])
    cum_events = np.concatenate([[0.0], np.cumsum(stats.wy * (rows / stats.total_weight))])
    _, _, core, outer = nn_bracket(grid, k, cum_mass)

    def sums(cum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        inner = cum[core[1]] - cum[core[0]]
        return inner, (cum[outer[1]] - cum[outer[0]]) - inner

    m_in, m_ring = sums(cum_mass)
    y_in, y_ring = sums(cum_events)
    rest = np.clip(k - m_in, 0.0, m_ring)
    share = np.divide(rest, m_ring, out=np.zeros_like(grid), where=m_ring > 0)
    window = m_in + rest
    estimate = (y_in + share * y_ring) / window
    low = (y_in + np.maximum(rest - (m_ring - y_ring), 0.0)) / window
    high = (y_in + np.minimum(rest, y_ring)) / window
    eps = np.maximum(estimate - low, high - estimate)
    dens = stats.reflected_density(grid)
    gap = np.abs(grid - estimate)
    value = float(np.sum(dens * gap**2) / dens.sum())
    return value, float(np.sum(dens * eps * (2.0 * gap + eps)) / dens.sum())


def report_from_statistics(stats: ScoreStatistics, threshold: float = 0.5,
                           columns: tuple[str, ...] = ()) -> tuple[pd.Series, pd.Series]:
    """The report's values from the cells and, beside them, the bound on each one's distance
    to the in-memory value (0 where exact).

    * ``n`` (every row, weight zero too, as in memory), ``brier``: exact; ``accuracy``,
      ``sensitivity``, ``specificity``: exact when the threshold is a cell edge (a multiple
      of 1 / 100800, as 0.5 is), NaN with a warning otherwise;
    * ``ece``, ``qmse``: 10 quantile bins cut at cell edges, the ECE within the bound of
      :meth:`ScoreStatistics.quantile_bins` (QMSE: NaN bound, the rows of the cut cells move
      it by a similar share);
    * ``lcs``: :meth:`ScoreStatistics.lcs_with_bound` (its curve part; the density adds a
      relative 1e-6);
    * ``auc``: :func:`auc_with_bound`; ``wmse``: :func:`wmse_with_bound` (its curve part;
      the density adds a relative 1e-6);
    * ``log_loss``, ``spiegelhalter_z``, ``unc``: exact (kept sums,
      :meth:`ScoreStatistics.log_loss`, :meth:`ScoreStatistics.spiegelhalter_z`);
    * ``mcb``, ``dsc``: PAV over the cells, within the bound of :func:`corp_with_bound`
      (exact when no cell mixes rows the exact PAV separates);
    * ``ece_thresholded`` (when in ``columns``): :func:`ece_thresholded_with_bound`;
    * the columns of :data:`NOT_FROM_CELLS`: NaN.
    """
    values: dict[str, float] = {"n": float(stats.n + stats.zero_weight_rows),
                                "brier": stats.brier()}
    bounds: dict[str, float] = {"n": 0.0, "brier": 0.0}
    bin_stats, ece_bound = stats.quantile_bins(DEFAULT_BINS)
    values["ece"], bounds["ece"] = ece_from_bins(bin_stats), ece_bound
    values["qmse"], bounds["qmse"] = calib_mse_from_bins(bin_stats), float("nan")
    values["lcs"], bounds["lcs"] = stats.lcs_with_bound()
    values["auc"], bounds["auc"] = auc_with_bound(stats)
    values["wmse"], bounds["wmse"] = wmse_with_bound(stats)
    values["log_loss"], values["spiegelhalter_z"] = stats.log_loss(), stats.spiegelhalter_z()
    corp, corp_bound = corp_with_bound(stats)
    values.update(corp)
    bounds.update(log_loss=0.0, spiegelhalter_z=0.0, unc=0.0, mcb=corp_bound, dsc=corp_bound)
    if "ece_thresholded" in columns:
        values["ece_thresholded"], bounds["ece_thresholded"] = ece_thresholded_with_bound(
            stats, threshold)
    if edge_index(threshold) is not None:
        tp, fn, tn, fp = confusion_cells(stats, threshold)
        values["accuracy"] = (tp + tn) / stats.total_weight
        values["sensitivity"] = tp / (tp + fn) if tp + fn > 0 else float("nan")
        values["specificity"] = tn / (tn + fp) if tn + fp > 0 else float("nan")
        bounds.update(accuracy=0.0, sensitivity=0.0, specificity=0.0)
    else:
        warn(f"threshold={plain(threshold)!r} is not a multiple of 1/{CELLS}: accuracy, "
             "sensitivity, specificity (and the thresholded ECE) are NaN for Dask input")
    names = columns or CELL_COLUMNS
    return (pd.Series({c: values.get(c, np.nan) for c in names}, name="value"),
            pd.Series({c: bounds.get(c, np.nan) for c in names}, name="bound"))
