"""Exact local polynomial fits at given points, on a :class:`SortedSample`.

The window of each point is a contiguous run of the sorted scores (see
:mod:`locacal.localfit._window`), so

* degree 0 with the rectangular kernel is a ratio of range sums: O(log n) per point;
* other degrees and kernels form the local normal equations on the window's slice with NumPy
  and apply locfit's solution rule (:mod:`locacal.localfit._solve`).

Two ways of summing the normal equations, chosen by problem size only:

* **locfit order** (total window length over all points <= ``SEQUENTIAL_BUDGET``): every
  entry ``sum_i (w_i X_ia) X_ib`` is accumulated one observation at a time in the order of
  locfit's ``nbhd1`` (from the last score <= t down to the window's left end, then rightwards
  from the next score), with locfit's products. locfit's eigen-solver amplifies the last bits
  of these sums to ~1e-9 in degree-2 fits and far more in nearly singular windows (tied
  scores); summing in its order reproduces its answers to ~1e-15 when locfit is given the
  data sorted by score (its 1-d fast path).
* **pairwise** (larger problems): power sums ``sum_i w_i dx_i^j`` over cache-sized chunks,
  about 10x faster; answers then differ from locfit's by its own solver error (up to ~1e-8 in
  degree 2, more in nearly singular windows), invisible beside the sampling error at that
  size.

Power sums are always taken about the evaluation point itself, never as differences of global
prefix sums of raw powers, which would cancel catastrophically in narrow windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._solve import LocalSolution, design_from_moments, solve_newton
from locacal.localfit._window import (
    effective_count,
    fixed_or_nn_bandwidth,
    kernel_reach,
    kernel_weights,
    window_bounds,
    window_mean,
)

__all__ = ["SEQUENTIAL_BUDGET", "LocalParams", "PointFits", "fit_points"]

#: Largest total window length (summed over the evaluation points) summed in locfit's order.
SEQUENTIAL_BUDGET = 1_000_000
_CHUNK = 32_768


@dataclass(frozen=True)
class LocalParams:
    """Smoothing parameters of a local fit (already validated); ``family``: local least
    squares (``"gaussian"``, locfit's default) or the local logistic likelihood
    (``"binomial"``, :mod:`locacal.localfit._likelihood`)."""

    degree: int = 0
    nn: float | None = 0.15
    h: float | None = None
    kernel: str = "rect"
    family: str = "gaussian"


@dataclass(frozen=True)
class PointFits:
    """Local fits at a batch of points.

    ``value``/``slope``: fitted value and slope; ``bandwidth``: h(t); ``count``: observations
    with positive prior weight and ``|s - t| <= h(t)``; ``var_factor``: ``sum_i l_i(t)^2``;
    ``unit``: the smoother weight at ``t`` itself per unit prior weight (``a_0 + kappa``,
    :class:`~locacal.localfit._solve.LocalSolution`).
    """

    value: np.ndarray
    slope: np.ndarray
    bandwidth: np.ndarray
    count: np.ndarray
    var_factor: np.ndarray
    unit: np.ndarray | None = None


def fit_points(sample: SortedSample, points: np.ndarray, params: LocalParams,
               *, sequential: bool | None = None) -> PointFits:
    """Exact local fit at every point (locfit's rules, no interpolation).

    ``sequential`` forces (True) or forbids (False) summation in locfit's order; by default
    it is used when the total window length is at most :data:`SEQUENTIAL_BUDGET`.
    """
    s = sample.scores
    t = np.ascontiguousarray(points, dtype=np.float64)
    k = effective_count(sample.observations, params.nn, params.h)
    bw = fixed_or_nn_bandwidth(s, t, k, params.h, sample.cumulative_counts)
    lo, hi = window_bounds(s, t, bw)
    count = _positive_count(sample, lo, hi)
    if params.degree == 0 and params.kernel == "rect":
        sol = _rect_mean(sample, lo, hi)
    else:
        if params.kernel == "gauss":
            lo, hi = window_bounds(s, t, bw * kernel_reach("gauss"))
        if sequential is None:
            sequential = int(np.sum(hi - lo)) <= SEQUENTIAL_BUDGET
        sol = _window_solution(sample, t, bw, lo, hi, params, sequential)
    return PointFits(sol.value, sol.slope, bw, count, sol.var_factor, sol.unit)


def _positive_count(sample: SortedSample, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Rows in ``[lo, hi)``, not counting zero prior weights (observations, with frequency
    weights)."""
    if sample.counts is not None:
        return sample.range_sum("f", lo, hi)
    count = (hi - lo).astype(np.float64)
    if sample.weights is not None:
        count -= sample.range_sum("zero", lo, hi)
    return count


def _rect_mean(sample: SortedSample, lo: np.ndarray, hi: np.ndarray) -> LocalSolution:
    """Degree 0, rectangular kernel: the (weighted) mean over ``[lo, hi)`` from range sums.

    Variance factor ``sum_i l_i^2 = sum_i w_i^2 / (sum_i w_i)^2`` (``1 / count`` without
    weights). locfit adds one Newton correction ``sum_i w_i (y_i - mean) / sum_i w_i``, which
    is rounding noise; it is left out (measured difference from locfit <= 2.2e-15).
    """
    value, total = window_mean(sample, lo, hi)
    square = total if sample.weights is None else sample.range_sum("w2", lo, hi)
    ok = total > 0
    safe = np.where(ok, total, 1.0)
    var_factor = np.where(ok, square / (safe * safe), np.nan)
    return LocalSolution(value, np.zeros_like(value), var_factor,
                         np.where(ok, 1.0 / safe, np.nan))


def _window_solution(sample: SortedSample, t: np.ndarray, bw: np.ndarray, lo: np.ndarray,
                     hi: np.ndarray, params: LocalParams, sequential: bool) -> LocalSolution:
    """Normal equations on each window's slice, then locfit's solution rule."""
    p = params.degree + 1
    m = t.shape[0]
    z = np.zeros((m, p, p))
    z_sq = np.zeros((m, p, p))
    rhs = np.zeros((m, p))
    c0 = np.zeros(m)
    total = np.zeros(m)
    for j in range(m):
        tj, h, a, b = float(t[j]), float(bw[j]), int(lo[j]), int(hi[j])
        if sequential:
            win = _Window(sample, tj, h, params.kernel, _locfit_order(sample.scores, tj, a, b))
            z[j], rhs[j], c0[j], total[j] = _sequential_normal(win, p)
            z_sq[j] = _square_design(win, p)
        else:
            moments, y_moments, sq_moments = _chunked_moments(sample, tj, h, params.kernel,
                                                              a, b, p)
            z[j], rhs[j], c0[j], total[j] = _normal_from_moments(moments, y_moments, p)
            z_sq[j] = design_from_moments(sq_moments[None], p - 1)[0]
    return solve_newton(z, rhs, c0, total, z_sq)


def _chunked_moments(sample: SortedSample, t: float, h: float, kernel: str, lo: int, hi: int,
                     p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sum w dx^j``, ``sum w y dx^j``, ``sum w^2 dx^j`` over ``[lo, hi)``, chunk by chunk.

    Chunks of 32768 rows keep every temporary in cache (one pass over a fresh 12 MB array
    per operation would cost more than the arithmetic). If a compact kernel gives the whole
    window weight 0, the sums are redone with uniform weights (see :func:`_fit_weights`).
    """
    top = 2 * p - 2
    buffer = np.empty((top + 1, _CHUNK))
    sums = [np.zeros(top + 1), np.zeros(p), np.zeros(top + 1), np.zeros(1)]
    for start in range(lo, hi, _CHUNK):
        _add_chunk(sample, t, h, kernel, start, min(start + _CHUNK, hi), p, buffer, sums)
    if hi > lo and kernel != "rect" and not sums[3][0] > 0:
        return _chunked_moments(sample, t, h, "rect", lo, hi, p)
    return sums[0], sums[1], sums[2]


def _add_chunk(sample: SortedSample, t: float, h: float, kernel: str, start: int, stop: int,
               p: int, buffer: np.ndarray, sums: list[np.ndarray]) -> None:
    """Add one chunk's power sums to ``sums`` (the last entry: total kernel weight)."""
    dx = sample.scores[start:stop] - t
    w = None if kernel == "rect" else kernel_weights(np.abs(dx), h, kernel)
    if w is not None:
        sums[3] += w.sum()
    if sample.weights is not None:
        prior = sample.weights[start:stop]
        w = prior if w is None else w * prior
    powers = _powers(dx, 2 * p - 2, buffer)
    y = sample.labels[start:stop].astype(np.float64)
    if w is None:
        moments = powers.sum(axis=1)
        sums[0] += moments
        sums[1] += _row_dots(powers[:p], y)
        sums[2] += moments
    else:
        sums[0] += _row_dots(powers, w)
        sums[1] += _row_dots(powers[:p], w * y)
        square = w * w if sample.counts is None else w * w / sample.counts[start:stop]
        sums[2] += _row_dots(powers, square)


def _row_dots(rows: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``rows @ v`` without BLAS: OpenBLAS spreads even these small products over threads,
    which spin and slow the fit down 50-fold on a busy machine (measured, 2 cores)."""
    return np.einsum("ij,j->i", rows, v)


def _normal_from_moments(moments: np.ndarray, y_moments: np.ndarray,
                         p: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``Z``, ``f = X' W (y - c0)``, ``c0`` and ``sum w`` from power sums."""
    total = float(moments[0])
    c0 = y_moments[0] / total if total > 0 else 0.0
    scale = np.array([1.0, 1.0, 0.5])[:p]
    rhs = (y_moments - c0 * moments[:p]) * scale
    return design_from_moments(moments[None], p - 1)[0], rhs, c0, total


class _Window:
    """One window's data: ``dx = s - t``, combined weights (None: all 1) and labels.

    ``order = (lo, z, hi)``: rows ``z, z-1, ..., lo`` then ``z+1, ..., hi-1`` (locfit's
    visiting order, see :func:`_locfit_order`); ``(lo, lo - 1, hi)`` is plain ascending order.
    """

    __slots__ = ("counts", "dx", "labels", "prior", "unit", "w")

    def __init__(self, sample: SortedSample, t: float, h: float, kernel: str,
                 order: tuple[int, int, int]):
        lo, z, hi = order
        self.dx = _ordered(sample.scores, lo, z, hi) - t
        self.labels = _ordered(sample.labels, lo, z, hi).astype(np.float64)
        self.prior = None if sample.weights is None else _ordered(sample.weights, lo, z, hi)
        self.counts = None if sample.counts is None else _ordered(sample.counts, lo, z, hi)
        self.w = None if kernel == "rect" else _fit_weights(np.abs(self.dx), h, kernel)
        self.unit = self.w is None and self.prior is None

    def combined(self) -> np.ndarray | None:
        """Kernel x prior weight (None when all are 1)."""
        if self.w is None:
            return self.prior
        return self.w if self.prior is None else self.w * self.prior


def _ordered(arr: np.ndarray, lo: int, z: int, hi: int) -> np.ndarray:
    """``arr[z], arr[z-1], ..., arr[lo], arr[z+1], ..., arr[hi-1]`` (slices, no gather)."""
    if z < lo:
        return arr[lo:hi]
    return np.concatenate([arr[lo:z + 1][::-1], arr[z + 1:hi]])


def _fit_weights(dist: np.ndarray, h: float, kernel: str) -> np.ndarray:
    """Kernel weights on a window; uniform when the kernel gives every point weight 0.

    A compact kernel (tricube, epan) vanishes at ``|u| = 1``; when all the window's scores sit
    exactly at distance h (tied scores), every weight is 0. locfit then reports "no points
    with non-zero weight" and reuses the previous fit's coefficients (an undefined answer);
    here the weights become uniform, the limit of the fit as h decreases to that distance.
    The Gaussian's ``exp`` comes from the C library, as in locfit.
    """
    w = kernel_weights(dist, h, kernel, libm=True)
    if dist.size and not (w > 0).any():
        w = np.ones_like(dist)
    return w


def _locfit_order(scores: np.ndarray, t: float, lo: int, hi: int) -> tuple[int, int, int]:
    """``(lo, z, hi)`` for the order in which locfit's ``nbhd1`` visits the window.

    ``nbhd1`` starts at the last score <= t (the first score when ``t <= s[0]``, nothing
    on the left when it is above t), walks left, then walks right from the next score.
    """
    n = scores.shape[0]
    if t <= scores[0]:
        z = 0 if scores[0] <= t else -1
    elif t >= scores[n - 1]:
        z = n - 1
    else:
        z = int(np.searchsorted(scores, t, side="right")) - 1
    return lo, min(z, hi - 1), hi


def _sequential_normal(win: _Window, p: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Normal equations summed one observation at a time in locfit's order and arithmetic.

    locfit: ``s0 = sum K p``, ``s1 = sum K (p y)``, ``c0 = s1 / s0``;
    ``Z_ab = sum ((K p) X_a) X_b``; ``f_a = sum (X_a K) (p (y - c0))``, with
    ``X = (1, dx, (dx dx) / 2)``. With unit weights every product ``1 * x`` is exact and
    ``Z`` symmetric, which saves columns; sums of 0/1 values are exact counts.
    """
    dx, y = win.dx, win.labels
    ones = np.ones_like(dx)
    k = ones if win.w is None else win.w
    pw = ones if win.prior is None else win.prior
    c = k * pw
    if win.unit:
        s0, s1 = float(dx.shape[0]), float(np.count_nonzero(y))
    else:
        s0, s1 = _sequential_sums([c, k * (pw * y)])
    c0 = s1 / s0 if s0 > 0 else 0.0
    basis = [ones, dx, (dx * dx) / 2][:p]
    resid = pw * (y - c0)
    cols, index = [], {}
    for a in range(p):
        ca = c * basis[a]
        for b in range(p):
            key = (min(a, b), max(a, b)) if (win.unit or a == 0 or b == 0) else (a, b)
            if key not in index:
                index[key] = len(cols)
                cols.append(ca * basis[b])
            index[(a, b)] = index[key]
    first = len(cols)
    cols.extend((basis[a] * k) * resid for a in range(p))
    sums = _sequential_sums(cols)
    z = np.array([[sums[index[(a, b)]] for b in range(p)] for a in range(p)])
    return z, np.asarray(sums[first:]), c0, s0


def _sequential_sums(cols: list[np.ndarray]) -> np.ndarray:
    """``((x_0 + x_1) + x_2) + ...`` for each column, in chunks that stay in cache.

    A reduction along axis 0 of a C-ordered (rows, k >= 2) array adds row after row, i.e. in
    sequence; each chunk starts with the running totals as its first row. (With k = 1 NumPy
    would see a flat array and sum pairwise, hence the spare zero column.)
    """
    cols = [*cols, np.zeros_like(cols[0])] if len(cols) == 1 else cols
    k = len(cols)
    acc = np.zeros(k)
    size = cols[0].shape[0]
    block = np.empty((min(_CHUNK, size) + 1, k))
    for start in range(0, size, _CHUNK):
        stop = min(start + _CHUNK, size)
        rows = stop - start
        block[0] = acc
        for j, col in enumerate(cols):
            block[1:rows + 1, j] = col[start:stop]
        acc = block[:rows + 1].sum(axis=0)
    return acc


def _square_design(win: _Window, p: int) -> np.ndarray:
    """``sum_i w_i^2 X_i X_i'`` (kernel x prior weight, squared) for the variance factor;
    over the expanded rows with frequency weights f (``(k w f)^2 / f``)."""
    ww = win.combined()
    powers = _powers(win.dx, 2 * p - 2)
    square = None if ww is None else (ww * ww if win.counts is None else ww * ww / win.counts)
    moments = powers.sum(axis=1) if ww is None else _row_dots(powers, square)
    return design_from_moments(moments[None], p - 1)[0]


def _powers(dx: np.ndarray, top: int, buffer: np.ndarray | None = None) -> np.ndarray:
    """Rows ``dx**0 .. dx**top`` by repeated multiplication (into ``buffer`` if given: a
    reused array avoids faulting in fresh pages for every window)."""
    size = dx.shape[0]
    out = np.empty((top + 1, size)) if buffer is None else buffer[:top + 1, :size]
    out[0] = 1.0
    for j in range(1, top + 1):
        np.multiply(out[j - 1], dx, out=out[j])
    return out
