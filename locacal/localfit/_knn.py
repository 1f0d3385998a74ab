"""WMSE's local means: the mean label of the nearest scores of weight k, boundary ties shared.

Used by :func:`locacal.metrics.wmse` (the 2024 R code's ``local_ci_scores``), through
:func:`locacal.localfit.fit` with :class:`~locacal.localfit.NearestMean`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._window import bisect

__all__ = ["KnnRuns", "knn_means", "knn_runs"]


class KnnRuns(NamedTuple):
    """The rows of :func:`knn_means` at each point, from the scores and weights only.

    Rows ``[a_in, b_in)`` count fully; rows ``[a_all, b_all)`` outside it (those at the
    boundary distance h) share the weight ``share`` of each of theirs; the mean is
    ``(sum_in w y + share * sum_edge w y) / k``, linear in the labels.
    """

    a_in: np.ndarray
    b_in: np.ndarray
    a_all: np.ndarray
    b_all: np.ndarray
    share: np.ndarray
    k: float


def knn_means(sample: SortedSample, points: np.ndarray, k: float) -> np.ndarray:
    """Mean label of the nearest scores of weight k around each point, boundary ties shared.

    Let h be the smallest distance |s_i - t| such that the observations within h weigh at
    least k. Observations closer than h count fully; those at distance exactly h share the
    remaining weight k - W(closer) in proportion to their weights. Without ties at h and with
    unit weights this is the plain mean of the k nearest; with ties it is the average over
    every order of the tied rows, so it does not depend on row order (nor on the order of
    tied rows in ``sample``: they share the boundary's weight).

    O(m log^2 n) on the sorted sample: around a point t the observations within any distance
    form a contiguous run of the sorted scores, found by bisection
    (:func:`locacal.localfit._window.bisect`) on the floating-point distances themselves
    (t - s on the left, s - t on the right, each monotone in the sorted position), so ties at
    the boundary are decided on exactly the numbers ``|s - t|`` that R's code ranks; prefix
    sums give each run's weight and label sum.
    """
    r = knn_runs(sample.scores, sample.weights, points, k)
    if sample.weights is None:  # label counts: integers, exact in any form
        wy_in = sample.label_counts(r.a_in, r.b_in)
        wy_edge = sample.label_counts(r.a_all, r.b_all) - wy_in
    else:
        cwy = np.concatenate([[0.0], np.cumsum(np.where(sample.labels, sample.weights, 0.0))])
        wy_in = cwy[r.b_in] - cwy[r.a_in]
        wy_edge = (cwy[r.b_all] - cwy[r.a_all]) - wy_in
    return (wy_in + r.share * wy_edge) / k


def knn_runs(s: np.ndarray, weights: np.ndarray | None, points: np.ndarray,
             k: float) -> KnnRuns:
    """:class:`KnnRuns` of :func:`knn_means` on the sorted scores ``s`` (weights in the same
    order, or None)."""
    prefix = None if weights is None else np.concatenate([[0.0], np.cumsum(weights)])

    def cw(i: np.ndarray) -> np.ndarray:
        """Weight of the first i sorted rows (unit weights: i itself, exact)."""
        return np.asarray(i, dtype=np.float64) if prefix is None else prefix[i]
    n = s.size
    t = points
    split = np.searchsorted(s, t, side="right")  # s[:split] <= t < s[split:]
    # slack for the rounding of the prefix sums (exact integers for unit weights)
    need = k if weights is None else k * (1.0 - 1e-12)

    def run(d: np.ndarray, pts: np.ndarray, strict: bool) -> tuple[np.ndarray, np.ndarray]:
        """[a, b): the observations at distance <= d (< d if strict) from the points
        ``pts`` (``d`` one distance per point of ``pts``)."""
        tp, sp = t[pts], split[pts]

        def left_in(q, sel):
            dist = tp[sel] - s[np.minimum(q, n - 1)]
            return (q >= sp[sel]) | ((dist < d[sel]) if strict else (dist <= d[sel]))

        def right_out(q, sel):
            dist = s[np.minimum(q, n - 1)] - tp[sel]
            return (q >= n) | ((dist >= d[sel]) if strict else (dist > d[sel]))

        return (bisect(left_in, np.zeros_like(sp), sp),
                bisect(right_out, sp, np.full_like(sp, n)))

    def enough(d: np.ndarray, pts: np.ndarray) -> np.ndarray:
        a, b = run(d, pts, strict=False)
        return cw(b) - cw(a) >= need

    # h is the distance of some left or right observation: the nearest on each side that
    # already gathers weight k, whichever is closer
    def left_short(q, sel):  # distance t - s[q] grows as q falls: "not enough" is the upper run
        return (q >= split[sel]) | ~enough(t[sel] - s[np.minimum(q, n - 1)], sel)

    def right_enough(q, sel):
        return (q >= n) | enough(s[np.minimum(q, n - 1)] - t[sel], sel)

    every = np.arange(t.shape[0])
    if weights is None and 1 <= np.ceil(k) <= n:
        h = _kth_distance(s, t, split, int(np.ceil(k)))
    else:
        q_left = bisect(left_short, np.zeros_like(split), split) - 1
        h_left = np.where(q_left >= 0, t - s[np.maximum(q_left, 0)], np.inf)
        q_right = bisect(right_enough, split, np.full_like(split, n))
        h_right = np.where(q_right < n, s[np.minimum(q_right, n - 1)] - t, np.inf)
        h = np.minimum(h_left, h_right)
    a_in, b_in = run(h, every, strict=True)
    a_all, b_all = run(h, every, strict=False)
    w_in = cw(b_in) - cw(a_in)
    w_edge = (cw(b_all) - cw(a_all)) - w_in
    return KnnRuns(a_in, b_in, a_all, b_all, (k - w_in) / w_edge, k)


def _kth_distance(s: np.ndarray, t: np.ndarray, split: np.ndarray, count: int) -> np.ndarray:
    """Per point, the ``count``-th smallest of the distances t - s_i (rows left of
    ``split``) and s_i - t (the others), 1 <= count <= n: what :func:`knn_runs` finds for
    unit weights (the smallest of these distances within which ``count`` rows lie), in
    O(log n) vectorised steps instead of a bisection inside a bisection.

    With L_i the i-th smallest left distance and R_j the j-th smallest right one (L_0 = R_0
    = -inf), the count-th smallest of both is min_i max(L_i, R_{count - i}) (merging two
    sorted lists); L_i rises and R_{count - i} falls with i, so the minimum is at the first
    i where L_i >= R_{count - i} or just before it. The same floating-point distances as
    the general path: the same value."""
    n = s.size
    lo = np.maximum(0, count - (n - split))  # i left rows, count - i right ones
    hi = np.minimum(count, split)

    def left(i: np.ndarray, sel) -> np.ndarray:  # L_i (i >= 1)
        return t[sel] - s[split[sel] - i]

    def right(j: np.ndarray, sel) -> np.ndarray:  # R_j (j >= 1)
        return s[split[sel] + j - 1] - t[sel]

    def crossed(i: np.ndarray, sel) -> np.ndarray:  # L_i >= R_{count - i}
        j = count - i
        # i = 0 or j = 0 (an infinite distance) are decided without reading a row
        left_i = t[sel] - s[np.clip(split[sel] - i, 0, n - 1)]
        right_j = s[np.clip(split[sel] + j - 1, 0, n - 1)] - t[sel]
        return (j == 0) | ((i > 0) & (left_i >= right_j))

    first = bisect(crossed, lo, hi + 1)
    every = np.arange(t.size)
    h = np.full(t.size, np.inf)
    at = first <= hi  # f(first) = L_first (first >= 1: L_0 = -inf never crosses)
    h[at] = left(first[at], every[at])
    before = first - 1 >= lo  # f(first - 1) = R_{count - first + 1}
    h[before] = np.minimum(h[before], right(count - first[before] + 1, every[before]))
    return h
