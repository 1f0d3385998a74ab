"""Exact fits at many points from in-block prefix sums (``localfit._many``) against the
direct per-window fit ``fit_points``, at the tolerances ``tests/test_local_exact.py`` states
for the segment-tree map (1e-9 in degrees 0-1, tied scores and points outside the data
included; 1e-7 in degree 2 on continuous scores inside the data's range)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal.data.sample import sort_sample
from locacal.localfit import fit
from locacal.localfit._direct import SEQUENTIAL_BUDGET, LocalParams, fit_points
from locacal.localfit._influence import block_cache
from locacal.localfit._many import fit_sorted
from locacal.localfit._segment import ExactLocalMap

KERNELS = ("rect", "tricube", "epan")
NN = (0.05, 0.15, 0.5, 1.0)


def _data():
    rng = np.random.default_rng(7)
    n = 600
    cont = rng.beta(2, 5, size=n)
    d = (rng.uniform(size=n) < cont).astype(float)
    leaves = np.sort(rng.uniform(size=15))
    tied = leaves[rng.integers(0, 15, size=n)]
    pts = np.concatenate([np.linspace(0, 1, 51), rng.uniform(size=300), leaves, cont[:40],
                          [-0.2, 1.3]])
    weights = rng.gamma(2.0, size=n)
    weights[:30] = 0.0
    return {"continuous": cont, "tied": tied}, d, np.unique(pts), weights


DATA, LABELS, POINTS, WEIGHTS = _data()


def _many(sample, points, params):
    base = LocalParams(params.degree, 1.0, None, params.kernel)
    return fit_sorted(sample, points, params, ExactLocalMap(sample, base, clip=False),
                      block_cache(sample, base))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("kernel", KERNELS)
def test_degrees_0_and_1_equal_direct_fits(name, kernel, weighted):
    sample = sort_sample(DATA[name], LABELS, WEIGHTS if weighted else None)
    for degree, nn, h in itertools.product((0, 1), NN, (None, 0.04)):
        params = LocalParams(degree, nn, h, kernel)
        got = _many(sample, POINTS, params)
        want = fit_points(sample, POINTS, params).value
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, atol=1e-9, rtol=0, err_msg=f"{params}")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_degree_2_equals_direct_fits_to_solver_noise(kernel, weighted):
    sample = sort_sample(DATA["continuous"], LABELS, WEIGHTS if weighted else None)
    inside = POINTS[(POINTS >= sample.scores[0]) & (POINTS <= sample.scores[-1])]
    for nn in NN:
        params = LocalParams(2, nn, None, kernel)
        got = _many(sample, inside, params)
        want = fit_points(sample, inside, params).value
        np.testing.assert_allclose(got, want, atol=1e-7, rtol=0, err_msg=str(nn))


@pytest.mark.parametrize("kernel", [*KERNELS, "gauss"])
@pytest.mark.parametrize("degree", [0, 1, 2])
def test_fit_many_points_beyond_the_budget_equals_direct_fits(degree, kernel):
    """Through ``fit``: duplicated, unsorted points (the calibrators' ``predict``), enough
    of them for the route past ``SEQUENTIAL_BUDGET``; Gaussian: the map's direct sums."""
    rng = np.random.default_rng(degree)
    n = 3000
    s = rng.uniform(size=n)
    y = rng.uniform(size=n) < s
    w = rng.exponential(size=n)
    sample = sort_sample(s, y, w)
    params = LocalParams(degree, 0.3, None, kernel)
    m = SEQUENTIAL_BUDGET // 900 + 50
    pts = rng.permutation(np.repeat(np.linspace(0.01, 0.99, m), 2))
    got = fit(sample, pts, params, many_points=True).value
    want = fit_points(sample, pts, params).value
    np.testing.assert_allclose(got, want, atol=1e-9 if degree < 2 else 1e-7, rtol=0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 150), degree=st.integers(0, 1),
       kernel=st.sampled_from(KERNELS), nn=st.sampled_from(NN), levels=st.integers(2, 400),
       weighted=st.booleans())
def test_property_equals_direct_fits(seed, n, degree, kernel, nn, levels, weighted):
    """Scores on a coarse lattice (ties at window boundaries), points on and off it."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, size=n) / (levels - 1)
    d = (rng.uniform(size=n) < s).astype(float)
    w = rng.exponential(size=n) * (rng.uniform(size=n) < 0.8) if weighted else None
    sample = sort_sample(s, d, w)
    pts = np.unique(np.concatenate([rng.uniform(size=30), s[:10], [0.0, 1.0]]))
    params = LocalParams(degree, nn, None, kernel)
    got = _many(sample, pts, params)
    want = fit_points(sample, pts, params).value
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, atol=1e-9 if degree == 0 else 1e-8, rtol=0)


def test_deterministic():
    sample = sort_sample(DATA["tied"], LABELS, WEIGHTS)
    params = LocalParams(1, 0.15, None, "tricube")
    np.testing.assert_array_equal(_many(sample, POINTS, params), _many(sample, POINTS, params))
