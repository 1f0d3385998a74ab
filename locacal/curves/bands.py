"""Confidence and consistency bands of calibration curves, for every calibrator.

:meth:`BaseCalibrator.curve <locacal.curves._base.BaseCalibrator.curve>` takes
``band="pointwise" | "bootstrap" | "consistency" | "simultaneous" | None``; this module
builds the first three (``"simultaneous"``: :mod:`locacal.curves.simultaneous`).

``"pointwise"`` (analytic, per method)
    * Linear smoothers (local regression, lowess, kernel, binning): the estimate is
      :math:`\\hat g(t) = \\sum_i l_i(t) D_i` with :math:`\\sum_i l_i(t) = 1`, so
      :math:`\\operatorname{Var} \\hat g(t) \\approx g(t)\\{1 - g(t)\\} \\sum_i l_i(t)^2`
      (Loader 1999, section 2.3). The band is a binomial interval for a proportion
      :math:`\\hat g(t)` observed on the *effective size* :math:`n_e(t) = 1 / \\sum_i l_i(t)^2`
      (Kish 1965; for a bin or a rectangular window without weights, :math:`n_e` is the
      count), computed by statsmodels' ``proportion_confint``: ``interval="wilson"``
      (default), ``"jeffreys"``, ``"clopper-pearson"`` or ``"normal"`` (Wald). Wilson's
      score interval (Wilson 1927) inverts the test with the variance at the hypothesised
      p rather than at :math:`\\hat g`: it stays inside [0, 1], always contains
      :math:`\\hat g`, and keeps a positive width where :math:`\\hat g` is 0 or 1, which the
      Wald interval does not (Brown, Cai & DasGupta 2001 compare the four).
    * Logistic maps (Platt, beta): the delta method on the linear-predictor scale,
      :math:`\\hat\\eta(t) \\pm z \\sqrt{x(t)^\\top \\hat\\Sigma x(t)}` with
      :math:`\\hat\\Sigma = (X^\\top \\hat W X)^{-1}` the inverse Fisher information,
      :math:`\\hat W = \\operatorname{diag}(w_i \\hat p_i (1 - \\hat p_i))`, mapped by expit
      (Hosmer, Lemeshow & Sturdivant 2013, section 1.4).
    * Isotonic regression has no pointwise formula (its estimator converges at rate
      :math:`n^{1/3}` to Chernoff's distribution): ``"pointwise"`` is the bootstrap band
      there, and lowess with robustness iterations likewise.

``"bootstrap"``
    Resample rows (score, label, weight) with replacement ``n_boot`` times, refit a clone of
    the calibrator, and take the pointwise ``(1 - level) / 2`` and ``(1 + level) / 2``
    quantiles of the refitted maps at the grid (the percentile interval; Efron &
    Tibshirani 1993, ch. 13). For isotonic regression the bootstrap is known to be
    inconsistent (Kosorok 2008); read that band as a rough guide.

``"consistency"``
    What the curve of a *perfectly calibrated* model with these scores would show (Bröcker &
    Smith 2007, consistency resampling; Dimitriadis, Gneiting & Jordan 2021,
    ``reliabilitydiag``): resample the scores with replacement, draw labels
    :math:`D^* \\sim \\mathcal B(s^*)`, refit, and take pointwise quantiles. The band is
    centred on what the smoother makes of the diagonal (its bias included), not on the
    estimate: an estimate leaving it is evidence of miscalibration at that score.

The resampled bands are drawn by :func:`locacal.curves._base.resampled_band`, beside the
calibrators' base class. The local-regression calibrator (native, exact evaluation, a fixed
span) computes all resamples at once from multinomial counts
(:mod:`locacal.localfit._resample`); every other calibrator refits a clone per resample,
with a progress bar (``tqdm.auto``) when ``n_boot * n`` exceeds
:data:`locacal.curves._base.PROGRESS_THRESHOLD`. Refits that fail (e.g. a logistic fit on
a resample holding one class) are dropped and counted in a
:class:`~locacal.CalibrationWarning`.

References
----------
Bröcker, J. & Smith, L. A. (2007). Increasing the reliability of reliability diagrams.
*Weather and Forecasting* 22, 651-661.
Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
proportion. *Statistical Science* 16, 101-133.
Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable reliability diagrams for
probabilistic classifiers. *PNAS* 118(8), e2016191118.
Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
Kish, L. (1965). *Survey Sampling*. Wiley (effective sample size).
Kosorok, M. R. (2008). Bootstrapping the Grenander estimator. *IMS Collections* 1, 282-292.
Loader, C. (1999). *Local Regression and Likelihood*. Springer, section 2.3.
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
*JASA* 22, 209-212.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from locacal._validation import check_choice, check_resamples

__all__ = [
    "BANDS",
    "DEFAULT_N_BOOT",
    "INTERVALS",
    "delta_method_band",
    "proportion_band",
]

#: Values of ``band`` accepted by ``curve()``.
BANDS = ("pointwise", "bootstrap", "consistency", "simultaneous", None)
#: Binomial intervals of the linear smoothers' pointwise band (statsmodels' names differ
#: for Clopper-Pearson, ``"beta"``).
INTERVALS = ("wilson", "jeffreys", "clopper-pearson", "normal")
_STATSMODELS_METHOD = {"wilson": "wilson", "jeffreys": "jeffreys",
                       "clopper-pearson": "beta", "normal": "normal"}
#: Resamples of the bootstrap and consistency bands by default.
DEFAULT_N_BOOT = 200


def check_band(band: Any) -> str | None:
    """Validate ``band`` (one of :data:`BANDS`)."""
    if band is None:
        return None
    return check_choice(band, BANDS[:-1], "band")


def check_interval(interval: Any) -> str:
    """Validate ``interval`` (one of :data:`INTERVALS`)."""
    return check_choice(interval, INTERVALS, "interval")


def check_n_boot(n_boot: Any) -> int:
    """Validate the number of resamples: at least 10, so that quantiles mean something, and
    at most :data:`locacal._validation.MAX_RESAMPLES`."""
    return check_resamples(n_boot, "n_boot", minimum=10)


def proportion_band(estimate: np.ndarray, var_factor: np.ndarray, level: float,
                    interval: str = "wilson") -> tuple[np.ndarray, np.ndarray]:
    """Binomial interval for a linear smoother's estimate at its effective size.

    Parameters
    ----------
    estimate : ndarray
        The estimate (clipped to [0, 1] here).
    var_factor : ndarray
        :math:`\\sum_i l_i^2` (1 / effective size) at each point.
    level : float in (0, 1)
    interval : {"wilson", "jeffreys", "clopper-pearson", "normal"}

    Returns
    -------
    lower, upper : ndarray
        statsmodels' ``proportion_confint(p n_e, n_e, alpha=1 - level, method)`` with
        :math:`n_e = 1 / \\sum_i l_i^2`; NaN where the estimate is NaN.
    """
    from statsmodels.stats.proportion import proportion_confint

    p = np.clip(np.asarray(estimate, dtype=np.float64), 0.0, 1.0)
    n_eff = 1.0 / np.asarray(var_factor, dtype=np.float64)
    lower = np.full(p.shape, np.nan)
    upper = np.full(p.shape, np.nan)
    ok = np.isfinite(p) & np.isfinite(n_eff) & (n_eff > 0)
    if ok.any():
        lo, hi = proportion_confint(p[ok] * n_eff[ok], n_eff[ok], alpha=1.0 - level,
                                    method=_STATSMODELS_METHOD[interval])
        # the band holds the estimate (Jeffreys' tails are set to 0/1 at p = 0/1, the others
        # contain p by construction; min/max only removes rounding)
        lower[ok] = np.clip(np.minimum(lo, p[ok]), 0.0, 1.0)
        upper[ok] = np.clip(np.maximum(hi, p[ok]), 0.0, 1.0)
    return lower, upper


def delta_method_band(eta: np.ndarray, design: np.ndarray, covariance: np.ndarray,
                      level: float) -> tuple[np.ndarray, np.ndarray]:
    """``expit(eta -+ z sqrt(x' Sigma x))``: the delta-method band of a logistic map."""
    z = norm.ppf(0.5 + level / 2)
    se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", design, covariance, design), 0.0))
    return expit(eta - z * se), expit(eta + z * se)
