"""One-sided power sums over index ranges of sorted scores, without cancellation.

For sorted scores ``s_0 <= ... <= s_{n-1}`` and non-negative columns ``v`` (prior weights,
weights x labels), :class:`LeftMomentTree` answers, for many ranges ``[a, b)`` at once,

    M_r = sum_{a <= i < b} v_i ((A - s_i) / c)^r,   r = 0..order,

about the range's right end ``A = s_{b-1}``, scaled by its width ``c = s_{b-1} - s_a``
(``c = 1`` when it is 0), and :func:`shift_moments` moves such moments to any point
``t >= A`` with any scale ``h``: ``sum_i v_i ((t - s_i) / h)^q``.

The structure is a segment tree (Cormen et al., *Introduction to Algorithms*, 3rd ed.,
problem 14-2; the iterative bottom-up query of de Berg et al., *Computational Geometry*,
section 10.3): node ``j`` of level ``L`` covers rows ``[j 2^L, (j + 1) 2^L)`` and stores its
moments about its own right end, scaled by its own width. A range is the disjoint union of
at most ``2 log2 n`` nodes. Every change of anchor is the binomial expansion

    (t - s_i) / h = e + rho (A - s_i) / c,   e = (t - A) / h >= 0,   rho = c / h >= 0,
    sum_i v_i ((t - s_i) / h)^q = sum_r C(q, r) rho^r M_r e^(q - r),

in which **every term is non-negative** (the anchors are at or right of every point they
summarise, and ``v >= 0``). Sums of non-negative terms have relative error at most
``(number of terms) x 2^-53`` (Higham 2002, *Accuracy and Stability of Numerical
Algorithms*, section 4.2), so every moment, of every order, carries a relative error below
``(order + 3) (log2 n + 2) 2^-53``: no catastrophic cancellation, unlike differences of
prefix sums of raw powers. Points on the right of ``t`` are handled by the same tree built
on the mirrored scores ``-s`` (see :func:`mirror`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["BINOMIAL", "LeftMomentTree", "shift_moments"]

#: Largest order supported (tricube x degree 2 needs 13).
MAX_ORDER = 16
#: Pascal's triangle, ``BINOMIAL[q, r] = C(q, r)``.
BINOMIAL = np.array([[float(np.prod(np.arange(q - r + 1, q + 1)) / np.prod(np.arange(1, r + 1)))
                      if r <= q else 0.0 for r in range(MAX_ORDER + 1)]
                     for q in range(MAX_ORDER + 1)])


def shift_moments(moments: np.ndarray, e: np.ndarray, rho: np.ndarray,
                  order: int) -> np.ndarray:
    """``sum_r C(q, r) rho^r M_r e^(q - r)`` for ``q = 0..order``.

    ``moments``: (R + 1, G) scaled moments about an anchor (R may exceed ``order``; higher
    rows are ignored); ``e``, ``rho``: (G,) offset and scale ratio, both >= 0.
    """
    top = min(order, moments.shape[0] - 1)
    g = e.shape[0]
    epow = np.empty((order + 1, g))
    epow[0] = 1.0
    for j in range(1, order + 1):
        np.multiply(epow[j - 1], e, out=epow[j])
    out = np.zeros((order + 1, g))
    scaled = moments[0].copy()
    rpow = np.ones(g)
    for r in range(top + 1):
        if r:
            rpow = rpow * rho
            scaled = moments[r] * rpow
        out[r:] += BINOMIAL[r:order + 1, r, None] * (scaled * epow[:order + 1 - r])
    return out


class LeftMomentTree:
    """Segment tree of right-anchored, width-scaled power sums of non-negative columns.

    Parameters
    ----------
    scores : ndarray (n,)
        Sorted ascending.
    columns : list of ndarray (n,)
        Non-negative values ``v``; moments up to ``orders[k]`` are kept for column ``k``.
    orders : list of int
    """

    def __init__(self, scores: np.ndarray, columns: list[np.ndarray], orders: list[int]):
        self.scores = scores
        self.orders = list(orders)
        anchor = scores.copy()
        first = scores.copy()
        width = np.zeros_like(scores)
        moments = []
        for col, order in zip(columns, self.orders, strict=True):
            m = np.zeros((order + 1, scores.shape[0]))
            m[0] = col
            moments.append(m)
        self.levels = grow_levels(anchor, first, width, moments, self.orders)

    def query(self, a: np.ndarray, b: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """Moments of rows ``[a, b)`` about ``s[b-1]`` scaled by the width ``s[b-1] - s[a]``.

        Returns the list of (order + 1, G) moment arrays (zeros for empty ranges) and the
        widths. Where the width is 0 (tied rows, or an empty range) the moments are taken
        unscaled: every power above the 0th is then exactly 0, so a caller rescaling them by
        width / h gets 0 whatever h, instead of the overflow of (1 / h)^q at a tiny h.
        """
        s = self.scores
        g = a.shape[0]
        full = b > a
        top = np.where(full, s[np.maximum(b - 1, 0)], 0.0)
        span = np.where(full, top - s[np.minimum(a, s.shape[0] - 1)], 0.0)
        scale = np.where(span > 0, span, 1.0)
        acc = [np.zeros((order + 1, g)) for order in self.orders]
        lo = np.where(full, a, 0).astype(np.int64)
        hi = np.where(full, b, 0).astype(np.int64)
        for anchor, width, moments in self.levels:
            live = lo < hi
            if not live.any():
                break
            take_lo = np.flatnonzero(live & (lo & 1 == 1))
            self._add(acc, take_lo, lo[take_lo], anchor, width, moments, top, scale)
            lo[take_lo] += 1
            take_hi = np.flatnonzero(live & (hi & 1 == 1))
            hi[take_hi] -= 1
            self._add(acc, take_hi, hi[take_hi], anchor, width, moments, top, scale)
            lo >>= 1
            hi >>= 1
        return acc, span

    def _add(self, acc, sel, node, anchor, width, moments, top, scale) -> None:
        if sel.size == 0:
            return
        sc = scale[sel]
        e = (top[sel] - anchor[node]) / sc
        rho = width[node] / sc
        for out, m, order in zip(acc, moments, self.orders, strict=True):
            out[:, sel] += shift_moments(m[:, node], e, rho, order)


def grow_levels(anchor: np.ndarray, first: np.ndarray, width: np.ndarray,
                moments: list[np.ndarray], orders: list[int]) -> list[tuple]:
    """Levels ``(anchor, width, moments)`` of a segment tree from its bottom nodes (right
    ends ``anchor``, first scores ``first``, widths and moments about the right end scaled by
    the width), merged pairwise up to the root."""
    levels = [(anchor, width, moments)]
    while anchor.shape[0] > 1:
        anchor, first, width, moments = _parents(anchor, first, width, moments, orders)
        levels.append((anchor, width, moments))
    return levels


def _parents(anchor, first, width, moments, orders):
    """Merge nodes pairwise: the left child's moments move to the right child's anchor."""
    pairs = anchor.shape[0] // 2
    odd = anchor.shape[0] % 2 == 1
    left, right = slice(0, 2 * pairs, 2), slice(1, 2 * pairs, 2)
    a_r, a_l = anchor[right], anchor[left]
    span = a_r - first[left]
    norm = np.where(span > 0, span, 1.0)
    e = (a_r - a_l) / norm
    rho_l = width[left] / norm
    rho_r = width[right] / norm
    new_moments = []
    for m, order in zip(moments, orders, strict=True):
        merged = shift_moments(m[:, left], e, rho_l, order)
        merged += shift_moments(m[:, right], np.zeros_like(e), rho_r, order)
        if odd:
            merged = np.concatenate([merged, m[:, -1:]], axis=1)
        new_moments.append(merged)
    if odd:
        a_r = np.append(a_r, anchor[-1])
        span = np.append(span, width[-1])
    return a_r, first[0::2].copy(), span, new_moments


def mirror(scores: np.ndarray) -> np.ndarray:
    """``-s`` in ascending order (reverse the sorted scores): the right side of a point
    becomes the left side of its mirror image."""
    return -scores[::-1]
