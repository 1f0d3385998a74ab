"""Exact local fits at millions of distinct points: :class:`ExactLocalMap`.

The same fit as :func:`locacal.localfit._direct.fit_points` (locfit's rules, no
interpolation), organised for many points:

* the queries are sorted and made unique once; each distinct point is fitted and the values
  scattered back;
* **degree 0, rectangular kernel**: a ratio of range sums (``SortedSample.range_sum``:
  int64 / long-double prefix sums), O(1) per point after the window search;
* **rect, tricube, epan, degree 0-2**: every kernel weight is a polynomial in
  ``x = |s - t| / h`` on each side of ``t`` (rect 1, epan ``1 - x^2``, tricube
  ``1 - 3x^3 + 3x^6 - x^9``), so the kernel-weighted power sums
  ``sum_i w_i K(x_i) (s_i - t)^j`` are combinations of the one-sided power sums
  ``sum_i w_i x_i^q`` (``q`` up to 13). Those come from :class:`LeftMomentTree`
  (:mod:`locacal.localfit._moments`): segment-tree moments whose re-anchoring
  multiplies and adds non-negative numbers only, so each is accurate to a few units in the
  last place, relative. Sorted points whose window ``[lo, hi)`` and split ``z`` (first score
  above ``t``) coincide share one tree query (at most ~3n distinct triples, whatever the
  number of points); each point then shifts its group's moments to itself (O(13^2)).
  The only cancellation left is the kernel's own sign pattern (tricube: four terms of size
  at most 3, i.e. a few units in the last place of ``sum_i w_i x_i^j``). The normal
  equations then go through locfit's Newton step and Jacobi solver
  (:func:`locacal.localfit._solve.newton_step`); in degree 2 that solver amplifies
  last-bit differences of the sums to ~1e-9 (as it does between locfit and any other
  summation order);
* **Gaussian kernel** (not compact, not a polynomial): direct summation over the window
  (16 bandwidths, usually all n rows) by ``fit_points``: O(m n) — use it for small m only.

locfit's rules are kept: ``h = 0`` windows (only the scores equal to ``t``) give their
weighted mean for every degree and kernel; when a compact kernel gives every window score
weight 0 (all of them exactly at distance h), the weights become uniform (the fit of the
rectangular kernel on the same window); a point whose window holds no positive weight gets
NaN.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, sections 2.1-2.2
and appendix B; the kernels' polynomial forms are those of appendix B.
"""

from __future__ import annotations

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._direct import LocalParams, fit_points
from locacal.localfit._moments import LeftMomentTree, mirror, shift_moments
from locacal.localfit._solve import design_from_moments, newton_step
from locacal.localfit._window import (
    bisect,
    effective_count,
    kernel_weights,
    window_mean,
    windows_to_fit,
)

__all__ = ["KERNEL_POLYNOMIALS", "ExactLocalMap"]

#: Kernel weight as a polynomial in x = |s - t| / h on [0, 1]: {power: coefficient}.
KERNEL_POLYNOMIALS = {"rect": {0: 1.0}, "epan": {0: 1.0, 2: -1.0},
                      "tricube": {0: 1.0, 3: -3.0, 6: 3.0, 9: -1.0}}
#: Kernel mass (relative to the window's weight) below which a fit is recomputed directly.
THIN_KERNEL = 1e-3
#: Distinct points fitted per batch (bounds the memory: ~2 kB per point).
BATCH = 1 << 16


class ExactLocalMap:
    """Exact local fit at any scores (see the module docstring); picklable.

    Parameters
    ----------
    sample : SortedSample
    params : LocalParams
    clip : bool
        Clip the values to [0, 1].
    """

    def __init__(self, sample: SortedSample, params: LocalParams, *, clip: bool):
        self._sample = sample
        self._params = params
        self._clip = clip
        self._trees: tuple[LeftMomentTree, LeftMomentTree] | None = None

    def __call__(self, points: np.ndarray) -> np.ndarray:
        """Exact fit at each point (NaN where the window holds no weight)."""
        x = np.asarray(points, dtype=np.float64)
        flat = x.ravel()
        uniq, inverse = np.unique(flat, return_inverse=True)
        values = np.empty(uniq.shape[0])
        for start in range(0, uniq.shape[0], BATCH):
            stop = min(start + BATCH, uniq.shape[0])
            values[start:stop] = self.fit_sorted(uniq[start:stop])
        out = values[inverse].reshape(x.shape)
        if self._clip:
            np.clip(out, 0.0, 1.0, out=out)
        return out

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_trees"] = None  # rebuilt on demand
        return state

    def fit_sorted(self, t: np.ndarray) -> np.ndarray:
        """Exact fits at sorted, distinct points ``t`` (unclipped)."""
        sample, params = self._sample, self._params
        if params.kernel == "gauss":
            return fit_points(sample, t, params).value
        k = effective_count(sample.n, params.nn, params.h)
        bw, lo, hi, value, keep = windows_to_fit(sample, t, k, params.h, params.degree,
                                                 params.kernel)
        if keep.size:
            value[keep] = self._polynomial_fit(t[keep], bw[keep], lo[keep], hi[keep])
        return value

    # ------------------------------------------------------------------ compact kernels

    def _tree_pair(self) -> tuple[LeftMomentTree, LeftMomentTree]:
        if self._trees is None:
            sample, p = self._sample, self._params.degree + 1
            top = max(KERNEL_POLYNOMIALS[self._params.kernel])
            v = np.ones(sample.n) if sample.weights is None else sample.weights
            vy = np.where(sample.labels, v, 0.0)
            orders = [2 * p - 2 + top, p - 1 + top]
            left = LeftMomentTree(sample.scores, [v, vy], orders)
            right = LeftMomentTree(mirror(sample.scores), [v[::-1].copy(), vy[::-1].copy()],
                                   orders)
            self._trees = (left, right)
        return self._trees

    def _polynomial_fit(self, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                        hi: np.ndarray) -> np.ndarray:
        """Fits at points with ``h > 0`` and a non-empty window (compact kernels).

        Where the kernel leaves the window almost no mass (every score near the window's
        edge, kernel sum below ``THIN_KERNEL`` of the window's weight), the polynomial
        kernel's terms cancel (tricube: four terms of size up to 3 for a weight of 1e-5), so
        those few points are fitted directly by ``fit_points`` instead."""
        z_mat, rhs, c0, total, has_weight = self.normal_equations(t, h, lo, hi)
        value = newton_step(z_mat, rhs, c0)[:, 0]
        value[~has_weight] = np.nan
        thin = np.flatnonzero(has_weight & (total < THIN_KERNEL
                                            * window_mean(self._sample, lo, hi)[1]))
        if thin.size:
            value[thin] = fit_points(self._sample, t[thin], self._params).value
        return value

    def normal_equations(self, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                         hi: np.ndarray) -> tuple[np.ndarray, ...]:
        """Local normal equations at sorted, distinct points with ``h > 0`` and a non-empty
        window ``[lo, hi)`` (compact kernels; only the degree and kernel of the parameters
        are used, so one map serves every bandwidth).

        Returns ``Z`` (m, p, p), ``f = X' W (y - c0)`` (m, p), ``c0``, ``sum_i w_i`` and
        whether some window score has positive weight.
        """
        z = np.searchsorted(self._sample.scores, t, side="right")
        left, right = self.side_sums(t, h, lo, z, hi)
        return self.equations_from_sides(t, h, lo, z, hi, left, right)

    def side_sums(self, t: np.ndarray, h: np.ndarray, lo: np.ndarray, z: np.ndarray,
                  hi: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """One-sided power sums by the segment trees: for each column ``v`` of the trees
        (weights, weights x labels), ``sum_{lo <= i < z} v_i ((t - s_i) / h)^q`` and
        ``sum_{z <= i < hi} v_i ((s_i - t) / h)^q`` for ``q = 0..order`` (arrays (order + 1,
        m)); ``z`` is the first row with a score above ``t``."""
        s, n = self._sample.scores, self._sample.n
        start = np.flatnonzero(np.diff(np.stack([lo, z, hi]), axis=1).any(axis=0)) + 1
        group = np.zeros(t.shape[0], dtype=np.intp)
        group[start] = 1
        np.cumsum(group, out=group)
        first = np.concatenate([[0], start])
        g_lo, g_z, g_hi = lo[first], z[first], hi[first]
        left, right = self._tree_pair()
        side_l, scale_l = left.query(g_lo, g_z)
        side_r, scale_r = right.query(n - g_hi, n - g_z)
        # per point: x = (t - s) / h on the left of t, (s - t) / h on the right. An empty
        # side has zero moments and any offset: 0, since its anchor (the nearest score
        # beyond the window) may lie so many bandwidths away that its powers overflow
        anchor_l = s[np.maximum(g_z - 1, 0)][group]
        anchor_r = s[np.minimum(g_z, n - 1)][group]
        with np.errstate(over="ignore"):  # inf only where the side is empty
            e_l = np.where((g_z > g_lo)[group], (t - anchor_l) / h, 0.0)
            e_r = np.where((g_hi > g_z)[group], (anchor_r - t) / h, 0.0)
        rho_l, rho_r = scale_l[group] / h, scale_r[group] / h
        pl = [shift_moments(side_l[col][:, group], e_l, rho_l, order)
              for col, order in enumerate(left.orders)]
        pr = [shift_moments(side_r[col][:, group], e_r, rho_r, order)
              for col, order in enumerate(left.orders)]
        return pl, pr

    def equations_from_sides(self, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                             z: np.ndarray, hi: np.ndarray, left: list[np.ndarray],
                             right: list[np.ndarray]) -> tuple[np.ndarray, ...]:
        """:meth:`normal_equations` from the one-sided power sums of :meth:`side_sums`."""
        sample, params = self._sample, self._params
        s, p = sample.scores, params.degree + 1
        uniform = _all_weights_zero(s, t, h, lo, z, hi, params.kernel)
        kernel = KERNEL_POLYNOMIALS[params.kernel]
        top = max(kernel)
        mom, ymom = (_kernel_sums(pl, pr, h, kernel, pl.shape[0] - top, uniform)
                     for pl, pr in zip(left, right, strict=True))
        total = mom[0]
        c0 = ymom[0] / np.where(total > 0, total, 1.0)
        scale = np.array([1.0, 1.0, 0.5])[:p]
        rhs = (ymom - c0 * mom[:p]) * scale[:, None]
        z_mat = design_from_moments(mom.T, p - 1)
        has_weight = _has_weight(sample, t, h, lo, z, hi, uniform, params.kernel)
        return z_mat, rhs.T, c0, total, has_weight


def _kernel_sums(left: np.ndarray, right: np.ndarray, h: np.ndarray, kernel: dict,
                 count: int, uniform: np.ndarray) -> np.ndarray:
    """``sum_i v_i K(x_i) (s_i - t)^j`` for ``j < count`` from one-sided power sums
    (uniform weights K = 1 where ``uniform``)."""
    out = np.empty((count, h.shape[0]))
    hj = np.ones_like(h)
    for j in range(count):
        side_l = np.zeros_like(h)
        side_r = np.zeros_like(h)
        for power, coef in kernel.items():
            side_l += coef * left[j + power]
            side_r += coef * right[j + power]
        side_l[uniform] = left[j, uniform]
        side_r[uniform] = right[j, uniform]
        out[j] = hj * (side_r - side_l if j % 2 else side_r + side_l)
        hj = hj * h
    return out


def _all_weights_zero(s: np.ndarray, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                      z: np.ndarray, hi: np.ndarray, kernel: str) -> np.ndarray:
    """Compact kernel giving every window score weight 0 (all at distance exactly h).

    The kernel weight is non-increasing in the distance on each side of ``t``, so it is 0
    everywhere iff it is 0 at the nearest score on each side (``z - 1`` and ``z``), when
    that score is in the window. (``kernel_weights(d / h, 1)`` is ``kernel_weights(d, h)``
    bit for bit: ``u / 1.0 == u``.)
    """
    if kernel == "rect":
        return np.zeros(t.shape[0], dtype=bool)
    n = s.shape[0]
    zero = np.ones(t.shape[0], dtype=bool)
    for has, dist in ((z - 1 >= lo, t - s[np.maximum(z - 1, 0)]),
                      (z < hi, s[np.minimum(z, n - 1)] - t)):
        with np.errstate(over="ignore"):  # inf many bandwidths away: weight 0
            w = kernel_weights(np.abs(dist) / h, 1.0, kernel)
        zero &= ~(has & (w > 0))
    return zero


def _has_weight(sample: SortedSample, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                z: np.ndarray, hi: np.ndarray, uniform: np.ndarray,
                params_kernel: str) -> np.ndarray:
    """Some window score has positive kernel x prior weight (exact test).

    Without prior weights every non-empty window qualifies. With them, the kernel is
    positive exactly on the scores at distance < h (all window scores for ``rect`` or when
    ``uniform``), a
    run ``[a, b)`` found by binary search; its prior weights sum to exactly 0 iff all are 0.
    """
    if sample.weights is None:
        return np.ones(t.shape[0], dtype=bool)
    s = sample.scores
    a, b = lo.copy(), hi.copy()
    inner = ~uniform & (params_kernel != "rect")
    rows = np.flatnonzero(inner)
    a[inner] = bisect(lambda i, sel: (t[rows[sel]] - s[i]) < h[rows[sel]], lo[inner], z[inner])
    b[inner] = bisect(lambda i, sel: (s[i] - t[rows[sel]]) >= h[rows[sel]], z[inner], hi[inner])
    return sample.range_sum("w", a, b) > 0
