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


@pytest.mark.parametrize("method", ["lowess", "kernel"])
def test_weights_are_refused_with_a_pointer_to_local(data, method):
    s, y = data
    with pytest.raises(ValueError, match=r"weights: statsmodels.*method='local'"):
        locacal.calibration_curve(s, y, method=method, weights=np.ones_like(s))


def test_bad_smoother_parameters(data):
    s, y = data
    with pytest.raises(ValueError, match=r"frac must lie in \(0, 1\]"):
        locacal.calibration_curve(s, y, method="lowess", frac=0)
    with pytest.raises(ValueError, match="unknown reg_type"):
        locacal.calibration_curve(s, y, method="kernel", reg_type="cubic")
    with pytest.raises(ValueError, match="bw must be a finite positive"):
        locacal.calibration_curve(s, y, method="kernel", bw=-1.0)
