"""One validated sample, sorted once, with the bins and counts that several metrics share.

Every metric of :mod:`locacal.metrics` starts from :func:`prepare`: the scores, labels and
weights are validated once, and what the metrics need is computed on first use and kept:

* the sample sorted by score (:class:`locacal.data.sample.Sample`: ties ordered by label,
  then weight, so nothing depends on the order of the rows);
* bins of the sorted sample (:meth:`PreparedSample.bins`) and their sufficient statistics
  (:meth:`PreparedSample.bin_statistics`), for the uniform, quantile and adaptive strategies
  of :mod:`locacal.data.bins` — the bins of :mod:`locacal.curves.binning`, same warnings;
* the weighted confusion counts at a threshold, and the Mann-Whitney AUC.

Bins of a sorted sample are contiguous runs, so their sums are ``np.add.reduceat`` over the
sorted arrays: one sort serves ECE, QMSE, the thresholded ECE, CalibMSE and the Brier
decomposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from locacal._validation import (
    check_fraction,
    check_probabilities,
    check_scores_labels,
    positive_weight_rows,
)
from locacal.data.bins import (
    DEFAULT_BINS,
    BinStatistics,
    SortedBins,
    sample_bin_statistics,
    sample_bins,
)
from locacal.data.blockwise import blocks, pairwise_sums
from locacal.data.frequency import weighting
from locacal.data.sample import Sample

__all__ = ["Confusion", "PreparedSample", "prepare"]


@dataclass(frozen=True)
class Confusion:
    """Weighted confusion counts at a threshold (class 1 when s >= threshold)."""

    tp: float
    tn: float
    fp: float
    fn: float


class PreparedSample(Sample):
    """Validated scores, labels and weights, with shared work computed on first use.

    Build it with :func:`prepare`. ``scores``, ``labels`` (0.0/1.0) and ``weights`` (None for
    unit weights, else all positive) keep the rows' order; ``true_p`` is None when not given.
    ``rows`` is the number of rows given, those of weight zero included (the report's ``n``);
    by default the sample's own size. ``cache`` (:class:`locacal.data.sample.Sample`) also
    keeps results shared between metrics, by name (e.g. the Brier decomposition).
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 true_p: np.ndarray | None, threshold: float, rows: int | None = None,
                 counts: np.ndarray | None = None) -> None:
        super().__init__(scores, labels, weights, counts)
        self.true_p, self.threshold = true_p, threshold
        self.rows = scores.size if rows is None else rows

    def bins(self, strategy: str = "quantile", bins: int = DEFAULT_BINS,
             bin_size: int | None = None) -> SortedBins:
        """:func:`locacal.data.bins.sample_bins`: non-empty bins of the sorted sample, formed
        as :mod:`locacal.curves.binning` forms them (same arguments, same warnings)."""
        return sample_bins(self, strategy, bins, bin_size)

    def bin_statistics(self, strategy: str = "quantile", bins: int = DEFAULT_BINS,
                       bin_size: int | None = None) -> BinStatistics:
        """:func:`locacal.data.bins.sample_bin_statistics` (bins of zero weight dropped;
        warns when a bin holds fewer than 10 observations)."""
        return sample_bin_statistics(self, strategy, bins, bin_size)

    # ------------------------------------------------------------------ classification

    def confusion(self, threshold: float | None = None) -> Confusion:
        """Weighted TP, TN, FP, FN with the class 1 predicted when s >= threshold (default
        the sample's threshold)."""
        tau = self.threshold if threshold is None else check_fraction(
            threshold, "threshold", low_open=False)
        key = ("confusion", tau)  # accuracy, sensitivity and specificity share it
        if key not in self.cache:
            if self.weights is None:
                self.cache[key] = self._unit_confusion(tau)
            else:
                w = self.weights
                pred = self.scores >= tau
                pos = self.labels == 1.0
                self.cache[key] = Confusion(
                    float(w[pred & pos].sum()), float(w[~pred & ~pos].sum()),
                    float(w[pred & ~pos].sum()), float(w[~pred & pos].sum()))
        return self.cache[key]

    def _unit_confusion(self, tau: float) -> Confusion:
        """The confusion counts of unit weights, counted block by block (integers: the same
        numbers as summed unit weights)."""
        predicted = hits = positives = 0
        for rows in blocks(self.n):
            pred = self.scores[rows] >= tau
            pos = self.labels[rows] == 1.0
            predicted += int(np.count_nonzero(pred))
            positives += int(np.count_nonzero(pos))
            hits += int(np.count_nonzero(pred & pos))
        return Confusion(float(hits), float(self.n - predicted - positives + hits),
                         float(predicted - hits), float(positives - hits))

    def squared_errors(self, target: str = "labels") -> tuple[float, float]:
        """``(sum w (v - s)^2, sum w)`` over the rows in their order, v the labels (or the
        true probabilities, ``target="true_p"``), each as ``np.sum`` sums it (pairwise,
        :func:`locacal.data.blockwise.pairwise_sums`, without 1e7-row temporaries),
        computed once for the Brier score and its decomposition; ``sum w`` is the number of
        rows without weights."""
        key = ("squared_errors", target)
        if key not in self.cache:
            s, v, w = self.scores, self.labels if target == "labels" else self.true_p, self.weights

            def terms(rows: slice) -> tuple[np.ndarray, ...]:
                d = v[rows] - s[rows]
                d **= 2
                return (d,) if w is None else (d * w[rows], w[rows])

            sums = pairwise_sums(self.n, terms)
            self.cache[key] = (sums[0], float(self.n)) if w is None else sums
        return self.cache[key]

    @cached_property
    def mann_whitney_auc(self) -> float:
        """Area under the ROC curve from the sorted sample (NaN for a single class).

        .. math:: \\mathrm{AUC} = \\frac{1}{W_+ W_-} \\sum_g W_{+,g}
            \\Big(\\sum_{h < g} W_{-,h} + \\tfrac12 W_{-,g}\\Big)

        over groups g of tied scores in increasing order, W_{+,g} and W_{-,g} the weights of
        the positives and negatives of the group: the Mann-Whitney statistic, a tie counting
        one half (Hanley & McNeil 1982; Mann & Whitney 1947). Unit weights give integer
        sums, exact in float64 below 2^53: they are counted in integers
        (:func:`_unit_auc`), the same number.
        """
        sample = self.sorted
        if sample.weights is None:
            return _unit_auc(sample.scores, sample.labels)
        s = sample.scores
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        y = self.sorted_y
        # each class summed on its own: total - pos would cancel a weight below 1e-16 of the
        # group's (a negative of relative weight 1e-40 tied with a positive of weight 1)
        pos = np.add.reduceat(sample.weights * y, starts)
        neg = np.add.reduceat(sample.weights * (1.0 - y), starts)
        below = np.concatenate([[0.0], np.cumsum(neg)[:-1]])
        p_sum, n_sum = pos.sum(), neg.sum()
        if p_sum <= 0 or n_sum <= 0:
            return float("nan")
        return float(np.dot(pos, below + 0.5 * neg) / (p_sum * n_sum))


def _unit_auc(s: np.ndarray, positive: np.ndarray) -> float:
    """The Mann-Whitney AUC of sorted unweighted rows (ties ordered negatives first, as
    :func:`~locacal.data.sample.sort_sample` orders them), in integers.

    A positive at sorted position i has i - (positives before it) negatives before it: the
    negatives below its score and all those tied with it. Summed over the positives,
    ``sum i - P (P - 1) / 2``; the tied negatives count one half, so half of
    ``sum_g P_g N_g`` over the runs of tied scores is taken back. The statistic is a multiple
    of 1/2 below P N, exact in float64 (as the grouped sums of
    :attr:`PreparedSample.mann_whitney_auc` are, in any order, while 2 P N < 2^53).
    """
    n = s.size
    at = np.flatnonzero(positive)
    p = int(at.size)
    if p == 0 or p == n:
        return float("nan")
    twice = 2 * int(at.sum(dtype=np.int64)) - p * (p - 1)
    tied = np.flatnonzero(s[1:] == s[:-1])  # rows tied with the next
    if tied.size:
        # runs of tied scores: rows first .. last, where consecutive tied pairs chain
        head = np.flatnonzero(np.r_[True, tied[1:] != tied[:-1] + 1])
        first = tied[head]
        last = tied[np.r_[head[1:] - 1, tied.size - 1]] + 1
        pos = np.searchsorted(at, last, side="right") - np.searchsorted(at, first)
        twice -= int(np.dot(pos, last - first + 1 - pos))
    return twice / 2 / (p * (n - p))


def prepare(scores: Any, labels: Any, weights: Any = None, *, true_p: Any = None,
            threshold: float = 0.5, warn_one_class: bool = True,
            frequency_weights: Any = None) -> PreparedSample:
    """Validate a sample once (:func:`locacal._validation.check_scores_labels`, plus
    ``true_p`` and ``threshold`` when given) and wrap it for the metrics.

    Rows of weight zero are not in the sample: they are dropped here, once for every metric
    (adaptive bins of sqrt(n) rows and the bound on ``bins`` count the others only), and
    counted in :attr:`PreparedSample.rows`. ``frequency_weights`` (counts of identical
    observations): the sample's weights are the combined ``w f`` and its ``counts`` the
    counts (:mod:`locacal.data.frequency`), so the metrics equal the expanded rows'.
    """
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=warn_one_class)
    p = None if true_p is None else check_probabilities(true_p, s.size)
    tau = check_fraction(threshold, "threshold", low_open=False)
    rows = s.size
    if frequency_weights is not None:
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        s, y, w, p, counts = positive_weight_rows(s, y, both.point, p, both.counts)
        return PreparedSample(s, y, w, p, tau, int(counts.sum()), counts)
    s, y, w, p = positive_weight_rows(s, y, w, p)
    return PreparedSample(s, y, w, p, tau, rows)
