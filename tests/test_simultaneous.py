"""Simultaneous bands (band="simultaneous") and the sup test that is their dual.

Independent checks: the smoother weights reproduce the fitted maps; the tube critical value
agrees with R locfit's ``crit`` and the curve length with its ``kappa0``; the multiplier
critical value with a brute-force simulation of the sup of the smoother's Gaussian process;
Šidák with statsmodels' intervals at the adjusted level; Scheffé with statsmodels' Logit
covariance; small seeded coverage and size simulations (the full ones:
benchmarks/coverage_simultaneous.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit, logit
from scipy.stats import chi2
from statsmodels.stats.proportion import proportion_confint

import locacal
from locacal import CalibrationWarning, calibration_curve, calibration_test
from locacal.curves.simultaneous import (
    SupTNull,
    gaussian_kernel_rows,
    local_fit_rows,
    tube_tail,
)
from locacal.localfit import fit
from tests.rreference import r_reference

SMOOTHERS = ["local", "lowess", "kernel"]
ALL = [*SMOOTHERS, "binning", "platt", "beta"]


def _sample(n: int, seed: int, g=lambda s: s, a: float = 2.0, b: float = 3.0):
    rng = np.random.default_rng(seed)
    s = rng.beta(a, b, size=n)
    return s, (rng.uniform(size=n) < g(s)).astype(int)


def _null(kappa0: float) -> SupTNull:
    return SupTNull(np.ones(1, bool), np.ones(1), kappa0, "tube")


# -- smoother weights ------------------------------------------------------------------------


@pytest.mark.parametrize(("degree", "kernel"), [(0, "rect"), (1, "tricube"), (1, "epan"),
                                                (2, "gauss")])
def test_local_smoother_weights_reproduce_the_fit_and_its_variance_factor(degree, kernel):
    s, d = _sample(700, 1)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=s.size)
    est = locacal.LocalRegressionCalibrator(degree=degree, kernel=kernel, nn=0.3,
                                            clip=False).fit(s, d, sample_weight=w)
    points = np.linspace(0.05, 0.9, 11)
    rows = local_fit_rows(est.sample_, est.params_)(points)
    fits = fit(est.sample_, points, est.params_, outputs=("value", "var_factor"))
    # locfit's solver (a Newton step from the local mean) vs the pseudo-inverse: degree 2
    # agreed to 2.4e-9 when measured, degrees 0-1 to 2e-15
    tol = 1e-7 if degree == 2 else 1e-12
    np.testing.assert_allclose(rows @ est.sample_.labels, fits.value, atol=tol)
    np.testing.assert_allclose((rows ** 2).sum(axis=1), fits.var_factor, rtol=1e-6)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_kernel_smoother_weights_reproduce_the_fit(reg_type):
    s, d = _sample(600, 3)
    est = locacal.KernelCalibrator(reg_type=reg_type, clip=False).fit(s, d)
    points = np.linspace(0.05, 0.9, 9)
    rows = gaussian_kernel_rows(est.scores_, None, est.bandwidth_,
                                0 if reg_type == "lc" else 1)(points)
    np.testing.assert_allclose(rows @ d, est.predict(points), atol=1e-12)


# -- critical values -------------------------------------------------------------------------


def test_tube_critical_value_solves_the_tube_formula_and_is_pointwise_without_length():
    assert _null(0.0).critical_value(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    c = _null(6.0).critical_value(0.9)
    assert float(tube_tail(c, 6.0)) == pytest.approx(0.1, abs=1e-12)
    # the p-value is the same tail: p < alpha exactly when T > c
    assert _null(6.0).pvalue(c + 1e-9) < 0.1 < _null(6.0).pvalue(c - 1e-9)


KAPPA = r_reference(
    "simultaneous/locfit_kappa0",
    "library(locfit)\n"
    "k <- suppressWarnings(kappa0(y ~ lp(x, nn = 0.3, deg = 1), kern = 'tcub'))\n"
    "out <- list(kappa0 = k$const[1], kappa1 = k$const[2], crit = k$crit.val,\n"
    "            crit37 = crit(const = c(3.7, 1), d = 1, cov = 0.95)$crit.val,\n"
    "            crit37_90 = crit(const = c(3.7, 1), d = 1, cov = 0.9)$crit.val)",
    lambda: dict(zip(("x", "y"), _sorted_sample(), strict=True)))


def _sorted_sample():
    rng = np.random.default_rng(18)
    x = np.sort(rng.uniform(size=500))
    return x, (rng.uniform(size=500) < x).astype(float)


def test_tube_constant_and_critical_value_match_r_locfit():
    arrays, r = KAPPA.inputs_and_output()
    # locfit's crit solves the same equation (its constants kappa0 and kappa1 = 1, d = 1)
    assert _null(3.7).critical_value(0.95) == pytest.approx(r["crit37"][0], abs=1e-6)
    assert _null(3.7).critical_value(0.9) == pytest.approx(r["crit37_90"][0], abs=1e-6)
    assert r["kappa1"][0] == 1.0
    assert _null(r["kappa0"][0]).critical_value(0.95) == pytest.approx(r["crit"][0],
                                                                       abs=1e-6)
    # kappa0: locfit integrates |T'(t)| over the data range (its own evaluation structure,
    # "approximate for varying h"); the polygon of 400 grid points gave 11.84 vs R's 11.59
    # on a sample like this one (2 %): within 5 %
    x, y = arrays["x"], arrays["y"]
    est = locacal.LocalRegressionCalibrator(nn=0.3).fit(x, y)
    grid = np.linspace(x.min(), x.max(), 400)
    rows = local_fit_rows(est.sample_, est.params_)(grid)
    gram = rows @ rows.T
    norm = np.sqrt(np.diag(gram))
    corr = np.clip(np.diag(gram, 1) / (norm[1:] * norm[:-1]), -1, 1)
    assert np.arccos(corr).sum() == pytest.approx(r["kappa0"][0], rel=0.05)


def test_tube_critical_value_is_close_to_the_gaussian_sup_over_rows():
    """The tube formula approximates the 95 % quantile of max_t |sum_i l_i(t) xi_i| /
    ||l(t)||, xi_i i.i.d. N(0, 1): simulate it over the n rows directly."""
    s, d = _sample(400, 4)
    est = locacal.LocalRegressionCalibrator().fit(s, d)
    grid = est.curve(band=None).grid
    null = est._sup_null(grid, "tube", None)
    rows = local_fit_rows(est.sample_, est.params_)(grid[null.inside])
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    xi = np.random.default_rng(5).standard_normal((4000, s.size))
    brute = np.quantile(np.abs(xi @ unit.T).max(axis=1), 0.95)
    # the polygon's length makes the tube conservative for the grid points; measured
    # 3.0 vs 2.9 here; the quantile of 4000 draws has s.e. about 0.03
    tube = null.critical_value(0.95)
    assert brute - 0.1 < tube < brute + 0.25


def test_bernoulli_bootstrap_matches_refits_on_bernoulli_labels():
    """critical="bootstrap" draws D*_i ~ B(g_hat(s_i)) and studentizes the smoothed
    deviations; the same law by refitting the calibrator on such labels (its own fit and
    variance factor, not the band's smoother weights)."""
    s, d = _sample(500, 8)
    est = locacal.LocalRegressionCalibrator(clip=False).fit(s, d)
    grid = est.curve(band=None).grid
    null = est._sup_null(grid, "bootstrap", 0)
    points = grid[null.inside]
    p = np.clip(est.predict(s), 0, 1)
    rows = local_fit_rows(est.sample_, est.params_)(points)
    order = np.argsort(s, kind="stable")
    centre = rows @ p[order]
    rng = np.random.default_rng(9)
    maxima = []
    for _ in range(300):
        y = (rng.uniform(size=s.size) < p).astype(float)
        refit = locacal.LocalRegressionCalibrator(clip=False).fit(s, y)
        fits = fit(refit.sample_, points, refit.params_, outputs=("value", "var_factor"))
        n_eff = 1 / fits.var_factor
        q = (np.clip(fits.value, 0, 1) * n_eff + 2) / (n_eff + 4)
        maxima.append(np.max(np.abs(fits.value - centre) / np.sqrt(q * (1 - q) / n_eff)))
    # 95 % quantiles of 1000 and 300 draws: s.e. about 0.05 each
    assert null.critical_value(0.95) == pytest.approx(np.quantile(maxima, 0.95), abs=0.2)


def test_bootstrap_pvalue_and_critical_value_agree_exactly():
    maxima = np.sort(np.random.default_rng(6).uniform(1, 4, size=1000))
    null = SupTNull(np.ones(1, bool), np.ones(1), 0.0, "bootstrap", maxima)
    for level in (0.95, 0.9, 0.8):
        c = null.critical_value(level)
        alpha = round(1 - level, 10)
        for t in np.concatenate([maxima, maxima + 1e-9, maxima - 1e-9]):
            assert (null.pvalue(t) < alpha) == (t > c)


# -- the bands -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return _sample(1500, 7, g=lambda s: expit(logit(s) / 2))


@pytest.mark.parametrize("method", ALL)
def test_simultaneous_band_is_ordered_holds_the_estimate_and_contains_the_pointwise(data,
                                                                                    method):
    s, d = data
    options = {"logit": True} if method == "platt" else {}
    simul = calibration_curve(s, d, method=method, band="simultaneous", **options)
    point = calibration_curve(s, d, method=method, band="pointwise", **options)
    ok = ~np.isnan(simul.lower)
    assert ok.sum() >= 5
    assert np.all((simul.lower[ok] >= 0) & (simul.upper[ok] <= 1))
    assert np.all(simul.lower[ok] <= simul.estimate[ok] + 1e-12)
    assert np.all(simul.estimate[ok] <= simul.upper[ok] + 1e-12)
    # wider than the pointwise band (the smoothers' variance adjustment differs from
    # Wilson's, so compare widths)
    assert np.all(simul.upper[ok] - simul.lower[ok] > 0.99 * (point.upper - point.lower)[ok])
    narrow = calibration_curve(s, d, method=method, band="simultaneous", level=0.8,
                               **options)
    assert np.all(narrow.upper[ok] - narrow.lower[ok] < simul.upper[ok] - simul.lower[ok])


@pytest.mark.parametrize("method", SMOOTHERS)
def test_smoother_band_lives_on_the_5_95_score_quantiles(data, method):
    s, d = data
    curve = calibration_curve(s, d, method=method, band="simultaneous")
    lo, hi = np.quantile(s, [0.05, 0.95])
    inside = (curve.grid >= lo) & (curve.grid <= hi)
    assert np.array_equal(~np.isnan(curve.lower), inside)


def test_tube_and_bootstrap_bands_are_close(data):
    s, d = data
    tube = calibration_curve(s, d, band="simultaneous")
    boot = calibration_curve(s, d, band="simultaneous", critical="bootstrap", seed=1)
    ratio = (boot.upper - boot.lower) / (tube.upper - tube.lower)
    ok = ~np.isnan(ratio)
    # the Bernoulli draws keep the skewness the tube's Gaussian limit ignores: measured
    # 1.04-1.1 times the tube's width here
    assert np.all((ratio[ok] > 0.95) & (ratio[ok] < 1.3))
    again = calibration_curve(s, d, band="simultaneous", critical="bootstrap", seed=1)
    np.testing.assert_array_equal(boot.upper, again.upper)


def test_binning_band_is_sidak(data):
    """Šidák over Clopper-Pearson intervals, whatever the pointwise ``interval``."""
    s, d = data
    curve = calibration_curve(s, d, method="binning", band="simultaneous", interval="wilson")
    st = curve.estimator.stats_
    k = st.count.size
    lo, hi = proportion_confint(st.mean_label * st.count, st.count,
                                alpha=1 - 0.95 ** (1 / k), method="beta")
    idx = st.assign(curve.grid)
    np.testing.assert_allclose(curve.lower, np.minimum(lo, st.mean_label)[idx], atol=1e-12)
    np.testing.assert_allclose(curve.upper, np.maximum(hi, st.mean_label)[idx], atol=1e-12)


def test_platt_band_is_scheffe_with_statsmodels_covariance(data):
    s, d = data
    curve = calibration_curve(s, d, method="platt", logit=True, band="simultaneous")
    design = sm.add_constant(logit(s))
    res = sm.Logit(d, design).fit(disp=0)
    x = sm.add_constant(logit(curve.grid))
    eta = x @ res.params
    se = np.sqrt(np.einsum("ij,jk,ik->i", x, res.cov_params(), x))
    crit = math.sqrt(chi2.ppf(0.95, 2))
    np.testing.assert_allclose(curve.lower, expit(eta - crit * se), atol=1e-6)
    np.testing.assert_allclose(curve.upper, expit(eta + crit * se), atol=1e-6)


def test_weighted_isotonic_and_robust_lowess_refuse(data):
    s, d = data
    # the isotonic band (tests/test_isotonic_band.py) counts observations
    with pytest.raises(ValueError, match="no relative weights"):
        calibration_curve(s, d, method="isotonic", band="simultaneous",
                          weights=np.linspace(0.5, 2.0, s.size))
    with pytest.raises(ValueError, match="robustness iterations"):
        calibration_curve(s, d, method="lowess", it=1, band="simultaneous")
    with pytest.raises(ValueError, match="critical"):
        calibration_curve(s, d, band="simultaneous", critical="nope")


def test_from_statistics_refuses(data):
    from locacal.data.cells import ScoreStatistics

    s, d = data
    est = locacal.LocalRegressionCalibrator.from_statistics(ScoreStatistics.from_arrays(s, d))
    with pytest.raises(ValueError, match="cell statistics"):
        est.curve(band="simultaneous")


# -- the sup test ----------------------------------------------------------------------------


def _leaves(curve) -> bool:
    ok = ~np.isnan(curve.lower)
    return bool(np.any((curve.grid[ok] < curve.lower[ok]) | (curve.grid[ok] > curve.upper[ok])))


def test_sup_test_rejects_exactly_when_the_diagonal_leaves_the_band():
    """In every sample (calibrated, mildly and clearly miscalibrated; n 300-1500):
    p < alpha exactly when the diagonal leaves the default curve's 1 - alpha band."""
    rejections = 0
    for seed in range(12):
        gamma = (1.0, 1.2, 1.5)[seed % 3]
        s, d = _sample((300, 800, 1500)[seed % 3], 100 + seed,
                       g=lambda p, gamma=gamma: expit(logit(p) / gamma))
        result = calibration_test(s, d, statistic="sup")  # multiplier draws, seed 0
        assert result.method == "multiplier" and result.null.size == 1000
        tube = calibration_test(s, d, statistic="sup", method="asymptotic")
        assert tube.method == "asymptotic" and tube.null is None
        for level, alpha in ((0.95, 0.05), (0.9, 0.1)):
            curve = calibration_curve(s, d, band="simultaneous", level=level)
            assert (result.pvalue < alpha) == _leaves(curve)
            curve = calibration_curve(s, d, band="simultaneous", level=level,
                                      critical="tube")
            assert (tube.pvalue < alpha) == _leaves(curve)
        seeded = calibration_test(s, d, statistic="sup", seed=seed)
        curve = calibration_curve(s, d, band="simultaneous", seed=seed)
        assert (seeded.pvalue < 0.05) == _leaves(curve)
        rejections += result.pvalue < 0.05
    assert 0 < rejections < 12  # both outcomes were exercised


def test_sup_test_refuses_resampling():
    s, d = _sample(300, 9)
    with pytest.raises(ValueError, match="not by consistency resampling"):
        calibration_test(s, d, statistic="sup", method="resampling")


# -- small seeded coverage and size (the full study: benchmarks/coverage_simultaneous.py) ----


def test_seeded_coverage_and_size():
    """40 samples of n = 1000 on a calibrated and an over-confident map (uniform scores):
    joint coverage of the default curve's band over the 5-95 % range, and the sup test's
    rejection rate on the calibrated ones. Full study (several DGPs, n = 500-20000):
    benchmarks/coverage_simultaneous.py. With 40 samples the MC s.e. at 0.95 is 0.034, so
    a coverage of 0.85 or more and a size of at most 0.15 are asked."""
    hits = {"calibrated": 0, "over": 0}
    maps = {"calibrated": lambda p: p, "over": lambda p: expit(logit(p) / 2)}
    rejections = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for r in range(40):
            for name, g in maps.items():
                s, d = _sample(1000, 1000 + r, g=g, a=1.0, b=1.0)
                curve = calibration_curve(s, d, band="simultaneous")
                ok = ~np.isnan(curve.lower)
                truth = g(curve.grid[ok])
                hits[name] += np.all((curve.lower[ok] <= truth) & (truth <= curve.upper[ok]))
                if name == "calibrated":
                    rejections += calibration_test(s, d, statistic="sup").pvalue < 0.05
    assert hits["calibrated"] / 40 >= 0.85
    assert hits["over"] / 40 >= 0.85
    assert rejections / 40 <= 0.15
