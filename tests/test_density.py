"""The reflected score density: its bandwidth rule, exact and binned sums, and weights."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from locacal.density import (
    _binned_gauss_sum,
    _gauss_sum,
    bw_nrd0,
    reflected_bandwidth,
    reflected_kde,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 400))
def test_reflected_bandwidth_is_bw_nrd0_of_the_reflected_sample(seed, n):
    rng = np.random.default_rng(seed)
    s = rng.beta(0.5, 2, size=n)
    expected = bw_nrd0(np.concatenate([-s, s, 2 - s]))
    assert reflected_bandwidth(s) == pytest.approx(expected, rel=1e-13)


def test_bw_nrd0_matches_silverman_by_hand():
    x = np.array([0.1, 0.4, 0.5, 0.9, 1.3])
    sd = np.std(x, ddof=1)
    iqr = np.quantile(x, 0.75) - np.quantile(x, 0.25)
    assert bw_nrd0(x) == pytest.approx(0.9 * min(sd, iqr / 1.34) * 5 ** -0.2)


def test_density_is_the_reflected_gaussian_sum_by_hand():
    s = np.array([0.0, 0.2, 0.25, 0.9, 1.0])
    x = np.linspace(0, 1, 7)
    h = 0.1
    refl = np.concatenate([-s, s, 2 - s])
    expected = norm.pdf((x[:, None] - refl[None, :]) / h).sum(axis=1) / (3 * s.size * h)
    np.testing.assert_allclose(reflected_kde(s, x, bandwidth=h), expected, rtol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
def test_binned_sum_is_within_its_stated_error_of_the_exact_sum(weighted):
    rng = np.random.default_rng(1)
    s = rng.beta(2, 5, size=70_000)
    s[:10], s[10:20] = 0.0, 1.0
    w = rng.uniform(0.5, 2.0, size=s.size) if weighted else None
    x = np.linspace(0, 1, 100)
    h = reflected_bandwidth(s)
    exact = _gauss_sum(x, s, w, h)
    binned = _binned_gauss_sum(x, s, w, h, 2**16)
    # stated bound (delta/h)^2 / 4 ~ 1.3e-7 here; measured 1.6e-8
    np.testing.assert_allclose(binned, exact, rtol=1.5e-7)


@pytest.mark.parametrize("weighted", [False, True])
def test_binning_of_sorted_scores_equals_the_general_binning(weighted):
    from locacal.data.grid import linear_binning as _linear_binning

    rng = np.random.default_rng(2)
    s = np.sort(np.r_[rng.beta(2, 5, size=50_000), 0.0, 1.0, 0.5, 0.5])
    w = rng.uniform(0.5, 2.0, size=s.size) if weighted else None
    np.testing.assert_allclose(_linear_binning(s, w, 2**12, is_sorted=True),
                               _linear_binning(s, w, 2**12), rtol=1e-9, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_integer_weights_equal_duplicated_rows_at_a_fixed_bandwidth(seed):
    # the kernel sum itself reads weights as multiplicities; the default bandwidth does not
    # (it counts Kish's effective size, see tests/test_weights.py)
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=60)
    w = rng.integers(1, 4, size=60)
    x = np.linspace(0, 1, 11)
    dup = np.repeat(s, w)
    np.testing.assert_allclose(reflected_kde(s, x, weights=w.astype(float), bandwidth=0.07),
                               reflected_kde(dup, x, bandwidth=0.07), rtol=1e-12)
