"""The exact local map (:class:`ExactLocalMap`): the same fits as ``fit_points``, fast.

Reference here is ``fit_points`` (direct summation over each window). Measured differences
(n = 500, 285 points incl. duplicates and points outside the data, 3 datasets x weights x
3 compact kernels x degrees 0-2 x nn in {0.05, 0.15, 0.5, 1}):

* degrees 0 and 1: <= 1.2e-14 on continuous scores inside the data's range; up to 6e-11 at
  points outside it and 2e-10 on tied scores, where every window score sits near the
  window's edge and the tricube polynomial 1 - 3x^3 + 3x^6 - x^9 cancels (K(0.99) = 2.6e-5
  from terms of size 3), and where windows with two close distinct scores are nearly
  singular -> asserted at 1e-9;
* degree 2: locfit's Jacobi solver turns last-bit differences of the sums into up to ~1e-8
  on well-spread data (fit_points' own two summation orders differ by as much), and up to
  6e-5 in the nearly singular windows of tied scores; asserted at 1e-7 on continuous
  scores with the points inside the data range (measured <= 7e-9).
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams, fit_points
from locacal.localfit._segment import ExactLocalMap

KERNELS = ("rect", "tricube", "epan")
NN = (0.05, 0.15, 0.5, 1.0)


def _data():
    rng = np.random.default_rng(1)
    n = 500
    cont = rng.uniform(size=n)
    d = (rng.uniform(size=n) < cont).astype(float)
    leaves = np.sort(rng.uniform(size=20))
    tied = leaves[rng.integers(0, 20, size=n)]
    pts = np.concatenate([np.linspace(0, 1, 41), rng.uniform(size=200), leaves])
    pts = np.concatenate([pts, pts[:30], [-0.1, 1.2]])
    weights = rng.exponential(size=n)
    weights[:25] = 0.0
    return {"continuous": cont, "tied": tied}, d, pts, weights


DATA, LABELS, POINTS, WEIGHTS = _data()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("kernel", KERNELS)
def test_degree_0_and_1_equal_direct_fits(name, kernel, weighted):
    sample = sort_sample(DATA[name], LABELS, WEIGHTS if weighted else None)
    for degree, nn in itertools.product((0, 1), NN):
        params = LocalParams(degree, nn, None, kernel)
        got = ExactLocalMap(sample, params, clip=False)(POINTS)
        want = fit_points(sample, POINTS, params).value
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, atol=1e-9, rtol=0, err_msg=f"{degree} {nn}")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_degree_2_equals_direct_fits_to_solver_noise(kernel, weighted):
    sample = sort_sample(DATA["continuous"], LABELS, WEIGHTS if weighted else None)
    inside = POINTS[(POINTS >= sample.scores[0]) & (POINTS <= sample.scores[-1])]
    for nn in NN:
        params = LocalParams(2, nn, None, kernel)
        got = ExactLocalMap(sample, params, clip=False)(inside)
        want = fit_points(sample, inside, params).value
        np.testing.assert_allclose(got, want, atol=1e-7, rtol=0, err_msg=str(nn))


def test_gaussian_kernel_uses_direct_sums():
    sample = sort_sample(DATA["continuous"], LABELS, None)
    params = LocalParams(1, 0.15, None, "gauss")
    got = ExactLocalMap(sample, params, clip=False)(POINTS)
    np.testing.assert_array_equal(got, fit_points(sample, np.unique(POINTS), params).value[
        np.searchsorted(np.unique(POINTS), POINTS)])


def test_duplicates_order_and_shape_do_not_matter():
    sample = sort_sample(DATA["tied"], LABELS, WEIGHTS)
    fit = ExactLocalMap(sample, LocalParams(1, 0.15, None, "tricube"), clip=True)
    pts = np.random.default_rng(3).permutation(np.repeat(POINTS[:50], 3))
    flat = fit(pts)
    np.testing.assert_array_equal(fit(pts.reshape(3, 50)), flat.reshape(3, 50))
    np.testing.assert_array_equal(flat, fit(pts[::-1])[::-1])
    assert np.all((flat >= 0) & (flat <= 1))


def test_pickles():
    sample = sort_sample(DATA["continuous"], LABELS, None)
    fit = ExactLocalMap(sample, LocalParams(2, 0.3, None, "epan"), clip=False)
    before = fit(POINTS)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(fit))(POINTS), before)


def test_fixed_bandwidth_empty_windows_and_zero_weights_give_nan():
    s = np.array([0.1, 0.12, 0.5, 0.9])
    d = np.array([0.0, 1.0, 1.0, 1.0])
    w = np.array([1.0, 1.0, 0.0, 1.0])
    sample = sort_sample(s, d, w)
    for kernel, degree in itertools.product(KERNELS, (0, 1, 2)):
        params = LocalParams(degree, None, 0.05, kernel)
        got = ExactLocalMap(sample, params, clip=False)(np.array([0.11, 0.3, 0.5, 0.9]))
        assert np.isnan(got[1]) and np.isnan(got[2]), (kernel, degree)  # none / zero weight
        assert got[0] == pytest.approx(0.5) and got[3] == 1.0


@pytest.mark.parametrize("kernel", ["tricube", "epan"])
def test_all_zero_kernel_weights_fall_back_to_uniform(kernel):
    s = np.array([0.2] * 10 + [0.6] * 10)
    d = np.array([1.0] * 3 + [0.0] * 7 + [1.0] * 8 + [0.0] * 2)
    sample = sort_sample(s, d, None)
    got = ExactLocalMap(sample, LocalParams(1, 0.5, None, kernel), clip=False)(
        np.array([0.25]))
    assert got[0] == pytest.approx(0.3)  # the mean at 0.2, the only window score


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), degree=st.integers(0, 1),
       kernel=st.sampled_from(KERNELS), nn=st.sampled_from(NN), levels=st.integers(2, 400),
       weighted=st.booleans())
def test_property_equals_direct_fits(seed, n, degree, kernel, nn, levels, weighted):
    """Scores on a coarse lattice (ties), points on and off it, outside the data too."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, size=n) / (levels - 1)
    d = (rng.uniform(size=n) < s).astype(float)
    w = rng.exponential(size=n) * (rng.uniform(size=n) < 0.8) if weighted else None
    sample = sort_sample(s, d, w)
    pts = np.concatenate([rng.uniform(size=30), s[:10], [0.0, 1.0]])
    params = LocalParams(degree, nn, None, kernel)
    got = ExactLocalMap(sample, params, clip=False)(pts)
    want = fit_points(sample, pts, params).value
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    # degree 0: <= 2e-10 measured once windows with almost no kernel mass are refitted
    # directly (a tricube window of scores near its edge gave -4.8e-7 for 0 before);
    # degree 1: 4.7e-9 measured on a 3-score weighted tricube window (n = 61, nn = 0.05),
    # nearly singular normal equations whose solver amplifies last-bit differences of sums
    np.testing.assert_allclose(got, want, atol=1e-9 if degree == 0 else 1e-8, rtol=0)
