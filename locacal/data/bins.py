"""Bins of a sample and their sufficient statistics: uniform, quantile and adaptive
(equal-count) bins.

All three strategies reduce to the same sufficient statistics per bin (count, sum of weights,
weighted sums of labels and scores), :class:`BinStatistics`; the binning calibrator
(:mod:`locacal.curves.binning`) and the metrics that bin (ECE, QMSE, the thesis's MSE
calibration score, the Brier decomposition) all take them from :func:`sample_bin_statistics`.

Conventions
-----------
* ``"uniform"``: ``bins`` equal-width bins of [0, 1], closed on the right, the first also on
  the left: [0, 1/B], (1/B, 2/B], ... Empty bins are dropped.
* ``"quantile"``: breaks at the type-7 empirical quantiles ``quantile(s, (0:B)/B)``,
  duplicated breaks dropped, bins closed on the right and the lowest closed on the left, exactly
  as the 2024 R code does with ``cut(..., include.lowest = TRUE)``. With ties there may be
  fewer than ``bins`` bins (a warning says so, :func:`locacal.data.quantile.quantile_breaks`).
* ``"adaptive"``: Nguyen (thesis, §3.2.1): sort the scores, put ``bin_size`` consecutive points
  in each bin, and merge a last bin shorter than ``bin_size`` into the one before. Tied
  scores are ordered by label (0 before 1) and then by weight, so the result does not depend
  on the order of the rows.

Weights are frequency weights: quantile breaks are those of the sample in which each score is
repeated ``w`` times (so an integer weight equals duplicated rows), and bin means are weighted.
Adaptive bins count observations (rows), as the thesis defines them. Rows of weight zero are
not in the sample (:func:`locacal._validation.positive_weight_rows`).

How the sums are formed
-----------------------
Bins of the sorted sample are contiguous runs (:class:`SortedBins`), so their sums are
``np.add.reduceat`` over the sorted arrays: one sort serves every bin size. Uniform bins and
unweighted quantile bins (quantiles by selection) are summed in the rows' order instead,
without a sort, always, so that a metric's value does not depend (in its last bit) on what
else was computed on the sample before it; their score sums are nearly exact
(:func:`_split_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from locacal._validation import check_bins, check_choice, check_int, positive_weight_rows, warn
from locacal.data.blockwise import blocks
from locacal.data.quantile import quantile_breaks, quantile_type7
from locacal.data.sample import Sample

__all__ = [
    "DEFAULT_BINS",
    "STRATEGIES",
    "BinStatistics",
    "SortedBins",
    "bin_statistics",
    "default_bin_size",
    "sample_bin_statistics",
    "sample_bins",
    "sorted_bins",
]

STRATEGIES = ("quantile", "uniform", "adaptive")
#: Number of quantile or uniform bins when ``bins`` is not given.
DEFAULT_BINS = 10


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


def default_bin_size(n: int) -> int:
    """The thesis's choice of adaptive bin size, the square root of n (§4.3.3)."""
    return max(round(np.sqrt(n)), 1)


def bin_statistics(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
                   *, strategy: str = "quantile", bins: int = DEFAULT_BINS,
                   bin_size: int | None = None,
                   counts: np.ndarray | None = None) -> BinStatistics:
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
    counts : ndarray, optional
        Frequency weights (``weights`` then the combined ``w f``): the bins of the expanded
        rows (:func:`_counts_statistics`).
    """
    return sample_bin_statistics(Sample(*positive_weight_rows(scores, labels, weights,
                                                              counts)),
                                 strategy, bins, bin_size)


def _key(sample: Sample, strategy: str, bins: int, bin_size: int | None) -> tuple[str, int]:
    """The validated strategy and its one parameter: the number of bins, or for
    ``"adaptive"`` the rows per bin."""
    check_choice(strategy, STRATEGIES, "strategy")
    bins = check_bins(bins, sample.observations, default=DEFAULT_BINS)
    size = check_int(default_bin_size(sample.observations) if bin_size is None else bin_size,
                     "bin_size", minimum=1)
    return (strategy, size) if strategy == "adaptive" else (strategy, bins)


def sample_bins(sample: Sample, strategy: str = "quantile", bins: int = DEFAULT_BINS,
                bin_size: int | None = None) -> SortedBins:
    """Non-empty bins of the sorted sample (arguments as :func:`bin_statistics`), kept in
    ``sample.cache``."""
    return _cached_bins(sample, *_key(sample, strategy, bins, bin_size))


def _cached_bins(sample: Sample, strategy: str, size: int) -> SortedBins:
    key = ("bins", strategy, size)
    if key not in sample.cache:
        sample.cache[key] = sorted_bins(sample.sorted.scores, sample.sorted.weights, strategy,
                                        size, sample.sorted.counts)
    return sample.cache[key]


def sorted_bins(scores: np.ndarray, weights: np.ndarray | None, strategy: str,
                size: int, counts: np.ndarray | None = None) -> SortedBins:
    """Non-empty bins of sorted ``scores`` (``weights`` in the same order): ``size`` uniform or
    quantile bins, or adaptive bins of ``size`` rows; arguments already validated. With
    ``counts`` (frequency weights) the quantiles are the expanded rows'; adaptive bins, which
    may split a row's copies, are then :func:`_counts_statistics`' only."""
    n = scores.size
    if counts is not None and strategy == "adaptive":
        raise ValueError("adaptive bins of grouped rows (frequency_weights) may split a row's "
                         "copies: use the bin statistics, not the bins")
    if strategy == "uniform":
        return _edge_bins(scores, np.linspace(0.0, 1.0, size + 1))
    if strategy == "quantile":
        breaks = quantile_breaks(quantile_type7(scores, weights, np.arange(size + 1) / size,
                                                counts=counts), size)
        if breaks.size == 1:  # a single distinct score: one bin
            return SortedBins(np.zeros(1, dtype=np.int64), breaks, n)
        return _edge_bins(scores, breaks)
    # adaptive (thesis §3.2.1): runs of `size` sorted rows, a short last run merged
    if n < size:
        warn(f"only {n} observations for bin_size={size}: a single bin")
    n_bins = max(n // size, 1)
    starts = np.arange(n_bins, dtype=np.int64) * size
    return SortedBins(starts, scores[np.append(starts[1:], n) - 1], n)


def _edge_bins(scores: np.ndarray, edges: np.ndarray) -> SortedBins:
    """Right-closed bins (the first also left-closed) of sorted scores between ``edges``:
    a score s falls in bin j >= 1 when s > edges[j]."""
    n = scores.size
    starts = np.concatenate([[0], np.searchsorted(scores, edges[1:-1], side="right")])
    ends = np.append(starts[1:], n)
    keep = ends > starts
    return SortedBins(starts[keep], edges[1:][keep], n)


def sample_bin_statistics(sample: Sample, strategy: str = "quantile",
                          bins: int = DEFAULT_BINS,
                          bin_size: int | None = None) -> BinStatistics:
    """:class:`BinStatistics` of the sample's bins (arguments as :func:`bin_statistics`;
    bins of zero weight dropped; warns when a bin holds fewer than 10 observations), kept in
    ``sample.cache``."""
    strategy, size = _key(sample, strategy, bins, bin_size)
    key = ("bin_statistics", strategy, size)
    if key in sample.cache:
        return sample.cache[key]
    if sample.counts is not None:
        stats = _counts_statistics(sample, strategy, size)
    elif strategy == "uniform" or (strategy == "quantile" and sample.weights is None):
        stats = _unsorted_statistics(sample, strategy, size)
    else:
        stats = _sorted_statistics(sample, _cached_bins(sample, strategy, size))
    sample.cache[key] = stats
    return stats


def _sorted_statistics(sample: Sample, b: SortedBins) -> BinStatistics:
    """Sums over the runs of the sorted sample (pairwise summation)."""
    sorted_ = sample.sorted
    count = b.count
    if sorted_.weights is None:
        weight = weight_sq = count
    else:
        weight = b.sums(sorted_.weights)
        weight_sq = b.sums(sorted_.weights**2)
    # unweighted: event counts, summed from the boolean labels (the same exact integers as
    # from their 0.0/1.0 copy, which is not made)
    label_sum = (np.add.reduceat(sorted_.labels, b.starts, dtype=np.float64)
                 if sorted_.weights is None else b.sums(sorted_.weights * sample.sorted_y))
    score_sum = b.sums(sorted_.scores if sorted_.weights is None
                       else sorted_.weights * sorted_.scores)
    return _kept(count, weight, weight_sq, label_sum, score_sum, b.upper)


def _unsorted_statistics(sample: Sample, strategy: str, bins: int) -> BinStatistics:
    """The statistics without sorting: the edges as :func:`sorted_bins` forms them (type-7
    quantiles are order statistics, the same whether found by sorting or by selection), each
    row's bin by binary search among the inner edges (bin j >= 1 holds the scores above edge
    j: ``searchsorted(..., side="left")``), sums in the rows' order (``np.add.at`` block by
    block, as ``np.bincount`` would add them). The sums differ from the sorted ones by the
    order of summation only."""
    s = sample.scores
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
    else:
        # order statistics: the same read off the sorted sample when another computation
        # has sorted it, else found by selection (np.quantile)
        probs = np.arange(bins + 1) / bins
        edges = quantile_breaks(quantile_type7(sample.sorted.scores, None, probs)
                                if "sorted" in sample.__dict__ else np.quantile(s, probs), bins)
    # a single distinct score: one bin
    upper, inner = (edges, edges[:0]) if edges.size == 1 else (edges[1:], edges[1:-1])
    size = upper.size
    w = sample.weights
    # sums in the rows' order, block by block: np.add.at adds as np.bincount does (the same
    # bits), without 1e7-row temporaries
    count = np.zeros(size, dtype=np.int64)
    sums = np.zeros((4, size))  # weight, weight_sq, label_sum, score_sum (w = 1: high, low)
    for rows in blocks(s.size):
        sr, yr = s[rows], sample.labels[rows]
        index = _bin_index(sr, inner)
        count += np.bincount(index, minlength=size)
        if w is None:
            np.add.at(sums[2], index, yr)
            for part, values in zip(sums[:2], _split_scores(sr), strict=True):
                np.add.at(part, index, values)
        else:
            wr = w[rows]
            for part, values in zip(sums, (wr, wr * wr, wr * yr, wr * sr), strict=True):
                np.add.at(part, index, values)
    count = count.astype(np.float64)
    if w is None:
        weight = weight_sq = count
        label_sum, score_sum = sums[2], sums[0] + sums[1]
    else:
        weight, weight_sq, label_sum, score_sum = sums
    filled = count > 0  # empty bins are no bins, as in the sorted sample's runs
    return _kept(count[filled], weight[filled], weight_sq[filled], label_sum[filled],
                 score_sum[filled], upper[filled])


def _counts_statistics(sample: Sample, strategy: str, size: int) -> BinStatistics:
    """The bins of the expanded rows from grouped ones (frequency weights ``f``, combined
    weights ``w f``), without expanding them.

    Quantile and uniform edges are scores, so all copies of a row fall in one bin: per-bin
    sums of ``f``, ``w f``, ``f w^2``, ``w f y``, ``w f s`` (the quantiles are those of the
    expanded rows, :func:`~locacal.data.quantile.quantile_type7` with ``counts``). Adaptive
    bins are runs of ``size`` sorted observations, so a row's copies may straddle bins: the
    observations are cut at every row and bin boundary into pieces, each within one row and
    one bin, and each bin sums its pieces' length times their row's value.
    """
    st = sample.sorted
    s, y, f = st.scores, sample.sorted_y, st.counts
    per_obs = st.weights / f  # each copy's relative weight
    values = (np.ones_like(s), per_obs, per_obs * per_obs, per_obs * y, per_obs * s)
    if strategy == "adaptive":
        total = float(f.sum())
        if total < size:
            warn(f"only {int(total)} observations for bin_size={size}: a single bin")
        n_bins = max(int(total) // size, 1)
        edges = np.append(np.arange(n_bins, dtype=np.float64) * size, total)
        cum = np.concatenate([[0.0], np.cumsum(f)])
        # pieces: the observation ranges between consecutive row or bin boundaries, each in
        # one row and one bin, so every sum is a bincount of piece length x row value
        cuts = np.union1d(cum, edges)
        start, length = cuts[:-1], np.diff(cuts)
        row = np.searchsorted(cum, start, side="right") - 1
        bin_of = np.minimum(np.searchsorted(edges, start, side="right") - 1, n_bins - 1)
        sums = [np.bincount(bin_of, weights=length * v[row], minlength=n_bins)
                for v in values]
        last = np.searchsorted(cum, edges[1:] - 1.0, side="right") - 1
        return _kept(*sums, s[last])
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, size + 1)
    else:
        edges = quantile_breaks(quantile_type7(s, st.weights, np.arange(size + 1) / size,
                                               counts=f), size)
    if edges.size == 1:
        index, upper = np.zeros(s.size, dtype=np.intp), edges
    else:
        index, upper = _bin_index(s, edges[1:-1]), edges[1:]
    sums = [np.bincount(index, weights=f * v, minlength=upper.size) for v in values]
    filled = sums[0] > 0
    return _kept(*(v[filled] for v in sums), upper[filled])


def _kept(count: np.ndarray, weight: np.ndarray, weight_sq: np.ndarray, label_sum: np.ndarray,
          score_sum: np.ndarray, upper: np.ndarray) -> BinStatistics:
    """Bin statistics without the bins of zero weight; warns when a bin holds fewer than 10
    observations."""
    keep = weight > 0
    small = count[keep] < 10
    if small.any():
        warn(f"{int(small.sum())} bin(s) hold fewer than 10 observations: their estimates "
             "are noisy")
    return BinStatistics(count[keep], weight[keep], weight_sq[keep], label_sum[keep],
                         score_sum[keep], upper[keep])


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


#: Scores are split at this power of two for :func:`_split_scores`.
_SPLIT = 2.0**20


def _split_scores(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores in [0, 1] split for almost exact sums in the rows' order.

    Each score is split into s_hi, s rounded to a multiple of 2^-20, and s_lo = s - s_hi
    (both exact). Every partial sum of the s_hi is a multiple of 2^-20 below n, hence exact
    in double precision while n < 2^33; the s_lo are below 2^-21, so their sum's rounding
    is negligible. Bin sums of s_hi plus those of s_lo are then as accurate as the sorted
    sample's pairwise sums or better (``bincount``'s running sum alone errs by up to n eps
    times the sum, which the ECE, a sum of small differences of such sums, would show).
    """
    high = np.rint(scores * _SPLIT)
    high /= _SPLIT
    return high, scores - high
