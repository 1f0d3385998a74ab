"""Exact local fits at many sorted points from in-block prefix sums: :func:`fit_sorted`.

The route of :func:`locacal.localfit.fit` for the value at arbitrarily many points
(``many_points``: the calibrators' ``predict``). It computes the same fit as
:func:`locacal.localfit._direct.fit_points` (locfit's rules, no interpolation), with the
one-sided kernel-weighted power sums of each window taken from
:class:`~locacal.localfit._blocks.BlockCache` (blocks of ``2^L`` rows, ``2^L`` at most the
smallest window: about one binomial shift per side of each point, O(order^2)) instead of the
``2 log2 n`` segment-tree nodes per side of
:class:`~locacal.localfit._segment.ExactLocalMap` (the default calibrator's fit + predict at
n = 10^6: 13.7 s with the trees, 1.9 s here; ``benchmarks/bench_local_predict.py``).
The span (``nn``) guarantees every window ``k = floor(n nn)`` rows, so blocks of at most
``k`` rows always fit; the few points the blocks cannot answer accurately (blocks many
bandwidths wide) take the segment trees' sums. A fixed bandwidth alone gives windows of any
size, down to none, whose many fallbacks made this route slower than the trees (measured),
so :func:`~locacal.localfit.fit` leaves those to the trees.

Accuracy: the block sums carry a rounding error below a small multiple of
``3^q (B + W) 2^-53`` relative to the window's weight (:mod:`locacal.localfit._blocks`),
against the trees' few units in the last place. Where the fit would amplify it (kernel mass
below :data:`CAREFUL_KERNEL` of the window's weight, or intercept and slope columns nearly
collinear: a window whose weight sits on almost one score, as with tied scores) the point is
refitted from direct sums (or the trees' sums beyond ``SEQUENTIAL_BUDGET``). Measured
against ``fit_points`` at n = 10^6 (beta(2, 5) scores, nn = 0.15, 200 points, with and
without weights): 0 (degree 0, rect), 4.7e-13 (degree 0, tricube), 8.3e-13 (degree 1,
tricube; trees 1.3e-13), 2.8e-9 (degree 2, rect; trees 8.8e-11), 3.9e-10 (degree 2,
tricube); ``tests/test_local_many.py`` asserts the tolerances that
``tests/test_local_exact.py`` states for the map (1e-9 in degrees 0-1 on random, tied and
weighted data, 1e-7 in degree 2 inside the data's range).

locfit's rules are those of the map: ``h = 0`` windows give their weighted mean, a compact
kernel that gives every window score weight 0 becomes uniform, a window without positive
weight gives NaN. The Gaussian kernel (not compact, no polynomial form) is not served here:
:func:`~locacal.localfit.fit` leaves it to the map's direct sums.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, sections 2.1-2.2
and appendix B.
"""

from __future__ import annotations

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._blocks import BlockCache, block_level
from locacal.localfit._direct import SEQUENTIAL_BUDGET, LocalParams, fit_points
from locacal.localfit._segment import THIN_KERNEL, ExactLocalMap
from locacal.localfit._solve import newton_step
from locacal.localfit._window import (
    effective_count,
    window_mean,
    windows_to_fit,
)

__all__ = ["BATCH", "block_equations", "fit_sorted"]

#: Distinct points fitted per batch (keeps the temporaries in cache: ~25 kB per point).
BATCH = 1 << 13
#: Points whose bandwidths and windows are found at once (fresh temporaries of 10^7 points
#: cost more in page faults than the arithmetic on them).
CHUNK = 1 << 16
#: Kernel mass (relative to the window's weight) below which the block sums' error, relative
#: to the window's weight, could reach 1e-9 of the fit: such points are fitted carefully.
CAREFUL_KERNEL = 0.05
#: ``1 - r^2`` (intercept-slope correlation of the weighted design) below which the solver
#: amplifies the block sums' error: such points are fitted carefully (tied scores).
ILL_CONDITIONED = 1e-3


def fit_sorted(sample: SortedSample, t: np.ndarray, params: LocalParams,
               exact_map: ExactLocalMap, blocks: BlockCache) -> np.ndarray:
    """Exact fits (unclipped, NaN where the window holds no weight) at sorted, distinct
    points ``t``, for a compact kernel and a span (``params.nn``, with or without ``h``).

    ``exact_map`` and ``blocks``: the segment trees and block sums of the sample for the
    degree and kernel of ``params`` (any bandwidth: only those two are used). The points
    are taken :data:`CHUNK` at a time, so that no temporary grows with their number.
    """
    k = effective_count(sample.n, params.nn, params.h)
    # the span guarantees k rows in every window: blocks of at most k rows never fall back
    level = block_level(np.array([k]))
    value = np.empty(t.shape[0])
    for start in range(0, t.shape[0], CHUNK):
        value[start:start + CHUNK] = _fit_chunk(sample, t[start:start + CHUNK], params, k,
                                                exact_map, blocks, level)
    return value


def _fit_chunk(sample: SortedSample, t: np.ndarray, params: LocalParams, k: int,
               exact_map: ExactLocalMap, blocks: BlockCache, level: int) -> np.ndarray:
    bw, lo, hi, value, keep = windows_to_fit(sample, t, k, params.h, params.degree,
                                             params.kernel)
    for start in range(0, keep.size, BATCH):
        idx = keep[start:start + BATCH]
        tb, hb, lb, ub = t[idx], bw[idx], lo[idx], hi[idx]
        z_mat, rhs, c0, total, has_weight = block_equations(sample, exact_map, blocks, level,
                                                            tb, hb, lb, ub)
        fitted = newton_step(z_mat, rhs, c0)[:, 0]
        fitted[~has_weight] = np.nan
        weight = window_mean(sample, lb, ub)[1]
        redo = np.flatnonzero(has_weight & ((total < CAREFUL_KERNEL * weight)
                                            | _ill_conditioned(z_mat)))
        if redo.size:
            fitted[redo] = _careful(sample, params, exact_map, tb[redo], hb[redo], lb[redo],
                                    ub[redo], weight[redo])
        value[idx] = fitted
    return value


def _ill_conditioned(z_mat: np.ndarray) -> np.ndarray:
    """Nearly collinear intercept and slope columns: ``1 - r^2 < ILL_CONDITIONED`` with
    ``r^2 = Z_01^2 / (Z_00 Z_11)`` (a window whose weight sits almost all on one score;
    degree 0: never)."""
    if z_mat.shape[1] == 1:
        return np.zeros(z_mat.shape[0], dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = z_mat[:, 0, 1] ** 2 / (z_mat[:, 0, 0] * z_mat[:, 1, 1])
    return ~(1.0 - r2 >= ILL_CONDITIONED)


def _careful(sample: SortedSample, params: LocalParams, exact_map: ExactLocalMap,
             t: np.ndarray, h: np.ndarray, lo: np.ndarray, hi: np.ndarray,
             weight: np.ndarray) -> np.ndarray:
    """The map's fit at the points whose block sums are not accurate enough: direct sums
    within ``SEQUENTIAL_BUDGET`` rows in all, else the segment trees' sums (accurate to a few
    units in the last place), and direct sums where the kernel mass is below
    ``THIN_KERNEL`` of the window's weight (as the map does)."""
    if int(np.sum(hi - lo)) <= SEQUENTIAL_BUDGET:
        return fit_points(sample, t, params).value
    z_mat, rhs, c0, total, has_weight = exact_map.normal_equations(t, h, lo, hi)
    value = newton_step(z_mat, rhs, c0)[:, 0]
    value[~has_weight] = np.nan
    thin = np.flatnonzero(has_weight & (total < THIN_KERNEL * weight))
    if thin.size:
        value[thin] = fit_points(sample, t[thin], params).value
    return value


def block_equations(sample: SortedSample, exact_map: ExactLocalMap, blocks: BlockCache,
                    level: int, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
                    hi: np.ndarray) -> tuple[np.ndarray, ...]:
    """:meth:`ExactLocalMap.normal_equations` at sorted points with ``h > 0`` and a
    non-empty window ``[lo, hi)``, the sums from blocks of ``2^level`` rows (the trees' for
    the points the blocks cannot answer)."""
    z = np.searchsorted(sample.scores, t, side="right")
    left, right, bad = blocks.sides(t, h, lo, z, hi, level)
    redo = np.flatnonzero(bad)
    if redo.size:
        tree_l, tree_r = exact_map.side_sums(t[redo], h[redo], lo[redo], z[redo], hi[redo])
        for mine, tree in zip(left + right, tree_l + tree_r, strict=True):
            mine[:, redo] = tree
    return exact_map.equations_from_sides(t, h, lo, z, hi, left, right)
