"""The local logistic likelihood (``family="binomial"``): invariants, band, its seeded
coverage at 2 % prevalence, span selection, the logit-scale plots and clear errors.

R parity is in tests/test_local_binomial_parity_r.py; the full coverage study in
benchmarks/coverage_binomial.py.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from scipy.special import expit, logit
from scipy.stats import norm

from locacal import LocalRegressionCalibrator, ReliabilityDisplay, calibration_curve
from locacal.curves import smoothing_table
from locacal.data.cells import ScoreStatistics
from locacal.data.sample import sort_sample
from locacal.localfit import fit, local_params
from locacal.localfit._likelihood import fit_binomial

matplotlib.use("Agg")


def _rare(n: int, seed: int):
    """2 % prevalence: s = expit(mu + z), g(p) = expit(-0.3 + 0.9 logit(p))."""
    rng = np.random.default_rng(seed)
    s = expit(-4.41 + rng.standard_normal(n))
    d = rng.uniform(size=n) < expit(-0.3 + 0.9 * logit(s))
    return s, d


def test_default_family_is_least_squares_unchanged():
    s, d = _rare(3000, 1)
    grid = np.linspace(0.01, 0.2, 7)
    a = LocalRegressionCalibrator().fit(s, d).curve(grid)
    b = LocalRegressionCalibrator(family="gaussian").fit(s, d).curve(grid)
    np.testing.assert_array_equal(a.estimate, b.estimate)
    np.testing.assert_array_equal(a.lower, b.lower)
    assert "family" not in a.params


def test_stays_in_unit_interval_where_least_squares_leaves_it():
    s, d = _rare(3000, 2)
    grid = np.quantile(s, np.linspace(0.001, 0.999, 60))
    raw = LocalRegressionCalibrator(degree=2, clip=False).fit(s, d).predict(grid)
    assert raw.min() < 0  # local least squares leaves [0, 1] in the tail
    cal = LocalRegressionCalibrator(degree=2, family="binomial").fit(s, d)
    g = cal.predict(grid)
    assert np.all((g >= 0) & (g <= 1))
    curve = cal.curve(grid)
    assert np.all(curve.lower <= curve.estimate + 1e-15)
    assert np.all(curve.estimate <= curve.upper + 1e-15)
    assert np.all((curve.lower >= 0) & (curve.upper <= 1))
    assert curve.params["family"] == "binomial"


def _line_effective_size(s: np.ndarray, t: float, nn: float) -> float:
    """1 / sum_i l_i(t)^2 of the local line (tricube, span nn), its weights written out."""
    h = np.sort(np.abs(s - t))[int(np.floor(nn * s.size)) - 1]
    k = (1 - np.minimum(np.abs(s - t) / h, 1.0) ** 3) ** 3
    x = np.column_stack([np.ones_like(s), s - t])
    rows = np.linalg.solve(x.T @ (k[:, None] * x), (k[:, None] * x).T)[0]
    return 1.0 / np.sum(rows ** 2)


def test_band_is_wilson_at_the_least_squares_effective_size():
    s, d = _rare(4000, 3)
    grid = np.quantile(s, [0.3, 0.6, 0.9])
    curve = calibration_curve(s, d, grid=grid, family="binomial", level=0.9)
    value = fit(sort_sample(s, d, None), grid, local_params(1, 0.15, None, "tricube",
                                                            "binomial")).value
    z = norm.ppf(0.95)
    for j, t in enumerate(grid):
        n_e, p = _line_effective_size(s, t, 0.15), value[j]  # Wilson's interval, written out
        centre = (p + z * z / (2 * n_e)) / (1 + z * z / n_e)
        half = z * np.sqrt(p * (1 - p) / n_e + z * z / (4 * n_e * n_e)) / (1 + z * z / n_e)
        np.testing.assert_allclose([curve.lower[j], curve.upper[j]],
                                   [centre - half, centre + half], rtol=1e-9)


def test_window_without_events_gets_wilsons_upper_limit():
    s = np.linspace(0.0, 1.0, 400)
    d = s > 0.9  # no event in the low windows
    curve = calibration_curve(s, d, grid=[0.1], family="binomial", kernel="rect", degree=0,
                              nn=0.2)
    m = 80.0  # rectangular window of floor(400 * 0.2) rows
    z2 = norm.ppf(0.975) ** 2
    assert curve.estimate[0] == 0.0 and curve.lower[0] == 0.0
    np.testing.assert_allclose(curve.upper[0], z2 / (m + z2), rtol=1e-9)


def test_interval_chooses_the_binomial_interval():
    from scipy.stats import beta

    s, d = _rare(3000, 8)
    grid = np.quantile(s, [0.2, 0.5, 0.9])
    curve = calibration_curve(s, d, grid=grid, family="binomial", interval="clopper-pearson")
    for j, t in enumerate(grid):
        n_e = _line_effective_size(s, t, 0.15)
        x = curve.estimate[j] * n_e  # Clopper-Pearson at n_e (fractional counts allowed)
        np.testing.assert_allclose(
            [curve.lower[j], curve.upper[j]],
            [beta.ppf(0.025, x, n_e - x + 1), beta.ppf(0.975, x + 1, n_e - x)], rtol=1e-9)


def test_weights_times_a_constant_change_nothing():
    s, d = _rare(2000, 4)
    w = np.random.default_rng(5).uniform(0.5, 2.0, s.size)
    grid = np.quantile(s, [0.2, 0.5, 0.8, 0.95])
    a = calibration_curve(s, d, grid=grid, weights=w, family="binomial")
    b = calibration_curve(s, d, grid=grid, weights=7.5 * w, family="binomial")
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=1e-9)
    np.testing.assert_allclose(a.upper, b.upper, rtol=1e-9)


def test_converged_fit_solves_the_score_equations():
    s, d = _rare(3000, 6)
    sample = sort_sample(s, d, None)
    t = np.quantile(s, [0.25, 0.75])
    full = fit_binomial(sample, t, 1, 0.3, None, "tricube", converge=True)
    locfit_like = fit_binomial(sample, t, 1, 0.3, None, "tricube")
    for j in range(2):  # gradient of the local log-likelihood at the converged fit ~ 0
        dx = s - t[j]
        h = full.bandwidth[j]
        k = np.where(np.abs(dx) <= h, (1 - np.minimum(np.abs(dx) / h, 1) ** 3) ** 3, 0.0)
        p = expit(full.logit[j] + full.slope[j] * dx)
        grad = np.array([np.sum(k * (d - p)), np.sum(k * (d - p) * dx)])
        assert np.abs(grad).max() < 1e-8 * k.sum()
    assert np.abs(full.value - locfit_like.value).max() < 1e-3


def test_seeded_coverage_at_two_percent_prevalence():
    # small version of benchmarks/coverage_binomial.py (linear map, n = 2000): 60 samples,
    # MC s.e. of a pointwise coverage near 0.95 is 0.028; the full study: see
    # LocalRegressionCalibrator's notes (score band; the Wald band it replaced covered 0.974)
    mu, reps = -4.41, 60
    quantiles = np.concatenate([np.linspace(0.05, 0.95, 19), [0.01, 0.99]])
    grid = expit(mu + norm.ppf(quantiles))
    g = expit(-0.3 + 0.9 * logit(grid))
    hits = np.zeros(grid.size)
    for rep in range(reps):
        s, d = _rare(2000, 1000 + rep)
        curve = calibration_curve(s, d, grid=grid, family="binomial")
        hits += (curve.lower <= g) & (g <= curve.upper)
    cover = hits / reps
    assert 0.90 <= cover[:19].mean() <= 0.985
    assert cover[19] >= 0.8 and cover[20] >= 0.8


def test_span_selection_by_likelihood_gcv():
    s, d = _rare(800, 7)
    cal = LocalRegressionCalibrator(nn="gcv", family="binomial").fit(s, d)
    table = cal.smoothing_table_
    assert table.family == "binomial"
    assert list(table.table.columns) == ["nn", "df", "deviance", "gcv", "aic"]
    assert cal.nn_ == table.best("gcv")
    dev = table.table["deviance"].to_numpy()
    assert np.all(np.isfinite(dev)) and np.all(dev > 0)
    with pytest.raises(ValueError, match="criterion"):
        table.best("lcv")
    with pytest.raises(ValueError, match="nn"):
        LocalRegressionCalibrator(nn="lcv", family="binomial").fit(s, d)


def test_smoothing_table_binomial_aic_is_deviance_plus_twice_df():
    s, d = _rare(800, 8)
    tab = smoothing_table(s, d, nn=[0.3, 0.8], family="binomial").table
    np.testing.assert_allclose(tab["aic"], tab["deviance"] + 2 * tab["df"])
    n = s.size
    np.testing.assert_allclose(tab["gcv"], n * tab["deviance"] / (n - tab["df"]) ** 2)


def test_logit_scale_plots():
    s, d = _rare(2000, 9)
    curve = calibration_curve(s, d, family="binomial")
    ax = curve.plot(scale="logit")
    assert ax.get_xscale() == "logit" and ax.get_yscale() == "logit"
    lo, hi = ax.get_xlim()
    assert 0 < lo < curve.grid.min() and curve.grid.max() < hi < 1
    disp = ReliabilityDisplay.from_predictions(s, d, family="binomial", scale="logit")
    assert disp.ax_.get_yscale() == "logit"
    with pytest.raises(ValueError, match="scale"):
        curve.plot(scale="log")
    with pytest.raises(ValueError, match="scale"):
        ReliabilityDisplay.from_predictions(s, d, scale="probit", plot=False)
    matplotlib.pyplot.close("all")


def test_clear_errors():
    s, d = _rare(500, 10)
    with pytest.raises(ValueError, match="family"):
        LocalRegressionCalibrator(family="poisson").fit(s, d)
    with pytest.raises(ValueError, match="evaluation"):
        LocalRegressionCalibrator(family="binomial", evaluation="locfit").fit(s, d)
    with pytest.raises(ValueError, match="family"):
        smoothing_table(s, d, family="logistic")
    sample = sort_sample(s, d, None)
    with pytest.raises(ValueError, match="se"):
        fit(sample, np.array([0.1]), local_params(1, 0.3, None, "tricube"), outputs=("se",))
    with pytest.raises(ValueError, match="copies"):
        fit(sample, np.array([0.1]), local_params(1, 0.3, None, "tricube", "binomial"),
            copies=np.ones((2, sample.n)), events=np.ones((2, sample.n)))


def test_cells_refuse_binomial_with_the_reason():
    s, d = _rare(2000, 11)
    stats = ScoreStatistics.from_arrays(s, d)
    with pytest.raises(ValueError, match="cell statistics"):
        LocalRegressionCalibrator.from_statistics(stats, family="binomial")
    with pytest.raises(ValueError, match="p\\(1 - p\\)"):
        fit(stats, np.array([0.1]), local_params(1, 0.15, None, "tricube", "binomial"))
