r"""Simultaneous band of a monotone calibration curve at a calibrated window level.

The default ``band="simultaneous"`` of isotonic regression
(``IsotonicCalibrator(simultaneous="calibrated")``). It keeps the construction of the honest
band (:mod:`locacal.curves.monotone`: one-sided Clopper-Pearson bounds of the mean of g over
windows of consecutive scores, carried by monotonicity to the scores beyond each window)
and replaces its union-bound level :math:`\delta = 1 - e^{-\alpha/(2K)}` by the per-window
level at which the band holds a bootstrap truth in ``level`` of parametric bootstrap samples
(calibrating a confidence coefficient: Loh 1987; Hall & Martin 1988).

Construction
------------
Cells
    The sorted observations are grouped into at most :data:`CELLS` cells of consecutive
    distinct scores with about equal counts (a cell never splits tied scores); the windows
    are the K = C(C + 1)/2 runs of consecutive cells (C cells). For a window W,
    :math:`n_W`, :math:`S_W` are its observations and events, :math:`f_W`,
    :math:`l_W` its smallest and largest score. Given the per-window level
    :math:`\delta`, the band is the honest band's display

    .. math::

        \ell(t) = \max\{L_W(\delta) : l_W \le t\}, \qquad
        u(t) = \min\{U_W(\delta) : f_W \ge t\},

    :math:`L_W(\delta) = B^{-1}(\delta; S_W, n_W - S_W + 1)`,
    :math:`U_W(\delta) = B^{-1}(1 - \delta; S_W + 1, n_W - S_W)` (Clopper & Pearson 1934).

Estimand
    g at the points :math:`t_1 < \dots < t_m` (the curve's grid) between the 5 % and 95 %
    score quantiles :math:`[q_l, q_u]` (:data:`locacal.curves.simultaneous.RANGE`), as the
    smoothers' bands; without points, every point of :math:`[q_l, q_u]`. For a
    non-decreasing g, :math:`\ell(t_i) \le g(t_i)` fails at some i exactly when some window
    has :math:`L_W(\delta) > g(t^-_W)`, :math:`t^-_W` the first point at or above
    :math:`l_W` (windows with none play no part), i.e. when its one-sided p-value
    :math:`p^-_W = P\{\mathrm{Bin}(n_W, \theta^-_W) \ge S_W\} =
    I_{\theta^-_W}(S_W, n_W - S_W + 1)` at :math:`\theta^-_W = g(t^-_W)` is below
    :math:`\delta`; likewise :math:`u(t_i) \ge g(t_i)` fails when some window has
    :math:`p^+_W = P\{\mathrm{Bin}(n_W, 1 - \theta^+_W) \ge n_W - S_W\} < \delta` at
    :math:`\theta^+_W = g(t^+_W)`, :math:`t^+_W` the last point at or below :math:`f_W`
    (on the continuum: :math:`t^-_W = \max(l_W, q_l)` for :math:`l_W \le q_u`,
    :math:`t^+_W = \min(f_W, q_u)` for :math:`f_W \ge q_l`). So the band holds g at every
    point exactly when :math:`\delta \le T = \min_W \min(p^-_W, p^+_W)`. A band calibrated
    for the continuum over-covered the grid (1.00 on calibrated Beta(2, 5) scores at
    n = 20000 in 100 samples): the grid's points above a window's end leave slack.

Calibrated level
    Draw :data:`DRAWS` label vectors :math:`D^*_i \sim \mathcal B(\tilde g(s_i))` from a
    monotone bootstrap truth :math:`\tilde g` at the observed scores, compute each draw's
    :math:`T^*_b` with :math:`\tilde g` in place of g (between scores, :math:`\tilde g` is
    read as the step from below for :math:`\theta^-` and from above for :math:`\theta^+`,
    the side that counts more misses), and take
    :math:`\delta = T^*_{(k)}`, the k-th smallest, k = ceil(alpha B): the band then holds
    :math:`\tilde g` in at least ``level`` of the bootstrap samples. One pass per draw, no
    search over levels. The level is kept at or above the honest band's
    :math:`1 - e^{-\alpha/(2K)}` on these windows and at or below 1/2. The bootstrap
    truth (``truth=``):

    * ``"local"`` (default): the default local-linear fit
      (:class:`~locacal.curves.local.LocalRegressionCalibrator`), made non-decreasing by
      rearrangement (sorting its values over the sorted scores;
      Chernozhukov, Fernández-Val & Galichon 2009);
    * ``"isotonic"``: the isotonic fit itself, flat on blocks, the least favourable
      monotone truth for these windows (a window inside a flat block has
      :math:`\bar g_W = g(l_W)`); it over-covers a strictly increasing g.

    Either is clipped to :math:`[1/(2n), 1 - 1/(2n)]`: a truth of exactly 0 or 1 has no
    variance (with labels of one class, no draw would ever miss).

    Finding :math:`T^*_b` without a Beta function per window: with
    :math:`\Lambda_W = n_W\,\mathrm{KL}(S_W / n_W \,\|\, \theta_W)` (0 where
    :math:`S_W / n_W \le \theta_W`), :math:`e^{-\Lambda_W}/\sqrt{2 n_W} \le p_W \le
    e^{-\Lambda_W}` (Chernoff's bound above, Ash 1990, Lemma 4.7.2, below), so only the
    windows with :math:`\Lambda_W \ge \max \Lambda - \tfrac12 \log(2n) - 1` can attain the
    minimum, and only theirs are computed exactly.

What is exact and what is not
    The band is not finite-sample honest: it covers about ``level`` when the bootstrap
    truth's law of :math:`T` is close to the true g's (measured in
    ``benchmarks/coverage_simultaneous.py``; docs/guide/simultaneous.md). The honest band
    stays available (``simultaneous="honest"``). The draws are seeded (``seed``; 0 when
    None), so the band is a function of the data. Frequency weights (counts) enter the
    cells' counts and the draws (binomial counts per row, equal in law to the expanded
    rows, not draw for draw); relative weights are refused, as for the honest band.

Measured coverage
    At 95 %, of g at the default grid's points in the 5-95 % range, on the six monotone DGPs
    of ``benchmarks/coverage_simultaneous.py`` with 100 samples each (MC s.e. 0.022):
    0.95-0.98 per DGP at n = 2000 (0.965 pooled, s.e. 0.008) and 0.93-0.99 at n = 20000
    (0.958 pooled), where the honest band covered every sample (the two cells that read
    highest, wiggly at n = 2000 and calibrated at n = 20000, cover 0.969 and 0.958 over
    1000 samples, s.e. 0.0055);
    mean widths 0.24-0.27 and 0.12-0.14, against 0.31-0.36 and 0.15-0.18 for the honest
    band. With the isotonic fit
    as the bootstrap truth: 0.977 pooled at n = 2000 (50 samples per DGP).

References
----------
Ash, R. B. (1990). *Information Theory*. Dover (Lemma 4.7.2).
Chernozhukov, V., Fernández-Val, I. & Galichon, A. (2009). Improving point and interval
estimators of monotone functions by rearrangement. *Biometrika* 96, 559-575.
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
in the case of the binomial. *Biometrika* 26, 404-413.
Dimitriadis, T., Dümbgen, L., Henzi, A., Puke, M. & Ziegel, J. (2023). Honest calibration
assessment for binary outcome predictions. *Biometrika* 110(3), 663-680.
Hall, P. & Martin, M. A. (1988). On bootstrap resampling and iteration. *Biometrika* 75,
661-671.
Loh, W.-Y. (1987). Calibrating confidence coefficients. *JASA* 82, 155-162.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betainc, xlogy
from sklearn.isotonic import isotonic_regression

from locacal._validation import (
    check_choice,
    check_frequency_weights,
    check_level,
    check_points,
    check_resamples,
    check_scores_labels,
    check_seed,
)
from locacal.curves.monotone import MonotoneBand, cell_bounds, sorted_rows, window_level
from locacal.curves.simultaneous import band_range

__all__ = ["CELLS", "DRAWS", "TRUTHS", "CalibratedMonotoneBand", "calibrated_monotone_band",
           "equal_count_cells"]

#: Largest number of cells (windows: runs of consecutive cells).
CELLS = 200
#: Parametric bootstrap draws that calibrate the window level.
DRAWS = 200
#: The bootstrap truths.
TRUTHS = ("local", "isotonic")
#: Window x draw cells formed at once.
_CHUNK_CELLS = 1 << 21


@dataclass(frozen=True, eq=False)
class CalibratedMonotoneBand(MonotoneBand):
    """The band at the calibrated level (module docstring); ``delta`` is the calibrated
    per-window level, ``windows`` K.

    Attributes
    ----------
    minima : ndarray
        The sorted :math:`T^*_b`, the largest per-window level at which each draw's band
        holds the bootstrap truth.
    truth : str
        The bootstrap truth (:data:`TRUTHS`).
    """

    minima: np.ndarray
    truth: str


def equal_count_cells(scores: np.ndarray, weight: np.ndarray, cells: int) -> np.ndarray:
    """Start rows of at most ``cells`` cells of the sorted ``scores`` with about equal total
    ``weight``, each starting at a new distinct score (ties stay together)."""
    distinct = np.flatnonzero(np.r_[True, scores[1:] != scores[:-1]])
    if distinct.size <= cells:
        return distinct
    before = np.concatenate([[0.0], np.cumsum(weight)])[distinct]  # weight before each
    targets = np.arange(cells) * (before[-1] + weight[distinct[-1]:].sum()) / cells
    at = np.minimum(np.searchsorted(before, targets, side="left"), distinct.size - 1)
    return np.unique(distinct[at])


def _rearranged(values: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Monotone rearrangement of ``values`` over rows sorted by score with ``weight``
    (counts): each row gets the mean of the sorted expanded values over its positions
    (without counts: ``np.sort``)."""
    order = np.argsort(values, kind="stable")
    cum_w = np.concatenate([[0.0], np.cumsum(weight[order])])
    cum_v = np.concatenate([[0.0], np.cumsum(weight[order] * values[order])])
    at = np.interp(np.concatenate([[0.0], np.cumsum(weight)]), cum_w, cum_v)
    return np.diff(at) / weight


def _truth(scores: np.ndarray, labels: np.ndarray, counts: np.ndarray | None,
           weight: np.ndarray, truth: str) -> np.ndarray:
    """The bootstrap truth at the sorted rows, non-decreasing, in :math:`[c, 1 - c]`,
    :math:`c = 1 / (2n)`: a truth of exactly 0 or 1 has no variance, and with one class
    only no draw would ever miss, leaving the level at its cap of 1/2 (a band far too
    narrow); half an event over the sample keeps the draws informative."""
    floor = 0.5 / float(weight.sum())
    if truth == "isotonic":  # pool-adjacent-violators on the distinct scores' means
        starts = np.flatnonzero(np.r_[True, scores[1:] != scores[:-1]])
        pooled_w = np.add.reduceat(weight, starts)
        pooled_y = np.add.reduceat(weight * labels, starts) / pooled_w
        fitted = isotonic_regression(pooled_y, sample_weight=pooled_w, increasing=True)
        values = np.repeat(fitted, np.diff(np.append(starts, scores.size)))
    else:
        from locacal.curves.local import LocalRegressionCalibrator

        fitted = LocalRegressionCalibrator().fit(scores, labels, frequency_weights=counts)
        values = _rearranged(fitted.predict(scores), weight)
    return np.clip(values, floor, 1.0 - floor)


def _kl_statistic(events: np.ndarray, n: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """:math:`n\\,\\mathrm{KL}(S/n \\,\\|\\, \\theta)` where :math:`S/n > \\theta`, else 0."""
    x = events / n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = xlogy(events, x / theta) + xlogy(n - events, (1.0 - x) / (1.0 - theta))
    return np.where(x > theta, lam, 0.0)


def _min_pvalues(events: np.ndarray, n: np.ndarray, theta: np.ndarray,
                 total: float) -> np.ndarray:
    """Per row of ``events`` (draws x windows): :math:`\\min_W P\\{\\mathrm{Bin}(n_W,
    \\theta_W) \\ge S_W\\}`, exactly where it is below 1/2, computing the Beta function
    only where the Chernoff/Ash bounds (module docstring) leave the minimum possible. A
    window with :math:`S_W \\le n_W \\theta_W` has a p-value of at least 1/2 (the
    binomial median is at least :math:`\\lfloor n_W \\theta_W \\rfloor`) and is skipped;
    a draw without any other window gets 1 (the level is capped at 1/2 anyway).

    Screening: :math:`\\Lambda_W \\le z_W^2`, :math:`z_W = (S_W - n_W \\theta_W) /
    \\sqrt{n_W \\theta_W (1 - \\theta_W)}` (KL below the chi-square divergence), so
    :math:`\\Lambda` is computed only where :math:`z_W^2` reaches the draw's largest
    :math:`\\Lambda` at its largest z, less the margin."""
    margin = 0.5 * math.log(2.0 * total) + 1.0
    out = np.ones(events.shape[0])
    inner = (theta > 0.0) & (theta < 1.0)
    if not np.all(inner):  # theta = 0 with an event: p = 0; theta = 1: p = 1
        zero = np.any((events > 0) & (theta <= 0.0), axis=1)
        out[zero] = 0.0
        events, n, theta = events[:, inner], n[inner], theta[inner]
    if theta.size == 0:
        return out
    z = (events - n * theta) / np.sqrt(n * theta * (1.0 - theta))
    best = np.argmax(z, axis=1)
    rows = np.arange(events.shape[0])
    floor = _kl_statistic(events[rows, best], n[best], theta[best])  # <= max Lambda
    row, col = np.nonzero((z > 0.0) & (z * z >= (floor - margin)[:, None]))
    lam = _kl_statistic(events[row, col], n[col], theta[col])
    top = np.zeros(events.shape[0])
    np.maximum.at(top, row, lam)
    keep = (lam > 0.0) & (lam >= top[row] - margin)
    row, col = row[keep], col[keep]
    s = events[row, col]
    np.minimum.at(out, row, betainc(s, n[col] - s + 1.0, theta[col]))
    return out


def calibrated_monotone_band(scores: Any, labels: Any, level: float = 0.95,
                             counts: Any = None, *, truth: str = "local",
                             draws: int = DRAWS, seed: Any = None,
                             points: Any = None) -> CalibratedMonotoneBand:
    """The monotone band at the calibrated window level (module docstring).

    Parameters
    ----------
    scores : array-like
        Scores in [0, 1] (any order).
    labels : array-like
        0/1 or bool labels.
    level : float in (0, 1)
        Joint coverage aimed at, of g on the 5-95 % score quantiles.
    counts : array-like, optional
        Frequency weights (whole numbers).
    truth : {"local", "isotonic"}, default "local"
        The bootstrap truth.
    draws : int, default :data:`DRAWS`
        Parametric bootstrap draws, from 10 to 10^6.
    seed : int, Generator or None
        Seed of the draws (0 when None).
    points : array-like of points in [0, 1], optional
        Where the band must hold g: the points within the 5-95 % score quantiles (the
        curve passes its grid). None: every point of that range.

    Returns
    -------
    CalibratedMonotoneBand
        Callable at points of [0, 1]: :math:`(\\ell(t), u(t))`.
    """
    scores, labels, _ = check_scores_labels(scores, labels, warn_one_class=False,
                                            warn_class_predictions=False)
    level = check_level(level)
    counts = check_frequency_weights(counts, scores.size, "counts")
    truth = check_choice(truth, TRUTHS, "truth")
    draws = check_resamples(draws, "draws", minimum=10)
    seed = check_seed(seed)
    if points is not None:
        points = np.unique(check_points(points, "points"))
    scores, labels, weight = sorted_rows(scores, labels, counts)
    used = None if counts is None else weight
    value = _truth(scores, labels, used, weight, truth)
    starts = equal_count_cells(scores, weight, CELLS)
    ends = np.append(starts[1:], scores.size) - 1
    n_cell = np.add.reduceat(weight, starts)
    e_cell = np.add.reduceat(weight * labels, starts)
    first, last = scores[starts], scores[ends]
    cells = starts.size
    windows = cells * (cells + 1) // 2
    j, k = np.triu_indices(cells)
    cum_n = np.concatenate([[0.0], np.cumsum(n_cell)])
    n_window = cum_n[k + 1] - cum_n[j]
    lo, hi = band_range(scores, used)
    if points is None:  # every point of [lo, hi]
        row_lo = max(int(np.searchsorted(scores, lo, side="right")) - 1, 0)
        row_hi = min(int(np.searchsorted(scores, hi, side="left")), scores.size - 1)
        side_l = last[k] <= hi  # windows that bound g from below somewhere in the range
        side_u = first[j] >= lo
        jl, kl, ju, ku = j[side_l], k[side_l], j[side_u], k[side_u]
        theta_l = value[np.maximum(ends[kl], row_lo)]
        theta_u = value[np.minimum(starts[ju], row_hi)]
    else:  # the first point at or above l_W, the last at or below f_W
        inside = points[(points >= lo) & (points <= hi)]
        at_l = np.searchsorted(inside, last[k], side="left")
        at_u = np.searchsorted(inside, first[j], side="right") - 1
        side_l, side_u = at_l < inside.size, at_u >= 0
        jl, kl, ju, ku = j[side_l], k[side_l], j[side_u], k[side_u]
        # the truth between rows: the lower step for the lower bound, the upper step for
        # the upper bound (each the side on which a miss is counted more often)
        below_row = np.searchsorted(scores, inside[at_l[side_l]], side="right") - 1
        above_row = np.searchsorted(scores, inside[at_u[side_u]], side="left")
        theta_l = value[np.maximum(below_row, 0)]
        theta_u = value[np.minimum(above_row, scores.size - 1)]
    total = float(weight.sum())
    trials = np.rint(weight).astype(np.int64)
    rng = np.random.default_rng(0 if seed is None else seed)
    minima = np.empty(draws)
    chunk = max(1, _CHUNK_CELLS // max(windows, scores.size))
    for a in range(0, draws, chunk):
        b = min(chunk, draws - a)
        events = np.add.reduceat(rng.binomial(trials, value, size=(b, scores.size)),
                                 starts, axis=1).astype(np.float64)
        cum = np.concatenate([np.zeros((b, 1)), np.cumsum(events, axis=1)], axis=1)
        below = _min_pvalues(cum[:, kl + 1] - cum[:, jl], n_window[side_l], theta_l,
                             total)
        above = _min_pvalues(n_window[side_u] - (cum[:, ku + 1] - cum[:, ju]),
                             n_window[side_u], 1.0 - theta_u, total)
        minima[a:a + b] = np.minimum(below, above)
    minima.sort()
    rank = max(math.ceil((1.0 - level) * draws - 1e-9), 1)
    delta = min(max(float(minima[rank - 1]), window_level(level, windows)), 0.5)
    lower, upper = cell_bounds(e_cell, n_cell, delta)
    return CalibratedMonotoneBand(first, last, lower, upper, windows, delta,
                                  cells < np.unique(scores).size, minima, truth)
