"""Bands of every calibrator (locacal.curves.bands): validity, statsmodels parity, coverage."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import expit, logit
from statsmodels.stats.proportion import proportion_confint

import locacal
from locacal.curves import METHODS, make_calibrator
from locacal.localfit._gauss import kernel_regression, kernel_var_factor
from locacal.simulate import logistic_dgp

ALL_METHODS = [m for m in METHODS if m != "locfit"]  # locfit backend needs R; same band


def _data(n: int, seed: int, gamma: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    frame = logistic_dgp(n, gamma=gamma, seed=seed)
    return frame["score"].to_numpy(), frame["label"].to_numpy()


@pytest.fixture(scope="module")
def fitted() -> dict:
    s, d = _data(600, seed=1, gamma=3.0)
    return {m: make_calibrator(m).fit(s, d) for m in ALL_METHODS}


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("band", ["pointwise", "bootstrap", "consistency"])
def test_bands_are_defined_ordered_and_inside_unit_interval(fitted, method, band):
    c = fitted[method].curve(band=band, n_boot=40, seed=0)
    assert not np.isnan(c.lower).any() and not np.isnan(c.upper).any()
    assert np.all(c.lower <= c.upper)
    assert np.all((c.lower >= 0) & (c.upper <= 1))
    if band == "pointwise" and method != "isotonic":  # analytic bands hold the estimate
        assert np.all(c.lower <= c.estimate) and np.all(c.estimate <= c.upper)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("band", ["pointwise", "bootstrap", "consistency"])
def test_narrower_level_gives_a_nested_band(fitted, method, band):
    model = fitted[method]
    wide = model.curve(band=band, level=0.95, n_boot=40, seed=3)
    narrow = model.curve(band=band, level=0.9, n_boot=40, seed=3)
    assert np.all(wide.lower <= narrow.lower + 1e-12)
    assert np.all(narrow.upper <= wide.upper + 1e-12)
    assert np.any(wide.upper - wide.lower > narrow.upper - narrow.lower)


@pytest.fixture(scope="module")
def fitted_inner() -> dict:
    # scores within [0.1, 0.9] (n = 300): a grid over [0, 1] has points on both sides
    s, d = _data(1000, seed=11, gamma=3.0)
    keep = (s > 0.1) & (s < 0.9)
    s, d = s[keep][:300], d[keep][:300]
    return {m: make_calibrator(m).fit(s, d) for m in ALL_METHODS}


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("band", ["pointwise", "bootstrap", "consistency"])
@pytest.mark.parametrize("level", [0.5, 0.8, 0.99])
def test_band_is_defined_exactly_inside_the_observed_score_range(fitted_inner, method, band,
                                                                 level):
    model = fitted_inner[method]
    lo, hi = model.score_range_
    grid = np.unique(np.concatenate([np.linspace(0, 1, 41), [lo, hi]]))
    c = model.curve(grid, band=band, level=level, n_boot=20, seed=1)
    inside = (grid >= lo) & (grid <= hi)
    np.testing.assert_array_equal(c.in_range, inside)
    assert inside.sum() >= 30 and (~inside).sum() >= 8
    assert np.isfinite(c.lower[inside]).all() and np.isfinite(c.upper[inside]).all()
    assert np.isnan(c.lower[~inside]).all() and np.isnan(c.upper[~inside]).all()
    assert np.all(c.lower[inside] <= c.upper[inside])
    assert np.isfinite(c.estimate).all()  # outside: the map extrapolated, documented
    np.testing.assert_array_equal(c.to_frame()["in_range"], inside)


def test_default_grid_is_all_in_range(fitted):
    assert fitted["local"].curve(band=None).in_range.all()
    # a grid covering [0, 1]: the band stops where the data stop
    shown = fitted["local"].curve(np.linspace(0, 1, 201))
    lo, hi = fitted["local"].score_range_
    np.testing.assert_array_equal(shown.in_range, (shown.grid >= lo) & (shown.grid <= hi))


def test_no_band_is_nan(fitted):
    c = fitted["local"].curve(band=None)
    assert np.isnan(c.lower).all() and np.isnan(c.upper).all()


def test_resampled_bands_are_reproducible_from_the_seed(fitted):
    a = fitted["isotonic"].curve(band="bootstrap", n_boot=30, seed=7)
    b = fitted["isotonic"].curve(seed=7, n_boot=30)  # isotonic's pointwise is the bootstrap
    np.testing.assert_array_equal(a.lower, b.lower)
    np.testing.assert_array_equal(a.upper, b.upper)


@pytest.mark.parametrize("interval,method", [("wilson", "wilson"), ("jeffreys", "jeffreys"),
                                             ("clopper-pearson", "beta"),
                                             ("normal", "normal")])
def test_binning_intervals_equal_statsmodels(interval, method):
    s, d = _data(1000, seed=2, gamma=3.0)
    c = locacal.calibration_curve(s, d, method="binning", bins=8, interval=interval,
                                  level=0.9)
    events = np.round(c.estimate * c.counts)
    lo, hi = proportion_confint(events, c.counts, alpha=0.1, method=method)
    np.testing.assert_allclose(c.lower, np.clip(lo, 0, 1), atol=1e-12)
    np.testing.assert_allclose(c.upper, np.clip(hi, 0, 1), atol=1e-12)


def test_pointwise_band_has_width_where_the_estimate_is_zero_or_one():
    s = np.linspace(0, 1, 400)
    d = (s > 0.5).astype(float)  # g is exactly 0 on the left and 1 on the right
    z2 = 1.959963984540054**2
    # the slides' local mean: Wilson at p = 0 on the 60 window rows, z^2 / (n + z^2)
    c = locacal.calibration_curve(s, d, grid=[0.1, 0.9], degree=0, kernel="rect")
    np.testing.assert_array_equal(c.estimate, [0.0, 1.0])
    assert c.upper[0] > 0.0 and c.lower[1] < 1.0
    assert c.counts[0] == 60
    assert c.upper[0] == pytest.approx(z2 / (60 + z2), rel=1e-12)
    # the default local line: the same at the effective size 1 / sum_i l_i^2, with the
    # smoother weights l_i = e_1' (X' W X)^-1 X' W of the tricube window (60 nearest rows)
    c = locacal.calibration_curve(s, d, grid=[0.1, 0.9])
    np.testing.assert_allclose(c.estimate, [0.0, 1.0], atol=1e-12)
    dx = s - 0.1
    h = np.sort(np.abs(dx))[59]
    w = np.clip(1 - np.abs(dx / h) ** 3, 0, None) ** 3
    x = np.column_stack([np.ones_like(dx), dx])
    smoother = np.linalg.solve(x.T @ (w[:, None] * x), (w[:, None] * x).T)[0]
    n_eff = 1 / np.sum(smoother**2)
    assert n_eff < 60
    assert c.upper[0] == pytest.approx(z2 / (n_eff + z2), rel=1e-9)
    assert c.lower[1] == pytest.approx(1 - z2 / (n_eff + z2), rel=1e-9)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_kernel_variance_factor_is_the_sum_of_squared_smoother_weights(reg_type):
    # g is linear in the labels: fitting unit vectors gives the smoother weights l_i(t)
    rng = np.random.default_rng(4)
    s, w = rng.uniform(size=40), rng.exponential(size=40)
    t = np.array([0.1, 0.5, 0.93])
    weights = np.array([kernel_regression(s, e, w, t, 0.08, reg_type) for e in np.eye(40)])
    np.testing.assert_allclose(kernel_var_factor(s, w, t, 0.08, reg_type),
                               (weights**2).sum(axis=0), rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bw", ["nrd0", 0.02, 0.1])
def test_kernel_variance_factor_is_the_textbook_sum_at_ordinary_bandwidths(bw, weighted):
    # The scaled kernel weights (each point's divided by its largest, on the log scale) must
    # not change sum_i l_i^2 at ordinary bandwidths. Reference in plain NumPy from the
    # unscaled Gaussian kernel: l_i = w_i K_i / sum_j w_j K_j (lc) and the first row of
    # (X' W X)^-1 X' W with X = [1, s - t], W = diag(w_i K_i) (ll, weighted least squares).
    s = logistic_dgp(1000, gamma=3.0, seed=7)["score"].to_numpy()
    w = np.random.default_rng(1).exponential(size=s.size) if weighted else None
    h = locacal.density.bw_nrd0(s, w) if bw == "nrd0" else bw
    t = np.quantile(s, np.linspace(0.01, 0.99, 15))
    dx = s[None, :] - t[:, None]
    k = (1.0 if w is None else w) * np.exp(-0.5 * (dx / h) ** 2)
    lc = k / k.sum(axis=1, keepdims=True)
    ll = np.empty_like(lc)
    for j in range(t.size):
        x = np.column_stack([np.ones(s.size), dx[j]])
        wx = k[j][:, None] * x
        ll[j] = np.linalg.solve(x.T @ wx, wx.T)[0]
    for reg_type, smoother in (("lc", lc), ("ll", ll)):
        np.testing.assert_allclose(kernel_var_factor(s, w, t, h, reg_type),
                                   (smoother**2).sum(axis=1), rtol=1e-12, atol=0)


@pytest.mark.parametrize("use_logit", [False, True])
def test_platt_band_is_the_delta_method_of_statsmodels_logit(use_logit):
    s, d = _data(800, seed=5, gamma=2.0)
    platt = locacal.PlattCalibrator(logit=use_logit).fit(s, d)
    x = logit(s) if use_logit else s
    res = sm.Logit(d, sm.add_constant(x)).fit(disp=0)
    np.testing.assert_allclose(platt.covariance_, res.cov_params(), rtol=1e-5)
    grid = np.array([0.2, 0.5, 0.8])
    xg = sm.add_constant(logit(grid) if use_logit else grid)
    eta = xg @ res.params
    se = np.sqrt(np.einsum("ij,jk,ik->i", xg, res.cov_params(), xg))
    c = platt.curve(grid, level=0.9)
    np.testing.assert_allclose(c.lower, expit(eta - 1.6448536269514722 * se), rtol=1e-5)
    np.testing.assert_allclose(c.upper, expit(eta + 1.6448536269514722 * se), rtol=1e-5)


def test_beta_covariance_is_statsmodels_logit_on_its_columns():
    s, d = _data(800, seed=6, gamma=2.0)
    beta = locacal.BetaCalibrator().fit(s, d)
    assert beta.a_ > 0 and beta.b_ > 0
    design = sm.add_constant(np.column_stack([np.log(s), -np.log1p(-s)]))
    res = sm.Logit(d, design).fit(disp=0)
    np.testing.assert_allclose(beta.covariance_, res.cov_params(), rtol=1e-5)


@pytest.mark.parametrize("kwargs,name", [({"band": "wald"}, "band"), ({"band": 1}, "band"),
                                         ({"level": 1.5}, "level"), ({"level": 0}, "level"),
                                         ({"interval": "agresti"}, "interval"),
                                         ({"n_boot": 3}, "n_boot")])
def test_bad_band_options_name_the_argument(fitted, kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        fitted["local"].curve(**kwargs)


def test_default_band_of_calibrated_scores_covers_at_the_nominal_rate():
    # Calibrated scores (g is the identity), the default curve (local linear, tricube,
    # nn = 0.15): no smoothing bias for a linear map, so the band should cover g(t) = t at
    # 95 %. Three points whose windows do not overlap make 3 * 200 nearly independent
    # trials: MC s.e. 0.009; tolerance 3 s.e. (benchmarks/coverage_bands.py measured 0.951).
    grid = np.array([0.3, 0.45, 0.6])
    hits = 0
    for r in range(200):
        s, d = _data(2000, seed=100 + r)
        c = locacal.calibration_curve(s, d, grid=grid)
        hits += np.sum((c.lower <= grid) & (grid <= c.upper))
    rate = hits / (3 * 200)
    assert abs(rate - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 600)


def test_default_band_covers_a_curved_map_at_the_edges_of_the_data():
    # Over-confident scores (gamma = 3): g(p) = expit(logit(p) / 3) is curved, most at the
    # ends. The default band must cover g at the 1 % and 99 % score quantiles too (issue 9:
    # >= 0.85 there; benchmarks/coverage_bands.py measured 0.970 and 0.943 with 400 samples).
    # 150 samples per point: MC s.e. of a 0.95 rate 0.018; each edge must exceed 0.85 and the
    # pooled rate (300 trials, s.e. 0.013) lie within 3 s.e. of 0.95.
    big = logistic_dgp(400_000, gamma=3.0, seed=2024)["score"].to_numpy()
    grid = np.quantile(big, [0.01, 0.99])
    truth = expit(logit(grid) / 3.0)
    hits = np.zeros(2)
    for r in range(150):
        s, d = _data(2000, seed=900 + r, gamma=3.0)
        c = locacal.calibration_curve(s, d, grid=grid)
        hits += (c.lower <= truth) & (truth <= c.upper)
    rates = hits / 150
    assert np.all(rates > 0.85), rates
    assert abs(rates.mean() - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300), rates


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_kernel_band_of_calibrated_scores_covers_at_the_nominal_rate(reg_type):
    # Calibrated scores (g is the identity), the kernel curve at its default bandwidth
    # (nrd0, about 0.026 here). Four mid-range points 0.1 = 4 bandwidths apart make
    # 4 * 100 nearly independent trials: MC s.e. 0.011; tolerance 3 s.e.
    # (benchmarks/coverage_bands.py --methods kernel measured 0.944-0.952 in the mid range).
    grid = np.array([0.35, 0.45, 0.55, 0.65])
    hits = 0
    for r in range(100):
        s, d = _data(1000, seed=300 + r)
        c = locacal.calibration_curve(s, d, method="kernel", reg_type=reg_type, grid=grid)
        hits += np.sum((c.lower <= grid) & (grid <= c.upper))
    rate = hits / (4 * 100)
    assert abs(rate - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 400), rate


def test_consistency_band_holds_a_calibrated_models_curve_at_the_nominal_rate():
    # Under calibration the estimate and the band are independent given the scores (the
    # band resamples labels from the scores), so the estimate falls in the 95 % band with
    # probability ~ 0.95 (a percentile band of 100 draws: 95/101 = 0.94). 3 points with
    # disjoint windows x 80 samples = 240 trials: MC s.e. 0.015; tolerance 3 s.e.
    grid = np.array([0.3, 0.45, 0.6])
    hits = 0
    for r in range(80):
        s, d = _data(1000, seed=500 + r)
        c = locacal.calibration_curve(s, d, grid=grid, band="consistency", n_boot=100,
                                      seed=r)
        hits += np.sum((c.lower <= c.estimate) & (c.estimate <= c.upper))
    rate = hits / (3 * 80)
    assert abs(rate - 0.94) < 3 * np.sqrt(0.94 * 0.06 / 240)
