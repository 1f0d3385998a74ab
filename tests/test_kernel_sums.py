"""Gaussian kernel regression at many points: statsmodels' KernelReg numbers, the binned sums
within their stated error, and points far from every observation."""

import numpy as np
import pytest
from statsmodels.nonparametric.kernel_regression import KernelReg

from locacal.data.grid import gauss_convolve_nodes
from locacal.data.sample import sort_sample
from locacal.localfit import _gauss
from locacal.localfit._gauss import kernel_regression
from locacal.localfit._knn import knn_means


def _data(n, seed):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 5, size=n)
    return s, (rng.uniform(size=n) < s).astype(float), rng.uniform(0.2, 3.0, size=n)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
@pytest.mark.parametrize("bw", [0.01, 0.05, 0.2])
def test_unit_weights_give_kernelreg(reg_type, bw):
    s, y, _ = _data(2000, 1)
    x = np.linspace(0, 1, 51)
    ref = KernelReg(y, s, var_type="c", reg_type=reg_type, bw=[bw]).fit(x)[0]
    # KernelReg gives 0/0 where every kernel value underflows, and a pseudo-inverse where one
    # observation carries all the kernel weight: compare where 5 lie within 3 bandwidths
    ok = np.isfinite(ref) & ((np.abs(s[None, :] - x[:, None]) < 3 * bw).sum(axis=1) >= 5)
    assert ok.sum() >= 30
    # measured: 6e-16 (lc) and 1.1e-12 (ll, solved by pinv in statsmodels) relative
    for w in (None, np.ones_like(s)):
        np.testing.assert_allclose(kernel_regression(s, y, w, x, bw, reg_type)[ok], ref[ok],
                                   rtol=1e-10)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
@pytest.mark.parametrize("bw", [0.005, 0.02, 0.1])
def test_binned_sums_are_within_their_stated_error(reg_type, bw):
    s, y, w = _data(30_000, 2)
    x = np.linspace(0, 1, 101)
    exact = _gauss._direct_sums(s, y, w, x, bw, reg_type)
    est, bound = _gauss._binned_sums(s, y, w, x, bw, reg_type, _gauss.CELLS)
    trusted = bound <= _gauss.ROUNDING_TOLERANCE
    assert trusted.sum() >= 90
    # stated: about (delta/h)^2 / 8 relative on each sum, more for sums carried by data
    # several h away; measured <= 2.7e-7 absolute at h = 0.005 (bound 1.1e-6), 6e-8 at 0.02
    np.testing.assert_allclose(est[trusted], exact[trusted], rtol=0,
                               atol=(2**-16 / bw) ** 2 / 8 * 4)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
def test_large_inputs_take_the_binned_path_and_far_points_are_exact(reg_type, monkeypatch):
    s, y, w = _data(20_000, 3)
    s = 0.3 + 0.4 * s  # nothing below 0.3 nor above 0.7: 0 and 1 lie 60 h away
    x = np.r_[np.linspace(0, 1, 41), 0.0, 1.0]
    exact = _gauss._direct_sums(s, y, w, x, 0.005, reg_type)
    monkeypatch.setattr(_gauss, "EXACT_MAX_WORK", 1000)
    got = kernel_regression(s, y, w, x, 0.005, reg_type)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-6)
    # at 0 and 1 every kernel value underflows (KernelReg's 0/0): here a finite limit
    assert np.exp(-0.5 * (s / 0.005) ** 2).sum() == 0.0
    if reg_type == "lc":
        assert 0 <= got[-2] <= 1 and 0 <= got[-1] <= 1


@pytest.mark.parametrize("power", [0, 1, 2])
def test_node_convolution_is_the_direct_kernel_sum(power):
    rng = np.random.default_rng(4)
    cells, h = 512, 0.03
    mass = rng.uniform(size=cells + 1)
    nodes = np.arange(cells + 1) / cells
    u = (nodes[None, :] - nodes[:, None]) / h
    direct = (mass[None, :] * np.exp(-0.5 * u * u) * u**power).sum(axis=1)
    # FFT rounding: measured 1.6e-16 x total mass
    np.testing.assert_allclose(gauss_convolve_nodes(mass, h, cells, power), direct, rtol=0,
                               atol=2e-15 * mass.sum())


def test_weighted_nearest_neighbour_means_are_the_sorted_definition():
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(2, 80))
        s = np.round(rng.uniform(size=n), int(rng.integers(1, 4)))
        y = (rng.uniform(size=n) < s).astype(float)
        w = rng.uniform(0.1, 2.0, size=n)
        k = float(rng.uniform(0.1, 1.0) * w.sum())
        taus = np.r_[np.linspace(0, 1, 11), s[:3]]
        expected = []
        for t in taus:  # sort by distance, the run reaching weight k, ties shared
            d = np.abs(s - t)
            order = np.argsort(d, kind="stable")
            reach = np.searchsorted(np.cumsum(w[order]), k * (1 - 1e-12))
            h = d[order[min(reach, n - 1)]]
            inside, edge = d < h, d == h
            share = (k - w[inside].sum()) / w[edge].sum()
            expected.append((np.dot(w[inside], y[inside]) + share * np.dot(w[edge], y[edge])) / k)
        np.testing.assert_allclose(knn_means(sort_sample(s, y, w), taus, k), expected,
                                   rtol=1e-12)


def test_unit_weight_nearest_neighbour_runs_equal_the_general_path():
    """Without weights knn_runs finds the distance h as the k-th smallest of the left and
    right distances (one bisection); the runs and shares equal those of the general path
    (weights of one: a bisection inside a bisection) with heavy ties, scores at 0, points
    on, next to and between the scores, and k from 1 to n, whole or not."""
    from locacal.localfit._knn import knn_runs

    rng = np.random.default_rng(8)
    for trial in range(200):
        n = int(rng.integers(1, 60))
        s = rng.uniform(size=n)
        if trial % 4 == 1:
            s = np.round(s * 5) / 5
        elif trial % 4 == 2:
            s = np.round(s * 2) / 2
        elif trial % 4 == 3:
            s[: n // 2] = 0.0
        s = np.sort(s)
        points = np.clip(np.r_[np.linspace(0, 1, 11), s[:5], np.nextafter(s[:5], 2.0)], 0, 1)
        for k in {1.0, float(n), float(max(1, n // 3)), max(1.0, n / 3 + 0.4)}:
            fast, general = knn_runs(s, None, points, k), knn_runs(s, np.ones(n), points, k)
            for field in ("a_in", "b_in", "a_all", "b_all"):
                np.testing.assert_array_equal(getattr(fast, field), getattr(general, field))
            np.testing.assert_array_equal(fast.share, general.share)
