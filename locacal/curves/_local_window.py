"""Sorted sample, nearest-neighbour bandwidth, windows and kernel weights of a local fit.

Everything here reproduces the neighbourhood rules of Loader's locfit (R package ``locfit``,
C function ``nbhd1`` and ``weightsph``), on a sample sorted once by score:

* with ``k = floor(n * nn + 1e-12)`` (``n`` counts *rows*: prior weights play no part, zero
  weights included), the nearest-neighbour bandwidth at ``t`` is the k-th smallest distance
  ``|s_i - t|`` (each distance rounded as a floating-point subtraction, as in C);
* a fixed bandwidth ``h_fix`` (``lp(h=)``) is combined as ``h = max(h_nn, h_fix)``;
* every observation with ``|s_i - t| <= h`` gets a positive weight (ties at the boundary all
  count), and it is a contiguous run ``[lo, hi)`` of the sorted scores, because the rounded
  distance is monotone on each side of ``t``;
* when ``h == 0`` only the scores equal to ``t`` are kept, each with weight 1, whatever the
  kernel;
* kernels are locfit's: ``rect`` 1, ``epan`` 1 - u^2, ``tricube`` (1 - |u|^3)^3 and ``gauss``
  exp(-(2.5 u)^2 / 2) (locfit's Gaussian is scaled by GFACT = 2.5 and is not compact), with
  u = |s - t| / h.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, sections 2.1-2.2
(local fitting criterion, nearest-neighbour bandwidths) and appendix B (locfit's kernels).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from locacal._validation import warn

__all__ = [
    "KERNELS",
    "SortedSample",
    "effective_count",
    "fixed_or_nn_bandwidth",
    "kernel_weights",
    "nn_count",
    "nn_distance",
    "sort_sample",
    "window_bounds",
]

#: Kernel names of this package and locfit's names for them.
KERNELS = {"rect": "rect", "tricube": "tcub", "gauss": "gauss", "epan": "epan"}

#: locfit's scale factor of the Gaussian kernel (``GFACT`` in ``local.h``).
GAUSS_FACTOR = 2.5
#: Beyond 16 bandwidths locfit's Gaussian weight exp(-(2.5 u)^2 / 2) underflows to 0.
GAUSS_REACH = 16.0

@dataclass(frozen=True, eq=False)
class SortedSample:
    """Scores sorted ascending, with the labels and optional weights in the same order.

    Built once by :func:`sort_sample`; every local fit on the same data can reuse it.
    ``labels`` is boolean; ``weights`` is ``None`` for unit weights.
    """

    scores: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None
    _sums: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return int(self.scores.shape[0])

    def range_sum(self, name: str, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Sum of ``name`` over each index range ``[lo, hi)``, vectorised: ``P[hi] - P[lo]``.

        ``name`` is ``"y"`` (labels), ``"w"``, ``"wy"``, ``"w2"`` (squared weights) or
        ``"zero"`` (zero weights).

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

    def _values(self, name: str) -> np.ndarray:
        if name == "y":
            return self.labels
        if name == "w":
            return self.weights
        if name not in self._sums:
            w = self.weights
            derived = {"wy": lambda: np.where(self.labels, w, 0.0), "w2": lambda: w * w,
                       "zero": lambda: w == 0.0}
            self._sums[name] = derived[name]()
        return self._sums[name]

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
                weights: np.ndarray | None) -> SortedSample:
    """Sort the sample by score once (validated float64 inputs).

    Without weights no ``argsort`` is needed: each score's IEEE bits (non-negative doubles,
    so bit 63 is free) are shifted left by one and the label stored in the freed low bit;
    sorting these integers sorts by score (then label) exactly, and shifting back restores
    every score bit for bit (-0.0 becomes +0.0, an equal value). The sorted sequence of
    (score, label) pairs, hence every result, is then the same for any order of the rows.

    With weights the same keys are arg-sorted, and rows tied in score and label are put in
    increasing weight order, so the sorted triples (hence the results, bit for bit) do not
    depend on the order of the rows either. The extra sort touches tied rows only.
    """
    keys = np.left_shift(scores.view(np.uint64), np.uint64(1))
    keys += labels != 0.0
    if weights is None:
        keys.sort()
        sorted_labels = _low_bit(keys)
        keys >>= np.uint64(1)
        return SortedSample(keys.view(np.float64), sorted_labels, None)
    order = np.argsort(keys, kind="stable")
    _order_ties_by_weight(order, keys, weights)
    del keys
    return SortedSample(scores[order], labels[order] != 0.0, weights[order])


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


def nn_count(n: int, nn: float | None) -> int:
    """locfit's neighbour count ``k = (int)(n * nn + 1e-12)`` (``locfit.c``); 0 without nn."""
    if nn is None:
        return 0
    return int(n * nn + 1e-12)


def warn_if_widened(n: int, nn: float | None, h: float | None, name: str = "nn") -> bool:
    """Whether :func:`effective_count` raises locfit's neighbour count from 0 to 1
    (``n * nn < 1`` and no fixed ``h``), with a warning; both backends fit with the raised
    count. ``name`` is the span's name in the message (lowess calls it ``frac``)."""
    widened = effective_count(n, nn, h) > nn_count(n, nn)
    if widened:
        remedy = "Increase nn or give h" if name == "nn" else f"Increase {name}"
        warn(f"n * {name} = {n} * {nn} < 1: locfit's bandwidth would be 0 (its fit undefined "
             f"away from the scores); the neighbourhood is raised to the nearest score(s). "
             f"{remedy}")
    return widened


def effective_count(n: int, nn: float | None, h: float | None) -> int:
    """Neighbour count used by the native fits: locfit's k, raised to 1 when ``n * nn < 1``
    and no fixed ``h`` is given.

    locfit's bandwidth is then 0 and its fit undefined away from the observed scores (it
    reuses the previous point's coefficients); with k = 1 the window is the nearest score(s).
    """
    k = nn_count(n, nn)
    return 1 if (k == 0 and h is None) else k


def nn_distance(s: np.ndarray, t: np.ndarray, k: int) -> np.ndarray:
    """k-th smallest rounded distance ``|s_i - t|`` from each point of ``t`` (``k >= 1``).

    The k nearest scores form a contiguous run ``[l, l + k)`` of the sorted scores; its start
    is the first ``l`` with ``t - s[l] <= s[l + k] - t`` (a monotone predicate). In exact
    arithmetic that reads ``s[l] + s[l + k] >= 2 t``, a non-decreasing sequence in ``l``, so
    a ``searchsorted`` gives the answer up to rounding; it is then checked against the
    rounded predicate and bisected where it fails (:func:`_first_true`), O(n) once plus
    O(log n) per point. Returns ``max(t - s[l], s[l + k - 1] - t)``, the same value as
    locfit's greedy window growth in ``nbhd1``.
    """
    n = s.shape[0]
    top = n - k
    guess = np.searchsorted(s[:top] + s[k:], 2.0 * t, side="left")
    lo = _first_true(lambda i, sel: (t[sel] - s[i]) <= (s[np.minimum(i + k, n - 1)] - t[sel]),
                     top, t.shape[0], guess)
    return np.maximum(t - s[lo], s[lo + k - 1] - t)


def fixed_or_nn_bandwidth(s: np.ndarray, t: np.ndarray, k: int,
                          h: float | None) -> np.ndarray:
    """Bandwidth at each point: ``max(nn distance, h)`` as in locfit's ``nbhd1``."""
    bw = nn_distance(s, t, k) if k >= 1 else np.zeros(t.shape[0])
    if h is not None:
        bw = np.maximum(bw, h)
    return bw


def window_bounds(s: np.ndarray, t: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """Index ranges ``[lo, hi)`` of the scores with rounded distance ``|s_i - t| <= reach``.

    ``lo`` is the first index with ``t - s_i <= reach`` and ``hi`` the first with
    ``s_i - t > reach``; both predicates are monotone along the sorted scores, so a vectorised
    binary search finds them exactly (``searchsorted`` on ``t -/+ reach`` could be off by the
    rounding of that sum).
    """
    n = s.shape[0]
    lo = _first_true(lambda i, sel: (t[sel] - s[i]) <= reach[sel], n, t.shape[0],
                     np.searchsorted(s, t - reach, side="left"))
    hi = _first_true(lambda i, sel: (s[i] - t[sel]) > reach[sel], n, t.shape[0],
                     np.searchsorted(s, t + reach, side="right"))
    return lo, hi


def _first_true(pred, n: int, m: int, guess: np.ndarray | None = None) -> np.ndarray:
    """First index in ``[0, n]`` where the monotone predicate ``pred(i, sel)`` holds.

    ``guess``: candidate answers (a rounded ``searchsorted``); a candidate ``g`` is kept when
    the predicate holds at ``g`` (or ``g = n``) and fails at ``g - 1`` (or ``g = 0``), which
    for a monotone predicate makes it the answer; the others are searched by bisection.
    """
    lo = np.zeros(m, dtype=np.int64)
    hi = np.full(m, n, dtype=np.int64)
    if guess is not None:
        g = np.clip(guess, 0, n).astype(np.int64)
        done = np.ones(m, dtype=bool)
        at = np.flatnonzero(g < n)
        done[at] = pred(g[at], at)
        before = np.flatnonzero(done & (g > 0))
        done[before] = ~pred(g[before] - 1, before)
        lo[done] = hi[done] = g[done]
    while True:
        sel = np.flatnonzero(lo < hi)
        if sel.size == 0:
            return lo
        mid = (lo[sel] + hi[sel]) // 2
        ok = pred(mid, sel)
        hi[sel[ok]] = mid[ok]
        lo[sel[~ok]] = mid[~ok] + 1


def kernel_weights(dist: np.ndarray, h: float, kernel: str, *,
                   libm: bool = False) -> np.ndarray:
    """locfit's kernel weight ``W(dist / h)`` (``weight.c``), with ``dist = |s - t| >= 0``.

    ``h == 0`` gives weight 1 to ``dist == 0`` and 0 elsewhere (``weightsph``). The
    operations follow locfit's order so that the weights agree to the last bit. NumPy's
    vectorised ``exp`` differs from the C library's in the last bit for ~5 % of arguments;
    ``libm=True`` uses the C library's (:func:`math.exp`, slower) for the Gaussian kernel.
    """
    if h == 0.0:
        return (dist == 0.0).astype(np.float64)
    # a score many bandwidths away (a tiny h) has u = inf or a huge u, and weight 0
    with np.errstate(over="ignore"):
        u = dist / h
    if kernel == "rect":
        return (u <= 1.0).astype(np.float64)
    if kernel == "gauss":
        g = GAUSS_FACTOR * np.minimum(u, 2.0 * GAUSS_REACH)  # exp underflows to 0 beyond
        arg = -(g * g) / 2.0
        if libm:
            return np.fromiter(map(math.exp, arg.tolist()), np.float64, arg.shape[0])
        return np.exp(arg)
    outside = u > 1.0
    u = np.minimum(u, 1.0)  # the weight outside is 0 (below); its powers stay finite
    w = u * u
    if kernel == "epan":
        np.subtract(1.0, w, out=w)
    else:  # tricube: v = 1 - u^3, w = v^3 (locfit's order of operations)
        w *= u
        np.subtract(1.0, w, out=w)
        v = w.copy()
        w *= v
        w *= v
    w[outside] = 0.0
    return w


def kernel_reach(kernel: str) -> float:
    """Multiple of the bandwidth beyond which the kernel weight is exactly 0."""
    return GAUSS_REACH if kernel == "gauss" else 1.0
