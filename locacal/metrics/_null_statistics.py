"""Calibration statistics recomputed for a whole batch of resampled label vectors at once.

Each ``*_batch(scores, weights)`` takes the scores sorted ascending (weights in the same order)
and returns a function mapping a ``(B, n)`` matrix of 0/1 label vectors, in that same order, to
the B values of the statistic. Everything that depends on the scores only (windows, bins,
density weights, tied groups) is computed once, so a resample costs a few passes over its
labels. Each batch function equals its scalar metric (tests check this to 1e-12).

The LCS and WMSE statistics (and the smooth ECE's, :mod:`locacal.metrics._smooth_ece_batch`)
also take ``prefix``, the running event counts of the batch
(:func:`locacal.localfit.event_prefix`), so that a caller evaluating several of them on the
same labels computes it once (unit weights only; ignored with weights); so do the binned
ones (ECE, QMSE, calib_mse), whose bin sums are then differences of it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from locacal.curves.curve import SLIDES_GRID_SIZE, slides_grid
from locacal.data.bins import default_bin_size, sorted_bins
from locacal.data.quantile import normalised_weights
from locacal.data.sample import SortedSample
from locacal.density import reflected_bandwidth, reflected_kde_values
from locacal.localfit import (
    LocalParams,
    effective_count,
    event_prefix,
    label_fits,
    label_windows,
)
from locacal.localfit._knn import knn_runs
from locacal.localfit._window import fixed_or_nn_bandwidth, window_bounds
from locacal.metrics._bootstrap_statistics import (
    isotonic_binary_errors,
    isotonic_squared_errors,
)
from locacal.metrics.clinical import _chi_terms, _kish_weights, hosmer_lemeshow_groups
from locacal.metrics.corp import TiedScores

__all__ = ["BatchStatistic", "adaptive_batch", "binned_batch", "hl_batch", "lcs_batch",
           "local_gap_batch", "mcb_batch", "rowwise", "spiegelhalter_batch", "wmse_batch"]

#: Maps a (B, n) matrix of sorted label vectors to B statistic values.
BatchStatistic = Callable[[np.ndarray], np.ndarray]
#: Given sorted scores and weights, prepares a :data:`BatchStatistic`.
BatchBuilder = Callable[[np.ndarray, np.ndarray | None], BatchStatistic]

_LCS_NN = 0.15      # locacal.metrics.lcs defaults: degree 0, rectangular kernel, nn = 0.15
_ECE_BINS = 10      # locacal.metrics.ece / qmse defaults: 10 quantile bins
_HL_GROUPS = 10     # locacal.metrics.hosmer_lemeshow default
_WMSE_NN = 0.15     # locacal.metrics.wmse defaults: nn = 0.15, 101 points
_WMSE_GRID = 101


_BLAS: list = []  # the process's BLAS thread pools (threadpoolctl), found once


def _one_blas_thread() -> bool:
    """Whether every BLAS library runs with one thread now (:func:`_label_products`).
    Reads the current settings of pools found once (a few microseconds a call)."""
    if not _BLAS:
        from threadpoolctl import ThreadpoolController
        _BLAS.append(ThreadpoolController().select(user_api="blas"))
    return all(pool["num_threads"] == 1 for pool in _BLAS[0].info())


def _label_products(labels: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``labels @ vector`` for a (B, n) label matrix. With one BLAS thread (the report's
    resampling, :func:`locacal.report.intervals.null_values`) BLAS's product (0.09 ms for
    10 x 1e5 at one thread, against 0.49 ms for ``einsum``); with more, NumPy's own loop
    (``einsum``), as BLAS's idle threads spin after the call (measured: 1.4 ms of CPU
    time a call with two threads). The two differ in the rounding of the sums only."""
    if _one_blas_thread():
        return labels @ vector
    return np.einsum("ij,j->i", labels, vector)


def rowwise(metric: Callable[[np.ndarray, np.ndarray, np.ndarray | None], float]
            ) -> BatchBuilder:
    """Batch builder that calls a scalar ``metric(scores, labels, weights)`` once per row."""
    def build(scores: np.ndarray, weights: np.ndarray | None) -> BatchStatistic:
        return lambda labels: np.array([metric(scores, row, weights) for row in labels])
    return build


def _weighted(labels: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return labels if weights is None else labels * weights


def _bin_sums(starts: np.ndarray, n: int, weights: np.ndarray | None
              ) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
    """Per row of a label matrix, the sums of ``w y`` over the bins of sorted rows that
    begin at ``starts``: ``np.add.reduceat``, or without weights the differences of the
    running event counts ``prefix`` at the bin ends when the caller has them (the same whole
    numbers). Strictly increasing starts only on that route (reduceat gives an empty bin
    its first row)."""
    ends = np.r_[starts[1:], n]
    by_counts = weights is None and bool(np.all(starts < ends))

    def sums(labels: np.ndarray, prefix: np.ndarray | None) -> np.ndarray:
        if by_counts and prefix is not None:
            # C order, as reduceat's: the caller's matrix product then sums in the same
            # order (the F-ordered difference gave calib_err 1 ulp off on some draws)
            return (prefix[:, ends] - prefix[:, starts]).astype(np.float64, order="C")
        return np.add.reduceat(_weighted(labels, weights), starts, axis=1)

    return sums


def lcs_batch(scores: np.ndarray, weights: np.ndarray | None) -> BatchStatistic:
    """:func:`locacal.metrics.lcs` with its defaults (degree 0, rectangular kernel, nn = 0.15,
    exact evaluation on the slides' grid).

    The fit at each grid point is the (weighted) mean label over a window of the sorted scores
    that depends on the scores only: :func:`locacal.localfit.fit` with ``labels`` takes it for
    every row from running sums of ``w * y``. Being a mean of 0/1 labels it lies in [0, 1]:
    the clipping of the LCS is void.
    """
    grid = slides_grid(scores, SLIDES_GRID_SIZE)
    # the rows in the caller's order (their labels come with each batch)
    sample = SortedSample(scores, np.zeros(scores.size, dtype=bool), weights)
    params = LocalParams(0, _LCS_NN, None, "rect")
    windows = label_windows(sample, params, grid)  # the scores' only: once for all batches
    density = reflected_kde_values(scores, grid, weights, is_sorted=True)
    density = density / density.sum()

    def statistic(labels: np.ndarray, prefix: np.ndarray | None = None) -> np.ndarray:
        fit_values = label_fits(sample, params, grid, labels, windows=windows,
                                prefix=None if weights is not None else prefix)
        return ((fit_values - grid) ** 2) @ density

    return statistic


def wmse_batch(scores: np.ndarray, weights: np.ndarray | None) -> BatchStatistic:
    """:func:`locacal.metrics.wmse` with its defaults (nn = 0.15, 101 points on [0, 1]).

    The mean label of the nearest scores of weight k at each point is linear in the labels,
    with rows and boundary shares that depend on the scores and weights only
    (:func:`locacal.localfit._knn.knn_runs`), and so is the density weighting: for every
    label vector the WMSE is a few differences of prefix sums of ``w * y``. As the metric,
    rows of weight zero are left out and the weights are rescaled to sum to the number of
    rows.
    """
    keep = slice(None) if weights is None else weights > 0
    s = scores[keep]
    w = None if weights is None else normalised_weights(weights[keep])[0]
    k = min(max(float(np.round(s.size * _WMSE_NN)), 1.0), float(s.size))
    grid = np.linspace(0.0, 1.0, _WMSE_GRID)
    runs = knn_runs(s, w, grid, k)
    h = reflected_bandwidth(s, w, is_sorted=True)
    density = reflected_kde_values(s, grid, w, bandwidth=h)
    density = density / density.sum()

    def statistic(labels: np.ndarray, prefix: np.ndarray | None = None) -> np.ndarray:
        if w is None:  # event counts: the same (whole) sums by a quicker integer cumsum
            if prefix is None:
                prefix = event_prefix(labels)
        else:
            prefix = np.zeros((labels.shape[0], s.size + 1))
            np.cumsum(_weighted(labels[:, keep], w), axis=1, out=prefix[:, 1:])
        inner = (prefix[:, runs.b_in] - prefix[:, runs.a_in]).astype(np.float64)
        edge = (prefix[:, runs.b_all] - prefix[:, runs.a_all]).astype(np.float64) - inner
        means = (inner + runs.share * edge) / k
        return ((grid - means) ** 2) @ density

    return statistic


def local_gap_batch(scores: np.ndarray, weights: np.ndarray | None, *, nn: float = 0.1,
                    points: int = 101, coverage: tuple[float, float] = (0.05, 0.95)
                    ) -> BatchStatistic:
    """Largest local mean residual, ``max_j |sum_{i in N_j} w_i (y_i - s_i) / sum_{N_j} w_i|``.

    The points t_j are ``points`` equally spaced values from the ``coverage`` quantiles of
    the scores (5 % to 95 %); N_j is the window of the k = n nn nearest scores of t_j
    (locfit's rule, :func:`locacal.localfit._window.window_bounds`). Its population value is
    the supremum over the central score range of |E[D - s | s in N_j]|, the calibration gap
    g(s) - s averaged over a neighbourhood of 10 % of the scores: 0 for calibrated scores
    whatever the window, unlike a gap ``mean(y) - t_j`` taken against the window's centre.
    """
    lo_q, hi_q = np.quantile(scores, coverage)
    grid = np.linspace(lo_q, hi_q, points)
    k = effective_count(scores.size, nn, None)
    lo, hi = window_bounds(scores, grid, fixed_or_nn_bandwidth(scores, grid, k, None))
    w = np.ones_like(scores) if weights is None else weights
    prefix_w = np.concatenate([[0.0], np.cumsum(w)])
    prefix_ws = np.concatenate([[0.0], np.cumsum(w * scores)])
    window_weight = prefix_w[hi] - prefix_w[lo]
    window_score = prefix_ws[hi] - prefix_ws[lo]

    def statistic(labels: np.ndarray) -> np.ndarray:
        prefix = np.zeros((labels.shape[0], labels.shape[1] + 1))
        np.cumsum(_weighted(labels, weights), axis=1, out=prefix[:, 1:])
        gap = (prefix[:, hi] - prefix[:, lo] - window_score) / window_weight
        return np.abs(gap).max(axis=1)

    return statistic


def binned_batch(scores: np.ndarray, weights: np.ndarray | None, *,
                 squared: bool) -> BatchStatistic:
    """:func:`locacal.metrics.ece` (``squared=False``) or :func:`locacal.metrics.qmse`
    (``squared=True``) on their default 10 quantile bins, which depend on the scores only.

    With L_b = sum_b w y, S_b = sum_b w s and W_b = sum_b w: ECE = sum_b |L_b - S_b| / W and
    QMSE = sum_b (L_b - S_b)^2 / W_b / W, over bins of positive weight.
    """
    starts = sorted_bins(scores, weights, "quantile", _ECE_BINS).starts
    w = np.ones_like(scores) if weights is None else weights
    bin_weight = np.add.reduceat(w, starts)
    score_sum = np.add.reduceat(w * scores, starts)
    keep = bin_weight > 0
    total = float(bin_weight.sum())
    label_sums = _bin_sums(starts, scores.size, weights)

    def statistic(labels: np.ndarray, prefix: np.ndarray | None = None) -> np.ndarray:
        gap = (label_sums(labels, prefix) - score_sum)[:, keep]
        if squared:
            return (gap**2 / bin_weight[keep]).sum(axis=1) / total
        return np.abs(gap).sum(axis=1) / total

    return statistic


def mcb_batch(scores: np.ndarray, weights: np.ndarray | None) -> BatchStatistic:
    """The CORP miscalibration term of :func:`locacal.metrics.corp_decomposition`.

    MCB = [sum_i w_i (y_i - s_i)^2 - sum_i w_i (y_i - f_i)^2] / sum_i w_i with f the pooled
    PAV fit; the first sum is ``sum_i w_i y_i (1 - 2 s_i) + sum_i w_i s_i^2`` (y^2 = y), the
    second comes from the per-group label sums. One PAV fit per row, on the runs of equal
    group means (:func:`~locacal.metrics._bootstrap_statistics.isotonic_squared_errors`);
    with unit weights and distinct scores on the pairs of a run of events and the run of
    non-events after it
    (:func:`~locacal.metrics._bootstrap_statistics.isotonic_binary_errors`).
    """
    keep = slice(None) if weights is None else weights > 0
    s = scores[keep]
    w = None if weights is None else weights[keep]
    groups = TiedScores.from_sorted(s, w)
    wv = np.ones_like(s) if w is None else w
    total = float(wv.sum())
    brier_base = float(np.dot(wv, s * s))
    brier_slope = 1.0 - 2.0 * s

    tied = groups.starts.size < s.size

    def statistic(labels: np.ndarray) -> np.ndarray:
        weighted = _weighted(labels[:, keep], w)
        brier = _label_products(weighted, brier_slope) + brier_base
        if w is None and not tied:
            recalibrated = isotonic_binary_errors(weighted)
        else:
            sums = np.add.reduceat(weighted, groups.starts, axis=1) if tied else weighted
            # unit weights: counts and label sums are whole numbers, pooled exactly
            recalibrated = isotonic_squared_errors(
                np.broadcast_to(groups.weight, sums.shape), sums, whole=w is None)
        return (brier - recalibrated) / total

    return statistic


def hl_batch(scores: np.ndarray, weights: np.ndarray | None) -> BatchStatistic:
    """The Hosmer-Lemeshow statistic of :func:`locacal.metrics.hosmer_lemeshow` (10 groups).

    Its groups depend on the scores and weights only and, the scores being sorted, are
    contiguous runs: per row, O_g = sum_g w y is a ``reduceat`` and
    C = sum_g (O_g - E_g)^2 / E_g + (O_g - E_g)^2 / (n_g - E_g), with the weights rescaled to
    Kish's effective sample size as there (empty groups add 0 in both).
    """
    wk = _kish_weights(weights, scores.size)
    _, group = hosmer_lemeshow_groups(scores, None if weights is None else wk, _HL_GROUPS)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    size = np.add.reduceat(wk, starts)
    expected = np.add.reduceat(wk * scores, starts)

    def statistic(labels: np.ndarray) -> np.ndarray:
        observed = np.add.reduceat(labels * wk, starts, axis=1)
        return (_chi_terms(observed, expected).sum(axis=1)
                + _chi_terms(size - observed, size - expected).sum(axis=1))

    return statistic


def spiegelhalter_batch(scores: np.ndarray, weights: np.ndarray | None, *,
                        signed: bool = False) -> BatchStatistic:
    """|z| of :func:`locacal.metrics.spiegelhalter_z` (z itself with ``signed``), linear in
    the labels: z = (sum_i w_i y_i (1 - 2 s_i) - sum_i w_i s_i (1 - 2 s_i)) / sd (NaN when
    sd = 0)."""
    w = np.ones_like(scores) if weights is None else weights / weights.max()
    lever = 1.0 - 2.0 * scores
    sd = float(np.sqrt(np.sum(w * w * lever * lever * scores * (1.0 - scores))))
    slope = w * lever
    base = float(np.dot(slope, scores))

    def statistic(labels: np.ndarray) -> np.ndarray:
        if sd == 0.0:
            return np.full(labels.shape[0], np.nan)
        z = (_label_products(labels, slope) - base) / sd
        return z if signed else np.abs(z)

    return statistic


def adaptive_batch(scores: np.ndarray, weights: np.ndarray | None, *,
                   root: bool = False) -> BatchStatistic | None:
    """:func:`locacal.metrics.calib_mse` (its square root with ``root``: ``calib_err``) on
    its adaptive bins of sqrt(n) sorted rows (Nguyen 2015, thesis §3.2.1).

    The bins are runs of rows of the sorted scores, ties ordered by label: they depend on
    the scores only unless a run of tied scores straddles a bin start, where the labels
    decide which rows fall on each side; then (and with rows of weight zero, which the
    metric leaves out) None, and the caller evaluates the metric draw by draw. Otherwise,
    with W_b, S_b, L_b the bin sums of w, w s and w y: sum_b W_b (S_b / W_b - L_b / W_b)^2
    / sum_b W_b.
    """
    n = scores.size
    size = default_bin_size(n)
    starts = np.arange(max(n // size, 1), dtype=np.int64) * size
    if (weights is not None and not (weights > 0).all()) or (
            scores[starts[1:]] == scores[starts[1:] - 1]).any():
        return None
    w = np.ones_like(scores) if weights is None else weights
    bin_weight = np.add.reduceat(w, starts)
    mean_score = np.add.reduceat(w * scores, starts) / bin_weight
    total = float(bin_weight.sum())
    label_sums = _bin_sums(starts, n, weights)

    def statistic(labels: np.ndarray, prefix: np.ndarray | None = None) -> np.ndarray:
        gap = mean_score - label_sums(labels, prefix) / bin_weight
        value = (gap**2 @ bin_weight) / total
        return np.sqrt(value) if root else value

    return statistic
