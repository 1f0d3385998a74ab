"""The default LCS without a sort (selection by cell counts) against the sorted computation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locacal
from locacal.data.grid import CellIndex
from locacal.data.sample import sort_sample
from locacal.localfit import fit, local_params
from locacal.localfit._selection import nearest_means
from locacal.metrics.lcs_wmse import lcs_from_sorted, lcs_unsorted


def _sample(rng, n, digits=None):
    s = rng.beta(2, 3, size=n)
    if digits is not None:  # ties, and scores at 0 and 1
        s = np.round(s, digits)
        s[: n // 50] = 0.0
        s[n // 50: n // 25] = 1.0
    y = (rng.uniform(size=n) < s).astype(np.float64)
    return s, y


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 400), digits=st.sampled_from([1, 2, 5]),
       nn=st.sampled_from([0.001, 0.05, 0.15, 0.5, 1.0]))
def test_nearest_means_are_the_sorted_fit_bit_for_bit(seed, n, digits, nn):
    # ties at the window's edge, scores at 0 and 1, grid points on scores, at 0 and at 1
    rng = np.random.default_rng(seed)
    s, y = _sample(rng, n, digits)
    points = np.unique(np.concatenate([[0.0, 1.0], rng.choice(s, 5), rng.uniform(size=5),
                                       np.linspace(0, 1, 11)]))
    got = nearest_means(s, y, points, nn, max_share=np.inf)
    expected = fit(sort_sample(s, y, None), points, local_params(nn=nn)).value
    np.testing.assert_array_equal(got, expected)


def test_order_statistics_of_gathered_cells():
    rng = np.random.default_rng(1)
    s, y = _sample(rng, 5000, digits=3)
    cells = CellIndex(s, y)
    cells.gather(np.ones(2**16, dtype=bool))
    ranks = [0, 1, 1249, 2500, 4998, 4999]
    assert [cells.order_stat(r) for r in ranks] == np.sort(s)[ranks].tolist()


@pytest.mark.parametrize("digits", [None, 3])
def test_lcs_without_sort_equals_the_sorted_lcs(digits):
    # n above the density's exact range, so that lcs() takes the path without sort
    rng = np.random.default_rng(2)
    s, y = _sample(rng, 80_000, digits)
    fast = lcs_unsorted(s, y, 0.15, 100)
    assert fast is not None
    sorted_value = lcs_from_sorted(sort_sample(s, y, None), local_params())
    # same windows and means bit for bit; the density's sums differ in order only
    # (measured 2e-16 relative)
    assert fast == pytest.approx(sorted_value, rel=1e-13, abs=0)
    assert locacal.lcs(s, y) == fast


def test_concentrated_scores_fall_back_to_the_sort():
    # 70 000 scores on 7 values: every window's edge cell holds a seventh of the sample
    rng = np.random.default_rng(3)
    s = rng.choice(np.linspace(0.2, 0.8, 7), size=70_000)
    y = (rng.uniform(size=s.size) < s).astype(np.float64)
    assert lcs_unsorted(s, y, 0.15, 100) is None
    assert locacal.lcs(s, y) == lcs_from_sorted(sort_sample(s, y, None), local_params())


def test_the_report_gives_the_lcs_of_lcs():
    # the registry shares a sort between metrics; its LCS is still lcs()'s, bit for bit
    from locacal.metrics.registry import evaluate

    rng = np.random.default_rng(4)
    s, y = _sample(rng, 70_000)
    got = evaluate(["auc", "lcs", "wmse"], s, y)
    assert got["lcs"] == locacal.lcs(s, y)
    assert got["wmse"] == locacal.wmse(s, y)
