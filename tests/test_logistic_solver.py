"""The logistic fit: Newton's method lands on the maximum (scikit-learn's solver at a tight
tolerance; statsmodels' GLM with an offset), from a subsample's fit as from zero, and hands
separated classes to scikit-learn or returns NaN."""

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import brentq
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from locacal._validation import CalibrationWarning
from locacal.curves import _logistic
from locacal.curves._logistic import _solve, fit_logistic


@pytest.mark.parametrize("extreme", [False, True])
def test_warm_start_gives_the_cold_start_coefficients(monkeypatch, extreme):
    rng = np.random.default_rng(7)
    n = _logistic.WARM_MIN_ROWS
    s = rng.beta(2, 3, size=n)
    y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
    if extreme:  # scores of exactly 0 and 1: features at log(eps) = -36
        s[:500], s[500:1000] = 0.0, 1.0
    c = np.clip(s, _logistic.EPS, 1 - _logistic.EPS)
    x = np.column_stack([np.log(c), -np.log1p(-c)])
    w = rng.uniform(0.5, 2.0, size=n)
    warm = fit_logistic(x, y, w)
    monkeypatch.setattr(_logistic, "WARM_MIN_ROWS", n + 1)
    cold = fit_logistic(x, y, w)
    # measured 5e-15 (smooth scores) and 9e-13 (scores at 0 and 1)
    np.testing.assert_allclose(warm, cold, rtol=0, atol=2e-12)


@pytest.mark.parametrize(("seed", "weighted", "intercept"),
                         [(1, False, True), (2, True, True), (3, True, False)])
def test_newton_lands_on_the_maximum(seed, weighted, intercept):
    rng = np.random.default_rng(seed)
    n = 3000
    s = np.clip(rng.beta(0.7, 1.5, size=n), 1e-6, 1 - 1e-6)
    y = (rng.uniform(size=n) < s**1.2).astype(np.float64)
    x = np.column_stack([np.log(s), -np.log1p(-s)])
    w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
    tight = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-16, max_iter=1000,
                               fit_intercept=intercept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it stops at rounding, short of 1e-16
        tight.fit(x, y, sample_weight=w)
    expected = np.concatenate([tight.intercept_, tight.coef_[0]]) if intercept else tight.coef_[0]
    # measured <= 5e-14 over 40 data sets (scikit-learn at tol 1e-10: up to 6e-9 away)
    np.testing.assert_allclose(fit_logistic(x, y, w, intercept=intercept), expected, rtol=0,
                               atol=1e-12)


def test_separated_classes_go_to_scikit_learn():
    s = np.linspace(0.01, 0.99, 40)
    y = (s > 0.5).astype(np.float64)
    x = np.log(s / (1 - s))[:, None]
    w = np.ones(s.size)
    assert _solve(x, y, w, True)[1] > 100  # Newton's method runs off along the ray
    with pytest.warns(CalibrationWarning, match="separate the two classes"):
        params = fit_logistic(x, y, w)
    model = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-10, max_iter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x, y, sample_weight=w)
    # scikit-learn's stopping point, as before the native solver
    np.testing.assert_array_equal(params, np.r_[model.intercept_, model.coef_[0]])


def _offset_data(seed, n):
    rng = np.random.default_rng(seed)
    s = rng.beta(1.2, 2.5, size=n)
    y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
    return np.log(s / (1 - s)), y, rng.uniform(0.2, 3.0, size=n)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_offset_fit_is_the_glm_maximum(seed):
    offset, y, w = _offset_data(seed, 2000)
    x = np.sin(3 * offset)  # a second covariate, not collinear with the offset
    params = fit_logistic(x, y, w, offset=offset, on_separation="nan")
    glm = sm.GLM(y, np.column_stack([np.ones(y.size), x]), family=sm.families.Binomial(),
                 offset=offset, freq_weights=w).fit(maxiter=100, tol=1e-14,
                                                    tol_criterion="params")
    # measured <= 5e-16 over 26 data sets (IRLS converged on the parameters to 1e-14)
    np.testing.assert_allclose(params, glm.params, rtol=0, atol=1e-12)


def test_intercept_with_offset_solves_its_score_equation():
    # no closed form: sum w (y - expit(a + offset)) = 0, solved here by bracketing
    offset, y, w = _offset_data(7, 500)
    (a,) = fit_logistic(np.empty((y.size, 0)), y, w, offset=offset, on_separation="nan")
    expected = brentq(lambda t: np.dot(w, y - expit(t + offset)), -10, 10, xtol=1e-15)
    assert a == pytest.approx(expected, abs=1e-12)
    # the closed form without offset would be the logit of the weighted event rate
    assert abs(a - np.log(np.average(y, weights=w) / (1 - np.average(y, weights=w)))) > 0.1


def test_warm_start_with_offset_gives_the_cold_start_coefficients(monkeypatch):
    offset, y, w = _offset_data(8, _logistic.WARM_MIN_ROWS)
    warm = fit_logistic(offset, y, w, offset=offset, on_separation="nan")
    monkeypatch.setattr(_logistic, "WARM_MIN_ROWS", y.size + 1)
    cold = fit_logistic(offset, y, w, offset=offset, on_separation="nan")
    np.testing.assert_allclose(warm, cold, rtol=0, atol=2e-12)  # measured 1e-16


@pytest.mark.parametrize("quasi", [False, True])
def test_separation_gives_nan_silently_when_asked(quasi):
    s = np.linspace(0.01, 0.99, 40)
    y = (s > 0.5).astype(np.float64)
    if quasi:  # a tie across the boundary: quasi-complete separation, no maximum either
        s[19] = s[20]
    x = np.log(s / (1 - s))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_logistic(x, y, np.ones(s.size), on_separation="nan")
        # the offset model of the same data has its finite maximum
        (a,) = fit_logistic(np.empty((s.size, 0)), y, np.ones(s.size), offset=x,
                            on_separation="nan")
    assert params.shape == (2,) and np.isnan(params).all()
    assert np.isfinite(a)


def test_bad_arguments():
    x, y, w = np.linspace(0, 1, 10), np.r_[np.zeros(5), np.ones(5)], np.ones(10)
    with pytest.raises(ValueError, match="on_separation"):
        fit_logistic(x, y, w, on_separation="raise")
    with pytest.raises(ValueError, match="offset needs on_separation='nan'"):
        fit_logistic(x, y, w, offset=x)
    with pytest.raises(ValueError, match="features or an intercept"):
        fit_logistic(np.empty((10, 0)), y, w, intercept=False, offset=x, on_separation="nan")
