"""frequency_weights= where they used to be refused (issue 19): LOWESS with robustness
iterations and the kernel calibrator's data-driven bandwidths equal the same call on the
expanded rows (``np.repeat``), computed by statsmodels on those rows.

Measured differences: below 2e-13 (LOWESS, 40 cases) and 2e-16 (bandwidths). The data are
chosen so that both calls are well posed: LOWESS's median absolute residual is far from
rounding (with 0/1 labels and a small span, over half the observations can sit in windows of
one label, fitted exactly up to rounding; the median is then rounding noise, and so are
statsmodels' own robustness weights), and the bandwidth criteria have an interior minimum.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from statsmodels.nonparametric.smoothers_lowess import lowess

from locacal import KernelCalibrator, LowessCalibrator
from locacal.curves._robust_lowess import grouped_robust_lowess

TOL = 1e-10


def _grouped(seed: int, n: int, rounded: bool):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.2, 0.8, n)
    if rounded:  # tied scores in different rows, of both labels
        s = np.round(s, 2)
    d = rng.uniform(size=n) < s
    f = rng.integers(0, 5, n).astype(float)
    rep = f.astype(int)
    return (s, d, f), (np.repeat(s, rep), np.repeat(d, rep))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("rounded", [False, True])
@pytest.mark.parametrize(("frac", "it"), [(0.3, 1), (0.3, 3), (0.6, 2)])
def test_robust_lowess_with_counts_equals_expanded_rows(seed, rounded, frac, it):
    (s, d, f), (big_s, big_d) = _grouped(seed, 120, rounded)
    points = np.random.default_rng(seed + 10).uniform(size=25)  # unsorted, beyond the data
    expanded = LowessCalibrator(frac=frac, it=it, clip=False).fit(big_s, big_d)
    grouped = LowessCalibrator(frac=frac, it=it, clip=False).fit(s, d, frequency_weights=f)
    np.testing.assert_allclose(grouped.predict(points), expanded.predict(points), rtol=0,
                               atol=TOL)


def test_grouped_robust_lowess_of_single_rows_is_statsmodels():
    rng = np.random.default_rng(7)
    s = np.sort(rng.uniform(0.1, 0.9, 200))
    d = (rng.uniform(size=200) < s).astype(float)
    points = np.linspace(0.0, 1.0, 31)
    ours = grouped_robust_lowess(s, d, np.ones(200), 0.4, 2, points[::-1])[::-1]
    theirs = lowess(d, s, frac=0.4, it=2, xvals=points, is_sorted=True)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL)


def test_robust_lowess_predicts_in_any_order_of_the_points():
    # statsmodels slides its window rightwards only; unsorted points used to get wrong fits
    rng = np.random.default_rng(3)
    s = rng.uniform(size=300)
    d = rng.uniform(size=300) < s
    fitted = LowessCalibrator(frac=0.3, it=2).fit(s, d)
    t = np.linspace(0.0, 1.0, 11)
    np.testing.assert_array_equal(fitted.predict(t[::-1])[::-1], fitted.predict(t))
    theirs = lowess(d.astype(float), s, frac=0.3, it=2, xvals=t)
    np.testing.assert_allclose(fitted.predict(t), np.clip(theirs, 0, 1), rtol=0, atol=1e-12)


def test_robust_lowess_bootstrap_band_with_counts_holds_the_estimate():
    (s, d, f), _ = _grouped(4, 60, True)
    curve = LowessCalibrator(frac=0.5, it=1).fit(s, d, frequency_weights=f).curve(
        np.linspace(0.3, 0.7, 5), band="bootstrap", n_boot=30, seed=1)
    assert np.all(curve.lower <= curve.estimate + 1e-12)
    assert np.all(curve.estimate <= curve.upper + 1e-12)


def test_robust_lowess_refuses_case_weights_and_delta_with_counts():
    (s, d, f), _ = _grouped(5, 40, False)
    with pytest.raises(ValueError, match="no case weights"):
        LowessCalibrator(it=1).fit(s, d, sample_weight=np.linspace(1, 2, 40),
                                   frequency_weights=f)
    with pytest.raises(ValueError, match="delta"):
        LowessCalibrator(it=1, delta=0.01).fit(s, d, frequency_weights=f)


def _smooth_grouped(seed: int):
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(0.05, 0.95, 150), 3)
    d = rng.uniform(size=150) < 0.5 + 0.4 * np.sin(6 * s)
    f = rng.integers(0, 4, 150).astype(float)
    rep = f.astype(int)
    return (s, d, f), (np.repeat(s, rep), np.repeat(d, rep))


@pytest.mark.parametrize("rule", ["cv_ls", "aic"])
@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_kernel_bandwidth_selection_with_counts_equals_expanded_rows(rule, reg_type):
    (s, d, f), (big_s, big_d) = _smooth_grouped(10 if rule == "cv_ls" else 11)
    expanded = KernelCalibrator(reg_type, rule).fit(big_s, big_d)
    grouped = KernelCalibrator(reg_type, rule).fit(s, d, frequency_weights=f)
    assert grouped.bandwidth_ > 0.01  # an interior minimum
    assert abs(grouped.bandwidth_ - expanded.bandwidth_) <= TOL
    grid = np.linspace(0.1, 0.9, 9)
    np.testing.assert_allclose(grouped.predict(grid), expanded.predict(grid), rtol=0,
                               atol=TOL)


def test_kernel_bandwidth_selection_still_refuses_case_weights():
    (s, d, f), _ = _smooth_grouped(3)
    with pytest.raises(ValueError, match="case weights"):
        KernelCalibrator(bw="cv_ls").fit(s, d, sample_weight=np.linspace(1, 2, 150),
                                         frequency_weights=f)


def test_kernel_cross_validation_collapsing_to_zero_warns_and_stays_positive():
    # copies of untied rows: leaving one copy out, its other copies predict it as b -> 0
    rng = np.random.default_rng(0)
    s = rng.uniform(0.05, 0.95, 150)
    d = rng.uniform(size=150) < 0.5 + 0.4 * np.sin(6 * s)
    f = np.full(150, 3.0)
    with pytest.warns(UserWarning, match="bandwidth 0"):
        fitted = KernelCalibrator("lc", "cv_ls").fit(s, d, frequency_weights=f)
    assert fitted.bandwidth_ > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.all(np.isfinite(fitted.predict(np.linspace(0.1, 0.9, 5))))


def _tree_data():
    rng = np.random.default_rng(2)
    s = np.round(rng.uniform(0.05, 0.95, 80), 3)
    y = rng.uniform(size=80) < s
    f = rng.integers(0, 5, 80).astype(float)
    rep = f.astype(int)
    return (s, y, f), (np.repeat(s, rep), np.repeat(y, rep))


def _same_curve(make, degree):
    (s, y, f), (big_s, big_y) = _tree_data()
    grid = np.linspace(0.06, 0.94, 23)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = make().fit(s, y, frequency_weights=f).curve(grid)
        b = make().fit(big_s, big_y).curve(grid)
    # degree 2: locfit's solver amplifies the rounding of sums taken in another order
    # (measured 2.3e-10 on the value, 4.5e-9 on the binomial band)
    tol = 1e-8 if degree == 2 else TOL
    for name in ("estimate", "lower", "upper", "counts"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=tol)


@pytest.mark.parametrize("degree", [0, 1, 2])
@pytest.mark.parametrize("kernel", ["rect", "tricube", "gauss"])
def test_locfit_tree_with_counts_and_fixed_h_equals_expanded_rows(degree, kernel):
    from locacal import LocalRegressionCalibrator

    _same_curve(lambda: LocalRegressionCalibrator(degree=degree, kernel=kernel, nn=None,
                                                  h=0.1, evaluation="locfit", clip=False),
                degree)


def test_locfit_tree_with_counts_and_nn_is_refused_saying_why():
    from locacal import LocalRegressionCalibrator

    (s, y, f), _ = _tree_data()
    with pytest.raises(ValueError, match="nn counts rows"):
        LocalRegressionCalibrator(evaluation="locfit").fit(s, y, frequency_weights=f)


@pytest.mark.r
@pytest.mark.parametrize("family", ["gaussian", "binomial"])
@pytest.mark.parametrize("evaluation", ["locfit", "exact"])
@pytest.mark.parametrize("degree", [0, 1, 2])
def test_r_locfit_with_counts_and_fixed_h_equals_expanded_rows(family, evaluation, degree):
    from locacal import LocalRegressionCalibrator

    pytest.importorskip("rpy2")
    _same_curve(lambda: LocalRegressionCalibrator(
        degree=degree, kernel="tricube", nn=None, h=0.1, evaluation=evaluation,
        backend="locfit", family=family, clip=False), degree)


def _dask_pair(relative: bool):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    s = np.round(rng.uniform(0.01, 0.99, 400), 3)
    y = (rng.uniform(size=400) < s).astype(float)
    f = rng.integers(0, 5, 400).astype(float)
    f[:100] = 0.0  # a partition without observations
    w = np.round(rng.uniform(0.5, 2.0, 400), 2) if relative else None
    rep = f.astype(int)

    def lazy(x, chunks):
        return None if x is None else da.from_array(x, chunks=chunks)

    grouped = dict(scores=lazy(s, 100), labels=lazy(y, 100), weights=lazy(w, 100),
                   frequency_weights=lazy(f, 100))
    expanded = dict(scores=lazy(np.repeat(s, rep), 250), labels=lazy(np.repeat(y, rep), 250),
                    weights=lazy(None if w is None else np.repeat(w, rep), 250))
    return grouped, expanded


@pytest.mark.parametrize("relative", [False, True])
@pytest.mark.parametrize("name", ["lcs", "ece", "brier_score"])
def test_dask_metrics_with_counts_equal_the_expanded_rows(name, relative):
    import locacal

    grouped, expanded = _dask_pair(relative)
    metric = getattr(locacal, name)
    assert abs(metric(**grouped) - metric(**expanded)) <= TOL


def test_dask_curve_and_report_with_counts_equal_the_expanded_rows():
    from locacal import calibration_curve, calibration_report

    grouped, expanded = _dask_pair(True)
    grid = np.linspace(0.05, 0.95, 10)
    for method in ("binning", "local"):
        a = calibration_curve(**grouped, method=method, grid=grid)
        b = calibration_curve(**expanded, method=method, grid=grid)
        for name in ("estimate", "lower", "upper", "counts"):
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=TOL)
    ra, rb = calibration_report(**grouped), calibration_report(**expanded)
    numbers = ra.index[[np.issubdtype(type(v), np.number) for v in ra.to_numpy()]]
    np.testing.assert_allclose(ra[numbers].astype(float), rb[numbers].astype(float),
                               rtol=1e-10, atol=TOL, equal_nan=True)
