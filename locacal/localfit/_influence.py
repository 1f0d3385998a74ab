"""Fitted values and influence ``L_ii`` of a local fit at the observed scores.

The local fit is a linear smoother: at the data, ``g(s_i) = sum_j L_ij y_j``. Its diagonal
``L_ii`` (locfit's "influence", Loader 1999, section 2.3 and ch. 10) is what the
goodness-of-fit criteria of :mod:`locacal.curves.selection` need, through ``tr L``.

At ``t = s_i`` the row's own design vector is ``X_i = (1, 0, 0)`` and its kernel weight is
``W(0) = 1``, so with locfit's solution (:mod:`locacal.localfit._solve`: smoother weights
``l_j(t) = w_j (a' X_j + kappa)``, ``a = Z^(-) e_0``, ``kappa = (1 - a' Z e_0) / sum_j w_j``)
the influence is ``L_ii = p_i (a_0 + kappa)``, ``p_i`` the prior weight of row i. For a
full-rank window ``kappa = 0`` and ``L_ii = p_i (Z^-1)_00``; for the local mean (degree 0,
rectangular kernel, or a zero bandwidth) ``L_ii = p_i / sum_{window} p_j``.

The one-sided power sums behind the normal equations come from the in-block prefix sums of
:mod:`locacal.localfit._blocks` (about one binomial shift per side of each distinct
score, since every window holds at least one block's worth of rows), and from
:class:`~locacal.localfit._segment.ExactLocalMap`'s segment trees for the few points the
blocks cannot answer accurately; the equations and locfit's solution are the map's. The
whole diagonal costs O(n log n) per bandwidth (the sort and the window searches), and one
map and one :class:`~locacal.localfit._blocks.BlockCache` serve a whole grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._blocks import BlockCache, block_level
from locacal.localfit._direct import LocalParams
from locacal.localfit._many import BATCH, block_equations
from locacal.localfit._segment import KERNEL_POLYNOMIALS, ExactLocalMap
from locacal.localfit._solve import newton_step_and_unit
from locacal.localfit._window import (
    effective_count,
    fixed_or_nn_bandwidth,
    window_bounds,
    window_mean,
)

__all__ = ["DataFit", "block_cache", "fit_at_data"]

#: Points whose windows are searched at once (bounds the searches' temporaries).
WINDOW_CHUNK = 1 << 16

@dataclass(frozen=True)
class DataFit:
    """Fit at each row of a :class:`SortedSample` (sorted order).

    ``value``: ``g(s_i)`` (NaN where the window has no positive weight); ``influence``:
    ``L_ii``, prior weight included.
    """

    value: np.ndarray
    influence: np.ndarray


def fit_at_data(sample: SortedSample, params: LocalParams,
                exact_map: ExactLocalMap | None = None,
                blocks: BlockCache | None = None) -> DataFit:
    """Fitted values and influence at every observed score (compact kernels only).

    ``exact_map``: an :class:`ExactLocalMap` of the same sample, degree and kernel (any
    bandwidth), to reuse its moment trees across bandwidths; ``blocks``: likewise a
    :class:`~locacal.localfit._blocks.BlockCache` (:func:`block_cache`). The sums come
    from the blocks, and from the map's trees for the few points the blocks cannot answer.
    """
    if params.kernel == "gauss":
        raise ValueError("kernel='gauss' is not supported here (not a compact kernel)")
    if exact_map is None:
        exact_map = ExactLocalMap(sample, params, clip=False)
    s = sample.scores
    new = np.empty(s.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    u = s[new]
    k = effective_count(sample.n, params.nn, params.h)
    m = u.shape[0]
    value = np.full(m, np.nan)
    unit = np.full(m, np.nan)
    # first pass over the windows, by chunks of points: the local means (a zero bandwidth,
    # or degree 0 with the rectangular kernel) and the window sizes of the others; the
    # windows of the points to fit are found again batch by batch (each point's search is
    # its own, so this changes no value; it bounds the memory to a chunk's)
    mean = np.empty(m, dtype=bool)
    smallest, sizes = np.iinfo(np.int64).max, []
    for start in range(0, m, WINDOW_CHUNK):
        part = slice(start, start + WINDOW_CHUNK)
        bw, lo, hi = _windows(s, u[part], k, params.h)
        here = np.ones(bw.shape[0], dtype=bool) if (params.degree == 0
                                                    and params.kernel == "rect") else bw == 0.0
        mean[part] = here
        if here.any():
            value[part][here], total = window_mean(sample, lo[here], hi[here])
            unit[part][here] = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0),
                                        np.nan)
        rows = (hi - lo)[~here]
        if params.nn is not None:
            smallest = min(smallest, int(rows.min())) if rows.size else smallest
        else:
            sizes.append(rows)
        del bw, lo, hi, rows
    if not mean.all():
        if blocks is None:
            blocks = block_cache(sample, params)
        # a span guarantees k rows in every window: blocks of at most k rows never fall
        # back to the trees; fixed bandwidths take the 5 % quantile (the rare points with
        # smaller windows may fall back)
        level = block_level(np.array([smallest], dtype=np.int64) if params.nn is not None else
                            np.array([np.quantile(np.concatenate(sizes), 0.05)]
                                     ).astype(np.int64))
        del sizes
        # batches of BATCH points to fit, in order (points are fitted independently, so the
        # batches do not change the values)
        rest = None if not mean.any() else np.flatnonzero(~mean)
        todo = m if rest is None else rest.size
        for first in range(0, todo, WINDOW_CHUNK):
            chunk = (np.arange(first, min(first + WINDOW_CHUNK, todo)) if rest is None
                     else rest[first:first + WINDOW_CHUNK])
            t = u[chunk]
            bw, lo, hi = _windows(s, t, k, params.h)
            for start in range(0, chunk.size, BATCH):
                b = slice(start, start + BATCH)
                value[chunk[b]], unit[chunk[b]] = _fit_batch(sample, exact_map, blocks, level,
                                                             t[b], bw[b], lo[b], hi[b])
    del u, mean
    row = np.cumsum(new) - 1
    del new
    influence = unit[row] if sample.weights is None else unit[row] * sample.weights
    return DataFit(value[row], influence)


def _windows(s: np.ndarray, u: np.ndarray, k: int,
             h: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bandwidth and window ``[lo, hi)`` at each point of ``u``, by chunks of points (each
    point's search is its own, so the chunks change nothing; they bound the searches'
    temporaries)."""
    m = u.shape[0]
    bw = np.empty(m)
    lo = np.empty(m, dtype=np.int64)
    hi = np.empty(m, dtype=np.int64)
    for start in range(0, m, WINDOW_CHUNK):
        part = slice(start, start + WINDOW_CHUNK)
        bw[part] = fixed_or_nn_bandwidth(s, u[part], k, h)
        lo[part], hi[part] = window_bounds(s, u[part], bw[part])
    return bw, lo, hi


def _fit_batch(sample: SortedSample, exact_map: ExactLocalMap, blocks: BlockCache,
               level: int, t: np.ndarray, h: np.ndarray, lo: np.ndarray,
               hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value and ``a_0 + kappa`` (the influence per unit prior weight) at sorted points."""
    z_mat, rhs, c0, total, has_weight = block_equations(sample, exact_map, blocks, level, t,
                                                        h, lo, hi)
    coef, a = newton_step_and_unit(z_mat, rhs, c0)
    safe = np.where(total > 0, total, 1.0)
    kappa = (1.0 - np.einsum("mi,mi->m", a, z_mat[:, :, 0])) / safe
    return (np.where(has_weight, coef[:, 0], np.nan),
            np.where(has_weight, a[:, 0] + kappa, np.nan))


def block_cache(sample: SortedSample, params: LocalParams) -> BlockCache:
    """The :class:`~locacal.localfit._blocks.BlockCache` of a sample for the degree and
    kernel of ``params`` (the powers the local normal equations need)."""
    p = params.degree + 1
    top = max(KERNEL_POLYNOMIALS[params.kernel])
    return BlockCache(sample.scores, sample.labels, sample.weights,
                      [2 * p - 2 + top, p - 1 + top])
