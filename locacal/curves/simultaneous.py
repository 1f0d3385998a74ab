"""Simultaneous confidence bands of calibration curves and the sup-t null they share with a test.

``curve(band="simultaneous", level=1 - alpha)`` (:mod:`locacal.curves.bands`) gives a band
that holds the estimand at *every* grid point of its range jointly with probability about
``1 - alpha``:

Linear smoothers (local regression, lowess without robustness iterations, kernel regression)
    The estimate is :math:`\\hat g(t) = \\sum_i l_i(t) D_i`, so given the scores
    :math:`\\hat g(t) - E\\hat g(t) = \\sum_i l_i(t) \\varepsilon_i` with
    :math:`\\operatorname{Var} \\varepsilon_i = g(s_i)\\{1 - g(s_i)\\}`. As for the
    pointwise band, the variance is taken locally constant over a window,
    :math:`\\widehat{se}(t)^2 = \\tilde p(t)\\{1 - \\tilde p(t)\\} \\sum_i l_i(t)^2`,
    at Agresti & Coull's (1998) adjusted proportion
    :math:`\\tilde p(t) = (\\hat g(t) n_e(t) + 2) / (n_e(t) + 4)`,
    :math:`n_e(t) = 1 / \\sum_i l_i(t)^2`: at scores where g is near 0 or 1 the plug-in
    :math:`\\hat g(1 - \\hat g)` would give a band of width near 0 (a clipped estimate of 0
    has plug-in variance 0), which missed g at the low end of skewed scores in the coverage
    study. The band is the sup-t band :math:`\\hat g(t) \\pm c_\\alpha \\widehat{se}(t)`,
    :math:`c_\\alpha` the :math:`1 - \\alpha` quantile of the studentized sup
    :math:`M = \\max_t |\\hat g(t) - E\\hat g(t)| / \\widehat{se}(t)`, found one of two
    ways:

    * ``critical="bootstrap"`` (default): a multiplier bootstrap with Bernoulli
      multipliers. :data:`DRAWS` label vectors :math:`D^*_i \\sim \\mathcal B(\\hat
      g(s_i))` give :math:`M^*_b = \\max_t |\\sum_i l_i(t)(D^*_i - \\hat g(s_i))| /
      \\widehat{se}^*(t)` (each draw studentized by its own :math:`\\widehat{se}^*`), and
      :math:`c_\\alpha` is the k-th largest, k = ceil(alpha B). Unlike Gaussian or
      Rademacher multipliers on residuals it keeps the skewness of Bernoulli sums over
      small windows, which made the Gaussian critical value too small at n = 500-2000 in
      the coverage study. Seeded by ``seed``, and by 0 when ``seed`` is None, so that the
      band is a function of the data and ``calibration_test(statistic="sup")`` agrees
      with it.
    * ``critical="tube"``: the volume-of-tube formula for the Gaussian limit
      :math:`Z(t) = \\sum_i l_i(t) \\xi_i / \\|l(t)\\|`, :math:`\\xi_i` i.i.d. N(0, 1)
      (Sun & Loader 1994; Knowles & Siegmund 1989),
      :math:`P(M > c) \\approx 2\\{1 - \\Phi(c)\\} + (\\kappa_0 / \\pi) e^{-c^2/2}`, with
      :math:`\\kappa_0` the length of the curve :math:`t \\mapsto l(t) / \\|l(t)\\|` on
      the unit sphere, here the sum of the angles
      :math:`\\arccos \\rho(t_j, t_{j+1})`, :math:`\\rho(t, u) = \\sum_i l_i(t) l_i(u) /
      \\{\\|l(t)\\| \\|l(u)\\|\\}`, between consecutive grid points (what locfit's
      ``kappa0`` integrates and ``crit`` solves; the critical value equals ``crit``'s).
      Deterministic and cheap, but Gaussian: it undercovered where windows hold few
      observations (``benchmarks/coverage_simultaneous.py``).

    The estimand is the map g on the grid points between the 5 % and 95 % quantiles of the
    fitted scores (:data:`RANGE`); the band is NaN outside that range, where boundary
    effects and sparse data make any band a different object. The band is centred on the
    estimate, so the smoothing bias of a fixed span is *not* in it: it covers
    :math:`E \\hat g`, and g only where the bias is small against the band's half-width
    (the coverage study, ``benchmarks/coverage_simultaneous.py``, says where that holds).
    Kernel regression is the exception: its band is that of a bias-corrected fit, the
    local quadratic fit with the same kernel and bandwidth, centred on it (robust bias
    correction, Calonico, Cattaneo & Farrell 2018;
    :class:`locacal.curves.kernel.KernelCalibrator`), because the Nadaraya-Watson bias at
    a plug-in bandwidth is of the order of the standard error and the band centred on the
    estimate covered g in 0.40 of the samples of a skewed DGP at n = 20000.

Binning
    The bin means are independent given the scores, so Šidák's per-bin level
    :math:`(1 - \\alpha)^{1/k}` (k bins) on each bin's Clopper-Pearson interval gives joint
    coverage at least :math:`1 - \\alpha` for the bin averages of g over the bin's rows
    given the scores (the estimand of binning; Šidák 1967; Clopper & Pearson 1934). The
    pointwise ``interval=`` is not used: Wilson's interval, the pointwise default,
    undercovers at Šidák's high per-bin levels in bins with few events
    (:class:`locacal.curves.binning.BinningCalibrator`).

Isotonic regression
    Bands of a non-decreasing g from Clopper-Pearson bounds of the mean of g over windows
    of consecutive scores, which monotonicity carries to the scores beyond each window
    (Dimitriadis, Dümbgen, Henzi, Puke & Ziegel 2023). By default
    (``IsotonicCalibrator(simultaneous="calibrated")``) the per-window level is calibrated
    by a parametric bootstrap from a monotone smooth truth so that the band holds g on
    :data:`RANGE` in about ``level`` of samples (:mod:`locacal.curves.calibrated_monotone`;
    seeded by ``seed``, 0 when None). ``simultaneous="honest"`` takes the paper's union
    bound over the windows: a finite-sample guarantee for every non-decreasing g on the
    whole of [0, 1], conservative (:mod:`locacal.curves.monotone`). Both are reported, as
    the smoothers' bands, at the grid points within :data:`RANGE` (the estimand: g there),
    widened to hold the estimate.

Logistic maps (Platt, beta)
    Scheffé's band for the linear predictor :math:`\\eta(t) = x(t)^\\top \\theta`:
    :math:`\\hat\\eta(t) \\pm \\sqrt{\\chi^2_p(1 - \\alpha)} \\sqrt{x(t)^\\top \\hat\\Sigma
    x(t)}` holds for all t jointly (p free parameters, :math:`\\hat\\Sigma` the inverse
    Fisher information), mapped by expit (Scheffé 1959, ch. 3; the pointwise version is
    :func:`locacal.curves.bands.delta_method_band`). The estimand is the best logistic map of
    its family; it is g only when g belongs to the family. Beta calibration's band is
    Scheffé's over the *unconstrained* fit's coefficients (before its a, b >= 0 rule), whose
    estimate is asymptotically normal also when the rule binds
    (:class:`locacal.curves.beta.BetaCalibrator`).

The sup test :func:`locacal.metrics.calibration_test` with ``statistic="sup"`` is the dual
of the smoothers' band: :math:`T = \\max_t |\\hat g(t) - t| / \\widehat{se}(t)` over the
same grid points, with p-value :math:`P(M \\ge T)` under the same law, so p < alpha exactly
when the diagonal leaves the :math:`1 - \\alpha` band (:class:`SupTNull`).

References
----------
Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
estimation of binomial proportions. *The American Statistician* 52, 119-126.
Calonico, S., Cattaneo, M. D. & Farrell, M. H. (2018). On the effect of bias estimation on
coverage accuracy in nonparametric inference. *JASA* 113, 767-779.
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
in the case of the binomial. *Biometrika* 26, 404-413.
Knowles, M. & Siegmund, D. (1989). On Hotelling's approach to testing for a nonlinear
parameter in regression. *International Statistical Review* 57, 205-220.
Loader, C. (1999). *Local Regression and Likelihood*. Springer, section 9.3 (simultaneous
bands, ``kappa0`` and ``crit``).
Scheffé, H. (1959). *The Analysis of Variance*. Wiley.
Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
distributions. *JASA* 62, 626-633.
Sun, J. & Loader, C. R. (1994). Simultaneous confidence bands for linear regression and
smoothing. *Annals of Statistics* 22, 1328-1345.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit
from scipy.stats import chi2, norm

from locacal._validation import check_choice
from locacal.data.sample import SortedSample
from locacal.localfit import LocalParams, fit, kernel_weights

__all__ = [
    "CRITICAL",
    "DRAWS",
    "RANGE",
    "SupTNull",
    "check_critical",
    "linear_smoother_null",
    "local_fit_rows",
    "local_polynomial_rows",
    "scheffe_band",
    "sidak_level",
    "sup_statistic",
]

#: How the smoothers' critical value is found.
CRITICAL = ("bootstrap", "tube")
#: Bernoulli multiplier draws of ``critical="bootstrap"``.
DRAWS = 1000
#: Label draws formed at once (draws x rows cells).
_CHUNK_CELLS = 1 << 22
#: Score quantiles bounding the smoothers' simultaneous band (and the sup test).
RANGE = (0.05, 0.95)


def check_critical(critical: Any) -> str:
    """Validate ``critical`` (one of :data:`CRITICAL`)."""
    return check_choice(critical, CRITICAL, "critical")


def tube_tail(c: float | np.ndarray, kappa0: float) -> np.ndarray:
    """Sun & Loader's (1994) approximation of P(max_t |Z(t)| > c) for a one-dimensional
    standardised Gaussian process whose weight curve has length ``kappa0``:
    ``2 (1 - Phi(c)) + kappa0 / pi exp(-c^2 / 2)``, capped at 1."""
    c = np.asarray(c, dtype=np.float64)
    return np.minimum(2.0 * norm.sf(c) + kappa0 / math.pi * np.exp(-0.5 * c * c), 1.0)


@dataclass(frozen=True, eq=False)
class SupTNull:
    """The null law of the sup-t statistic of a linear smoother on its band's grid points.

    Attributes
    ----------
    inside : ndarray of bool
        Grid points within the band's range (:data:`RANGE` score quantiles).
    se : ndarray
        :math:`\\widehat{se}(t)` at the grid points inside (module docstring).
    kappa0 : float
        Length of the normalised weight curve (the tube formula's constant).
    critical : {"tube", "bootstrap"}
    maxima : ndarray or None
        The sorted multiplier draws of :math:`\\max_t |Z(t)|` (``critical="bootstrap"``).
    """

    inside: np.ndarray
    se: np.ndarray
    kappa0: float
    critical: str
    maxima: np.ndarray | None = None

    def critical_value(self, level: float) -> float:
        """:math:`c_\\alpha` with :math:`\\alpha = 1 - level`.

        Tube: the root of ``tube_tail(c) = alpha``. Bootstrap: the k-th largest draw,
        k = ceil(alpha B), so that ``pvalue(T) < alpha`` exactly when ``T > c``.
        """
        alpha = 1.0 - level
        if self.critical == "tube":
            lo = norm.isf(alpha / 2.0)  # the pointwise value: kappa0 = 0
            if self.kappa0 <= 0.0:
                return float(lo)
            hi = lo + 1.0
            while tube_tail(hi, self.kappa0) > alpha:
                hi += 1.0
            return float(brentq(lambda c: float(tube_tail(c, self.kappa0)) - alpha, lo, hi,
                                xtol=1e-14, rtol=4 * np.finfo(float).eps))
        draws = self.maxima.size
        k = max(math.ceil(alpha * draws - 1e-9), 1)
        return float(self.maxima[draws - k])

    def pvalue(self, statistic: float) -> float:
        """P(M >= statistic) under the law: the tube approximation, or the share of draws at
        or above it."""
        if self.critical == "tube":
            return float(tube_tail(statistic, self.kappa0))
        return float(np.count_nonzero(self.maxima >= statistic) / self.maxima.size)


def band_range(scores: np.ndarray, counts: np.ndarray | None = None) -> tuple[float, float]:
    """The 5 % and 95 % quantiles of the fitted scores (rows of positive weight); with
    frequency weights ``counts``, those of the expanded rows (NumPy's default linear
    interpolation between order statistics), which are not built."""
    if counts is None:
        lo, hi = np.quantile(scores, RANGE)
        return float(lo), float(hi)
    order = np.argsort(scores, kind="stable")
    ordered, cum = scores[order], np.cumsum(counts[order])
    position = (cum[-1] - 1.0) * np.asarray(RANGE)
    below = np.floor(position)
    # the expanded order statistic of (0-based) rank r is the row whose counts pass r
    at = [ordered[np.searchsorted(cum, r, side="right")] for r in (below, np.minimum(
        below + 1.0, cum[-1] - 1.0))]
    lo, hi = at[0] + (position - below) * (at[1] - at[0])
    return float(lo), float(hi)


def local_polynomial_rows(scores: np.ndarray, weights: np.ndarray | None, point: float,
                          kernel_weights: np.ndarray, degree: int) -> np.ndarray:
    """The smoother weights :math:`l_i(t)` of a local polynomial fit at ``point``.

    :math:`l(t)^\\top = e_1^\\top (X^\\top K X)^{+} X^\\top K`, ``X`` the columns
    :math:`(s_i - t)^k / k!`, k = 0..degree, ``K`` the kernel times the case weights
    (Loader 1999, section 2.3). The pseudo-inverse gives the minimum-norm fit where the
    window holds fewer distinct scores than ``degree + 1``.
    """
    k = kernel_weights if weights is None else kernel_weights * weights
    rows = np.flatnonzero(k > 0)
    out = np.zeros(scores.size)
    if rows.size == 0:
        return out
    u = scores[rows] - point
    design = np.column_stack([u ** j / math.factorial(j) for j in range(degree + 1)])
    kx = design * k[rows, None]
    gram = design.T @ kx
    out[rows] = (np.linalg.pinv(gram, hermitian=True)[0] @ kx.T)
    return out


def local_fit_rows(sample: SortedSample, params: LocalParams
                   ) -> Callable[[np.ndarray], np.ndarray]:
    """``rows(points)``: the smoother weights of locfit's local fit (the exact evaluation,
    :func:`locacal.localfit.fit`) at ``points``, over the sorted sample's rows: its
    bandwidth :math:`h(t)` and kernel, then :func:`local_polynomial_rows`."""

    def rows(points: np.ndarray) -> np.ndarray:
        bandwidth = fit(sample, points, params, outputs=("bandwidth",)).bandwidth
        out = np.empty((points.size, sample.n))
        for j, (t, h) in enumerate(zip(points, bandwidth, strict=True)):
            k = kernel_weights(np.abs(sample.scores - t), float(h), params.kernel)
            out[j] = local_polynomial_rows(sample.scores, sample.weights, float(t), k,
                                           params.degree)
        return out

    return rows


def gaussian_kernel_rows(scores: np.ndarray, weights: np.ndarray | None, bandwidth: float,
                         degree: int) -> Callable[[np.ndarray], np.ndarray]:
    """``rows(points)``: the smoother weights of Gaussian kernel regression (standard
    deviation ``bandwidth``; degree 0 Nadaraya-Watson, 1 local linear), as
    :func:`locacal.localfit._gauss.kernel_regression` fits it."""

    def rows(points: np.ndarray) -> np.ndarray:
        out = np.empty((points.size, scores.size))
        for j, t in enumerate(points):
            u = (scores - t) / bandwidth
            # scaled so that the largest weight is 1: ratios unchanged, no underflow to 0/0
            k = np.exp(-0.5 * (u * u - np.min(u * u)))
            out[j] = local_polynomial_rows(scores, weights, float(t), k, degree)
        return out

    return rows


def _studentized_se(estimate: np.ndarray, var_factor: np.ndarray) -> np.ndarray:
    """:math:`\\sqrt{\\tilde p (1 - \\tilde p) \\sum_i l_i^2}` at Agresti & Coull's
    :math:`\\tilde p = (\\hat g n_e + 2) / (n_e + 4)`, :math:`n_e = 1 / \\sum_i l_i^2`;
    broadcasts over leading axes of ``estimate``."""
    n_eff = 1.0 / var_factor
    p = np.clip(np.nan_to_num(estimate, nan=0.5), 0.0, 1.0)
    adjusted = (p * n_eff + 2.0) / (n_eff + 4.0)
    return np.sqrt(adjusted * (1.0 - adjusted) * var_factor)


def linear_smoother_null(rows: Callable[[np.ndarray], np.ndarray], scores: np.ndarray,
                         fitted: Callable[[], np.ndarray], estimate: np.ndarray,
                         grid: np.ndarray, critical: str, seed: Any) -> SupTNull:
    """The sup-t law of a linear smoother on the grid points within :data:`RANGE`.

    Parameters
    ----------
    rows : callable
        ``rows(points)`` returns the smoother weights at ``points``, shape (m, n), over the
        fitted rows.
    scores : ndarray
        The fitted scores (rows of positive weight), in the order of ``rows``' columns.
    fitted : callable
        ``fitted()`` returns the fitted map at those scores (the bootstrap's
        Bernoulli probabilities; called for ``critical="bootstrap"`` only).
    estimate : ndarray
        The estimate at ``grid`` (the variance plug-in, module docstring).
    grid : ndarray
        The curve's grid.
    critical : {"tube", "bootstrap"}
    seed : anything :func:`numpy.random.default_rng` takes (bootstrap draws).
    """
    lo, hi = band_range(scores)
    inside = (grid >= lo) & (grid <= hi)
    points = grid[inside]
    if points.size == 0:
        return SupTNull(inside, np.empty(0), 0.0, critical,
                        np.zeros(1) if critical == "bootstrap" else None)
    weights = rows(points)
    gram = weights @ weights.T
    var_factor = np.maximum(np.diag(gram), np.finfo(float).tiny)
    se = _studentized_se(estimate[inside], var_factor)
    root = np.sqrt(var_factor)
    corr = np.clip(gram / np.outer(root, root), -1.0, 1.0)
    order = np.argsort(points, kind="stable")
    kappa0 = float(np.arccos(corr[order[1:], order[:-1]]).sum())
    maxima = None
    if critical == "bootstrap":
        # seed None: 0, so that the band is a function of the data and its sup test agrees
        rng = np.random.default_rng(0 if seed is None else seed)
        maxima = _bernoulli_maxima(weights, np.clip(fitted(), 0.0, 1.0), var_factor, rng)
    return SupTNull(inside, se, kappa0, critical, maxima)


def _bernoulli_maxima(weights: np.ndarray, p: np.ndarray, var_factor: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """Sorted :math:`M^*_b = \\max_t |\\sum_i l_i(t)(D^*_i - \\hat p_i)| /
    \\widehat{se}^*(t)`, :math:`D^*_i \\sim \\mathcal B(\\hat p_i)`, b = 1..:data:`DRAWS`."""
    centre = weights @ p
    n = p.size
    chunk = max(1, _CHUNK_CELLS // max(n, 1))
    out = np.empty(DRAWS)
    for start in range(0, DRAWS, chunk):
        stop = min(start + chunk, DRAWS)
        draws = (rng.random((stop - start, n)) < p).astype(np.float64)
        smooth = draws @ weights.T
        se = _studentized_se(smooth, var_factor)
        out[start:stop] = np.max(np.abs(smooth - centre) / se, axis=1)
    return np.sort(out)


def sup_band(estimate: np.ndarray, null: SupTNull,
             level: float) -> tuple[np.ndarray, np.ndarray]:
    """``estimate -+ c se`` at the grid points inside, clipped to [0, 1]; NaN elsewhere."""
    c = null.critical_value(level)
    lower = np.full(estimate.shape, np.nan)
    upper = np.full(estimate.shape, np.nan)
    centre = estimate[null.inside]
    lower[null.inside] = np.clip(centre - c * null.se, 0.0, 1.0)
    upper[null.inside] = np.clip(centre + c * null.se, 0.0, 1.0)
    return lower, upper


def sup_statistic(estimate: np.ndarray, grid: np.ndarray, null: SupTNull) -> float:
    """:math:`T = \\max_t |\\hat g(t) - t| / \\widehat{se}(t)` over the grid points inside
    (0 when there is none)."""
    gap = np.abs(estimate[null.inside] - grid[null.inside])
    if gap.size == 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(gap > 0, gap / null.se, 0.0)
    return float(np.max(ratio))


def sidak_level(level: float, k: int) -> float:
    """Šidák's per-comparison level: :math:`(1 - \\alpha)^{1/k}` for k independent
    intervals with joint level :math:`1 - \\alpha`."""
    return float(level ** (1.0 / max(k, 1)))


def scheffe_band(eta: np.ndarray, design: np.ndarray, covariance: np.ndarray,
                 level: float) -> tuple[np.ndarray, np.ndarray]:
    """Scheffé's simultaneous band of a logistic map:
    ``expit(eta -+ sqrt(chi2_p(level)) sqrt(x' Sigma x))``, p the columns of ``design``."""
    dof = max(design.shape[1], 1)
    crit = math.sqrt(chi2.ppf(level, dof))
    se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", design, covariance, design), 0.0))
    return expit(eta - crit * se), expit(eta + crit * se)
