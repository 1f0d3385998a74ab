"""Unpenalised weighted logistic regression: Platt scaling, beta calibration and the
calibration intercept and slope (:func:`~locacal.metrics.calibration_intercept_slope`).

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
A known offset in the linear predictor (the calibration-in-the-large model) is taken by the
same solver. :func:`fisher_information` and :func:`fisher_covariance` give the Fisher
information at the fit and its inverse, for Wald intervals and delta-method bands.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit
from scipy.special import logit as _logit
from threadpoolctl import threadpool_limits

from locacal._validation import warn

__all__ = ["EPS", "fisher_covariance", "fisher_information", "fit_logistic", "logit"]

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


def _no_maximum(fitted: np.ndarray, y: np.ndarray, w: np.ndarray,
                offset: np.ndarray | None = None) -> bool:
    """Whether the fit ran off towards a likelihood without maximum (separated classes).

    ``fitted`` is the fitted part x'beta of the linear predictor eta = offset + x'beta. R's
    ``glm`` flags fitted probabilities numerically 0 or 1 (|eta| > 36). Here a fitted part
    that large is only the trigger: scores of exactly 0 or 1 reach it legitimately through
    log(eps). The test is whether doubling the fitted part still does not lower the
    likelihood, which cannot happen at a finite maximum away from zero (the log-likelihood is
    strictly concave along the ray) and is what separation does (the likelihood grows
    towards its supremum along it). The trigger is on the fitted part, not on eta: with an
    offset, a fit near zero would barely move the likelihood when doubled.
    """
    if np.max(np.abs(fitted)) < -np.log(10 * EPS):
        return False
    eta = fitted if offset is None else fitted + offset
    ll = _log_likelihood(eta, y, w)
    return _log_likelihood(eta + fitted, y, w) >= ll - 1e-9 * abs(ll)


def _mean_loss(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean negative log-likelihood, weights ``w`` summing to 1; log(1 + e^eta) written as
    max(eta, 0) + log1p(e^-|eta|) (NumPy's vectorised exp and log1p: 2.5 times
    ``logaddexp``)."""
    softplus = np.log1p(np.exp(-np.abs(eta)))
    softplus += np.maximum(eta, 0.0)
    return float(np.dot(w, softplus) - np.dot(w * y, eta))


def _newton(design: np.ndarray, y: np.ndarray, w: np.ndarray,
            start: np.ndarray | None = None,
            offset: np.ndarray | None = None) -> np.ndarray | None:
    """Maximum-likelihood coefficients by Newton's method with step halving; None when it
    does not converge (a singular Hessian, no descent, or :data:`MAX_ITER` steps). The
    linear predictor is ``offset + design @ beta``.

    The same method as scikit-learn's ``newton-cholesky`` solver on the mean log-likelihood
    (weights normalised to sum to 1): Newton steps, halved until the loss does not increase
    (to rounding), until max |gradient| <= :data:`TOL`. Then one more full step is taken:
    Newton's convergence is quadratic, so it lands on the maximum to the last bits (the
    answers of scikit-learn's solver agree to about 1e-14, measured in the tests). Kept
    here because the scikit-learn estimator's fixed costs per step are several passes over
    the data; on three columns the step itself is a few (``design @ beta``, ``expit``, two
    products for the gradient and the 3 x 3 Hessian).
    """
    def predictor(beta: np.ndarray) -> np.ndarray:
        return design @ beta if offset is None else design @ beta + offset

    wn = w / w.sum()
    beta = np.zeros(design.shape[1]) if start is None else start.copy()
    eta = predictor(beta)
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
            new_eta = predictor(new_beta)
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


def _solve(x: np.ndarray, y: np.ndarray, w: np.ndarray, intercept: bool,
           offset: np.ndarray | None = None) -> np.ndarray | None:
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
                start = _newton(design[sub], y[sub], w[sub],
                                offset=None if offset is None else offset[sub])
        return _newton(design, y, w, start, offset)


def _linear_predictor(x: np.ndarray, params: np.ndarray, intercept: bool) -> np.ndarray:
    return x @ params[int(intercept):] + (params[0] if intercept else 0.0)


def fit_logistic(
    features: np.ndarray, y: np.ndarray, w: np.ndarray, *, intercept: bool = True,
    offset: np.ndarray | None = None, on_separation: str = "warn",
) -> np.ndarray:
    """Maximum-likelihood coefficients of logit P(D = 1 | x) = o + c + x'beta (no penalty).

    Parameters
    ----------
    features : ndarray of shape (n,) or (n, k)
        Covariates (k >= 0; with k = 0, ``intercept=True`` and no offset the fit is the logit
        of the weighted event rate, in closed form).
    y : ndarray of shape (n,)
        0/1 labels, both classes present.
    w : ndarray of shape (n,)
        Positive weights (R's ``glm(weights = )``). The coefficients depend on them only
        through w / sum(w).
    intercept : bool
        Fit an intercept c; its coefficient comes first in the result.
    offset : ndarray of shape (n,), optional
        Known term o, coefficient 1 (R's ``glm(offset = )``); the intercept-only model then
        has no closed form and runs Newton's method too. Needs ``on_separation="nan"``
        (scikit-learn, the fallback of ``"warn"``, takes no offset).
    on_separation : {"warn", "nan"}
        Separated classes (:func:`_no_maximum`) or a failed Newton run (singular Hessian, no
        descent, :data:`MAX_ITER` steps; on these few columns a mark of separation too) give
        scikit-learn's stopping point with a warning (Notes), or NaN coefficients without
        one, for a caller that says why.

    Returns
    -------
    ndarray of shape (k + intercept,)

    Notes
    -----
    When the features separate the classes the likelihood has no maximum; with
    ``on_separation="warn"`` the solver stops at large coefficients and a
    :class:`~locacal._validation.CalibrationWarning` says so (see :func:`_no_maximum`), as R's
    ``glm`` warns "fitted probabilities numerically 0 or 1 occurred". It also warns when the
    solver stops before converging. scikit-learn's own warnings are not passed on.
    """
    if on_separation not in ("warn", "nan"):
        raise ValueError(f"on_separation must be 'warn' or 'nan', not {on_separation!r}")
    if offset is not None and on_separation != "nan":
        raise ValueError("a logistic fit with an offset needs on_separation='nan' "
                         "(the fallback solver takes no offset)")
    x = features.reshape(y.size, -1)
    if x.shape[1] == 0:
        if not intercept:
            raise ValueError("a logistic fit needs features or an intercept")
        if offset is None:
            return np.array([_logit(np.average(y, weights=w))])
    params, n_iter = _solve(x, y, w, intercept, offset), 0
    separated = params is None or _no_maximum(_linear_predictor(x, params, intercept), y, w,
                                              offset)
    if on_separation == "nan":
        return np.full(x.shape[1] + int(intercept), np.nan) if separated else params
    if separated:  # no clean convergence (e.g. separated classes): scikit-learn's solver
        # imported here: the clinical metrics reach this module from the LCS's cell path, and
        # the LCS and ECE load no scikit-learn (tests/test_family.py)
        from sklearn.linear_model import LogisticRegression

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


def fisher_information(design: np.ndarray, fitted: np.ndarray,
                       weights: np.ndarray | None = None) -> np.ndarray:
    r"""Fisher information :math:`X^\top W X` of a logistic fit, with
    :math:`W = \operatorname{diag}(w_i p_i (1 - p_i))`.

    ``design``: (n, k) columns of the free parameters (an offset has none); ``fitted``: the
    fitted probabilities p; ``weights``: w (ones when None; frequency weights, so that the
    inverse is the covariance of R's ``glm(weights = w)``).
    """
    w = np.ones(fitted.shape) if weights is None else weights
    return design.T @ (design * (w * fitted * (1.0 - fitted))[:, None])


def fisher_covariance(design: np.ndarray, fitted: np.ndarray,
                      weights: np.ndarray | None) -> np.ndarray:
    r"""Inverse Fisher information :math:`(X^\top W X)^{-1}` of a logistic fit
    (:func:`fisher_information`). A singular information matrix (a separated fit) gives its
    pseudo-inverse."""
    return np.linalg.pinv(fisher_information(design, fitted, weights), hermitian=True)
