"""The ECE and the ICI as functionals of a vector of calibration gaps.

Both metrics are weighted sums of absolute gaps, ``M = sum_j w_j |gap_j|``:

* the ECE (10 quantile bins): j runs over the bins, ``w_j`` is the bin's share of the rows
  and ``gap_j`` its mean label minus its mean score;
* the ICI (R's lowess, Austin & Steyerberg 2019): j runs over the rows, ``w_j = 1 / n`` and
  ``gap_j = g(s_j) - s_j``, g the lowess fit.

:func:`ece_gaps` and :func:`ici_gaps` return the value together with the weights and the
gaps, computed by the same code as the registry's ``ece`` and ``ici`` (so the value equals
:func:`locacal.metrics.registry.evaluate`'s bit for bit; tests/test_compare_models.py
checks it). :func:`locacal.compare_models` needs the gaps for its directional bootstrap
(:mod:`locacal.report._directional`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import check_scores_labels
from locacal.data.bins import DEFAULT_BINS, BinStatistics
from locacal.metrics._prepared import prepare
from locacal.metrics._r_lowess import r_lowess_fit
from locacal.metrics.binned import ece_from_bins
from locacal.metrics.clinical import calibration_errors

__all__ = ["ece_gaps", "ece_gaps_on_bins", "ici_gaps"]


def ece_gaps(scores: Any, labels: Any) -> tuple[float, np.ndarray, np.ndarray, BinStatistics]:
    """The ECE of 10 quantile bins (the registry's ``ece``), each bin's share of the rows,
    its gap (mean label - mean score) and the bins: ``(value, share, gap, bins)``, with
    ``value = sum(share * |gap|)`` up to rounding (the value is ``ece_from_bins``')."""
    stats = prepare(scores, labels).bin_statistics("quantile", DEFAULT_BINS)
    share = stats.weight / stats.weight.sum()
    return ece_from_bins(stats), share, stats.mean_label - stats.mean_score, stats


def ece_gaps_on_bins(bins: BinStatistics, scores: np.ndarray, labels: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Share and gap of each of the given ``bins`` (right-closed at ``bins.upper``, scores
    beyond the ends in the end bins) on validated unweighted data; NaN gaps for empty bins."""
    k = bins.assign(scores)
    count = np.bincount(k, minlength=bins.upper.size).astype(np.float64)
    total = np.bincount(k, weights=labels - scores, minlength=bins.upper.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return count / scores.size, total / count


def ici_gaps(scores: Any, labels: Any) -> tuple[float, np.ndarray]:
    """The ICI (the registry's ``ici``: R's lowess, unweighted) and the gaps
    ``g(s_i) - s_i`` at the rows, in their order: ``(value, gap)``."""
    s, y, _ = check_scores_labels(scores, labels)
    gap = r_lowess_fit(s, y) - s
    err = np.abs(gap)
    if not np.isfinite(err).all():  # the registry's rule (a warning, the finite errors)
        return float(calibration_errors(s, y)["ici"]), gap
    return float(np.dot(np.ones(s.size), err) / np.ones(s.size).sum()), gap
