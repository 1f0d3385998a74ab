"""IsotonicCalibrator's own pooling of ties against scikit-learn's IsotonicRegression fit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from locacal import IsotonicCalibrator
from locacal._validation import check_weights


def _sklearn(s, y, w):
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(s, y, sample_weight=w)
    return iso.X_thresholds_, iso.y_thresholds_


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 300), digits=st.sampled_from([1, 2, 6]),
       weighted=st.booleans())
def test_thresholds_are_scikit_learns(seed, n, digits, weighted):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 3, size=n), digits)
    y = (rng.uniform(size=n) < s).astype(np.float64)
    y[:2] = [0.0, 1.0]
    w = check_weights(rng.uniform(0.1, 3.0, size=n), n) if weighted else None
    fit = IsotonicCalibrator().fit(s, y, sample_weight=w)
    x, v = _sklearn(s, y, w)
    np.testing.assert_array_equal(fit.thresholds_, x)
    if w is None:  # pooled means are ratios of the same integers: identical
        np.testing.assert_array_equal(fit.values_, v)
    else:  # weighted sums added in another order (measured <= 1.5e-15)
        np.testing.assert_allclose(fit.values_, v, rtol=0, atol=1e-13)
    ends = np.append(v[1:] != v[:-1], True)
    block = np.minimum(np.searchsorted(x[ends], s), ends.sum() - 1)
    np.testing.assert_allclose(fit.block_weights_,
                               np.bincount(block, weights=w, minlength=ends.sum()), rtol=1e-13)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_scores_within_scikit_learns_tie_tolerance_are_pooled_as_it_pools_them():
    # 0.5 and the next double (1.1e-16 apart) are one score for scikit-learn
    s = np.array([0.1, 0.5, np.nextafter(0.5, 1.0), 0.7, 0.9])
    y = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    fit = IsotonicCalibrator().fit(s, y)
    x, v = _sklearn(s, y, None)
    np.testing.assert_array_equal(fit.thresholds_, x)
    np.testing.assert_array_equal(fit.values_, v)
    assert fit.block_values_.tolist() == [0.0, 0.5, 1.0]
