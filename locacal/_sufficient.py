"""Mergeable sufficient statistics of a scored sample on a fine grid of score cells.

A :class:`ScoreStatistics` is the :class:`locacal.data.cells.CellSums` of a sample (per-cell
sums on the :data:`~locacal.data.grid.CELLS` right-closed cells of [0, 1] and exact scalar
sums, built in one pass over a chunk and merged by addition) with what is read off them.

What is exact and what is approximated (bounds stated and tested)
    * Brier score: exact (its sum is kept, not binned); its calibration-refinement
      decomposition on uniform bins too (:meth:`ScoreStatistics.brier_decomposition`).
    * Uniform bins (ECE, QMSE, bin statistics): exact (see :mod:`locacal.data.grid`).
    * Log loss and Spiegelhalter's z: exact, from the kept sums
      (:meth:`ScoreStatistics.log_loss`, :meth:`ScoreStatistics.spiegelhalter_z`).
    * Quantile bins: the breaks need global quantiles; each is placed at the top of the cell
      holding its order statistic, so only rows of that cell may change bin, and the ECE
      moves by at most twice their weight share
      (:meth:`locacal.data.cells.CellSums.quantile_bins`).
    * The reflected density of the LCS: linear binning of the scores on the nodes k/C is
      exact from the cell sums of w and w s (a score's share of the right node is s C - j),
      then :func:`locacal.data.grid.reflected_sum_from_mass` as in the binned density. Its
      bandwidth (:func:`locacal.density.reflected_bandwidth`) takes n_eff and the sd exactly
      from the sums, and the two quartiles of the reflected sample from the cumulative cell
      weights, each order statistic represented by the mean score of its cell: within one
      cell (delta) of the exact one, so the IQR is within 2 delta and the bandwidth within
      relative 2 delta / IQR (IQR of the reflected sample, about 1) when the IQR branch of
      ``bw.nrd0`` is active, exact otherwise.
    * The LCS's curve, local degree-0 fit with the rectangular kernel (the default of
      :func:`locacal.lcs`): see :meth:`ScoreStatistics.local_constant` for the bound; degree
      0 or 1 with the rect or tricube kernel (binned local regression as KernSmooth's
      ``locpoly``): :meth:`ScoreStatistics.local_fit`.
    * The AUC, confusion rates and the report from the cells: each metric's cell version
      (:func:`locacal.metrics.registry.evaluate_cells`); curves:
      :meth:`locacal.curves._base.BaseCalibrator.from_statistics`; Dask input:
      :mod:`locacal.data.dask`.
"""

from __future__ import annotations

import numpy as np

from locacal._validation import (
    check_grid_size,
    plain,
)
from locacal.curves.curve import SLIDES_GRID_SIZE, slides_grid
from locacal.data.cells import CellSums
from locacal.data.grid import (
    CELLS,
    nn_bracket,
    order_stat_cells,
    reflected_sum_from_mass,
)
from locacal.density import _SQRT_2PI, _nrd0_from_moments, _weighted_moments
from locacal.localfit import effective_count, local_params
from locacal.metrics.binned import (
    BrierDecomposition,
    brier_decomposition_cells,
    calib_mse_from_bins,
    ece_cells,
    ece_from_bins,
)
from locacal.metrics.classification import brier_cells
from locacal.metrics.clinical import spiegelhalter_z_cells
from locacal.metrics.log_score import log_loss_cells

__all__ = ["ScoreStatistics"]


class ScoreStatistics(CellSums):
    """The mergeable cell sums of a scored sample (:class:`locacal.data.cells.CellSums`:
    built by ``from_arrays``, merged by ``merge`` or ``+``, uniform and quantile bins) and
    what is read off them, each within the bound stated on its method: exact metrics, the
    metrics of the bins, the reflected density, binned local fits and the LCS."""

    # ------------------------------------------------------------------ exact metrics

    def brier(self) -> float:
        """Brier score sum w (y - s)^2 / sum w, exactly (:func:`locacal.brier_score`)."""
        return brier_cells(self)

    def log_loss(self) -> float:
        """Log loss, exactly (:func:`locacal.metrics.log_score.log_loss_cells`)."""
        return log_loss_cells(self)

    def spiegelhalter_z(self) -> float:
        """Spiegelhalter's z, exactly (:func:`locacal.metrics.clinical.spiegelhalter_z_cells`;
        NaN with a warning when the variance is 0, as in memory)."""
        return spiegelhalter_z_cells(self)

    def ece(self, bins: int = 10) -> float:
        """ECE on uniform bins, exactly :func:`locacal.ece` with ``strategy="uniform"``."""
        return ece_cells(self, bins=bins, strategy="uniform")

    def qmse(self, bins: int = 10) -> float:
        """QMSE on uniform bins, exactly :func:`locacal.qmse` with ``strategy="uniform"``."""
        return calib_mse_from_bins(self.uniform_bins(bins))

    def brier_decomposition(self, bins: int = 10) -> BrierDecomposition:
        """Brier = calibration + refinement + within-bin on ``bins`` uniform bins, exactly
        (:func:`locacal.metrics.binned.brier_decomposition_cells`)."""
        return brier_decomposition_cells(self, bins)

    # ------------------------------------------------------------------ density

    def _reflected_quartiles(self) -> tuple[float, float]:
        """Type-7 quartiles of the reflected sample ``c(-s, s, 2 - s)`` from the cells.

        Order statistic j (0-based) of the reflected sample lies in the first cell whose
        cumulative normalised weight reaches j + 1 (as in :func:`locacal.data.quantile.
        quantile_type7`); it is represented by that cell's mean score, within one cell width
        of it, and so is their interpolation.
        """
        mass, rows = self._row_mass()
        filled = self.weight > 0
        mass = mass[filled]
        mean = self.ws[filled] / self.weight[filled]
        masses = np.concatenate([mass[::-1], mass, mass[::-1]])
        values = np.concatenate([-mean[::-1], mean, 2.0 - mean[::-1]])
        pos = (3.0 * rows - 1.0) * np.array([0.25, 0.75])
        lo = np.floor(pos)
        a = values[order_stat_cells(masses, lo)]
        b = values[order_stat_cells(masses, np.minimum(lo + 1.0, 3.0 * rows - 1.0))]
        q = a + (pos - lo) * (b - a)
        return float(q[0]), float(q[1])

    def ece_quantile(self, bins: int = 10) -> tuple[float, float]:
        """ECE on approximate quantile bins and the bound on its distance to
        :func:`locacal.ece` (``strategy="quantile"``), see :meth:`quantile_bins`."""
        stats, error = self.quantile_bins(bins)
        return ece_from_bins(stats), error

    def reflected_bandwidth(self) -> float:
        """:func:`locacal.density.reflected_bandwidth` from the cells: n_eff and the sd
        exactly, the IQR within two cell widths (module docstring)."""
        total, total_sq = self.total_weight, float(self.weight_sq.sum())
        s1, s2 = float(self.ws.sum()), float(self.ws2.sum())
        # reflected sample -s, s, 2 - s: weight 3 V1, and its sums of w x and w x^2
        sum_x, sum_x2 = 2.0 * total - s1, 3.0 * s2 + 4.0 * total - 4.0 * s1
        n_eff, sd = _weighted_moments(3.0 * total, 3.0 * total_sq, sum_x, sum_x2)
        q1, q3 = self._reflected_quartiles()
        return _nrd0_from_moments(n_eff, sd, q3 - q1, -self.min_score)

    def reflected_density(self, points: np.ndarray) -> np.ndarray:
        """:func:`locacal.density.reflected_kde` at ``points`` from the cells: the linear
        binning on the nodes k/C is exact from the cell sums (cell j gives node j + 1 the
        share sum w (s C - j) = C sum(w s) - j sum(w)), the convolution is the binned
        density's."""
        j = np.arange(CELLS)
        right = np.clip(CELLS * self.ws - j * self.weight, 0.0, self.weight)
        mass = np.zeros(CELLS + 1)
        mass[:-1] += self.weight - right
        mass[1:] += right
        h = self.reflected_bandwidth()
        sums = reflected_sum_from_mass(np.asarray(points, dtype=np.float64), mass, h, CELLS)
        return sums / (3.0 * self.total_weight * h * _SQRT_2PI)

    # ------------------------------------------------------------------ local fit and LCS

    def local_constant(self, points: np.ndarray, nn: float = 0.15
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
        k = float(effective_count(self.n, nn, None))
        cum = self._cumulative(("count", "weight", "wy"))
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

    def local_fit(self, points: np.ndarray, degree: int = 0, nn: float = 0.15,
                  kernel: str = "rect") -> tuple[np.ndarray, np.ndarray]:
        """Binned local polynomial fit (degree 0 or 1; rectangular or tricube kernel) at
        ``points``, unclipped, with a bound on its distance to the exact fit.

        As KernSmooth's ``locpoly`` (Wand & Jones 1995, appendix D), the sums of the local
        least-squares fit are accumulated per cell with one kernel weight per cell; unlike
        ``locpoly``, which moves every row to its grid node, each cell keeps its exact sums
        sum w, w s, w s^2, w y, w y s, so the only approximations are the kernel weight
        (taken at the cell's mean score m_c) and the bandwidth h(t) (bracketed,
        ``r_lo <= h <= r_hi``, as in :meth:`local_constant`). With the binned weights
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
        cells, with the trivial bound max(g~, 1 - g~) (:meth:`_tied_mean`); where every
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
            return self.local_constant(t, params.nn)
        k = float(effective_count(self.n, params.nn, None))
        cum_count = np.concatenate([[0.0], np.cumsum(self.count)])
        r_lo, r_hi, core, outer = nn_bracket(t, k, cum_count)
        mean = self._cell_means()
        lipschitz = 9.0 * 0.25 ** (2.0 / 3.0) * 0.75**2
        # rows: sum w, w s, w s^2, w y, w y s per cell; the rect kernel reads their prefix sums
        table = np.stack([self.weight, self.ws, self.ws2, self.wy, self.wys])
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
                kern, case = self._tricube_window(mean, ti, h, r_lo[i], a, b)
                if case == "tied":
                    estimate[i], bound[i] = self._tied_mean(a, b)
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

    def _cell_means(self) -> np.ndarray:
        """Mean score of each cell (its centre when it holds no weight): where the binned
        local fit evaluates the kernel."""
        filled = self.weight > 0
        return np.where(filled, self.ws / np.where(filled, self.weight, 1.0),
                        (np.arange(CELLS) + 0.5) / CELLS)

    def _tricube_window(self, mean: np.ndarray, t: float, h: float, r_lo: float, a: int,
                        b: int) -> tuple[np.ndarray, str]:
        """The binned fit's kernel weights on cells [a, b) and which case applies:
        ``"kernel"``, tricube at the cell means; ``"uniform"``, every weight 1 where the
        tricube weights all vanish (the window's rows sit at distance h, as tied scores do:
        the in-memory fit then weighs its window uniformly); ``"tied"``, r_lo = 0
        (:meth:`_tied_mean`)."""
        if h <= 0.0 or r_lo <= 0.0:
            return np.ones(b - a), "tied"
        kern = _tricube(mean[a:b], t, h)
        if not kern @ self.weight[a:b] > 0.0:
            return np.ones(b - a), "uniform"
        return kern, "kernel"

    def _tied_mean(self, a: int, b: int) -> tuple[float, float]:
        """The mean label of cells [a, b) and the trivial bound max(g, 1 - g): the binned fit
        where h(t) may be 0 (r_lo = 0: at least k rows in the cells touching t). locfit's
        window is then the rows tied at t, one distinct score, whose mean every degree
        returns; the cells around t stand for them, and rows within a cell width of t but not
        tied with it cannot be told apart, so no better bound holds."""
        weight = float(self.weight[a:b].sum())
        if weight <= 0.0:
            return float("nan"), float("inf")
        g = float(self.wy[a:b].sum()) / weight
        return g, max(g, 1.0 - g)

    @staticmethod
    def _regular(sums: np.ndarray, t: float) -> bool:
        """Whether :meth:`local_fit` solves the local line from the kernel-weighted
        (sum w, w s, w s^2), rather than taking the mean of a window of one distinct score."""
        s0, s1, s2 = _centred(sums, t)
        det = s0 * s2 - s1 * s1
        return det > 1e-12 * s0 * s2 and det > 0.0

    def local_variance_factor(self, points: np.ndarray, degree: int = 0, nn: float = 0.15,
                              kernel: str = "rect") -> np.ndarray:
        """The variance factor sum_i l_i(t)^2 of the binned local fit (:meth:`local_fit`) at
        ``points``: ``Var g~(t) = sum_i l_i(t)^2 Var(y_i)``, the effective size of the
        pointwise band (:func:`locacal.curves.bands.proportion_band`).

        The fit is linear in the labels, g~(t) = sum_i l_i(t) y_i, with smoother weights
        (Loader 1999, section 2.3) l_i = K~_c w_i (S_2 - S_1 d_i) / (S_0 S_2 - S_1^2) for a
        row i of cell c (degree 1, d_i = s_i - t, S_j as in :meth:`local_fit`) and
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
        :meth:`local_fit` gives NaN.
        """
        params = local_params(degree, nn, None, kernel)
        if params.degree > 1 or params.kernel not in ("rect", "tricube"):
            raise ValueError("the binned local fit has degree 0 or 1 and the rect or tricube "
                             f"kernel; got degree={params.degree}, kernel={plain(params.kernel)!r}")
        t = np.atleast_1d(np.asarray(points, dtype=np.float64))
        k = float(effective_count(self.n, params.nn, None))
        cum_count = np.concatenate([[0.0], np.cumsum(self.count)])
        r_lo, r_hi, core, outer = nn_bracket(t, k, cum_count)
        mean = self._cell_means()
        table = np.stack([self.weight, self.ws, self.ws2])
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
                kern, case = self._tricube_window(mean, ti, 0.5 * (r_lo[i] + r_hi[i]),
                                                  r_lo[i], a, b)
                tied = case == "tied"  # the window's mean (see local_fit)
                kern_sq = kern * kern
            s0 = float(kern @ self.weight[a:b])
            if s0 <= 0.0:
                continue
            w, w2 = self.weight[a:b], self.weight_sq[a:b]
            centre = float(kern @ self.ws[a:b]) / s0  # the window's mean score m
            # every term a sum of non-negative per-cell parts: cell means about m plus the
            # spread within the cell (w^2-weighted mean mean_sq for the squared weights)
            mean_sq = np.divide(self.w2s[a:b], w2, out=mean[a:b].copy(), where=w2 > 0)
            spread_sq = np.maximum(self.w2s2[a:b] - self.w2s[a:b] * mean_sq, 0.0)
            lever = 0.0
            if (params.degree == 1 and not (params.kernel == "tricube" and tied)
                    and self._regular(table[:, a:b] @ kern, ti)):
                spread = np.maximum(self.ws2[a:b] - self.ws[a:b] * mean[a:b], 0.0)
                m2 = float(kern @ (w * (mean[a:b] - centre) ** 2 + spread))
                lever = (ti - centre) / m2
            part = 1.0 / s0 + lever * (mean_sq - centre)
            factor[i] = float(kern_sq @ (w2 * part * part + lever * lever * spread_sq))
        return factor

    def lcs_with_bound(self, nn: float = 0.15, grid_size: int = SLIDES_GRID_SIZE, *,
                       degree: int = 0, kernel: str = "rect") -> tuple[float, float]:
        """:func:`locacal.lcs` (degree 0 or 1, rect or tricube kernel) from the cells, and
        the bound on the part of its error due to the curve.

        With d_j the density weights, g~_j the binned curve (clipped) and eps_j its bound
        (:meth:`local_fit`; :meth:`local_constant` for the default degree 0, rect),
        |(g~ - l)^2 - (g - l)^2| = |g~ - g| |g~ + g - 2 l| <= eps (2 |g~ - l| + eps), so

        .. math:: |\\widetilde{\\mathrm{LCS}} - \\mathrm{LCS}_{d}| \\le
            \\frac{\\sum_j d_j \\varepsilon_j (2 |\\tilde g_j - l_j| + \\varepsilon_j)}
            {\\sum_j d_j}

        for the same density weights. The density weights themselves differ from the
        in-memory ones by a relative eta (binning and the bandwidth, module docstring;
        measured below 1e-5 in the tests), which moves the LCS, a weighted mean, by at most
        relative 2 eta / (1 - eta).
        """
        grid_size = check_grid_size(grid_size)
        grid = slides_grid(np.array([self.min_score, self.max_score]), grid_size)
        estimate, eps = self.local_fit(grid, degree, nn, kernel)
        g = np.clip(estimate, 0.0, 1.0)
        dens = self.reflected_density(grid)
        gap = g - grid
        value = float(np.sum(dens * gap**2) / dens.sum())
        bound = float(np.sum(dens * eps * (2.0 * np.abs(gap) + eps)) / dens.sum())
        return value, bound

    def lcs(self, nn: float = 0.15, grid_size: int = SLIDES_GRID_SIZE, *, degree: int = 0,
            kernel: str = "rect") -> float:
        """The LCS from the cells (see :meth:`lcs_with_bound`)."""
        return self.lcs_with_bound(nn, grid_size, degree=degree, kernel=kernel)[0]


def _ring_share(k: float, n_core: float, n_ring: float) -> float:
    """theta = (k - n_I) / n_R in [0, 1]: the share of the ring's rows the window needs
    (:meth:`ScoreStatistics.local_constant`)."""
    return min(max((k - n_core) / n_ring, 0.0), 1.0) if n_ring > 0 else 0.0


def _tricube(mean: np.ndarray, t: float, h: float) -> np.ndarray:
    """Tricube kernel (1 - |u|^3)^3, u = (m - t) / h (0 beyond |u| = 1), at cell means m."""
    u = np.minimum(np.abs(mean - t) / h, 1.0)
    return (1.0 - u**3) ** 3


def _centred(sums: np.ndarray, t: float) -> tuple[float, float, float]:
    """(sum x, sum x d, sum x d^2) with d = s - t, from (sum x, sum x s, sum x s^2)."""
    x0, x1, x2 = (float(v) for v in sums)
    return x0, x1 - t * x0, x2 - 2.0 * t * x1 + t * t * x0
