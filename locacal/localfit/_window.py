"""Nearest-neighbour bandwidth, windows and kernel weights of a local fit.

Everything here reproduces the neighbourhood rules of Loader's locfit (R package ``locfit``,
C function ``nbhd1`` and ``weightsph``), on a sample sorted once by score
(:func:`locacal.data.sample.sort_sample`):

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

import numpy as np

from locacal._validation import warn
from locacal.data.sample import SortedSample

__all__ = [
    "KERNELS",
    "bisect",
    "effective_count",
    "fixed_or_nn_bandwidth",
    "kernel_weights",
    "nn_count",
    "nn_distance",
    "window_bounds",
    "window_mean",
    "windows_to_fit",
]

#: Kernel names of this package and locfit's names for them.
KERNELS = {"rect": "rect", "tricube": "tcub", "gauss": "gauss", "epan": "epan"}

#: locfit's scale factor of the Gaussian kernel (``GFACT`` in ``local.h``).
GAUSS_FACTOR = 2.5
#: Beyond 16 bandwidths locfit's Gaussian weight exp(-(2.5 u)^2 / 2) underflows to 0.
GAUSS_REACH = 16.0


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


def nn_distance_counts(s: np.ndarray, cumulative: np.ndarray, t: np.ndarray,
                       k: int) -> np.ndarray:
    """:func:`nn_distance` on the expanded rows, without expanding them.

    Row ``i`` of the sorted scores stands for the expanded rows ``cumulative[i-1] ..
    cumulative[i] - 1`` (frequency weights); the expanded score at position ``j`` is
    ``s[searchsorted(cumulative, j, "right")]``. The same bisection on the same rounded
    predicate, over the ``N = cumulative[-1]`` positions, gives the same k-th smallest
    distance as the expanded call, bit for bit, in O(log N log n) per point.
    """
    total = int(cumulative[-1])

    def at(j: np.ndarray) -> np.ndarray:
        return s[np.searchsorted(cumulative, j, side="right")]

    top = total - k
    lo = _first_true(lambda i, sel: (t[sel] - at(i)) <= (at(np.minimum(i + k, total - 1))
                                                          - t[sel]), top, t.shape[0])
    return np.maximum(t - at(lo), at(lo + k - 1) - t)


def fixed_or_nn_bandwidth(s: np.ndarray, t: np.ndarray, k: int,
                          h: float | None,
                          cumulative: np.ndarray | None = None) -> np.ndarray:
    """Bandwidth at each point: ``max(nn distance, h)`` as in locfit's ``nbhd1``; with the
    ``cumulative`` frequency weights, the nn distance of the expanded rows."""
    if k >= 1 and cumulative is not None:
        bw = nn_distance_counts(s, cumulative, t, k)
    else:
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
    for a monotone predicate makes it the answer; the others are searched by :func:`bisect`.
    """
    lo = np.zeros(m, dtype=np.int64)
    hi = np.full(m, n, dtype=np.int64)
    if guess is not None:
        g = np.clip(guess, 0, n).astype(np.int64)
        done = np.ones(m, dtype=bool)
        at = _where(g < n)
        done[at] = pred(g[at], at)
        before = _where(done & (g > 0))
        done[before] = ~pred(g[before] - 1, before)
        lo[done] = hi[done] = g[done]
    return bisect(pred, lo, hi)


def _where(mask: np.ndarray) -> np.ndarray | slice:
    """Indices where ``mask`` holds, or the whole slice when it holds everywhere (the usual
    case: the predicates then index their points without a gather)."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def bisect(pred, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per point, the first index in ``[lo, hi]`` where the monotone predicate holds (``hi``
    if it holds nowhere before ``hi``; it is never evaluated there).

    ``pred(i, sel)`` answers for the points ``sel`` (indices into ``lo``) at the indices
    ``i``: False then True along the sorted scores. Vectorised bisection, O(log n) rounds.
    """
    lo = np.array(lo, dtype=np.int64)
    hi = np.array(hi, dtype=np.int64)
    while True:
        sel = np.flatnonzero(lo < hi)
        if sel.size == 0:
            return lo
        mid = (lo[sel] + hi[sel]) // 2
        ok = pred(mid, sel)
        hi[sel[ok]] = mid[ok]
        lo[sel[~ok]] = mid[~ok] + 1


def window_mean(sample: SortedSample, lo: np.ndarray,
                hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Weighted) mean label over each run ``[lo, hi)`` of the sorted sample (NaN where the
    weights sum to 0) and the run's total weight (its row count without weights), from the
    sample's prefix sums."""
    if sample.weights is None:
        total, events = (hi - lo).astype(np.float64), sample.range_sum("y", lo, hi)
    else:
        total, events = sample.range_sum("w", lo, hi), sample.range_sum("wy", lo, hi)
    ok = total > 0
    return np.where(ok, events / np.where(ok, total, 1.0), np.nan), total


def windows_to_fit(sample: SortedSample, t: np.ndarray, k: int, h: float | None, degree: int,
                   kernel: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                         np.ndarray]:
    """The windows at sorted points ``t`` and what needs no polynomial fit in them.

    Returns the bandwidths, the window bounds ``[lo, hi)``, the values known without a local
    polynomial (the window mean for degree 0 with the rectangular kernel, at every point;
    otherwise the mean of a point window, bandwidth 0, where every row in it is tied at t;
    NaN elsewhere) and the indices of the points still to fit (bandwidth > 0, rows in the
    window).
    """
    s = sample.scores
    bw = fixed_or_nn_bandwidth(s, t, k, h)
    lo, hi = window_bounds(s, t, bw)
    if degree == 0 and kernel == "rect":
        return bw, lo, hi, window_mean(sample, lo, hi)[0], np.empty(0, dtype=np.intp)
    value = np.full(t.shape[0], np.nan)
    point = bw == 0.0
    value[point] = window_mean(sample, lo[point], hi[point])[0]
    return bw, lo, hi, value, np.flatnonzero(~point & (hi > lo))


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
