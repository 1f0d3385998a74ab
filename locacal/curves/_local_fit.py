"""Exact local polynomial fits at given points, on a :class:`SortedSample`.

The window of each point is a contiguous run of the sorted scores (see
:mod:`locacal.curves._local_window`), so

* degree 0 with the rectangular kernel is a ratio of range sums: O(log n) per point;
* other degrees and kernels form the local normal equations on the window's slice with NumPy
  and apply locfit's solution rule (:mod:`locacal.curves._local_solve`).

Two ways of summing the normal equations, chosen by problem size only:

* **locfit order** (total window length over all points <= ``SEQUENTIAL_BUDGET``): every
  entry ``sum_i (w_i X_ia) X_ib`` is accumulated one observation at a time in the order of
  locfit's ``nbhd1`` (from the last score <= t down to the window's left end, then rightwards
  from the next score), with locfit's products. locfit's eigen-solver amplifies the last bits
  of these sums to ~1e-9 in degree-2 fits and far more in nearly singular windows (tied
  scores); summing in its order reproduces its answers to ~1e-15 when locfit is given the
  data sorted by score (its 1-d fast path).
* **pairwise** (larger problems): power sums ``sum_i w_i dx_i^j`` by BLAS products, about 10x
  faster; answers then differ from locfit's by its own solver error (~1e-8 in degree 2),
  invisible beside the sampling error at that size.

Power sums are always taken about the evaluation point itself, never as differences of global
prefix sums of raw powers, which would cancel catastrophically in narrow windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from locacal.curves._local_solve import LocalSolution, design_from_moments, solve_newton
from locacal.curves._local_window import (
    SortedSample,
    effective_count,
    fixed_or_nn_bandwidth,
    kernel_reach,
    kernel_weights,
    window_bounds,
)

__all__ = ["SEQUENTIAL_BUDGET", "LocalParams", "PointFits", "fit_points"]

#: Largest total window length (summed over the evaluation points) summed in locfit's order.
SEQUENTIAL_BUDGET = 20_000_000
_CHUNK = 32_768


@dataclass(frozen=True)
class LocalParams:
    """Smoothing parameters of a local fit (already validated)."""

    degree: int = 0
    nn: float | None = 0.15
    h: float | None = None
    kernel: str = "rect"


@dataclass(frozen=True)
class PointFits:
    """Local fits at a batch of points.

    ``value``/``slope``: fitted value and slope; ``bandwidth``: h(t); ``count``: observations
    with positive prior weight and ``|s - t| <= h(t)``; ``var_factor``: ``sum_i l_i(t)^2``.
    """

    value: np.ndarray
    slope: np.ndarray
    bandwidth: np.ndarray
    count: np.ndarray
    var_factor: np.ndarray


def fit_points(sample: SortedSample, points: np.ndarray, params: LocalParams,
               *, sequential: bool | None = None) -> PointFits:
    """Exact local fit at every point (locfit's rules, no interpolation).

    ``sequential`` forces (True) or forbids (False) summation in locfit's order; by default
    it is used when the total window length is at most :data:`SEQUENTIAL_BUDGET`.
    """
    s = sample.scores
    t = np.ascontiguousarray(points, dtype=np.float64)
    k = effective_count(sample.n, params.nn, params.h)
    bw = fixed_or_nn_bandwidth(s, t, k, params.h)
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
    return PointFits(sol.value, sol.slope, bw, count, sol.var_factor)


def _positive_count(sample: SortedSample, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Rows in ``[lo, hi)``, not counting zero prior weights."""
    count = (hi - lo).astype(np.float64)
    if sample.weights is not None:
        count -= sample.range_sum("zero", lo, hi)
    return count


def _rect_mean(sample: SortedSample, lo: np.ndarray, hi: np.ndarray) -> LocalSolution:
    """Degree 0, rectangular kernel: the (weighted) mean over ``[lo, hi)`` from range sums.

    Variance factor ``sum_i l_i^2 = sum_i w_i^2 / (sum_i w_i)^2`` (``1 / count`` without
    weights). locfit adds one Newton correction ``sum_i w_i (y_i - mean) / sum_i w_i``, which
    is rounding noise (< 1e-16 here); it is left out.
    """
    if sample.weights is None:
        total = (hi - lo).astype(np.float64)
        events = sample.range_sum("y", lo, hi)
        square = total
    else:
        total = sample.range_sum("w", lo, hi)
        events = sample.range_sum("wy", lo, hi)
        square = sample.range_sum("w2", lo, hi)
    ok = total > 0
    safe = np.where(ok, total, 1.0)
    value = np.where(ok, events / safe, np.nan)
    var_factor = np.where(ok, square / (safe * safe), np.nan)
    return LocalSolution(value, np.zeros_like(value), var_factor)


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
    normal = _sequential_normal if sequential else _pairwise_normal
    for j in range(m):
        tj, a, b = float(t[j]), int(lo[j]), int(hi[j])
        dx = sample.scores[a:b] - tj
        w = _fit_weights(np.abs(dx), float(bw[j]), params.kernel, sequential)
        labels = sample.labels[a:b]
        prior = None if sample.weights is None else sample.weights[a:b]
        order = _locfit_order(sample.scores, tj, a, b) if sequential else None
        z[j], rhs[j], c0[j], total[j] = normal(dx, w, labels, prior, p, order)
        z_sq[j] = _square_design(dx, w, prior, p)
    return solve_newton(z, rhs, c0, total, z_sq)


def _fit_weights(dist: np.ndarray, h: float, kernel: str, libm: bool) -> np.ndarray:
    """Kernel weights on a window; uniform when the kernel gives every point weight 0.

    A compact kernel (tricube, epan) vanishes at ``|u| = 1``; when all the window's scores sit
    exactly at distance h (tied scores), every weight is 0. locfit then reports "no points
    with non-zero weight" and reuses the previous fit's coefficients (an undefined answer);
    here the weights become uniform, the limit of the fit as h decreases to that distance.
    ``libm`` takes the Gaussian's ``exp`` from the C library, as locfit does.
    """
    w = kernel_weights(dist, h, kernel, libm=libm)
    if dist.size and not (w > 0).any():
        w = np.ones_like(dist)
    return w


def _locfit_order(scores: np.ndarray, t: float, lo: int, hi: int) -> np.ndarray:
    """Window positions (relative to ``lo``) in the order locfit's ``nbhd1`` visits them.

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
    left = np.arange(min(z, hi - 1), lo - 1, -1)
    right = np.arange(max(z + 1, lo), hi)
    return np.concatenate([left, right]) - lo


def _sequential_normal(dx: np.ndarray, w: np.ndarray, labels: np.ndarray,
                       prior: np.ndarray | None, p: int,
                       order: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Normal equations summed one observation at a time in locfit's order and arithmetic.

    locfit: ``s0 = sum K p``, ``s1 = sum K (p y)``, ``c0 = s1 / s0``;
    ``Z_ab = sum ((K p) X_a) X_b``; ``f_a = sum (X_a K) (p (y - c0))``, with
    ``X = (1, dx, (dx dx) / 2)``.
    """
    dx, w, y = dx[order], w[order], labels[order].astype(np.float64)
    pw = np.ones_like(w) if prior is None else prior[order]
    c = w * pw
    s0, s1 = _sequential_sums([c, w * (pw * y)])
    c0 = s1 / s0 if s0 > 0 else 0.0
    basis = [np.ones_like(dx), dx, (dx * dx) / 2][:p]
    resid = pw * (y - c0)
    cols, index = [], {}
    for a in range(p):
        ca = c * basis[a]
        for b in range(p):
            if a == 0 or b == 0:
                key = (0, max(a, b))
                if key in index:
                    index[(a, b)] = index[key]
                    continue
            index[(a, b)] = len(cols)
            cols.append(ca * basis[b])
    first = len(cols)
    cols.extend((basis[a] * w) * resid for a in range(p))
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
    size = cols[0].shape[0] if k else 0
    for start in range(0, size, _CHUNK):
        stop = min(start + _CHUNK, size)
        block = np.empty((stop - start + 1, k))
        block[0] = acc
        for j, col in enumerate(cols):
            block[1:, j] = col[start:stop]
        acc = block.sum(axis=0)
    return acc


def _pairwise_normal(dx: np.ndarray, w: np.ndarray, labels: np.ndarray,
                     prior: np.ndarray | None, p: int,
                     order: None) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Normal equations from power sums ``sum w dx^j`` (BLAS products, pairwise rounding)."""
    del order
    ww = w if prior is None else w * prior
    powers = _powers(dx, 2 * p - 2)
    moments = powers @ ww
    y_moments = powers[:p] @ np.where(labels, ww, 0.0)
    total = float(moments[0])
    c0 = y_moments[0] / total if total > 0 else 0.0
    scale = np.array([1.0, 1.0, 0.5])[:p]
    rhs = (y_moments - c0 * moments[:p]) * scale
    return design_from_moments(moments[None], p - 1)[0], rhs, c0, total


def _square_design(dx: np.ndarray, w: np.ndarray, prior: np.ndarray | None,
                   p: int) -> np.ndarray:
    """``sum_i w_i^2 X_i X_i'`` (kernel x prior weight, squared) for the variance factor."""
    ww = w if prior is None else w * prior
    moments = _powers(dx, 2 * p - 2) @ (ww * ww)
    return design_from_moments(moments[None], p - 1)[0]


def _powers(dx: np.ndarray, top: int) -> np.ndarray:
    """Rows ``dx**0 .. dx**top`` by repeated multiplication."""
    out = np.empty((top + 1, dx.shape[0]))
    out[0] = 1.0
    for j in range(1, top + 1):
        np.multiply(out[j - 1], dx, out=out[j])
    return out
