"""Local fits of many resamples at once: the bootstrap and consistency bands of the local map.

A resample with replacement of the n sorted rows is a vector of counts ``c_i`` (copies of row
i, multinomial). Its local fit at ``t`` needs, per replicate,

* the bandwidth ``h(t)``: the distance to the ``k = floor(n nn)``-th nearest *copy*, i.e.
  the first distance (rows ordered by ``|s_i - t|``) at which the cumulative count reaches
  k, or ``max`` of that and a fixed ``h`` (locfit's ``nbhd1``, copies counted as rows);
* the kernel-weighted power sums ``sum_i c_i w_i K(|s_i - t| / h) (s_i - t)^j`` and
  ``sum_i e_i w_i K(...) (s_i - t)^j``, with ``e_i`` the events among the copies of row i
  (``c_i y_i`` for the bootstrap; ``Binomial(c_i, s_i)`` for consistency resampling,
  labels drawn from the scores of a calibrated model).

Both are matrix operations over (replicates x nearby rows), so one pass per grid point
replaces ``n_boot`` refits with a Python loop per grid point inside each (the refit path of
:func:`locacal.curves._base.resampled_band`). The normal equations then go through the same
solver as every local fit (locfit's Newton step, :func:`~._solve.solve_newton`), so a
replicate's value equals a refit on its resampled rows up to summation order (~1e-12 for
degrees 0-1; degree 2 amplifies it as locfit's solver does), ties at the boundary included
and zero kernel mass falling back to uniform weights, as in :mod:`._direct`.

Many label vectors on the same rows (the null statistics of :func:`locacal.calibration_test`:
labels redrawn, scores and weights fixed) are the case of one copy per row,
:func:`label_fits`; with degree 0 and the rectangular kernel the windows depend on the
scores only, and each vector's fit is a difference of its running sums.

Reference: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 6 (resampling
as multinomial counts); Bröcker & Smith (2007) (consistency resampling).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._direct import LocalParams
from locacal.localfit._solve import design_from_moments, solve_newton
from locacal.localfit._window import (
    effective_count,
    fixed_or_nn_bandwidth,
    kernel_reach,
    kernel_weights,
    window_bounds,
)

__all__ = ["BLOCK_BUDGET", "event_prefix", "label_fits", "label_windows", "resample_counts",
           "resampled_fits", "resamples"]

#: Largest (replicates x rows) block held at once (counts and events: ~2 x 8 bytes each).
BLOCK_BUDGET = 8_000_000


def resample_counts(rng: np.random.Generator, n: int, replicates: int) -> np.ndarray:
    """Copies of each of n rows in ``replicates`` resamples with replacement, (B, n) int64."""
    rows = rng.integers(0, n, size=(replicates, n))
    rows += np.arange(replicates)[:, None] * n
    return np.bincount(rows.ravel(), minlength=replicates * n).reshape(replicates, n)


def resamples(sample: SortedSample, kind: str, n_boot: int,
              rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``n_boot`` resamples of the sorted rows as blocks of (copies, events), each (B, n).

    ``kind``: ``"bootstrap"`` (rows resampled with their labels) or ``"consistency"``
    (scores resampled, labels drawn as Bernoulli(score)). Blocks hold at most
    :data:`BLOCK_BUDGET` / n replicates; :func:`resampled_fits` fits each block.
    """
    n = sample.n
    labels = sample.labels.astype(np.float64)
    step = max(1, min(n_boot, BLOCK_BUDGET // n))
    for start in range(0, n_boot, step):
        counts = resample_counts(rng, n, min(step, n_boot - start))
        if kind == "consistency":
            events = rng.binomial(counts, sample.scores[None, :])
        else:
            events = counts * labels[None, :]
        yield counts, events


def resampled_fits(sample: SortedSample, params: LocalParams, grid: np.ndarray,
                   counts: np.ndarray, events: np.ndarray) -> np.ndarray:
    """Unclipped local fits at ``grid`` of every resample, shape (B, m).

    ``counts``/``events``: (B, n) copies and events per sorted row of ``sample``. NaN where a
    replicate's window holds no weight (a fixed ``h`` with no copy within it).
    """
    out = np.empty((counts.shape[0], grid.shape[0]))
    for j, t in enumerate(grid):
        out[:, j] = _fits_at(sample, params, float(t), counts, events)
    return out


def event_prefix(labels: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Running event counts of B 0/1 label vectors, (B, n + 1) int32 with a zero first
    column: ``prefix[b, i]`` is the number of events among the first i rows of vector b.
    Whole sums, exact; an integer cumulative sum is several times quicker than a float
    one. The local fits of :func:`label_fits` and the null statistics of several metrics
    take their window sums from it (one for all of them per batch of label vectors).
    ``out``: an int32 array of at least that many elements to hold it (a view of its start
    is returned), for a caller that computes it for batch after batch."""
    shape = (labels.shape[0], labels.shape[1] + 1)
    if out is None:
        prefix = np.empty(shape, dtype=np.int32)
    else:
        prefix = out.reshape(-1)[:shape[0] * shape[1]].reshape(shape)
    prefix[:, 0] = 0
    np.cumsum(labels, axis=1, dtype=np.int32, out=prefix[:, 1:])  # no int32 copy first
    return prefix


def label_windows(sample: SortedSample, params: LocalParams, grid: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The windows ``[lo, hi)`` of the sorted rows at each point of ``grid`` for degree 0
    and the rectangular kernel (locfit's rule, as in :func:`~._direct.fit_points`), and
    their weights (row counts without weights): what :func:`label_fits` needs of the
    scores and weights, to compute once for many batches of label vectors."""
    s, weights = sample.scores, sample.weights
    k = effective_count(sample.n, params.nn, params.h)
    lo, hi = window_bounds(s, grid, fixed_or_nn_bandwidth(s, grid, k, params.h))
    w = np.ones_like(s) if weights is None else weights
    prefix_w = np.concatenate([[0.0], np.cumsum(w)])
    return lo, hi, prefix_w[hi] - prefix_w[lo]


def label_fits(sample: SortedSample, params: LocalParams, grid: np.ndarray,
               labels: np.ndarray, *,
               windows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
               prefix: np.ndarray | None = None) -> np.ndarray:
    """Unclipped local fits at ``grid`` of B label vectors on the sample's scores and weights
    (its own labels unused), shape (B, m).

    ``labels``: (B, n) 0/1 labels of the sorted rows. Degree 0 with the rectangular kernel:
    the window [lo, hi) of each point depends on the scores only (:func:`label_windows`;
    ``windows``: its result, when the caller has it), and each fit is the ratio
    ``(P_b[hi] - P_b[lo]) / (P_w[hi] - P_w[lo])`` of float64 running sums of ``w y_b`` and
    ``w``. Without weights these are exact integers (:func:`event_prefix`; ``prefix``: its
    result for ``labels``, when the caller has it), so each row equals the single fit bit
    for bit; with weights each running sum is off by at most ``n u sum |w|``
    (u = 2^-53; Higham 2002, eq. 4.4) where the single fit's long-double sums are off by
    ``n 2^-64 sum |w|``, a relative difference of order 1e-16 in a window mean. NaN where a
    window holds no weight. Other degrees and kernels: one copy of every row,
    :func:`resampled_fits` with events ``y_b``.
    """
    if not (params.degree == 0 and params.kernel == "rect"):
        return resampled_fits(sample, params, grid, np.ones(labels.shape, dtype=np.int64),
                              labels)
    lo, hi, window_weight = label_windows(sample, params, grid) if windows is None else windows
    if sample.weights is None:  # event counts: the same whole sums by a quicker integer cumsum
        if prefix is None:
            prefix = event_prefix(labels)
        events = (prefix[:, hi] - prefix[:, lo]).astype(np.float64)
    else:
        running = np.zeros((labels.shape[0], labels.shape[1] + 1))
        np.cumsum(labels * sample.weights, axis=1, out=running[:, 1:])
        events = running[:, hi] - running[:, lo]
    return np.divide(events, window_weight, out=np.full_like(events, np.nan),
                     where=window_weight > 0)


def _fits_at(sample: SortedSample, params: LocalParams, t: float, counts: np.ndarray,
             events: np.ndarray) -> np.ndarray:
    s, n = sample.scores, sample.n
    k = effective_count(n, params.nn, params.h)
    reach = kernel_reach(params.kernel)
    # a resample holds about k +- sqrt(k) copies of the k nearest rows: 4 sqrt(k) more
    # rows almost always reach the k-th copy (else the loop doubles)
    size = min(n, k + 4 * int(np.sqrt(k)) + 32)
    while True:
        rows, dist, outside = _nearest_rows(s, t, size)
        h = _bandwidth(dist, counts[:, rows], k, params.h)
        if size == n or np.all(h * reach < outside):
            break
        size = min(n, 2 * size)
    # only the rows some replicate's window reaches (all of them are candidates, see above)
    top = int(np.searchsorted(dist, float(np.max(h * reach)), side="right"))
    rows, dist = rows[:top], dist[:top]
    c = counts[:, rows]
    kern = _kernel(dist, h, params.kernel, reach)
    prior = None if sample.weights is None else sample.weights[rows]
    weight = kern * c
    event_weight = kern * events[:, rows]
    void = ~(weight.sum(axis=1) > 0)
    if void.any():  # a compact kernel zero on every copy: uniform weights on the window
        flat = (dist[None, :] <= (h[void] * reach)[:, None]).astype(np.float64)
        weight[void] = flat * c[void]
        event_weight[void] = flat * events[void][:, rows]
    if prior is not None:
        weight *= prior
        event_weight *= prior
    p = params.degree + 1
    dx = s[rows] - t
    powers = dx[:, None] ** np.arange(2 * p - 1)[None, :]
    moments = weight @ powers
    y_moments = event_weight @ powers[:, :p]
    total = moments[:, 0]
    c0 = np.where(total > 0, y_moments[:, 0] / np.where(total > 0, total, 1.0), 0.0)
    scale = np.array([1.0, 1.0, 0.5])[:p]
    rhs = (y_moments - c0[:, None] * moments[:, :p]) * scale
    z = design_from_moments(moments, p - 1)
    # the variance factor (last argument) is not needed for a resampled value
    return solve_newton(z, rhs, c0, total, z).value


def _kernel(dist: np.ndarray, h: np.ndarray, kernel: str, reach: float) -> np.ndarray:
    """(B, rows) kernel weights ``W(dist / h_b)``, 0 beyond ``reach * h_b``; ``h_b = 0``
    keeps the rows at distance 0 (locfit's ``weightsph``)."""
    positive = h > 0
    u = dist[None, :] / np.where(positive, h, 1.0)[:, None]
    kern = kernel_weights(u.ravel(), 1.0, kernel).reshape(u.shape)
    if kernel == "gauss":  # not compact: locfit stops at reach bandwidths
        kern *= u <= reach
    if not positive.all():
        kern[~positive] = dist[None, :] == 0.0
    return kern


def _nearest_rows(s: np.ndarray, t: float, size: int) -> tuple[np.ndarray, np.ndarray, float]:
    """At least the ``size`` rows nearest t (whole groups of tied distances), ordered by
    distance, their distances, and the smallest distance of the rows left out (inf if none).
    """
    n = s.shape[0]
    pos = int(np.searchsorted(s, t))
    lo, hi = max(0, pos - size), min(n, pos + size)  # holds the size nearest rows
    run = np.arange(lo, hi)
    dist = np.abs(s[run] - t)
    cutoff = np.partition(dist, size - 1)[size - 1] if size < run.size else np.inf
    keep = dist <= cutoff
    outside = min(abs(s[lo - 1] - t) if lo > 0 else np.inf,
                  abs(s[hi] - t) if hi < n else np.inf,
                  float(dist[~keep].min(initial=np.inf)))
    order = np.argsort(dist[keep], kind="stable")
    return run[keep][order], dist[keep][order], outside


def _bandwidth(dist: np.ndarray, c: np.ndarray, k: int, h: float | None) -> np.ndarray:
    """Per replicate: distance at which the copies, nearest first, reach k; max with h."""
    if k >= 1:
        reached = np.cumsum(c, axis=1) >= k
        first = np.argmax(reached, axis=1)
        bw = np.where(reached[:, -1], dist[first], np.inf)
    else:
        bw = np.zeros(c.shape[0])
    if h is not None:
        bw = np.maximum(bw, h)
    return bw
