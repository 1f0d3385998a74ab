"""Weights have one meaning: relative case weights.

Every point estimate depends on the weights only through w / sum(w): multiplying all of them by
any c > 0 changes nothing (1e-9 relative), and extreme but finite weights (mixtures of 1e300,
1 and 1e-300) give finite results without any floating-point warning (RuntimeWarnings are
errors in these tests).
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from locacal import metrics
from locacal._validation import check_weights
from locacal.curves import BetaCalibrator, IsotonicCalibrator, PlattCalibrator
from locacal.curves.local import local_estimate
from locacal.data.bins import bin_statistics
from locacal.data.quantile import quantile_type7
from locacal.density import bw_nrd0, reflected_bandwidth, reflected_kde
from locacal.localfit import _gauss
from locacal.localfit._gauss import kernel_regression

pytestmark = [pytest.mark.filterwarnings("error::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")]

# relative agreement of weights w and c w: measured <= 4e-13 over these examples (rounding of
# w c / max(w c) against w / max(w), then of sums of n terms)
RTOL = 1e-9
scales = st.floats(1e-6, 1e6)


def _data(seed, n=300, ties=False):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, size=n)
    if ties:
        s = np.round(s, 2)
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.gamma(0.5, size=n)  # skewed, some near 0
    w[rng.integers(0, n, size=n // 20)] = 0.0
    return s, y, w


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)


METRICS = {
    "lcs": lambda s, y, w: metrics.lcs(s, y, weights=w),
    "lcs_degree1_tricube": lambda s, y, w: metrics.lcs(s, y, weights=w, degree=1,
                                                       kernel="tricube"),
    "wmse": lambda s, y, w: metrics.wmse(s, y, weights=w),
    "ece": lambda s, y, w: metrics.ece(s, y, weights=w),
    "ece_uniform": lambda s, y, w: metrics.ece(s, y, weights=w, strategy="uniform"),
    "qmse": lambda s, y, w: metrics.qmse(s, y, weights=w),
    "brier_score": lambda s, y, w: metrics.brier_score(s, y, weights=w),
    "calib_mse": lambda s, y, w: metrics.calib_mse(s, y, weights=w),
    "brier_decomposition": lambda s, y, w: dataclasses.astuple(
        metrics.brier_decomposition(s, y, weights=w)),
}


@pytest.mark.parametrize("name", list(METRICS))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), c=scales, ties=st.booleans())
def test_metrics_do_not_change_when_weights_are_scaled(name, seed, c, ties):
    s, y, w = _data(seed, ties=ties)
    metric = METRICS[name]
    _close(metric(s, y, w * c), metric(s, y, w))


def test_scale_used_to_change_wmse_and_quantile_bins():
    # the example: weights summing to 1 gave WMSE x 2.8 and 2 quantile bins of 10
    s, y, _ = _data(1, n=2000)
    w = np.full(s.size, 1.0 / s.size)
    assert metrics.wmse(s, y, weights=w) == pytest.approx(metrics.wmse(s, y), rel=1e-12)
    stats = bin_statistics(s, y, w, strategy="quantile", bins=10)
    assert stats.weight.size == 10
    np.testing.assert_allclose(stats.mean_label,
                               bin_statistics(s, y, strategy="quantile", bins=10).mean_label,
                               rtol=1e-12)


@pytest.mark.parametrize("strategy", ["quantile", "uniform", "adaptive"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), c=scales, ties=st.booleans())
def test_bin_means_do_not_change_when_weights_are_scaled(strategy, seed, c, ties):
    s, y, w = _data(seed, ties=ties)
    a = bin_statistics(s, y, w, strategy=strategy, bins=8, bin_size=25)
    b = bin_statistics(s, y, w * c, strategy=strategy, bins=8, bin_size=25)
    np.testing.assert_array_equal(a.upper, b.upper)
    _close(b.mean_label, a.mean_label)
    _close(b.mean_score, a.mean_score)
    _close(b.effective_size, a.effective_size)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), c=scales, ties=st.booleans())
def test_density_bandwidth_and_quantiles_do_not_change_when_weights_are_scaled(seed, c, ties):
    s, _, w = _data(seed, ties=ties)
    x = np.linspace(0, 1, 21)
    _close(reflected_kde(s, x, weights=w * c), reflected_kde(s, x, weights=w))
    _close(bw_nrd0(s, w * c), bw_nrd0(s, w))
    order = np.argsort(s, kind="stable")
    probs = np.linspace(0, 1, 11)
    _close(quantile_type7(s[order], c * w[order], probs), quantile_type7(s[order], w[order], probs))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 300))
def test_unit_weights_reproduce_the_unweighted_rules(seed, n):
    # R parity is kept: with unit weights, Kish's n is n, the reliability sd is the usual sd and
    # the normalised quantile positions are (n - 1) p
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(0.5, 2, size=n), int(rng.integers(1, 5)))
    ones = np.ones(n)
    assert bw_nrd0(s, ones) == pytest.approx(bw_nrd0(s), rel=1e-13)
    assert reflected_bandwidth(s, ones) == pytest.approx(reflected_bandwidth(s), rel=1e-13)
    probs = np.linspace(0, 1, 13)
    np.testing.assert_allclose(quantile_type7(np.sort(s), ones, probs),
                               np.quantile(s, probs), rtol=0, atol=1e-15)


def test_weighted_bandwidth_uses_kish_effective_size():
    # two values with weights (3, 1): n_eff = 16 / 10, sd^2 = sum w (x - m)^2 / (V1 - V2 / V1)
    x, w = np.array([0.0, 1.0]), np.array([3.0, 1.0])
    mean = 0.25
    sd = np.sqrt((3 * mean**2 + (1 - mean) ** 2) / (4 - 10 / 4))
    # type-7 on normalised weights (1.5, 0.5), n+ = 2: positions 0.25 and 0.75 interpolate
    # between order statistics 0 (x = 0, cumulative 1.5 >= 1) and 1 (x = 1): IQR = 0.5
    assert sd > 0.5 / 1.34
    assert bw_nrd0(x, w) == pytest.approx(0.9 * (0.5 / 1.34) * 1.6 ** -0.2, rel=1e-14)
    # ... and sd when it is the smaller: weights (1, 1, 2) on (0, 0.5, 1)
    x, w = np.array([0.0, 0.5, 1.0]), np.array([1.0, 1.0, 2.0])
    mean = 2.5 / 4
    sd = np.sqrt((mean**2 + (0.5 - mean) ** 2 + 2 * (1 - mean) ** 2) / (4 - 6 / 4))
    # normalised weights (0.75, 0.75, 1.5), cumulative (0.75, 1.5, 3): p = 0.25 -> position
    # 0.5 between x = 0.5 and x = 1 (both order statistics 0 and 1 are 0.5): q1 = 0.5;
    # p = 0.75 -> position 1.5 between x = 0.5 and x = 1: q3 = 0.75
    assert sd < 0.25 / 1.34 or sd > 0.25 / 1.34  # (which one is checked below)
    expected = 0.9 * min(sd, 0.25 / 1.34) * (16 / 6) ** -0.2
    assert bw_nrd0(x, w) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), c=scales)
def test_kernel_regression_and_local_fits_do_not_change_when_weights_are_scaled(
        reg_type, seed, c):
    s, y, w = _data(seed)
    x = np.linspace(0, 1, 15)
    _close(kernel_regression(s, y, w * c, x, 0.05, reg_type),
           kernel_regression(s, y, w, x, 0.05, reg_type))
    a, bound_a = _gauss._binned_sums(s, y, w * c, x, 0.05, reg_type, 2**12)
    b, bound_b = _gauss._binned_sums(s, y, w, x, 0.05, reg_type, 2**12)
    # each binned estimate is within its stated FFT-rounding bound of the exact binned value,
    # so the two differ by at most the sum of the bounds: 1e-13 inside the data, but 3e-7 for
    # a local line 2.4 bandwidths beyond the largest score (seed 557, c = 3: 2.2e-9 there, where
    # kernel_regression evaluates directly because the bound exceeds ROUNDING_TOLERANCE)
    assert np.all(np.abs(a - b) <= bound_a + bound_b), np.max(np.abs(a - b) - bound_a - bound_b)
    degree = 0 if reg_type == "lc" else 1
    for kwargs in ({"nn": 0.2}, {"nn": None, "h": 0.1}):
        # a local line at the boundary amplifies rounding: measured 1.1e-11 absolute
        fit = {"degree": degree, "kernel": "tricube", **kwargs}
        np.testing.assert_allclose(local_estimate(s, y, w * c, x, **fit),
                                   local_estimate(s, y, w, x, **fit), rtol=RTOL, atol=1e-10)


RECALIBRATORS = [PlattCalibrator(), BetaCalibrator(), IsotonicCalibrator()]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), c=scales)
def test_recalibrated_scores_do_not_change_when_weights_are_scaled(seed, c):
    s, y, w = _data(seed)
    t = np.linspace(0, 1, 41)
    for est in RECALIBRATORS:
        # Newton's solver stops at a gradient of 1e-10: measured agreement 1e-12
        np.testing.assert_allclose(clone(est).fit(s, y, sample_weight=w * c).predict(t),
                                   clone(est).fit(s, y, sample_weight=w).predict(t),
                                   rtol=RTOL, atol=1e-11, err_msg=repr(est))


def _extreme(seed, n=400):
    s, y, _ = _data(seed, n=n)
    rng = np.random.default_rng(seed + 1)
    return s, y, rng.choice([1e300, 1.0, 1e-300], size=n)


def test_check_weights_returns_relative_weights_that_cannot_overflow():
    w = check_weights([1e300, 1e300, 1.0, 1e-300, 0.0], 5)
    np.testing.assert_array_equal(w, [1.0, 1.0, 1e-300, 0.0, 0.0])
    assert np.isfinite(np.sum(w * w))
    np.testing.assert_array_equal(check_weights(np.full(4, 1e-300), 4), np.ones(4))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_extreme_weights_give_finite_results_without_warnings(seed):
    s, y, w = _extreme(seed)
    x = np.linspace(0, 1, 11)
    for name, metric in METRICS.items():
        assert np.all(np.isfinite(metric(s, y, w))), name
    assert np.all(np.isfinite(reflected_kde(s, x, weights=w)))
    for strategy in ("quantile", "uniform", "adaptive"):
        stats = bin_statistics(s, y, check_weights(w, s.size), strategy=strategy)
        assert np.all(np.isfinite(stats.effective_size)), strategy
    rel = check_weights(w, s.size)
    for reg_type in ("lc", "ll"):
        assert np.all(np.isfinite(kernel_regression(s, y, rel, x, 0.05, reg_type)))
    for est in RECALIBRATORS:
        assert np.all(np.isfinite(clone(est).fit(s, y, sample_weight=w).predict(x))), repr(est)
    # the rows of weight 1 and 1e-300 weigh nothing next to those of 1e300
    heavy = w == 1e300
    assert metrics.brier_score(s, y, weights=w) == pytest.approx(
        metrics.brier_score(s[heavy], y[heavy]), rel=1e-12)
