"""Simultaneous bands of kernel regression, binning and beta calibration: what they cover.

Issue 18 part 1: the kernel band is centred on a bias-corrected (local quadratic) fit, the
binning band uses Clopper-Pearson per bin, and the beta band is Scheffé's over the
unconstrained fit. Small seeded coverage checks here; the full study is
``benchmarks/coverage_simultaneous.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit, logit
from scipy.stats import chi2

import locacal
from locacal import CalibrationWarning, calibration_curve
from locacal.curves.simultaneous import (
    gaussian_kernel_rows,
    linear_smoother_null,
    sup_band,
)


def _draw(n: int, seed, g, a: float = 1.0, b: float = 1.0):
    rng = np.random.default_rng(seed)
    s = rng.beta(a, b, size=n)
    return s, (rng.uniform(size=n) < g(s)).astype(int)


def _covers(curve, target) -> bool:
    ok = ~np.isnan(curve.lower)
    t = target(curve.grid[ok])
    return bool(np.all((curve.lower[ok] <= t) & (t <= curve.upper[ok])))


# -- kernel regression ------------------------------------------------------------------------


def _local_quadratic(s, d, w, point, bandwidth):
    """Weighted least squares of d on (1, s - t, (s - t)^2) with Gaussian weights: an
    independent computation of the band's centre."""
    k = np.exp(-0.5 * ((s - point) / bandwidth) ** 2) * (1.0 if w is None else w)
    x = np.column_stack([np.ones_like(s), s - point, (s - point) ** 2])
    root = np.sqrt(k)
    coef, *_ = np.linalg.lstsq(x * root[:, None], d * root, rcond=None)
    return coef[0]


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
@pytest.mark.parametrize("weighted", [False, True])
def test_kernel_band_is_centred_on_the_local_quadratic_fit(reg_type, weighted):
    s, d = _draw(800, 5, lambda s: s ** 1.5, a=0.7, b=1.5)
    w = np.random.default_rng(6).uniform(0.5, 2.0, size=s.size) if weighted else None
    curve = calibration_curve(s, d, method="kernel", weights=w, band="simultaneous",
                              reg_type=reg_type)
    h = curve.estimator.bandwidth_
    ok = ~np.isnan(curve.lower) & (curve.lower > 0) & (curve.upper < 1)  # not clipped
    assert ok.sum() >= 20
    expected = [_local_quadratic(s, d, w, t, h) for t in curve.grid[ok]]
    np.testing.assert_allclose((curve.lower + curve.upper)[ok] / 2, expected, atol=1e-10)
    # the curve's estimate and its pointwise band are the kernel fit's, unchanged
    plain = calibration_curve(s, d, method="kernel", weights=w, reg_type=reg_type)
    np.testing.assert_array_equal(curve.estimate, plain.estimate)


@pytest.mark.parametrize("weighted", [False, True])
def test_kernel_band_with_frequency_weights_is_the_expanded_call(weighted):
    rng = np.random.default_rng(2)
    s = np.round(rng.uniform(size=300), 2)
    d = (rng.uniform(size=300) < s).astype(int)
    counts = rng.integers(1, 4, size=300)
    w = rng.uniform(0.5, 2.0, size=300) if weighted else None
    grouped = calibration_curve(s, d, method="kernel", band="simultaneous", weights=w,
                                frequency_weights=counts, seed=3)
    expanded = calibration_curve(np.repeat(s, counts), np.repeat(d, counts), method="kernel",
                                 band="simultaneous", seed=3,
                                 weights=None if w is None else np.repeat(w, counts))
    np.testing.assert_allclose(grouped.lower, expanded.lower, atol=1e-12)
    np.testing.assert_allclose(grouped.upper, expanded.upper, atol=1e-12)


def test_kernel_band_covers_where_the_nadaraya_watson_centred_band_misses():
    """20 samples of n = 2000, uniform scores, g(s) = expit(20 (s - 1/2)): the
    Nadaraya-Watson fit's bias h^2 g''/2 at the bends is of the order of the band's half
    width. The band centred on the kernel estimate (the construction before issue 18)
    covered 0.15 of 20 samples at n = 3000 when measured, the bias-corrected band 0.90;
    asked here: at least 0.8 against at most 0.5."""
    g = lambda s: expit(20.0 * (s - 0.5))  # noqa: E731
    corrected = centred = 0
    for r in range(20):
        s, d = _draw(2000, [18, r], g)
        curve = calibration_curve(s, d, method="kernel", band="simultaneous", seed=r)
        corrected += _covers(curve, g)
        est = curve.estimator
        lo, hi = np.quantile(s, [0.05, 0.95])
        inside = (curve.grid >= lo) & (curve.grid <= hi)
        rows = gaussian_kernel_rows(s, None, est.bandwidth_, 0)(curve.grid[inside])
        null = linear_smoother_null(lambda points, rows=rows: rows, s,
                                    lambda est=est, s=s: est.predict(s), curve.estimate,
                                    curve.grid, "bootstrap", r)
        lower, upper = sup_band(curve.estimate, null, 0.95)
        ok = ~np.isnan(lower)
        t = g(curve.grid[ok])
        centred += bool(np.all((lower[ok] <= t) & (t <= upper[ok])))
    assert corrected / 20 >= 0.8
    assert centred / 20 <= 0.5


# -- binning ----------------------------------------------------------------------------------


def test_binning_band_covers_the_bin_averages_on_skewed_scores():
    """100 samples of n = 2000, scores Beta(0.7, 1.5), g(s) = s^1.5 (the study's convex*):
    the low bins hold a handful of events, where Wilson's interval at Šidák's per-bin level
    0.995 undercovers (the Wilson band covered 0.905 of 200 samples, s.e. 0.015;
    Clopper-Pearson 0.955). Asked: at least 0.9 (MC s.e. 0.022 at 0.95)."""
    g = lambda s: s ** 1.5  # noqa: E731
    hits = 0
    for r in range(100):
        s, d = _draw(2000, [19, r], g, a=0.7, b=1.5)
        curve = calibration_curve(s, d, method="binning", band="simultaneous")
        st = curve.estimator.stats_
        rows = st.assign(s)
        average = np.bincount(rows, weights=g(s), minlength=st.count.size) / np.bincount(
            rows, minlength=st.count.size)
        target = average[st.assign(curve.grid)]
        hits += bool(np.all((curve.lower <= target) & (target <= curve.upper)))
    assert hits / 100 >= 0.9


# -- beta calibration -------------------------------------------------------------------------


def _under_confident(n: int, seed):
    """Scores near 1/2 with g(p) = expit(3 logit p): log s and -log(1 - s) nearly
    collinear, so the unconstrained a or b is often negative."""
    rng = np.random.default_rng(seed)
    s = expit(rng.normal(0.0, 0.35, size=n))
    return s, (rng.uniform(size=n) < expit(3.0 * logit(s))).astype(int)


def test_beta_band_is_scheffe_over_the_unconstrained_fit():
    for seed in range(40):  # find a sample where the monotonicity rule sets a or b to 0
        s, d = _under_confident(1000, seed)
        est = locacal.BetaCalibrator().fit(s, d)
        if est.a_ == 0.0 or est.b_ == 0.0:
            break
    else:
        pytest.fail("no sample with a coefficient set to 0")
    x = sm.add_constant(np.column_stack([np.log(s), -np.log1p(-s)]))
    glm = sm.GLM(d, x, family=sm.families.Binomial()).fit(tol=1e-12)
    assert min(glm.params[1:]) < 0  # the unconstrained fit leaves the family's boundary
    np.testing.assert_allclose(est.unconstrained_coef_, glm.params, rtol=1e-6, atol=1e-8)
    curve = calibration_curve(s, d, method="beta", band="simultaneous", level=0.9)
    grid = curve.grid
    xg = sm.add_constant(np.column_stack([np.log(grid), -np.log1p(-grid)]), has_constant="add")
    eta = xg @ glm.params
    se = np.sqrt(np.einsum("ij,jk,ik->i", xg, glm.cov_params(), xg))
    crit = np.sqrt(chi2.ppf(0.9, 3))
    ok = ~np.isnan(curve.lower)
    np.testing.assert_allclose(curve.lower[ok], expit(eta - crit * se)[ok], rtol=1e-5)
    np.testing.assert_allclose(curve.upper[ok], expit(eta + crit * se)[ok], rtol=1e-5)
    # the pointwise band and the estimate stay the monotone fit's
    point = calibration_curve(s, d, method="beta")
    np.testing.assert_array_equal(curve.estimate, point.estimate)


def test_beta_band_covers_under_confident_scores():
    """40 samples of n = 2000 of under-confident scores (g in the beta family, a = b = 3):
    the band of the monotone fit's own coefficients covered 0.75 on the study's under*;
    asked here: at least 0.85 (MC s.e. 0.034 at 0.95)."""
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for r in range(40):
            s, d = _under_confident(2000, [20, r])
            curve = calibration_curve(s, d, method="beta", band="simultaneous")
            hits += _covers(curve, lambda p: expit(3.0 * logit(p)))
    assert hits / 40 >= 0.85
