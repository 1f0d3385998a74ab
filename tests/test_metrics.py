"""Metrics: closed-form cases, identities and invariances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal import metrics
from locacal._validation import CalibrationWarning
from locacal.data.sample import sort_sample
from locacal.localfit._knn import knn_means


def test_brier_closed_forms():
    assert metrics.brier_score([0, 1, 1, 0], [0, 1, 1, 0]) == 0.0
    assert metrics.brier_score([0.5] * 4, [0, 1, 1, 0]) == 0.25
    # weights: a weighted mean of squared errors
    assert metrics.brier_score([0.2, 0.6], [0, 1], weights=[3, 1]) == pytest.approx(
        (3 * 0.04 + 0.16) / 4)


def test_true_mse():
    assert metrics.true_mse([0.2, 0.4], [0.3, 0.1]) == pytest.approx((0.01 + 0.09) / 2)
    with pytest.raises(ValueError, match="true_p has length 1"):
        metrics.true_mse([0.2, 0.4], [0.3])


def test_ece_and_qmse_by_hand():
    # two uniform bins: [0, .5] holds scores .2,.2 (labels 0,1) and (.5, 1] holds .8,.8,.8,.8
    # (labels 1,1,1,0). |.5-.2| * 2/6 + |.75-.8| * 4/6
    s = [0.2, 0.2, 0.8, 0.8, 0.8, 0.8]
    y = [0, 1, 1, 1, 1, 0]
    assert metrics.ece(s, y, bins=2, strategy="uniform") == pytest.approx(
        0.3 * 2 / 6 + 0.05 * 4 / 6)
    assert metrics.qmse(s, y, bins=2, strategy="uniform") == pytest.approx(
        0.09 * 2 / 6 + 0.0025 * 4 / 6)


def test_ece_thresholded_compares_accuracy_with_confidence():
    # one bin of scores 0.2 with 20 % events: ECE is 0, but the thresholded ECE compares the
    # accuracy 0.8 (all predicted 0) with the confidence 0.2.
    s = [0.2] * 10
    y = [1, 1] + [0] * 8
    with pytest.warns(CalibrationWarning):
        assert metrics.ece(s, y, bins=1) == pytest.approx(0.0)
        assert metrics.ece_thresholded(s, y, bins=1) == pytest.approx(0.6)
    # threshold rule: predicted 1 when s >= tau (the slides), so a score equal to tau is 1
    assert metrics.accuracy([0.5, 0.5], [1, 1]) == 1.0


def test_classification_rates():
    s = np.array([0.9, 0.8, 0.3, 0.6, 0.1, 0.4])
    y = np.array([1, 1, 1, 0, 0, 0])
    assert metrics.accuracy(s, y) == pytest.approx(4 / 6)
    assert metrics.sensitivity(s, y) == pytest.approx(2 / 3)
    assert metrics.specificity(s, y) == pytest.approx(2 / 3)
    assert metrics.auc(s, y) == pytest.approx(7 / 9)  # .3 beats only .1 of the negatives


def test_calib_mse_with_bins_of_one_is_the_brier_score():
    rng = np.random.default_rng(1)
    s = rng.uniform(size=101)
    y = (rng.uniform(size=101) < s).astype(float)
    assert metrics.calib_mse(s, y, bin_size=1) == pytest.approx(metrics.brier_score(s, y))
    assert metrics.calib_err(s, y, bin_size=1) == pytest.approx(
        np.sqrt(metrics.brier_score(s, y)))


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6))
def test_calib_mse_does_not_increase_when_bins_double(seed, log_size):
    # Jensen (thesis §4.3.2): with n a multiple of 2b, bins of 2b are unions of two bins of b
    rng = np.random.default_rng(seed)
    b = 2**log_size
    n = 2 * b * int(rng.integers(1, 8))
    s = rng.beta(2, 5, size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    small = metrics.calib_mse(s, y, bin_size=b)
    large = metrics.calib_mse(s, y, bin_size=2 * b)
    assert large <= small + 1e-15


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 50))
def test_brier_decomposition_adds_up(seed, bin_size):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    d = metrics.brier_decomposition(s, y, bin_size=bin_size)
    assert d.brier == pytest.approx(metrics.brier_score(s, y))
    assert d.brier == pytest.approx(d.calibration + d.refinement + d.within_bin)
    assert d.calibration == pytest.approx(metrics.calib_mse(s, y, bin_size=bin_size))


def test_decomposition_is_exact_when_scores_are_constant_in_bins():
    s = np.repeat([0.1, 0.4, 0.7], 50)
    y = np.tile(np.r_[np.ones(10), np.zeros(40)], 3)
    d = metrics.brier_decomposition(s, y, bin_size=50)
    assert d.within_bin == pytest.approx(0.0, abs=1e-15)
    assert d.calibration == pytest.approx(((0.1 - 0.2) ** 2 + (0.4 - 0.2) ** 2 + 0.25) / 3)
    assert d.refinement == pytest.approx(0.2 * 0.8)


def test_calib_mse_interval_thesis_procedure_is_reproducible():
    rng = np.random.default_rng(5)
    s = rng.beta(2, 2, size=4000)
    y = (rng.uniform(size=4000) < np.clip(s + 0.1, 0, 1)).astype(float)
    a = metrics.calib_mse_interval(s, y, bin_size=200, seed=1, method="thesis")
    b = metrics.calib_mse_interval(s, y, bin_size=200, seed=1, method="thesis")
    assert a == b
    assert a.lower < a.mean < a.upper
    assert a.estimate == pytest.approx(metrics.calib_mse(s, y, bin_size=200))
    # redrawn bin means add variance: the mean redrawn score exceeds the estimate
    assert a.mean > a.estimate


def test_knn_means_share_boundary_ties_fractionally():
    s = np.array([0.4, 0.5, 0.6, 0.6, 0.9])
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    # k = 3 nearest to 0.5: 0.5 (distance 0), then 0.4 and the two 0.6 tie at 0.1:
    # 0.4 and each 0.6 share the remaining 2 places: (0 + 2/3 * (1 + 1 + 0)) / 3
    got = knn_means(sort_sample(s, y, None), np.array([0.5]), 3)
    np.testing.assert_allclose(got, [(0 + 2 / 3 * 2) / 3])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_wmse_is_permutation_invariant_with_ties(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(size=300), 2)
    y = (rng.uniform(size=300) < s).astype(float)
    perm = rng.permutation(300)
    assert metrics.wmse(s, y) == pytest.approx(metrics.wmse(s[perm], y[perm]), rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_knn_means_integer_weights_equal_duplicated_rows(seed):
    # for a given neighbourhood weight k the weighted means read weights as multiplicities;
    # wmse itself sets k from the relative weights (scale invariance: tests/test_weights.py)
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(size=80), 2)
    y = (rng.uniform(size=80) < s).astype(float)
    w = rng.integers(1, 4, size=80)
    dup = np.repeat(np.arange(80), w)
    taus = np.linspace(0, 1, 21)
    k = float(rng.integers(1, w.sum() + 1))
    np.testing.assert_allclose(knn_means(sort_sample(s, y, w.astype(float)), taus, k),
                               knn_means(sort_sample(s[dup], y[dup], None), taus, k), rtol=1e-12)
