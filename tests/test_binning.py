"""Binning curves: the thesis's adaptive bins, R's quantile bins, uniform bins."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locacal
from locacal._validation import CalibrationWarning
from locacal.data.bins import bin_statistics


def test_adaptive_bins_follow_thesis_steps():
    # 7 points, bin size 3: labels of sorted points are 1,1,1,2,2,2,3 and the short last bin
    # (one point) is merged into bin 2 (thesis §3.2.1, step 3).
    s = np.array([0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.6])
    y = np.array([1, 0, 1, 0, 1, 0, 0], dtype=float)
    st_ = bin_statistics(s, y, strategy="adaptive", bin_size=3)
    np.testing.assert_array_equal(st_.count, [3, 4])
    np.testing.assert_allclose(st_.mean_score, [0.2, (0.5 + 0.6 + 0.7 + 0.9) / 4])
    np.testing.assert_allclose(st_.mean_label, [0.0, 0.75])


def test_quantile_bins_drop_duplicate_breaks_and_warn():
    s = np.r_[np.zeros(50), np.full(30, 0.5), np.linspace(0.6, 1, 20)]
    y = (np.arange(100) % 2).astype(float)
    with pytest.warns(CalibrationWarning, match="distinct quantile bins"):
        st_ = bin_statistics(s, y, strategy="quantile", bins=10)
    assert st_.count.sum() == 100
    # include.lowest: the 50 zeros sit in the first bin (with nothing else: break 0 repeats)
    assert st_.count[0] == 50


def test_uniform_bins_are_right_closed():
    s = np.array([0.0, 0.5, 0.5000001, 1.0])
    y = np.array([0, 1, 0, 1.0])
    st_ = bin_statistics(s, y, strategy="uniform", bins=2)
    np.testing.assert_array_equal(st_.count, [2, 2])  # [0, .5] and (.5, 1]


def test_curve_evaluates_as_step_function_and_has_band():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=5000)
    y = (rng.uniform(size=5000) < s).astype(float)
    c = locacal.calibration_curve(s, y, method="binning", strategy="quantile", bins=5)
    assert len(c) == 5
    assert np.all(c.lower <= c.estimate) and np.all(c.estimate <= c.upper)
    # a new score gets its bin's estimate; beyond the ends, the end bins
    np.testing.assert_allclose(c([0.0, 1.0]), [c.estimate[0], c.estimate[-1]])
    inside = c(c.grid)
    np.testing.assert_allclose(inside, c.estimate)
    frame = c.to_frame()
    assert list(frame.columns) == ["score", "estimate", "lower", "upper", "count", "in_range",
                                   "method"]


def test_curve_at_the_bin_centres_of_tied_adaptive_bins():
    """Adaptive bins split a run of tied scores: every bin of that run has its centre on the
    shared right edge, so the curve there is the first of those bins' mean label (as at any
    score equal to the edge), not a later bin's, whatever the rounding of the bin's mean."""
    rng = np.random.default_rng(3)
    s = np.round(rng.beta(2, 5, size=100_000), 2)
    y = (rng.uniform(size=s.size) < s).astype(float)
    size = 316
    c = locacal.calibration_curve(s, y, method="binning", strategy="adaptive", bin_size=size)
    st_ = bin_statistics(s, y, strategy="adaptive", bin_size=size)
    ordered = np.sort(s)
    starts = np.arange(st_.count.size) * size
    ends = np.append(starts[1:], s.size)
    # exact means rounded once: at most the bin's right edge
    exact = np.array([float(sum(map(Fraction, ordered[a:b].tolist())) / (b - a))
                      for a, b in zip(starts, ends, strict=True)])
    assert np.all(exact <= st_.upper)
    expected = st_.mean_label[np.searchsorted(st_.upper, exact, side="left")]
    np.testing.assert_array_equal(c.estimate, expected)
    np.testing.assert_array_equal(c(c.grid), c.estimate)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["quantile", "uniform", "adaptive"]))
def test_binning_is_permutation_invariant(seed, strategy):
    rng = np.random.default_rng(seed)
    n = 200
    s = np.round(rng.uniform(size=n), 1)  # many ties
    y = (rng.uniform(size=n) < s).astype(float)
    perm = rng.permutation(n)
    a = bin_statistics(s, y, strategy=strategy, bins=7, bin_size=30)
    b = bin_statistics(s[perm], y[perm], strategy=strategy, bins=7, bin_size=30)
    np.testing.assert_allclose(a.mean_label, b.mean_label)
    np.testing.assert_allclose(a.mean_score, b.mean_score)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["uniform"]))
def test_integer_weights_equal_duplicated_rows(seed, strategy):
    # fixed bin edges read weights as multiplicities; quantile breaks use relative weights
    # (positions (n+ - 1) p of the normalised weights), whose property is scale invariance
    # (tests/test_weights.py)
    rng = np.random.default_rng(seed)
    n = 100
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.integers(1, 4, size=n).astype(float)
    dup = np.repeat(np.arange(n), w.astype(int))
    a = bin_statistics(s, y, w, strategy=strategy, bins=4)
    b = bin_statistics(s[dup], y[dup], strategy=strategy, bins=4)
    np.testing.assert_allclose(a.mean_label, b.mean_label)
    np.testing.assert_allclose(a.mean_score, b.mean_score)
    np.testing.assert_allclose(a.weight, b.count)
