"""The validated sample, and the sample sorted once by score with prefix sums.

:class:`Sample` holds validated scores, labels and weights in the rows' order and builds what
several computations share on first use: the sorted sample, and by name in its ``cache``
(the bins of :mod:`locacal.data.bins`, ...). :func:`sort_sample` sorts validated scores,
labels and weights by score (then label, then weight for tied rows), so that the sorted
sequence, hence every result computed from it, does not depend on the order of the rows;
:class:`SortedSample` holds the sorted arrays and caches their prefix sums, so that the sum of
labels or weights over any run of sorted rows (the window of a nearest-neighbour fit) costs
two lookups.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["Sample", "SortedSample", "sort_sample"]

#: Rows per block of :meth:`SortedSample.label_counts`.
_COUNT_BLOCK = 1 << 16


@dataclass(frozen=True, eq=False)
class SortedSample:
    """Scores sorted ascending, with the labels and optional weights in the same order.

    Built once by :func:`sort_sample`; every local fit on the same data can reuse it.
    ``labels`` is boolean; ``weights`` is ``None`` for unit weights. ``counts``: frequency
    weights (each row stands for that many identical observations; ``weights`` then holds
    the combined weights ``w f``, :mod:`locacal.data.frequency`), None when every row is one
    observation.
    """

    scores: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None
    _sums: dict = field(default_factory=dict, repr=False)
    counts: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.scores.shape[0])

    @property
    def observations(self) -> int:
        """Number of observations: the rows, or the sum of the frequency weights."""
        return self.n if self.counts is None else int(self.counts.sum())

    @property
    def cumulative_counts(self) -> np.ndarray | None:
        """Observations up to and including each sorted row (int64), None without counts:
        the expanded rows ``cum[i-1] .. cum[i]-1`` are copies of row ``i``."""
        if self.counts is None:
            return None
        if "cumulative" not in self._sums:
            self._sums["cumulative"] = np.cumsum(self.counts.astype(np.int64))
        return self._sums["cumulative"]

    def range_sum(self, name: str, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Sum of ``name`` over each index range ``[lo, hi)``, vectorised: ``P[hi] - P[lo]``.

        ``name`` is ``"y"`` (labels), ``"w"``, ``"wy"``, ``"w2"`` (squared weights, summed
        over the expanded rows with frequency weights: ``f w^2 = (w f)^2 / f``), ``"f"``
        (frequency weights) or ``"zero"`` (zero weights).

        Counts (``"y"``, ``"zero"``) use int64 prefix sums: exact. Weights use prefix sums
        accumulated in ``np.longdouble``, rounded to float64 after the subtraction: with
        ``u_L`` the long-double unit roundoff (2^-64 on x86-64, 2^-53 where it is plain
        double), ``|error| <= n u_L sum_{i < hi} |w_i| + 2^-53 |result|`` (Higham 2002,
        *Accuracy and Stability of Numerical Algorithms*, eq. 4.4, for the running sums).
        An all-zero range gives exactly 0 (equal prefix sums).
        """
        prefix = self._prefix(name)
        lo = np.asarray(lo, dtype=np.intp)
        hi = np.asarray(hi, dtype=np.intp)
        return (prefix[hi] - prefix[lo]).astype(np.float64)

    def label_counts(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Events in each sorted row range ``[lo, hi)``, as float64 (exact integers): the
        same numbers as ``range_sum("y", lo, hi)``.

        Unless the prefix sums of the labels are already kept, they are not built (an n + 1
        array of int64 for a few hundred ranges): events are counted per block of
        :data:`_COUNT_BLOCK` rows once, and each range end adds the events of its partial
        block.
        """
        if ("prefix", "y") in self._sums:
            return self.range_sum("y", lo, hi)
        if "block_events" not in self._sums:
            full = self.n - self.n % _COUNT_BLOCK
            per_block = np.count_nonzero(self.labels[:full].reshape(-1, _COUNT_BLOCK), axis=1)
            self._sums["block_events"] = np.concatenate([[0], np.cumsum(per_block)])
        before = self._sums["block_events"]

        def events_before(ends: np.ndarray) -> np.ndarray:
            block = ends // _COUNT_BLOCK
            partial = [np.count_nonzero(self.labels[b * _COUNT_BLOCK:e])
                       for b, e in zip(block.tolist(), ends.tolist(), strict=True)]
            return before[block] + np.asarray(partial, dtype=np.int64)

        lo = np.asarray(lo, dtype=np.intp)
        hi = np.asarray(hi, dtype=np.intp)
        return (events_before(hi.ravel()) - events_before(lo.ravel())).reshape(
            hi.shape).astype(np.float64)

    def _values(self, name: str) -> np.ndarray:
        if name == "y":
            return self.labels
        if name == "w":
            return self.weights
        if name == "f":
            return self.counts
        if name not in self._sums:
            w = self.weights
            derived = {"wy": lambda: np.where(self.labels, w, 0.0), "w2": self._squares,
                       "zero": lambda: w == 0.0}
            self._sums[name] = derived[name]()
        return self._sums[name]

    def _squares(self) -> np.ndarray:
        """Squared weights per row, over the row's copies with frequency weights."""
        w = self.weights
        return w * w if self.counts is None else w * w / self.counts

    def _prefix(self, name: str) -> np.ndarray:
        key = ("prefix", name)
        if key not in self._sums:
            values = self._values(name)
            dtype = np.int64 if values.dtype == np.bool_ else np.longdouble
            prefix = np.zeros(values.shape[0] + 1, dtype=dtype)
            np.cumsum(values, dtype=dtype, out=prefix[1:])
            self._sums[key] = prefix
        return self._sums[key]


def sort_sample(scores: np.ndarray, labels: np.ndarray,
                weights: np.ndarray | None,
                counts: np.ndarray | None = None) -> SortedSample:
    """Sort the sample by score once (validated float64 inputs).

    Without weights no ``argsort`` is needed: each score's IEEE bits (non-negative doubles,
    so bit 63 is free) are shifted left by one and the label stored in the freed low bit;
    sorting these integers sorts by score (then label) exactly, and shifting back restores
    every score bit for bit (-0.0 becomes +0.0, an equal value). The sorted sequence of
    (score, label) pairs, hence every result, is then the same for any order of the rows.

    With weights the same keys are arg-sorted, and rows tied in score and label are put in
    increasing weight order, so the sorted triples (hence the results, bit for bit) do not
    depend on the order of the rows either. The extra sort touches tied rows only.

    ``counts`` (frequency weights, positive, with ``weights`` the combined ``w f``) follow
    the rows' order.
    """
    keys = np.left_shift(scores.view(np.uint64), np.uint64(1))
    keys += labels != 0.0
    if counts is not None and weights is None:
        weights = counts
    if weights is None:
        keys.sort()
        sorted_labels = _low_bit(keys)
        keys >>= np.uint64(1)
        return SortedSample(keys.view(np.float64), sorted_labels, None)
    order = np.argsort(keys, kind="stable")
    # tied copies are ordered by their own (relative) weight, as the expanded rows are
    _order_ties_by_weight(order, keys, weights if counts is None else weights / counts)
    del keys
    return SortedSample(scores[order], labels[order] != 0.0, weights[order],
                        counts=None if counts is None else counts[order])


def _low_bit(keys: np.ndarray) -> np.ndarray:
    """Lowest bit of each uint64 as booleans (reads one byte per key on little-endian)."""
    if sys.byteorder == "little":
        return (keys.view(np.uint8)[::8] & 1).view(np.bool_)
    return (keys & np.uint64(1)).astype(np.bool_)


def _order_ties_by_weight(order: np.ndarray, keys: np.ndarray, weights: np.ndarray) -> None:
    """Within each run of equal keys in ``keys[order]``, reorder by weight (in place)."""
    ranked = keys[order]
    same = ranked[1:] == ranked[:-1]
    if not same.any():
        return
    tied = np.zeros(order.shape[0], dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    idx = np.flatnonzero(tied)
    sub = order[idx]
    order[idx] = sub[np.lexsort((weights[sub], keys[sub]))]


class Sample:
    """Validated scores, labels (0.0/1.0) and weights (None for unit weights, else all
    positive: rows of weight zero are dropped before) in the rows' order. ``counts``:
    frequency weights (``weights`` then the combined ``w f``, :mod:`locacal.data.frequency`),
    None when each row is one observation.

    The sorted sample (:attr:`sorted`) is built on first use; ``cache`` keeps other results
    shared by the computations on the sample, by key (e.g. its bins, :mod:`locacal.data.bins`).
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray,
                 weights: np.ndarray | None, counts: np.ndarray | None = None) -> None:
        self.scores, self.labels, self.weights = scores, labels, weights
        if counts is not None and weights is None:
            self.weights = counts
        self.counts = counts
        self.cache: dict[Any, Any] = {}

    @property
    def n(self) -> int:
        return int(self.scores.size)

    @property
    def observations(self) -> int:
        """Number of observations: the rows, or the sum of the frequency weights."""
        return self.n if self.counts is None else int(self.counts.sum())

    @cached_property
    def unit_weights(self) -> np.ndarray:
        return np.ones_like(self.scores) if self.weights is None else self.weights

    @cached_property
    def sorted(self) -> SortedSample:
        """The sample sorted by score, ties by label then weight (:func:`sort_sample`)."""
        return sort_sample(self.scores, self.labels, self.weights, self.counts)

    @cached_property
    def sorted_y(self) -> np.ndarray:
        """The labels of :attr:`sorted` as 0.0/1.0."""
        return self.sorted.labels.astype(np.float64)

    def mean(self, values: np.ndarray) -> float:
        """Mean of ``values`` (rows' order), weighted by the sample's weights."""
        if self.weights is None:
            return float(np.mean(values))
        return float(np.average(values, weights=self.weights))
