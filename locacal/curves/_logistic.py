"""Unpenalised weighted logistic regression, the workhorse of Platt scaling and beta calibration.

The fit is Newton's method with a backtracking line search on the mean log-likelihood, run
until its gradient is below 1e-10 and then one step further, which lands on the maximum to
the last bits (:func:`_newton`): the method of scikit-learn's ``LogisticRegression(C=np.inf,
solver="newton-cholesky")``, whose answers stop up to 6e-9 short of the maximum at the same
tolerance (measured against its own fit at tolerance 1e-16, which ours matches to 5e-14).
Where Newton's method does not converge cleanly (separated classes, a singular Hessian), the
fit is scikit-learn's. It reaches the same maximum as R's ``glm(..., family = binomial)``
used by the 2024 study (coefficients agree to about 1e-8), and unlike plain iteratively
reweighted least squares (R's ``glm`` and statsmodels' ``GLM``) the line search cannot
diverge on features as extreme as log(eps) = -36, which scores of exactly 0 or 1 produce.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit
from scipy.special import logit as _logit
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from locacal._validation import warn

__all__ = ["EPS", "fit_logistic", "logit"]

#: Scores are clipped to [EPS, 1 - EPS] before a logarithm, as the ``betacal`` package does:
#: log(EPS) = -36.04, so a score of exactly 0 or 1 gives a finite feature.
EPS = float(np.finfo(np.float64).eps)

#: Gradient tolerance of the Newton solver, and its iteration cap.
TOL = 1e-10
MAX_ITER = 100
#: From this many rows on, Newton's method starts from the fit on a strided subsample of
#: about ``WARM_ROWS`` rows (:func:`_solve`).
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


def _mean_loss(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean negative log-likelihood, weights ``w`` summing to 1; log(1 + e^eta) written as
    max(eta, 0) + log1p(e^-|eta|) (NumPy's vectorised exp and log1p: 2.5 times
    ``logaddexp``)."""
    softplus = np.log1p(np.exp(-np.abs(eta)))
    softplus += np.maximum(eta, 0.0)
    return float(np.dot(w, softplus) - np.dot(w * y, eta))


def _newton(design: np.ndarray, y: np.ndarray, w: np.ndarray,
            start: np.ndarray | None = None) -> np.ndarray | None:
    """Maximum-likelihood coefficients by Newton's method with step halving; None when it
    does not converge (a singular Hessian, no descent, or :data:`MAX_ITER` steps).

    The same method as scikit-learn's ``newton-cholesky`` solver on the mean log-likelihood
    (weights normalised to sum to 1): Newton steps, halved until the loss does not increase
    (to rounding), until max |gradient| <= :data:`TOL`. Then one more full step is taken:
    Newton's convergence is quadratic, so it lands on the maximum to the last bits (the
    answers of scikit-learn's solver agree to about 1e-14, measured in the tests). Kept
    here because the scikit-learn estimator's fixed costs per step are several passes over
    the data; on three columns the step itself is a few (``design @ beta``, ``expit``, two
    products for the gradient and the 3 x 3 Hessian).
    """
    wn = w / w.sum()
    beta = np.zeros(design.shape[1]) if start is None else start.copy()
    eta = design @ beta
    loss = _mean_loss(eta, y, wn)
    for _ in range(MAX_ITER):
        prob = expit(eta)
        grad = design.T @ (wn * (prob - y))
        hess = design.T @ (design * (wn * prob * (1.0 - prob))[:, None])
        try:
            step = cho_solve(cho_factor(hess), grad)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        polish = float(np.max(np.abs(grad))) <= TOL
        t = 1.0
        while True:
            new_beta = beta - t * step
            new_eta = design @ new_beta
            if polish:
                return new_beta
            new_loss = _mean_loss(new_eta, y, wn)
            if new_loss <= loss + 1e-14 * abs(loss):
                break
            t *= 0.5
            if t < 1e-10:
                return None
        beta, eta, loss = new_beta, new_eta, new_loss
    return None


def _solve(x: np.ndarray, y: np.ndarray, w: np.ndarray, intercept: bool) -> np.ndarray | None:
    """:func:`_newton` on the design (intercept column first), from the fit on a strided
    subsample of about :data:`WARM_ROWS` rows when there are :data:`WARM_MIN_ROWS` or more
    (fewer steps on all rows; the same maximum)."""
    design = np.column_stack([np.ones(y.size), x]) if intercept else x
    start = None
    # products with 1 to 3 columns are memory-bound: BLAS threads gain nothing and, on a
    # busy machine, spin (measured 5x slower at n = 1e5 with 2 threads under load)
    with threadpool_limits(limits=1, user_api="blas"):
        if y.size >= WARM_MIN_ROWS:
            sub = slice(None, None, y.size // WARM_ROWS)
            if y[sub].min() != y[sub].max():  # both classes in the subsample
                start = _newton(design[sub], y[sub], w[sub])
        return _newton(design, y, w, start)


def _linear_predictor(x: np.ndarray, params: np.ndarray, intercept: bool) -> np.ndarray:
    return x @ params[int(intercept):] + (params[0] if intercept else 0.0)


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
    params, n_iter = _solve(x, y, w, intercept), 0
    if params is not None and _no_maximum(_linear_predictor(x, params, intercept), y, w):
        params = None  # it settled along a ray of separation: as before, scikit-learn's point
    if params is None:  # no clean convergence (e.g. separated classes): scikit-learn's solver
        model = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=TOL,
                                   max_iter=MAX_ITER, fit_intercept=intercept)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            model.fit(x, y, sample_weight=w)
        n_iter = model.n_iter_[0]
        coef = model.coef_[0]
        params = np.concatenate([model.intercept_, coef]) if intercept else coef.copy()
    if not np.all(np.isfinite(params)):
        raise ValueError("the logistic fit of the recalibration map failed "
                         f"(coefficients {params})")
    eta = _linear_predictor(x, params, intercept)
    if _no_maximum(eta, y, w):
        warn("the scores separate the two classes (fitted probabilities numerically 0 or 1, "
             "and the likelihood still grows along the fitted coefficients): the maximum "
             f"likelihood does not exist and the fit stopped at {np.round(params, 3).tolist()}")
    elif n_iter >= MAX_ITER:
        warn(f"the logistic fit of the recalibration map did not converge in {MAX_ITER} "
             "Newton steps")
    return params
