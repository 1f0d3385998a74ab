"""statsmodels-backed curves: same numbers as statsmodels, clear errors for weights."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import norm

import locacal


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    s = rng.beta(2, 2, size=800)
    y = (rng.uniform(size=800) < s**2).astype(float)
    return s, y


def test_lowess_is_statsmodels_without_robustness_iterations(data):
    s, y = data
    grid = np.linspace(0.1, 0.9, 9)
    curve = locacal.calibration_curve(s, y, method="lowess", grid=grid, clip=False)
    expected = sm.nonparametric.lowess(y, s, frac=0.15, it=0, xvals=grid)
    np.testing.assert_allclose(curve.estimate, expected, rtol=0, atol=1e-14)
    assert curve.params["it"] == 0
    np.testing.assert_allclose(curve(grid), np.clip(expected, 0, 1))


def test_kernel_local_constant_is_the_nadaraya_watson_formula(data):
    s, y = data
    grid = np.linspace(0.05, 0.95, 7)
    curve = locacal.calibration_curve(s, y, method="kernel", grid=grid, bw=0.05)
    k = norm.pdf((grid[:, None] - s[None, :]) / 0.05)
    np.testing.assert_allclose(curve.estimate, (k @ y) / k.sum(axis=1), rtol=1e-12)
    assert curve.params["bw"] == 0.05


def test_kernel_default_bandwidth_is_nrd0(data):
    s, y = data
    curve = locacal.calibration_curve(s, y, method="kernel")
    assert curve.params["bw"] == pytest.approx(locacal.density.bw_nrd0(s))


@pytest.mark.parametrize("n", [797, 800, 1003])
def test_weighted_lowess_with_unit_weights_is_statsmodels(n):
    rng = np.random.default_rng(n)
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    grid = np.linspace(0.05, 0.95, 13)
    weighted = locacal.calibration_curve(s, y, method="lowess", grid=grid, clip=False,
                                         weights=np.ones(n))
    expected = sm.nonparametric.lowess(y, s, frac=0.15, it=0, xvals=grid)
    np.testing.assert_allclose(weighted.estimate, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_weighted_kernel_with_unit_weights_is_kernelreg(data, reg_type):
    s, y = data
    grid = np.linspace(0.05, 0.95, 7)
    plain = locacal.calibration_curve(s, y, method="kernel", grid=grid, bw=0.07,
                                      reg_type=reg_type, clip=False)
    weighted = locacal.calibration_curve(s, y, method="kernel", grid=grid, bw=0.07,
                                         reg_type=reg_type, clip=False, weights=np.ones_like(s))
    np.testing.assert_allclose(weighted.estimate, plain.estimate, rtol=1e-10)


def test_integer_weights_equal_duplicated_rows_for_the_kernel(data):
    # a fixed bandwidth: weights and duplicated rows are the same sample (lowess's frac, like
    # locfit's nn, counts rows, so there the two differ by design)
    s, y = data
    rng = np.random.default_rng(3)
    w = rng.integers(1, 4, size=s.size)
    dup = np.repeat(np.arange(s.size), w)
    grid = np.linspace(0.1, 0.9, 9)
    a = locacal.calibration_curve(s, y, method="kernel", grid=grid, bw=0.05,
                                  weights=w.astype(float))
    b = locacal.calibration_curve(s[dup], y[dup], method="kernel", grid=grid, bw=0.05)
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=1e-10)


def test_weights_rule_out_what_statsmodels_alone_computes(data):
    s, y = data
    w = np.ones_like(s)
    with pytest.raises(ValueError, match="it: robustness iterations"):
        locacal.calibration_curve(s, y, method="lowess", weights=w, it=3)
    with pytest.raises(ValueError, match="bw: 'cv_ls' bandwidth selection"):
        locacal.calibration_curve(s, y, method="kernel", weights=w, bw="cv_ls")


def test_bad_smoother_parameters(data):
    s, y = data
    with pytest.raises(ValueError, match=r"frac must lie in \(0, 1\]"):
        locacal.calibration_curve(s, y, method="lowess", frac=0)
    with pytest.raises(ValueError, match="unknown reg_type"):
        locacal.calibration_curve(s, y, method="kernel", reg_type="cubic")
    with pytest.raises(ValueError, match="bw must be a finite positive"):
        locacal.calibration_curve(s, y, method="kernel", bw=-1.0)
