"""Issue 16, section 4 (part A): no silent wrong answer on numeric edge inputs.

Each test names the item of the issue it covers:

* ``bins``: a number of bins (or groups) far beyond the sample gave a MemoryError;
* ``zero weights``: rows of weight zero were resampled (report bootstrap) and cross-validated
  (``compare_curves``), and counted in adaptive bins and R's lowess window;
* ``locfit nn``: the R backend passed R's "vector size cannot be NA" on for ``n * nn < 1``;
* ``kernel band``: a tiny bandwidth gave a NaN band (and the kde KL divergence NaN);
* ``lowess delta``: ``delta > 0`` fitted, then failed at every prediction;
* ``isotonic seed``: ``compare_curves(seed=0)`` gave different isotonic bands per call;
* ``sweep``: the same causes elsewhere (resample counts, grid sizes, iterations, maxk, folds).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.proportion import proportion_confint

import locacal
from locacal import metrics
from locacal.localfit._gauss import kernel_regression, kernel_var_factor
from locacal.metrics.registry import METRICS, evaluate

HUGE = 10**9


def _data(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.01, 0.99, n)
    return s, (rng.uniform(size=n) < s).astype(float)


def _zero_weights(n: int, positive: int, seed: int = 1):
    """Weights with ``positive`` rows of positive weight spread over the sample."""
    rng = np.random.default_rng(seed)
    w = np.zeros(n)
    w[rng.choice(n, positive, replace=False)] = rng.uniform(0.5, 2.0, positive)
    return w


# --------------------------------------------------------------------------- bins


BINNED = {
    "ece": lambda s, y, b: locacal.ece(s, y, bins=b),
    "qmse": lambda s, y, b: locacal.qmse(s, y, bins=b),
    "ece_thresholded": lambda s, y, b: locacal.ece_thresholded(s, y, bins=b),
    "ece_uniform": lambda s, y, b: locacal.ece(s, y, bins=b, strategy="uniform"),
    "binning_curve": lambda s, y, b: locacal.calibration_curve(s, y, method="binning",
                                                               bins=b),
    "binning_calibrator": lambda s, y, b: locacal.BinningCalibrator(bins=b).fit(s, y),
    "hosmer_lemeshow": lambda s, y, b: locacal.hosmer_lemeshow(s, y, groups=b),
}


@pytest.mark.parametrize("name", list(BINNED))
def test_issue16_bins_beyond_the_sample_raise_a_valueerror_naming_bins(name):
    s, y = _data(50)
    word = "groups" if name == "hosmer_lemeshow" else "bins"
    with pytest.raises(ValueError, match=rf"{word} must be at most 50 .*got 1000000000"):
        BINNED[name](s, y, HUGE)
    with pytest.raises(ValueError, match=rf"{word} must be at most 50 .*got 51"):
        BINNED[name](s, y, 51)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        BINNED[name](s, y, 50)  # one bin per observation is allowed


def test_issue16_bins_bound_counts_the_rows_of_positive_weight():
    s, y = _data(40)
    w = _zero_weights(40, 12)
    with pytest.raises(ValueError, match="bins must be at most 12"):
        locacal.ece(s, y, weights=w, bins=13)
    with pytest.raises(ValueError, match="bins must be at most 12"):
        locacal.calibration_curve(s, y, weights=w, method="binning", bins=13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        assert locacal.ece(s, y, bins=13) >= 0.0  # the same bins without weights


def test_issue16_bins_default_stays_allowed_on_tiny_samples():
    s, y = np.array([0.1, 0.4, 0.6, 0.9]), np.array([0.0, 1.0, 0.0, 1.0])
    with pytest.warns(locacal.CalibrationWarning, match="fewer than 10 observations"):
        # 10 bins, 4 of them filled: mean |y - s| = (0.1 + 0.6 + 0.6 + 0.1) / 4
        assert locacal.ece(s, y) == pytest.approx(0.35)
    with pytest.raises(ValueError, match=r"bins must be at most 10 \(its default, as there are "
                                         r"only 4 observations\), got 11"):
        locacal.ece(s, y, bins=11)


def test_issue16_bins_of_the_kl_divergence_and_the_histograms_are_bounded():
    s, y = _data(30)
    with pytest.raises(ValueError, match="bins must be at most 65536"):
        locacal.kl_divergence(s, s, bins=HUGE)
    with pytest.raises(ValueError, match="bins must be at most 65536"):
        locacal.kl_divergence(s, s, method="kde", bins=HUGE)
    assert locacal.kl_divergence(s, s, bins=1000) == 0.0  # finer cells than values: fine
    with pytest.raises(ValueError, match="bins must be at most 50"):
        locacal.plotting.plot_score_histogram(s, y, bins=HUGE)
    comparison = locacal.compare_curves(s, y, {"platt": "platt"})
    with pytest.raises(ValueError, match="bins must be at most 50"):
        comparison.plot(bins=HUGE)
    display = locacal.ReliabilityDisplay.from_predictions(s, y, method="platt", plot=False)
    with pytest.raises(ValueError, match="bins must be at most 30"):
        display.plot(bins=HUGE)


def test_issue16_bins_bound_for_dask_input():
    da = pytest.importorskip("dask.array")
    s, y = _data(300)
    with pytest.raises(ValueError, match="bins must be at most 300"):
        locacal.ece(da.from_array(s, chunks=100), da.from_array(y, chunks=100), bins=HUGE)


# --------------------------------------------------------------------------- zero weights


def test_issue16_zero_weights_report_ci_with_one_positive_weight():
    s, y = _data(200)
    w = _zero_weights(200, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        table = locacal.calibration_report(s, y, weights=w, ci=True, n_boot=20, seed=3)
    assert table.loc["n", "value"] == table.loc["n", "lower"] == 200
    # every resample is the one row: a bootstrap interval of a metric defined on it is the
    # value; the calibration errors' intervals come from the one row's label noise instead
    # (test inversion, locacal.report.intervals.NORM_METRICS) and hold the value
    from locacal.report.intervals import NORM_METRICS

    row = table.drop(index="n").dropna(subset=["value"])
    norm = row.index.isin(list(NORM_METRICS))
    assert norm.any() and (~norm).any()
    np.testing.assert_array_equal(row.loc[~norm, "lower"], row.loc[~norm, "value"])
    np.testing.assert_array_equal(row.loc[~norm, "upper"], row.loc[~norm, "value"])
    assert (row.loc[norm, "lower"] <= row.loc[norm, "value"]).all()
    assert (row.loc[norm, "value"] <= row.loc[norm, "upper"]).all()


def test_issue16_zero_weights_are_never_resampled_by_the_report():
    s, y = _data(200)
    w = _zero_weights(200, 60)
    keep = w > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        full = locacal.calibration_report(s, y, weights=w, ci=True, n_boot=30, seed=5)
        kept = locacal.calibration_report(s[keep], y[keep], weights=w[keep], ci=True,
                                          n_boot=30, seed=5)
    assert full.loc["n", "value"] == 200 and kept.loc["n", "value"] == 60
    pd.testing.assert_frame_equal(full.drop(index="n"), kept.drop(index="n"), rtol=1e-12)


def test_issue16_zero_weights_are_in_no_fold_of_compare_curves():
    s, y = _data(200)
    w = _zero_weights(200, 6)
    keep = w > 0
    specs = {"platt": "platt", "binning": {"method": "binning", "bins": 2}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        full = locacal.compare_curves(s, y, specs, weights=w, folds=3)
        kept = locacal.compare_curves(s[keep], y[keep], specs, weights=w[keep], folds=3)
    pd.testing.assert_frame_equal(full.table, kept.table)
    with pytest.raises(ValueError, match=r"folds must be at most 6 \(the number of "
                                         r"observations with positive weight\), got 7"):
        locacal.compare_curves(s, y, specs, weights=w, folds=7)


def test_issue16_zero_weights_change_no_metric():
    s, y = _data(400, seed=2)
    p = np.clip(s + 0.03, 0.0, 1.0)
    w = _zero_weights(400, 280, seed=3)
    keep = w > 0
    names = [m for m in METRICS if m not in ("n", "kl", "smece")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        full = evaluate(names, s, y, weights=w, true_p=p)
        kept = evaluate(names, s[keep], y[keep], weights=w[keep], true_p=p[keep])
    for name in names:  # calib_mse, calib_err, refinement and the ICI family counted them
        assert full[name] == pytest.approx(kept[name], rel=1e-12, abs=1e-15), name


def test_issue16_zero_weights_are_not_in_the_adaptive_bins():
    s, y = _data(100)
    w = np.ones(100)
    w[::2] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        stats = locacal.curves.binning.bin_statistics(s, y, w, strategy="adaptive")
    assert stats.count.sum() == 50  # sqrt(50) rows per bin, none of weight zero
    assert np.all(stats.count >= 7)


# --------------------------------------------------------------------------- locfit nn


@pytest.mark.r
def test_issue16_locfit_nn_below_one_neighbour_is_widened_as_natively():
    s, y = _data(120)
    with pytest.warns(locacal.CalibrationWarning, match=r"n \* nn = 120 \* 1e-09 < 1"):
        r_curve = locacal.calibration_curve(s, y, method="locfit", nn=1e-9, kernel="rect",
                                            evaluation="exact", band=None)
    with pytest.warns(locacal.CalibrationWarning, match=r"n \* nn = 120 \* 1e-09 < 1"):
        native = locacal.calibration_curve(s, y, method="local", nn=1e-9, kernel="rect",
                                           band=None)
    np.testing.assert_allclose(r_curve.estimate, native.estimate, rtol=0, atol=1e-12)


@pytest.mark.r
@pytest.mark.parametrize("kernel", ["tricube", "epan"])
def test_issue16_locfit_nn_refuses_a_single_neighbour_of_weight_zero(kernel):
    s, y = _data(120)
    for nn in (1e-9, 1.5 / 120):
        with pytest.raises(ValueError, match=rf"nn = {nn!r} leaves one neighbour .* the "
                                             rf"{kernel} kernel gives it weight 0"):
            locacal.calibration_curve(s, y, method="locfit", nn=nn, kernel=kernel)


# --------------------------------------------------------------------------- kernel band


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_issue16_kernel_band_is_finite_at_a_tiny_bandwidth(reg_type):
    s, y = _data(80)
    curve = locacal.calibration_curve(s, y, method="kernel", reg_type=reg_type, bw=1e-9)
    assert np.isfinite(curve.estimate).all()
    assert np.isfinite(curve.lower).all() and np.isfinite(curve.upper).all()
    # each grid point sees its nearest score only: its label, with the Wilson interval of
    # one observation
    nearest = np.abs(s[None, :] - curve.grid[:, None]).argmin(axis=1)
    np.testing.assert_array_equal(curve.estimate, y[nearest])
    lower, upper = proportion_confint(y[nearest], 1, alpha=0.05, method="wilson")
    np.testing.assert_allclose(curve.lower, lower, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(curve.upper, upper, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_issue16_kernel_variance_factor_where_every_kernel_underflows(reg_type):
    # the points 0.5 and 0.55 lie more than 40 bandwidths from every score, where the
    # unscaled kernel weights all underflow (the old band was NaN there)
    rng = np.random.default_rng(4)
    s = np.concatenate([rng.uniform(0.0, 0.3, 20), rng.uniform(0.7, 1.0, 20)])
    w = rng.exponential(size=40)
    t = np.array([0.1, 0.5, 0.55, 0.9])
    bw = 0.004
    # g is linear in the labels: fitting unit vectors gives the smoother weights l_i(t)
    weights = np.array([kernel_regression(s, e, w, t, bw, reg_type) for e in np.eye(40)])
    factor = kernel_var_factor(s, w, t, bw, reg_type)
    assert np.isfinite(factor).all()
    np.testing.assert_allclose(factor, (weights**2).sum(axis=0), rtol=1e-10)


def test_issue16_sweep_gaussian_bandwidths_below_the_floor_raise():
    s, y = _data(50)
    floor = r"must be at least 1e-150 \(squared distances in bandwidths would overflow"
    with pytest.raises(ValueError, match="bw " + floor):
        locacal.calibration_curve(s, y, method="kernel", bw=1e-300)
    with pytest.raises(ValueError, match="bandwidth " + floor):
        locacal.density.reflected_kde(s, [0.5], bandwidth=5e-324)
    # at the floor: finite, the nearest scores only
    density = locacal.density.reflected_kde(s, [s[0], 0.5], bandwidth=1e-150)
    assert np.isfinite(density).all() and density[1] == 0.0


@pytest.mark.parametrize("h", [1e-30, 1e-200, 5e-324])
def test_issue16_sweep_local_fit_at_a_vanishing_bandwidth(h):
    # every window holds the tied copies of its own score only: the fit interpolates the
    # mean label of each distinct score, with one degree of freedom per distinct score
    # (the moment sums of the exact engine overflowed to NaN below h = 1e-25 or so)
    rng = np.random.default_rng(6)
    s = np.round(rng.uniform(0.01, 0.99, 300), 2)
    y = (rng.uniform(size=300) < s).astype(float)
    distinct, inverse, count = np.unique(s, return_inverse=True, return_counts=True)
    means = np.bincount(inverse, y) / count
    for degree in (0, 1, 2):
        table = locacal.smoothing_table(s, y, nn=None, h=[h], degree=degree).table
        assert table["df"].iloc[0] == pytest.approx(distinct.size, rel=1e-12)
        assert table["rss"].iloc[0] == pytest.approx(np.sum((y - means[inverse]) ** 2),
                                                     rel=1e-9)
        fitted = locacal.LocalRegressionCalibrator(degree=degree, nn=None, h=h, clip=False)
        np.testing.assert_allclose(fitted.fit(s, y).predict(distinct), means, atol=1e-12)


def test_issue16_kl_kde_refuses_a_bandwidth_the_points_cannot_resolve():
    p, _ = _data(100, seed=1)
    q, _ = _data(100, seed=2)
    with pytest.raises(ValueError, match=r"bandwidth=1e-09 is below half the spacing of the "
                                         r"512 evaluation points"):
        locacal.kl_divergence(p, q, method="kde", bandwidth=1e-9)
    least = 0.5 / 511
    assert np.isfinite(locacal.kl_divergence(p, q, method="kde", bandwidth=least))
    # more points resolve a narrower kernel
    assert np.isfinite(locacal.kl_divergence(p, q, method="kde", bandwidth=least / 2,
                                             bins=2 * 511 + 1))
    with pytest.raises(ValueError, match="bandwidth applies to method='kde' only"):
        locacal.kl_divergence(p, q, bandwidth=0.1)


# --------------------------------------------------------------------------- lowess delta


def test_issue16_lowess_delta_predicts_statsmodels_fit_between_the_scores():
    s, y = _data(300)
    s = np.round(s, 3)  # ties too
    fitted = locacal.LowessCalibrator(delta=0.02, clip=False).fit(s, y)
    expected = sm.nonparametric.lowess(y, s, frac=0.15, it=0, delta=0.02,
                                       return_sorted=False)
    np.testing.assert_allclose(fitted.predict(s), expected, rtol=0, atol=1e-12)
    # between two neighbouring scores: the straight line between their fitted values
    order = np.argsort(s)
    a, b = s[order[100]], s[order[101:]][s[order[101:]] > s[order[100]]][0]
    ga, gb = fitted.predict([a, b])
    assert fitted.predict([(a + b) / 2])[0] == pytest.approx((ga + gb) / 2, abs=1e-12)
    curve = locacal.calibration_curve(s, y, method="lowess", delta=0.02, n_boot=20, seed=0)
    assert np.isfinite(curve.estimate).all() and np.isfinite(curve.lower).all()


def test_issue16_lowess_delta_with_robustness_iterations():
    s, y = _data(200)
    fitted = locacal.LowessCalibrator(delta=0.01, it=2, clip=False).fit(s, y)
    expected = sm.nonparametric.lowess(y, s, frac=0.15, it=2, delta=0.01,
                                       return_sorted=False)
    np.testing.assert_allclose(fitted.predict(s), expected, rtol=0, atol=1e-12)


def test_issue16_sweep_lowess_with_too_few_neighbours_says_so():
    s, y = _data(100)
    with pytest.warns(locacal.CalibrationWarning, match=r"n \* frac = 100 \* 1e-09 < 1"):
        curve = locacal.calibration_curve(s, y, method="lowess", frac=1e-9)
    assert np.isfinite(curve.estimate).all()
    # statsmodels' robust lowess has no fit where every neighbour's weight vanishes: NaN,
    # with the reason
    with pytest.warns(locacal.CalibrationWarning, match="statsmodels' lowess is NaN there"):
        fitted = locacal.LowessCalibrator(frac=1e-9, it=1).fit(s, y)
        assert np.isnan(fitted.predict([0.5])).all()


# --------------------------------------------------------------------------- isotonic seed


@pytest.mark.filterwarnings("ignore:df is NaN:locacal.CalibrationWarning")
def test_issue16_isotonic_seed_fixes_the_bands_of_compare_curves():
    s, y = _data(150)
    specs = {"isotonic": "isotonic", "robust lowess": {"method": "lowess", "it": 1}}
    first = locacal.compare_curves(s, y, specs, seed=0)
    second = locacal.compare_curves(s, y, specs, seed=0)
    other = locacal.compare_curves(s, y, specs, seed=1)
    for name in specs:
        np.testing.assert_array_equal(first.curves[name].lower, second.curves[name].lower)
        np.testing.assert_array_equal(first.curves[name].upper, second.curves[name].upper)
        assert not np.array_equal(first.curves[name].upper, other.curves[name].upper,
                                  equal_nan=True)


# --------------------------------------------------------------------------- sweep


SIZES = {
    "report n_boot": lambda s, y: locacal.calibration_report(s, y, ci=True, n_boot=HUGE),
    "curve n_boot": lambda s, y: locacal.calibration_curve(s, y, band="bootstrap",
                                                           n_boot=HUGE),
    "isotonic n_boot": lambda s, y: locacal.calibration_curve(s, y, method="isotonic",
                                                              n_boot=HUGE),
    "n_resamples": lambda s, y: locacal.calibration_test(s, y, n_resamples=HUGE),
    "n_samples": lambda s, y: metrics.calib_mse_interval(s, y, method="thesis",
                                                         n_samples=HUGE),
    "lcs grid_size": lambda s, y: locacal.lcs(s, y, grid_size=HUGE),
    "wmse grid_size": lambda s, y: locacal.wmse(s, y, grid_size=HUGE),
    "lowess it": lambda s, y: locacal.LowessCalibrator(it=HUGE).fit(s, y),
    "maxk": lambda s, y: locacal.LocalRegressionCalibrator(maxk=HUGE).fit(s, y),
    "tree cv": lambda s, y: locacal.studies.cv_pruning_path(s[:, None], y, cv=HUGE),
}


@pytest.mark.parametrize("case", list(SIZES))
def test_issue16_sweep_size_parameters_are_bounded(case):
    s, y = _data(60)
    name = case.split()[-1]
    with pytest.raises(ValueError, match=rf"^{name} must be at most \d+ \(.+\), got 1000000000$"):
        SIZES[case](s, y)
