"""Calibration curves by binning: uniform, quantile and adaptive (equal-count) bins.

All three strategies reduce to the same sufficient statistics per bin (count, sum of weights,
weighted sums of labels and scores), computed by :func:`bin_statistics`; the metrics that
bin (ECE, QMSE, the thesis's MSE calibration score) reuse them.

Conventions
-----------
* ``"uniform"``: ``bins`` equal-width bins of [0, 1], closed on the right, the first also on
  the left: [0, 1/B], (1/B, 2/B], ... Empty bins are dropped from the curve.
* ``"quantile"``: breaks at the type-7 empirical quantiles ``quantile(s, (0:B)/B)``,
  duplicated breaks dropped, bins closed on the right and the lowest closed on the left, exactly
  as the 2024 R code does with ``cut(..., include.lowest = TRUE)``. With ties there may be
  fewer than ``bins`` bins (a warning says so).
* ``"adaptive"``: Nguyen (thesis, §3.2.1): sort the scores, put ``bin_size`` consecutive points
  in each bin, and merge a last bin shorter than ``bin_size`` into the one before. Tied
  scores are ordered by label (0 before 1) and then by weight, so the result does not depend
  on the order of the rows.

Weights are frequency weights: quantile breaks are those of the sample in which each score is
repeated ``w`` times (so an integer weight equals duplicated rows), and bin means are weighted.
Adaptive bins count observations (rows), as the thesis defines them.

The pointwise band is the thesis's normal approximation (§3.2.2),
p_b ± z sqrt(p_b (1 - p_b) / n_b), with Kish's effective size (sum w)^2 / sum w^2 in place
of n_b under weights, clipped to [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from locacal._validation import check_bins, check_choice, check_int, positive_weight_rows, warn
from locacal.data.quantile import quantile_type7

__all__ = [
    "DEFAULT_BINS",
    "STRATEGIES",
    "BinStatistics",
    "assign_bins",
    "bin_statistics",
    "default_bin_size",
    "kept_bin_statistics",
]

STRATEGIES = ("quantile", "uniform", "adaptive")
#: Number of quantile or uniform bins when ``bins`` is not given.
DEFAULT_BINS = 10
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class BinStatistics:
    """Sufficient statistics of non-empty bins, in increasing score order.

    ``upper`` holds each bin's right edge (the largest score the bin accepts), used to send
    new scores to bins.
    """

    count: np.ndarray      # observations per bin
    weight: np.ndarray     # sum of weights per bin (= count without weights)
    weight_sq: np.ndarray  # sum of squared weights per bin
    label_sum: np.ndarray  # sum of w * y
    score_sum: np.ndarray  # sum of w * s
    upper: np.ndarray

    @property
    def mean_label(self) -> np.ndarray:
        return self.label_sum / self.weight

    @property
    def mean_score(self) -> np.ndarray:
        return self.score_sum / self.weight

    @property
    def effective_size(self) -> np.ndarray:
        return self.weight**2 / self.weight_sq

    def assign(self, scores: np.ndarray) -> np.ndarray:
        """Index of the bin each score falls in (right-closed; beyond the ends: end bins)."""
        idx = np.searchsorted(self.upper, scores, side="left")
        return np.minimum(idx, self.upper.size - 1)


def _quantile_breaks(scores: np.ndarray, weights: np.ndarray | None, bins: int) -> np.ndarray:
    order = np.argsort(scores, kind="stable")
    probs = np.arange(bins + 1) / bins
    breaks = np.unique(quantile_type7(scores[order], None if weights is None else weights[order],
                                      probs))
    if breaks.size - 1 < bins:
        warn(f"tied scores leave {max(breaks.size - 1, 1)} distinct quantile bins of the "
             f"{bins} requested")
    return breaks


def assign_bins(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
               strategy: str, bins: int, bin_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin index of every observation and the right edge of every (possibly empty) bin.

    ``bins`` and ``bin_size`` must already be validated; see :func:`bin_statistics`.
    """
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
        idx = np.clip(np.searchsorted(edges, scores, side="left") - 1, 0, bins - 1)
        return idx, edges[1:]
    if strategy == "quantile":
        breaks = _quantile_breaks(scores, weights, bins)
        if breaks.size == 1:  # a single distinct score: one bin
            return np.zeros(scores.size, dtype=np.int64), breaks
        idx = np.clip(np.searchsorted(breaks, scores, side="left") - 1, 0, breaks.size - 2)
        return idx, breaks[1:]
    # adaptive, thesis §3.2.1
    # np.lexsort sorts by its last key first: score, then label, then weight
    order = np.lexsort((labels, scores) if weights is None else (weights, labels, scores))
    n = scores.size
    n_bins = max(n // bin_size, 1)  # a short last bin is merged into the one before
    if n < bin_size:
        warn(f"only {n} observations for bin_size={bin_size}: a single bin")
    rank_bin = np.minimum(np.arange(n) // bin_size, n_bins - 1)
    idx = np.empty(n, dtype=np.int64)
    idx[order] = rank_bin
    upper = np.maximum.reduceat(scores[order], np.arange(0, n_bins * bin_size, bin_size)[:n_bins])
    return idx, upper


def default_bin_size(n: int) -> int:
    """The thesis's choice of adaptive bin size, the square root of n (§4.3.3)."""
    return max(round(np.sqrt(n)), 1)


def bin_statistics(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
                   *, strategy: str = "quantile", bins: int = 10,
                   bin_size: int | None = None) -> BinStatistics:
    """Per-bin count, weight and weighted sums of labels and scores (empty bins dropped).

    Parameters
    ----------
    scores, labels, weights : ndarray
        Validated data (see :func:`locacal._validation.check_scores_labels`); rows of weight
        zero are not in the sample and are dropped first (they count in no bin).
    strategy : {"quantile", "uniform", "adaptive"}
        See the module documentation.
    bins : int
        Number of bins for ``"quantile"`` and ``"uniform"``, at most the number of
        observations with positive weight (or 10 on smaller samples; more bins would only be
        empty, :func:`locacal._validation.check_bins`).
    bin_size : int, optional
        Points per bin for ``"adaptive"``; default ``round(sqrt(n))`` (thesis §4.3.3).
    """
    check_choice(strategy, STRATEGIES, "strategy")
    scores, labels, weights = positive_weight_rows(scores, labels, weights)
    bins = check_bins(bins, scores.size, default=DEFAULT_BINS)
    bin_size = check_int(default_bin_size(scores.size) if bin_size is None else bin_size,
                         "bin_size", minimum=1)
    idx, upper = assign_bins(scores, labels, weights, strategy, bins, bin_size)
    m = upper.size
    w = np.ones_like(scores) if weights is None else weights
    count = np.bincount(idx, minlength=m).astype(np.float64)
    weight = np.bincount(idx, weights=w, minlength=m)
    weight_sq = np.bincount(idx, weights=w * w, minlength=m)
    label_sum = np.bincount(idx, weights=w * labels, minlength=m)
    score_sum = np.bincount(idx, weights=w * scores, minlength=m)
    return kept_bin_statistics(count, weight, weight_sq, label_sum, score_sum, upper)


def kept_bin_statistics(count: np.ndarray, weight: np.ndarray, weight_sq: np.ndarray,
                        label_sum: np.ndarray, score_sum: np.ndarray,
                        upper: np.ndarray) -> BinStatistics:
    """Bin statistics without the bins of zero weight; warns when a bin holds fewer than 10
    observations."""
    keep = weight > 0
    small = count[keep] < 10
    if small.any():
        warn(f"{int(small.sum())} bin(s) hold fewer than 10 observations: their estimates "
             "are noisy")
    return BinStatistics(count[keep], weight[keep], weight_sq[keep], label_sum[keep],
                         score_sum[keep], upper[keep])
