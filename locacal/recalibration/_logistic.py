"""Unpenalised weighted logistic regression, the workhorse of Platt scaling and beta calibration.

The fit is statsmodels' GLM with the binomial family and its canonical logit link, solved by
iteratively reweighted least squares: the same algorithm, starting values and deviance-based
stopping rule as R's ``glm(..., family = binomial)`` used by the 2024 study, and no penalty (an
L2 penalty with a huge constant, as in some calibration code, is not the same estimator).
"""

from __future__ import annotations

import warnings

import numpy as np
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

from locacal._validation import warn

__all__ = ["EPS", "fit_logistic", "logit"]

#: Scores are clipped to [EPS, 1 - EPS] before a logarithm, as the ``betacal`` package does:
#: log(EPS) = -36.04, so a score of exactly 0 or 1 gives a finite feature.
EPS = float(np.finfo(np.float64).eps)


def logit(s: np.ndarray) -> np.ndarray:
    """log(s / (1 - s)) after clipping ``s`` to [EPS, 1 - EPS] (finite for s = 0 or 1)."""
    c = np.clip(s, EPS, 1.0 - EPS)
    return np.log(c) - np.log1p(-c)


def fit_logistic(
    features: np.ndarray, y: np.ndarray, w: np.ndarray, *, intercept: bool = True
) -> np.ndarray:
    """Maximum-likelihood coefficients of logit P(D = 1 | x) = c + x'beta (no penalty).

    Parameters
    ----------
    features : ndarray of shape (n, k)
        Covariates (k >= 0; with k = 0 and ``intercept=True`` the fit is the weighted mean).
    y : ndarray of shape (n,)
        0/1 labels.
    w : ndarray of shape (n,)
        Positive prior weights (R's ``glm(weights = )``; statsmodels' ``var_weights``).
    intercept : bool
        Prepend a column of ones; its coefficient comes first in the result.

    Returns
    -------
    ndarray of shape (k + intercept,)

    Notes
    -----
    When the scores separate the classes perfectly the likelihood has no maximum; as R's ``glm``
    does, the iterations stop at large coefficients. A
    :class:`~locacal._validation.CalibrationWarning` says so, and also when the iterations do
    not converge. statsmodels' own warnings are not passed on.
    """
    design = np.column_stack([np.ones(y.size), features]) if intercept else features
    model = sm.GLM(y, design, family=sm.families.Binomial(), var_weights=w)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = model.fit()
    separated = any(issubclass(c.category, PerfectSeparationWarning) for c in caught)
    params = np.asarray(result.params, dtype=np.float64)
    if not np.all(np.isfinite(params)):
        raise ValueError("the logistic fit of the recalibration map did not converge "
                         f"(coefficients {params})")
    if not result.converged:
        warn("the logistic fit of the recalibration map did not converge in "
             f"{result.fit_history['iteration']} iterations", stacklevel=4)
    elif separated:
        warn("the scores separate the two classes perfectly: the logistic fit has no maximum "
             f"and stopped at large coefficients {np.round(params, 3).tolist()}; the map is "
             "close to a step", stacklevel=4)
    return params
