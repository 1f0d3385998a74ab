"""Unpenalised weighted logistic regression, the workhorse of Platt scaling and beta calibration.

The fit is scikit-learn's ``LogisticRegression`` with ``C=np.inf`` (scikit-learn's spelling of
"no penalty": the penalty term is exactly zero, not small) and its ``newton-cholesky`` solver:
Newton's method with a backtracking line search, run until the gradient of the mean
log-likelihood is below 1e-10. It reaches the same maximum as R's
``glm(..., family = binomial)`` used by the 2024 study (coefficients agree to about 1e-8), and
unlike plain iteratively reweighted least squares (R's ``glm`` and statsmodels' ``GLM``) the
line search cannot diverge on features as extreme as log(eps) = -36, which scores of exactly 0
or 1 produce.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import logit as _logit
from sklearn.linear_model import LogisticRegression

from locacal._validation import warn

__all__ = ["EPS", "fit_logistic", "logit"]

#: Scores are clipped to [EPS, 1 - EPS] before a logarithm, as the ``betacal`` package does:
#: log(EPS) = -36.04, so a score of exactly 0 or 1 gives a finite feature.
EPS = float(np.finfo(np.float64).eps)

#: Gradient tolerance of the Newton solver, and its iteration cap.
TOL = 1e-10
MAX_ITER = 100
#: From this many rows on, Newton's method starts from the fit on a strided subsample of
#: about ``WARM_ROWS`` rows (:func:`_start_on_subsample`).
WARM_MIN_ROWS = 200_000
WARM_ROWS = 20_000


def logit(s: np.ndarray) -> np.ndarray:
    """log(s / (1 - s)) after clipping ``s`` to [EPS, 1 - EPS] (finite for s = 0 or 1)."""
    c = np.clip(s, EPS, 1.0 - EPS)
    return np.log(c) - np.log1p(-c)


def _log_likelihood(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    return float(np.sum(w * (y * eta - np.logaddexp(0.0, eta))))


def _no_maximum(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> bool:
    """Whether the fit ran off towards a likelihood without maximum (separated classes).

    R's ``glm`` flags fitted probabilities numerically 0 or 1 (|eta| > 36). Here that is only
    the trigger: scores of exactly 0 or 1 reach such eta legitimately through log(eps). The
    test is whether doubling the linear predictor still does not lower the likelihood, which
    cannot happen at a finite maximum away from zero (the log-likelihood is strictly concave
    along the ray) and is what separation does (the likelihood grows towards 0 along it).
    """
    if np.max(np.abs(eta)) < -np.log(10 * EPS):
        return False
    ll = _log_likelihood(eta, y, w)
    return _log_likelihood(2.0 * eta, y, w) >= ll - 1e-9 * abs(ll)


def _start_on_subsample(model: LogisticRegression, x: np.ndarray, y: np.ndarray,
                        w: np.ndarray) -> bool:
    """Fit ``model`` (``warm_start=True``) on every k-th row, about :data:`WARM_ROWS` of them,
    when there are at least :data:`WARM_MIN_ROWS`; True when that fit converged and the fit
    on all rows starts from it.

    Newton's method then needs about 3 steps on all rows instead of 6. It stops once the
    gradient is below :data:`TOL`, which from this start can leave the coefficients 1e-11
    from the maximum (measured at n = 1e6) where the cold start's last, quadratically
    convergent step lands on it to the last bits; so the caller takes one more step, after
    which the two agree to about 1e-15.
    """
    n = y.size
    if n < WARM_MIN_ROWS:
        return False
    sub = slice(None, None, n // WARM_ROWS)
    if y[sub].min() == y[sub].max():  # one class in the subsample: no start from it
        return False
    model.fit(x[sub], y[sub], sample_weight=w[sub])
    coef = np.concatenate([model.coef_[0], np.atleast_1d(model.intercept_)])
    if model.n_iter_[0] < MAX_ITER and np.all(np.isfinite(coef)):
        return True
    model.set_params(warm_start=False)  # a separated subsample: start afresh
    return False


def fit_logistic(
    features: np.ndarray, y: np.ndarray, w: np.ndarray, *, intercept: bool = True
) -> np.ndarray:
    """Maximum-likelihood coefficients of logit P(D = 1 | x) = c + x'beta (no penalty).

    Parameters
    ----------
    features : ndarray of shape (n,) or (n, k)
        Covariates (k >= 0; with k = 0 and ``intercept=True`` the fit is the logit of the
        weighted event rate, in closed form).
    y : ndarray of shape (n,)
        0/1 labels, both classes present.
    w : ndarray of shape (n,)
        Positive weights (R's ``glm(weights = )``).
    intercept : bool
        Fit an intercept; its coefficient comes first in the result.

    Returns
    -------
    ndarray of shape (k + intercept,)

    Notes
    -----
    When the features separate the classes the likelihood has no maximum; the solver stops
    at large coefficients and a :class:`~locacal._validation.CalibrationWarning` says so
    (see :func:`_no_maximum`), as R's ``glm`` warns "fitted probabilities numerically 0 or 1
    occurred". It also warns when the solver stops before converging. scikit-learn's own
    warnings are not passed on.
    """
    x = features.reshape(y.size, -1)
    if x.shape[1] == 0:
        if not intercept:
            raise ValueError("a logistic fit needs features or an intercept")
        return np.array([_logit(np.average(y, weights=w))])
    model = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=TOL, max_iter=MAX_ITER,
                               fit_intercept=intercept, warm_start=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        started = _start_on_subsample(model, x, y, w)
        model.fit(x, y, sample_weight=w)
        n_iter = model.n_iter_[0]
        if started and n_iter < MAX_ITER:
            model.fit(x, y, sample_weight=w)  # one more Newton step (see _start_on_subsample)
    coef = model.coef_[0]
    params = np.concatenate([model.intercept_, coef]) if intercept else coef.copy()
    if not np.all(np.isfinite(params)):
        raise ValueError("the logistic fit of the recalibration map failed "
                         f"(coefficients {params})")
    eta = x @ coef + (model.intercept_[0] if intercept else 0.0)
    if _no_maximum(eta, y, w):
        warn("the scores separate the two classes (fitted probabilities numerically 0 or 1, "
             "and the likelihood still grows along the fitted coefficients): the maximum "
             f"likelihood does not exist and the fit stopped at {np.round(params, 3).tolist()}")
    elif n_iter >= MAX_ITER:
        warn(f"the logistic fit of the recalibration map did not converge in {MAX_ITER} "
             "Newton steps")
    return params
