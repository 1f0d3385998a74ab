"""One validated sample, sorted once, with the bins and counts that several metrics share.

Every metric of :mod:`locacal.metrics` starts from :func:`prepare`: the scores, labels and
weights are validated once, and what the metrics need is computed on first use and kept:

* the sample sorted by score (:func:`locacal.data.sample.sort_sample`: ties ordered
  by label, then weight, so nothing depends on the order of the rows);
* bins of the sorted sample (:meth:`PreparedSample.bins`) and their sufficient statistics
  (:meth:`PreparedSample.bin_statistics`), for the uniform, quantile and adaptive strategies
  of :mod:`locacal.curves.binning` — same bins, same warnings;
* the weighted confusion counts at a threshold, and the Mann-Whitney AUC.

Bins of a sorted sample are contiguous runs, so their sums are ``np.add.reduceat`` over the
sorted arrays: one sort serves ECE, QMSE, the thresholded ECE, CalibMSE and the Brier
decomposition. They equal :func:`locacal.curves._bins.bin_statistics` up to the order of
floating-point summation (checked in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from locacal._validation import (
    check_bins,
    check_choice,
    check_fraction,
    check_int,
    check_probabilities,
    check_scores_labels,
    positive_weight_rows,
    warn,
)
from locacal.curves._bins import (
    DEFAULT_BINS,
    STRATEGIES,
    BinStatistics,
    default_bin_size,
    kept_bin_statistics,
)
from locacal.data.quantile import quantile_type7
from locacal.data.sample import SortedSample, sort_sample

__all__ = ["Confusion", "PreparedSample", "SortedBins", "prepare"]


@dataclass(frozen=True, eq=False)
class SortedBins:
    """Non-empty bins of a sorted sample: bin j holds rows ``starts[j]`` to
    ``starts[j + 1] - 1`` (the last to the end); ``upper`` is each bin's right edge."""

    starts: np.ndarray
    upper: np.ndarray
    n: int

    @property
    def count(self) -> np.ndarray:
        return np.diff(np.append(self.starts, self.n)).astype(np.float64)

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (in sorted order) over each bin."""
        return np.add.reduceat(values, self.starts)


def _edge_bins(scores: np.ndarray, edges: np.ndarray) -> SortedBins:
    """Right-closed bins (the first also left-closed) of sorted scores between ``edges``.

    A score s falls in bin j >= 1 when s > edges[j], as ``searchsorted(edges, s) - 1``
    clipped to the bins assigns it in :func:`locacal.curves._bins.assign_bins`.
    """
    n = scores.size
    starts = np.concatenate([[0], np.searchsorted(scores, edges[1:-1], side="right")])
    ends = np.append(starts[1:], n)
    keep = ends > starts
    return SortedBins(starts[keep], edges[1:][keep], n)


@dataclass(frozen=True)
class Confusion:
    """Weighted confusion counts at a threshold (class 1 when s >= threshold)."""

    tp: float
    tn: float
    fp: float
    fn: float


class PreparedSample:
    """Validated scores, labels and weights, with shared work computed on first use.

    Build it with :func:`prepare`. ``scores``, ``labels`` (0.0/1.0) and ``weights`` (None for
    unit weights, else all positive) keep the rows' order; ``true_p`` is None when not given.
    ``rows`` is the number of rows given, those of weight zero included (the report's ``n``);
    by default the sample's own size.
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 true_p: np.ndarray | None, threshold: float, rows: int | None = None) -> None:
        self.scores, self.labels, self.weights = scores, labels, weights
        self.true_p, self.threshold = true_p, threshold
        self.rows = scores.size if rows is None else rows
        self._bins: dict[tuple, SortedBins] = {}
        self._stats: dict[tuple, BinStatistics] = {}
        #: Other results shared between metrics, by name (e.g. the Brier decomposition).
        self.cache: dict[str, Any] = {}

    @property
    def n(self) -> int:
        return int(self.scores.size)

    @cached_property
    def unit_weights(self) -> np.ndarray:
        return np.ones_like(self.scores) if self.weights is None else self.weights

    @cached_property
    def sorted(self) -> SortedSample:
        """The sample sorted by score, ties by label then weight."""
        return sort_sample(self.scores, self.labels, self.weights)

    @cached_property
    def _sorted_y(self) -> np.ndarray:
        return self.sorted.labels.astype(np.float64)

    def mean(self, values: np.ndarray) -> float:
        """Mean of ``values`` (rows' order), weighted by the sample's weights."""
        if self.weights is None:
            return float(np.mean(values))
        return float(np.average(values, weights=self.weights))

    # ------------------------------------------------------------------ bins

    def _key(self, strategy: str, bins: int, bin_size: int | None) -> tuple[str, int]:
        check_choice(strategy, STRATEGIES, "strategy")
        bins = check_bins(bins, self.n, default=DEFAULT_BINS)
        size = check_int(default_bin_size(self.n) if bin_size is None else bin_size,
                         "bin_size", minimum=1)
        return (strategy, size) if strategy == "adaptive" else (strategy, bins)

    def bins(self, strategy: str = "quantile", bins: int = 10,
             bin_size: int | None = None) -> SortedBins:
        """Non-empty bins of the sorted sample, formed as :mod:`locacal.curves.binning` forms
        them (same arguments, same warnings): ``bins`` quantile or uniform bins, or adaptive
        bins of ``bin_size`` rows (default ``round(sqrt(n))``)."""
        key = self._key(strategy, bins, bin_size)
        if key not in self._bins:
            self._bins[key] = self._make_bins(*key)
        return self._bins[key]

    def _make_bins(self, strategy: str, bins: int) -> SortedBins:
        """``bins`` is the number of bins, or for ``"adaptive"`` the rows per bin."""
        s = self.sorted.scores
        if strategy == "uniform":
            return _edge_bins(s, np.linspace(0.0, 1.0, bins + 1))
        if strategy == "quantile":
            breaks = self._quantile_breaks(
                quantile_type7(s, self.sorted.weights, np.arange(bins + 1) / bins), bins)
            if breaks.size == 1:  # a single distinct score: one bin
                return SortedBins(np.zeros(1, dtype=np.int64), breaks, self.n)
            return _edge_bins(s, breaks)
        # adaptive (thesis §3.2.1): runs of `bins` sorted rows, a short last run merged
        if self.n < bins:
            warn(f"only {self.n} observations for bin_size={bins}: a single bin")
        n_bins = max(self.n // bins, 1)
        starts = np.arange(n_bins, dtype=np.int64) * bins
        upper = s[np.append(starts[1:], self.n) - 1]
        return SortedBins(starts, upper, self.n)

    def bin_statistics(self, strategy: str = "quantile", bins: int = 10,
                       bin_size: int | None = None) -> BinStatistics:
        """:class:`~locacal.curves._bins.BinStatistics` of the bins (bins of zero weight
        dropped; warns when a bin holds fewer than 10 observations)."""
        key = self._key(strategy, bins, bin_size)
        if key in self._stats:
            return self._stats[key]
        if self._without_sort(key[0]):
            stats = self._unsorted_statistics(*key)
            self._stats[key] = stats
            return stats
        b = self.bins(strategy, bins, bin_size)
        sample = self.sorted
        count = b.count
        if sample.weights is None:
            weight = weight_sq = count
        else:
            weight = b.sums(sample.weights)
            weight_sq = b.sums(sample.weights**2)
        label_sum = b.sums(self._sorted_y if sample.weights is None
                           else sample.weights * self._sorted_y)
        score_sum = b.sums(sample.scores if sample.weights is None
                           else sample.weights * sample.scores)
        stats = kept_bin_statistics(count, weight, weight_sq, label_sum, score_sum, b.upper)
        self._stats[key] = stats
        return stats

    def _without_sort(self, strategy: str) -> bool:
        """Whether bins of ``strategy`` are summed in the rows' order, without a sort:
        uniform bins, and unweighted quantile bins (quantiles by selection). Always, even
        when another metric has sorted the sample already, so that a metric's value does not
        depend (in its last bit) on what else was computed before it."""
        return strategy == "uniform" or (strategy == "quantile" and self.weights is None)

    def _unsorted_statistics(self, strategy: str, bins: int) -> BinStatistics:
        """:meth:`bin_statistics` without sorting: the edges as :meth:`_make_bins` forms
        them (type-7 quantiles are order statistics, the same whether found by sorting or by
        selection), each row's bin by binary search among the inner edges (bin j >= 1 holds
        the scores above edge j: ``searchsorted(..., side="left")``), sums by ``bincount``.
        The sums differ from the sorted ones by the order of summation only."""
        s = self.scores
        if strategy == "uniform":
            edges = np.linspace(0.0, 1.0, bins + 1)
        else:
            # order statistics: the same from the sorted sample when another metric has
            # sorted it (np.quantile's selection is then quick)
            ordered = self.sorted.scores if "sorted" in self.__dict__ else s
            edges = self._quantile_breaks(
                quantile_type7(ordered, None, np.arange(bins + 1) / bins), bins)
        if edges.size == 1:  # a single distinct score: one bin
            index, upper = np.zeros(s.size, dtype=np.intp), edges
        else:
            index, upper = _bin_index(s, edges[1:-1]), edges[1:]
        size = upper.size
        count = np.bincount(index, minlength=size).astype(np.float64)
        w = self.weights
        if w is None:
            weight = weight_sq = count
            label_sum = np.bincount(index, weights=self.labels, minlength=size)
            score_sum = _score_sums(index, s, size)
        else:
            weight = np.bincount(index, weights=w, minlength=size)
            weight_sq = np.bincount(index, weights=w * w, minlength=size)
            label_sum = np.bincount(index, weights=w * self.labels, minlength=size)
            score_sum = np.bincount(index, weights=w * s, minlength=size)
        filled = count > 0  # empty bins are no bins, as in the sorted sample's runs
        return kept_bin_statistics(count[filled], weight[filled], weight_sq[filled],
                                label_sum[filled], score_sum[filled], upper[filled])

    @staticmethod
    def _quantile_breaks(quantiles: np.ndarray, bins: int) -> np.ndarray:
        """Distinct quantile edges; warns when ties leave fewer bins than requested."""
        breaks = np.unique(quantiles)
        if breaks.size - 1 < bins:
            warn(f"tied scores leave {max(breaks.size - 1, 1)} distinct quantile bins of "
                 f"the {bins} requested")
        return breaks

    # ------------------------------------------------------------------ classification

    def confusion(self, threshold: float | None = None) -> Confusion:
        """Weighted TP, TN, FP, FN with the class 1 predicted when s >= threshold (default
        the sample's threshold)."""
        tau = self.threshold if threshold is None else check_fraction(
            threshold, "threshold", low_open=False)
        key = ("confusion", tau)  # accuracy, sensitivity and specificity share it
        if key not in self.cache:
            w = self.unit_weights
            pred = self.scores >= tau
            pos = self.labels == 1.0
            self.cache[key] = Confusion(float(w[pred & pos].sum()), float(w[~pred & ~pos].sum()),
                                        float(w[pred & ~pos].sum()), float(w[~pred & pos].sum()))
        return self.cache[key]

    @cached_property
    def mann_whitney_auc(self) -> float:
        """Area under the ROC curve from the sorted sample (NaN for a single class).

        .. math:: \\mathrm{AUC} = \\frac{1}{W_+ W_-} \\sum_g W_{+,g}
            \\Big(\\sum_{h < g} W_{-,h} + \\tfrac12 W_{-,g}\\Big)

        over groups g of tied scores in increasing order, W_{+,g} and W_{-,g} the weights of
        the positives and negatives of the group: the Mann-Whitney statistic, a tie counting
        one half (Hanley & McNeil 1982; Mann & Whitney 1947). Unit weights give integer
        sums, exact in float64 below 2^53.
        """
        sample = self.sorted
        s = sample.scores
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        y = self._sorted_y
        # each class summed on its own: total - pos would cancel a weight below 1e-16 of the
        # group's (a negative of relative weight 1e-40 tied with a positive of weight 1)
        pos = np.add.reduceat(y if sample.weights is None else sample.weights * y, starts)
        neg = np.add.reduceat(1.0 - y if sample.weights is None
                              else sample.weights * (1.0 - y), starts)
        below = np.concatenate([[0.0], np.cumsum(neg)[:-1]])
        p_sum, n_sum = pos.sum(), neg.sum()
        if p_sum <= 0 or n_sum <= 0:
            return float("nan")
        return float(np.dot(pos, below + 0.5 * neg) / (p_sum * n_sum))


#: Up to this many inner edges a row's bin is found by counting comparisons.
_COMPARED_EDGES = 16


def _bin_index(scores: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """``searchsorted(inner, scores, side="left")``: the number of inner edges below each
    score. For a few edges, as a sum of comparisons (one vectorised pass per edge, about four
    times faster than the binary search on unsorted scores)."""
    if inner.size > _COMPARED_EDGES:
        return np.searchsorted(inner, scores, side="left")
    index = np.zeros(scores.size, dtype=np.uint8)
    for edge in inner.tolist():
        np.add(index, scores > edge, out=index)
    return index.astype(np.intp)


#: Scores are split at this power of two for :func:`_score_sums`.
_SPLIT = 2.0**20


def _score_sums(index: np.ndarray, scores: np.ndarray, size: int) -> np.ndarray:
    """Per-bin sums of scores in [0, 1], in the rows' order but almost exact.

    Each score is split into s_hi, s rounded to a multiple of 2^-20, and s_lo = s - s_hi
    (both exact). Every partial sum of the s_hi is a multiple of 2^-20 below n, hence exact
    in double precision while n < 2^33; the s_lo are below 2^-21, so their sum's rounding
    is negligible. The bin sums are then as accurate as the sorted sample's pairwise sums or
    better (``bincount``'s running sum alone errs by up to n eps times the sum, which the
    ECE, a sum of small differences of such sums, would show).
    """
    high = np.rint(scores * _SPLIT)
    high /= _SPLIT
    low = scores - high
    return (np.bincount(index, weights=high, minlength=size)
            + np.bincount(index, weights=low, minlength=size))


def prepare(scores: Any, labels: Any, weights: Any = None, *, true_p: Any = None,
            threshold: float = 0.5, warn_one_class: bool = True) -> PreparedSample:
    """Validate a sample once (:func:`locacal._validation.check_scores_labels`, plus
    ``true_p`` and ``threshold`` when given) and wrap it for the metrics.

    Rows of weight zero are not in the sample: they are dropped here, once for every metric
    (adaptive bins of sqrt(n) rows and the bound on ``bins`` count the others only), and
    counted in :attr:`PreparedSample.rows`.
    """
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=warn_one_class)
    p = None if true_p is None else check_probabilities(true_p, s.size)
    tau = check_fraction(threshold, "threshold", low_open=False)
    rows = s.size
    s, y, w, p = positive_weight_rows(s, y, w, p)
    return PreparedSample(s, y, w, p, tau, rows)
