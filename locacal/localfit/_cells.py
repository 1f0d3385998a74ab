"""Binned local fits read off the cell sums of a sample (:class:`locacal.data.cells.
ScoreStatistics`): the nearest-neighbour local mean (:func:`local_constant`), the local
polynomial of degree 0 or 1 with the rect or tricube kernel (:func:`local_fit`, as
KernSmooth's ``locpoly`` but with each cell's exact moments) and its variance factor
(:func:`local_variance_factor`), and the WMSE's nearest-weight mean (:func:`nearest_mean`),
each with the bound on its distance to the exact fit stated on it. Reached through
:func:`locacal.localfit.fit` with a ``ScoreStatistics`` as data (outputs ``"value"``,
``"bound"``, ``"var_factor"``)."""

from __future__ import annotations

import numpy as np

from locacal._validation import plain
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import CELLS, nn_bracket
from locacal.localfit._params import local_params
from locacal.localfit._window import effective_count

__all__ = ["local_constant", "local_fit", "local_variance_factor", "nearest_mean"]


def local_constant(cells: ScoreStatistics, points: np.ndarray, nn: float = 0.15
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest-neighbour local mean of the labels (degree 0, rectangular kernel) at
    ``points``, with a bound on its distance to the exact fit.

    The exact fit at t (:func:`locacal.lcs`'s default curve, locfit's rule) is the
    weighted mean label over the window W = {i : |s_i - t| <= h}, h the k-th smallest
    distance, k = floor(n nn) rows. From the cells, h is bracketed: r_lo, the largest
    radius found at which the cells *touching* [t - r, t + r] hold fewer than k rows
    (so r_lo <= h), and r_hi, the smallest at which the cells *inside* it hold k or more
    (so h <= r_hi), both by bisection. Then the cells inside [t - r_lo, t + r_lo] (set I)
    are wholly in W, and W lies in the cells touching [t - r_hi, t + r_hi] (I plus a
    ring R, in practice one or two cells at each end). The estimate takes I and the
    share theta = (k - n_I) / n_R of the ring:

    .. math:: \\tilde g(t) = \\frac{S^I_{wy} + \\theta S^R_{wy}}{S^I_w + \\theta S^R_w}

    Bound: the exact mean and the estimate are both means of 0/1 labels over I plus a
    part of R of weight a <= S^R_w; any such mean lies in
    [S^I_{wy} / (S^I_w + S^R_w), (S^I_{wy} + S^R_w) / (S^I_w + S^R_w)] (the mean
    (x + a)/(W + a) grows with a when x <= W), so

    .. math:: |\\tilde g(t) - \\hat g(t)| \\le \\varepsilon(t) = \\frac{S^R_w}{S^I_w + S^R_w}

    about 2 delta f(t) / nn for a score density f: 1e-4 at nn = 0.15, for any n.
    Clipping both to [0, 1] keeps the bound (clipping is 1-Lipschitz). Exact up to the
    rounding of scores within ~1e-16 of a cell edge.

    Returns
    -------
    (estimate, bound) : tuple of ndarray
    """
    t = np.asarray(points, dtype=np.float64)
    k = float(effective_count(cells.n, nn, None))
    cum = cells._cumulative(("count", "weight", "wy"))
    _, _, core, outer = nn_bracket(t, k, cum["count"])

    def sums(name: str) -> tuple[np.ndarray, np.ndarray]:
        c = cum[name]
        s_core = c[core[1]] - c[core[0]]
        return s_core, (c[outer[1]] - c[outer[0]]) - s_core

    n_core, n_ring = sums("count")
    w_core, w_ring = sums("weight")
    wy_core, wy_ring = sums("wy")
    theta = np.clip(np.divide(k - n_core, n_ring, out=np.zeros_like(t),
                              where=n_ring > 0), 0.0, 1.0)
    estimate = (wy_core + theta * wy_ring) / (w_core + theta * w_ring)
    return estimate, w_ring / (w_core + w_ring)


def nearest_mean(stats: ScoreStatistics, points: np.ndarray,
                 k: float) -> tuple[np.ndarray, np.ndarray]:
    """The WMSE's nearest-weight mean (:class:`~locacal.localfit.NearestMean`) at ``points``
    from the cells, and the bound on its distance to the exact mean.

    With the weights normalised to sum to the n+ rows of positive weight (cell masses
    m_c = W_c n+ / W; the counts without weights), the exact mean at t is over the rows
    nearest to t of normalised weight exactly k (boundary ties shared). The radius h is
    bracketed from the cumulative masses as in :func:`local_constant` (r_lo < h <= r_hi): the
    cells inside [t - r_lo, t + r_lo] (I, mass M_I, label mass Y_I) are wholly in the
    window, the rest of it, of mass a = k - M_I, lies in the ring R of cells touching
    [t - r_hi, t + r_hi] (mass M_R, label mass Y_R). The estimate takes the ring's share
    a / M_R, (Y_I + a Y_R / M_R) / k; the exact mean is (Y_I + x) / k for some label mass x
    of the ring in [max(0, a - (M_R - Y_R)), min(a, Y_R)], so each mean is within eps(t),
    the larger distance to the ends of that interval.

    Returns
    -------
    (estimate, bound) : tuple of ndarray
    """
    t = np.asarray(points, dtype=np.float64)
    mass, rows = stats._row_mass()
    cum_mass = np.concatenate([[0.0], np.cumsum(mass)])
    cum_events = np.concatenate([[0.0], np.cumsum(stats.wy * (rows / stats.total_weight))])
    _, _, core, outer = nn_bracket(t, k, cum_mass)

    def sums(cum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        inner = cum[core[1]] - cum[core[0]]
        return inner, (cum[outer[1]] - cum[outer[0]]) - inner

    m_in, m_ring = sums(cum_mass)
    y_in, y_ring = sums(cum_events)
    rest = np.clip(k - m_in, 0.0, m_ring)
    share = np.divide(rest, m_ring, out=np.zeros_like(t), where=m_ring > 0)
    window = m_in + rest
    estimate = (y_in + share * y_ring) / window
    low = (y_in + np.maximum(rest - (m_ring - y_ring), 0.0)) / window
    high = (y_in + np.minimum(rest, y_ring)) / window
    return estimate, np.maximum(estimate - low, high - estimate)


def local_fit(cells: ScoreStatistics, points: np.ndarray, degree: int = 0, nn: float = 0.15,
              kernel: str = "rect") -> tuple[np.ndarray, np.ndarray]:
    """Binned local polynomial fit (degree 0 or 1; rectangular or tricube kernel) at
    ``points``, unclipped, with a bound on its distance to the exact fit.

    As KernSmooth's ``locpoly`` (Wand & Jones 1995, appendix D), the sums of the local
    least-squares fit are accumulated per cell with one kernel weight per cell; unlike
    ``locpoly``, which moves every row to its grid node, each cell keeps its exact sums
    sum w, w s, w s^2, w y, w y s, so the only approximations are the kernel weight
    (taken at the cell's mean score m_c) and the bandwidth h(t) (bracketed,
    ``r_lo <= h <= r_hi``, as in :func:`local_constant`). With the binned weights
    K~_c (and differences d = s - t), the fit solves

    .. math:: \\begin{pmatrix} S_0 & S_1 \\\\ S_1 & S_2 \\end{pmatrix}
        \\begin{pmatrix} a \\\\ b \\end{pmatrix} =
        \\begin{pmatrix} T_0 \\\\ T_1 \\end{pmatrix}, \\quad
        S_j = \\sum_c \\tilde K_c \\sum_{i \\in c} w_i d_i^j, \\;
        T_j = \\sum_c \\tilde K_c \\sum_{i \\in c} w_i y_i d_i^j

    and g~(t) = a (degree 0: T_0 / S_0).

    Bound. Each row's kernel weight is off by |e_i| <= eps_c: for the tricube kernel,
    Lipschitz with L = max |K'| = 9 (1/4)^(2/3) (3/4)^2 = 2.009 (at u^3 = 1/4),
    eps_c = L (delta / h~ + (r_hi + delta)(r_hi - r_lo) / (2 r_lo h~)) with
    h~ = (r_lo + r_hi) / 2; for the rectangular kernel eps_c = 1 on the ring cells that
    straddle the window's edge (weight theta, the share of the ring the window needs)
    and 0 on the others. With E = sum_c eps_c sum_{i in c} w_i, the residuals
    r~_i = y_i - a - b d_i of the binned fit satisfy sum_i K_i w_i x_i r~_i =
    sum_i (K_i - K~_i) w_i x_i r~_i (x_i = (1, d_i)), so

    * degree 0: |g~ - g| <= E max(g~, 1 - g~) / (S_0 - E), exactly;
    * degree 1: |g~ - g| <= E (S_2 + |S_1| D) / (S_0 S_2 - S_1^2) R, with D = r_hi + delta
      the largest |d| and R = 1/2 + |a - 1/2| + |b| D the largest |r~|, to first order in
      eps (the binned normal matrix stands for the exact one).

    Tied scores: where r_lo = 0 (at least k rows in the cells touching t, so h(t) may be
    0 and the exact window the rows tied at t) the tricube fit is the mean label of those
    cells, with the trivial bound max(g~, 1 - g~) (:func:`_tied_mean`); where every
    cell's tricube weight vanishes (the window's rows at distance h) the cells weigh 1,
    as the in-memory fit weighs such a window, and the bound is infinite.

    The bound shrinks like delta / h (about 1e-3 for the tricube kernel at nn = 0.15);
    the error itself is of second order (the kernel at the cell mean), measured in the
    tests. Cost: O(cells in the window) per point.

    Returns
    -------
    (estimate, bound) : tuple of ndarray
        Unclipped estimates (NaN where the window holds no weight) and the bounds.
    """
    params = local_params(degree, nn, None, kernel)
    if params.degree > 1 or params.kernel not in ("rect", "tricube"):
        raise ValueError("the binned local fit has degree 0 or 1 and the rect or tricube "
                         f"kernel; got degree={params.degree}, kernel={plain(params.kernel)!r}")
    t = np.atleast_1d(np.asarray(points, dtype=np.float64))
    if params.degree == 0 and params.kernel == "rect":
        return local_constant(cells, t, params.nn)
    k = float(effective_count(cells.n, params.nn, None))
    cum_count = np.concatenate([[0.0], np.cumsum(cells.count)])
    r_lo, r_hi, core, outer = nn_bracket(t, k, cum_count)
    mean = _cell_means(cells)
    lipschitz = 9.0 * 0.25 ** (2.0 / 3.0) * 0.75**2
    # rows: sum w, w s, w s^2, w y, w y s per cell; the rect kernel reads their prefix sums
    table = np.stack([cells.weight, cells.ws, cells.ws2, cells.wy, cells.wys])
    cum = np.concatenate([np.zeros((5, 1)), np.cumsum(table, axis=1)], axis=1)
    estimate, bound = np.full(t.shape, np.nan), np.full(t.shape, np.inf)
    for i, ti in enumerate(t):
        a, b = outer[0][i], outer[1][i]
        if params.kernel == "rect":
            c0, c1 = core[0][i], core[1][i]
            n_core = float(cum_count[c1] - cum_count[c0])
            n_ring = float(cum_count[b] - cum_count[a]) - n_core
            theta = _ring_share(k, n_core, n_ring)
            core_sums = cum[:, c1] - cum[:, c0]
            ring_sums = (cum[:, b] - cum[:, a]) - core_sums
            sums = core_sums + theta * ring_sums
            e_sum = float(ring_sums[0])
        else:
            h = 0.5 * (r_lo[i] + r_hi[i])
            kern, case = _tricube_window(cells, mean, ti, h, r_lo[i], a, b)
            if case == "tied":
                estimate[i], bound[i] = _tied_mean(cells, a, b)
                continue
            sums = table[:, a:b] @ kern
            step = (r_hi[i] - r_lo[i]) / 2.0
            eps = lipschitz * (1.0 / CELLS + (r_hi[i] + 1.0 / CELLS) * step / r_lo[i]) / h
            e_sum = eps * float(cum[0, b] - cum[0, a]) if case == "kernel" else np.inf
        # centre at t: sum K w d^j and sum K w y d^j with d = s - t
        s0, t0 = float(sums[0]), float(sums[3])
        if s0 <= 0.0:
            continue
        if params.degree == 0:
            g = t0 / s0
            estimate[i] = g
            if s0 > e_sum:
                bound[i] = e_sum * max(g, 1.0 - g) / (s0 - e_sum)
            continue
        s1 = float(sums[1] - ti * sums[0])
        s2 = float(sums[2] - 2.0 * ti * sums[1] + ti * ti * sums[0])
        t1 = float(sums[4] - ti * sums[3])
        det = s0 * s2 - s1 * s1
        if det <= 1e-12 * s0 * s2 or det <= 0.0:
            estimate[i] = t0 / s0  # one distinct score in the window: its mean
            continue
        g, slope = (s2 * t0 - s1 * t1) / det, (s0 * t1 - s1 * t0) / det
        estimate[i] = g
        reach = r_hi[i] + 1.0 / CELLS
        resid = 0.5 + abs(g - 0.5) + abs(slope) * reach
        bound[i] = e_sum * (s2 + abs(s1) * reach) / det * resid
    return estimate, bound


def local_variance_factor(cells: ScoreStatistics, points: np.ndarray, degree: int = 0,
                          nn: float = 0.15, kernel: str = "rect") -> np.ndarray:
    """The variance factor sum_i l_i(t)^2 of the binned local fit (:func:`local_fit`) at
    ``points``: ``Var g~(t) = sum_i l_i(t)^2 Var(y_i)``, the effective size of the
    pointwise band (:func:`locacal.curves.bands.proportion_band`).

    The fit is linear in the labels, g~(t) = sum_i l_i(t) y_i, with smoother weights
    (Loader 1999, section 2.3) l_i = K~_c w_i (S_2 - S_1 d_i) / (S_0 S_2 - S_1^2) for a
    row i of cell c (degree 1, d_i = s_i - t, S_j as in :func:`local_fit`) and
    l_i = K~_c w_i / S_0 (degree 0). Rows of one cell share the kernel weight, so

    .. math:: \\sum_i l_i^2 = \\frac{S_2^2 Q_0 - 2 S_1 S_2 Q_1 + S_1^2 Q_2}
        {(S_0 S_2 - S_1^2)^2}, \\quad
        Q_j = \\sum_c \\tilde K_c^2 \\sum_{i \\in c} w_i^2 d_i^j

    (degree 0: Q_0 / S_0^2) from the per-cell sums of w^2, w^2 s and w^2 s^2, exactly for
    the binned weights. It is evaluated about the window's mean score m, where
    l_i = K~_c w_i (1 / S_0 + lambda (s_i - m)) with lambda = (t - m) / M_2 and M_2 the
    kernel-weighted sum of w (s - m)^2, as a sum of non-negative per-cell terms

    .. math:: \\sum_c \\tilde K_c^2 \\bigl[ V_c (1 / S_0 + \\lambda (\\bar s_c - m))^2
        + \\lambda^2 \\textstyle\\sum_{i \\in c} w_i^2 (s_i - \\bar s_c)^2 \\bigr]

    (V_c = sum w^2 and s-bar_c the w^2-weighted mean score of cell c), which cannot
    cancel to a negative number where the design is nearly singular (tied scores at the
    window's edge), as the form above does. With the rectangular kernel a ring cell's
    rows are in the window or not (K_i^2 = K_i), so its share theta enters as theta, not
    theta^2. This is the in-memory factor (``_local_solve``'s
    ``e_0' Z^-1 Z_2 Z^-1 e_0``) with the kernel at the cell mean, the same approximation
    as the estimate's (measured within 0.3 % of it, ``tests/test_cells.py``). NaN where
    :func:`local_fit` gives NaN.
    """
    params = local_params(degree, nn, None, kernel)
    if params.degree > 1 or params.kernel not in ("rect", "tricube"):
        raise ValueError("the binned local fit has degree 0 or 1 and the rect or tricube "
                         f"kernel; got degree={params.degree}, kernel={plain(params.kernel)!r}")
    t = np.atleast_1d(np.asarray(points, dtype=np.float64))
    k = float(effective_count(cells.n, params.nn, None))
    cum_count = np.concatenate([[0.0], np.cumsum(cells.count)])
    r_lo, r_hi, core, outer = nn_bracket(t, k, cum_count)
    mean = _cell_means(cells)
    table = np.stack([cells.weight, cells.ws, cells.ws2])
    factor = np.full(t.shape, np.nan)
    for i, ti in enumerate(t):
        a, b = outer[0][i], outer[1][i]
        if params.kernel == "rect":
            c0, c1 = core[0][i], core[1][i]
            n_core = float(cum_count[c1] - cum_count[c0])
            kern = np.full(b - a, _ring_share(k, n_core,
                                              float(cum_count[b] - cum_count[a]) - n_core))
            kern[c0 - a:c1 - a] = 1.0
            kern_sq = kern
        else:
            kern, case = _tricube_window(cells, mean, ti, 0.5 * (r_lo[i] + r_hi[i]),
                                              r_lo[i], a, b)
            tied = case == "tied"  # the window's mean (see local_fit)
            kern_sq = kern * kern
        s0 = float(kern @ cells.weight[a:b])
        if s0 <= 0.0:
            continue
        w, w2 = cells.weight[a:b], cells.weight_sq[a:b]
        centre = float(kern @ cells.ws[a:b]) / s0  # the window's mean score m
        # every term a sum of non-negative per-cell parts: cell means about m plus the
        # spread within the cell (w^2-weighted mean mean_sq for the squared weights)
        mean_sq = np.divide(cells.w2s[a:b], w2, out=mean[a:b].copy(), where=w2 > 0)
        spread_sq = np.maximum(cells.w2s2[a:b] - cells.w2s[a:b] * mean_sq, 0.0)
        lever = 0.0
        if (params.degree == 1 and not (params.kernel == "tricube" and tied)
                and _regular(table[:, a:b] @ kern, ti)):
            spread = np.maximum(cells.ws2[a:b] - cells.ws[a:b] * mean[a:b], 0.0)
            m2 = float(kern @ (w * (mean[a:b] - centre) ** 2 + spread))
            lever = (ti - centre) / m2
        part = 1.0 / s0 + lever * (mean_sq - centre)
        factor[i] = float(kern_sq @ (w2 * part * part + lever * lever * spread_sq))
    return factor


def _cell_means(cells: ScoreStatistics) -> np.ndarray:
    """Mean score of each cell (its centre when it holds no weight): where the binned
    local fit evaluates the kernel."""
    filled = cells.weight > 0
    return np.where(filled, cells.ws / np.where(filled, cells.weight, 1.0),
                    (np.arange(CELLS) + 0.5) / CELLS)


def _tricube_window(cells: ScoreStatistics, mean: np.ndarray, t: float, h: float, r_lo: float,
                    a: int, b: int) -> tuple[np.ndarray, str]:
    """The binned fit's kernel weights on cells [a, b) and which case applies:
    ``"kernel"``, tricube at the cell means; ``"uniform"``, every weight 1 where the
    tricube weights all vanish (the window's rows sit at distance h, as tied scores do:
    the in-memory fit then weighs its window uniformly); ``"tied"``, r_lo = 0
    (:func:`_tied_mean`)."""
    if h <= 0.0 or r_lo <= 0.0:
        return np.ones(b - a), "tied"
    kern = _tricube(mean[a:b], t, h)
    if not kern @ cells.weight[a:b] > 0.0:
        return np.ones(b - a), "uniform"
    return kern, "kernel"


def _tied_mean(cells: ScoreStatistics, a: int, b: int) -> tuple[float, float]:
    """The mean label of cells [a, b) and the trivial bound max(g, 1 - g): the binned fit
    where h(t) may be 0 (r_lo = 0: at least k rows in the cells touching t). locfit's
    window is then the rows tied at t, one distinct score, whose mean every degree
    returns; the cells around t stand for them, and rows within a cell width of t but not
    tied with it cannot be told apart, so no better bound holds."""
    weight = float(cells.weight[a:b].sum())
    if weight <= 0.0:
        return float("nan"), float("inf")
    g = float(cells.wy[a:b].sum()) / weight
    return g, max(g, 1.0 - g)


def _regular(sums: np.ndarray, t: float) -> bool:
    """Whether :func:`local_fit` solves the local line from the kernel-weighted
    (sum w, w s, w s^2), rather than taking the mean of a window of one distinct score."""
    s0, s1, s2 = _centred(sums, t)
    det = s0 * s2 - s1 * s1
    return det > 1e-12 * s0 * s2 and det > 0.0


def _ring_share(k: float, n_core: float, n_ring: float) -> float:
    """theta = (k - n_I) / n_R in [0, 1]: the share of the ring's rows the window needs
    (:func:`local_constant`)."""
    return min(max((k - n_core) / n_ring, 0.0), 1.0) if n_ring > 0 else 0.0


def _tricube(mean: np.ndarray, t: float, h: float) -> np.ndarray:
    """Tricube kernel (1 - |u|^3)^3, u = (m - t) / h (0 beyond |u| = 1), at cell means m."""
    u = np.minimum(np.abs(mean - t) / h, 1.0)
    return (1.0 - u**3) ** 3


def _centred(sums: np.ndarray, t: float) -> tuple[float, float, float]:
    """(sum x, sum x d, sum x d^2) with d = s - t, from (sum x, sum x s, sum x s^2)."""
    x0, x1, x2 = (float(v) for v in sums)
    return x0, x1 - t * x0, x2 - 2.0 * t * x1 + t * t * x0
