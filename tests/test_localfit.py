"""localfit.fit: the strategy table picks the module the table names, and the cache is reused."""

import numpy as np
import pytest

from locacal.data.sample import sort_sample
from locacal.localfit import GaussianKernel, LocalParams, NearestMean, fit, local_params
from locacal.localfit._direct import SEQUENTIAL_BUDGET, fit_points
from locacal.localfit._gauss import kernel_regression, kernel_var_factor
from locacal.localfit._influence import block_cache, fit_at_data
from locacal.localfit._knn import knn_means
from locacal.localfit._many import fit_sorted
from locacal.localfit._segment import ExactLocalMap
from locacal.localfit._tree import build_tree


def _sample(n, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, size=n)
    y = rng.uniform(size=n) < s
    w = rng.gamma(2.0, size=n) if weighted else None
    return s, y, w


@pytest.mark.parametrize("weighted", [False, True])
def test_each_row_of_the_table_is_its_strategy_bit_for_bit(weighted):
    s, y, w = _sample(600, 1, weighted)
    sample = sort_sample(s, y, w)
    params = local_params(1, 0.3, None, "tricube")
    grid = np.linspace(0, 1, 11)
    direct = fit_points(sample, grid, params)
    got = fit(sample, grid, params, outputs=("value", "var_factor", "count"))
    np.testing.assert_array_equal(got.value, direct.value)
    np.testing.assert_array_equal(got.var_factor, direct.var_factor)
    np.testing.assert_array_equal(got.count, direct.count)
    assert got.slope is None and got.influence is None
    tree = fit(sample, grid, params, structure="tree", outputs=("value", "var_factor"))
    np.testing.assert_array_equal(tree.value, build_tree(sample, params)(grid))
    np.testing.assert_array_equal(tree.var_factor, direct.var_factor)  # the exact fit's
    at_data = fit(sample, "data", params, outputs=("value", "influence"))
    reference = fit_at_data(sample, params)
    np.testing.assert_array_equal(at_data.value, reference.value)
    np.testing.assert_array_equal(at_data.influence, reference.influence)
    np.testing.assert_array_equal(fit(sample, grid, NearestMean(90.0)).value,
                                  knn_means(sample, grid, 90.0))
    gauss = fit((s, y, w), grid, GaussianKernel(0.05, "ll"), outputs=("value", "var_factor"))
    np.testing.assert_array_equal(gauss.value, kernel_regression(s, y, w, grid, 0.05, "ll"))
    np.testing.assert_array_equal(gauss.var_factor, kernel_var_factor(s, w, grid, 0.05, "ll"))


def test_many_points_switches_to_block_sums_beyond_the_budget():
    s, y, _ = _sample(4000, 2)
    sample = sort_sample(s, y, None)
    params = LocalParams(1, 0.5, None, "tricube")  # window 2000 rows per point
    few = np.linspace(0.1, 0.9, 7)
    np.testing.assert_array_equal(fit(sample, few, params, many_points=True).value,
                                  fit_points(sample, few, params).value)
    many = np.linspace(0, 1, SEQUENTIAL_BUDGET // 2000 + 1)
    cache = {}
    got = fit(sample, many, params, many_points=True, cache=cache).value
    base = LocalParams(1, 1.0, None, "tricube")
    np.testing.assert_array_equal(got, fit_sorted(sample, many, params,
                                                  ExactLocalMap(sample, base, clip=False),
                                                  block_cache(sample, base)))
    # without many_points the same points are summed window by window, as the LCS needs
    np.testing.assert_array_equal(fit(sample, many, params).value,
                                  fit_points(sample, many, params).value)
    first = dict(cache)
    assert sorted(key[0] for key in first) == ["blocks", "moments"]
    fit(sample, many, params, many_points=True, cache=cache)
    assert all(cache[key] is first[key] for key in first)  # prepared once per cache
    # the Gaussian kernel (not compact) keeps the map's direct sums, a fixed h its trees
    for other in (LocalParams(1, 0.5, None, "gauss"), LocalParams(1, None, 0.05, "tricube")):
        np.testing.assert_array_equal(fit(sample, many, other, many_points=True).value,
                                      ExactLocalMap(sample, other, clip=False)(many))


def test_bad_outputs_and_strategy_names_are_refused():
    sample = sort_sample(*_sample(50)[:2], None)
    with pytest.raises(ValueError, match="outputs"):
        fit(sample, np.array([0.5]), LocalParams(), outputs=("value", "slopes"))
    with pytest.raises(ValueError, match="structure"):
        fit(sample, np.array([0.5]), LocalParams(), structure="rbox")
    with pytest.raises(ValueError, match="backend"):
        fit(sample, np.array([0.5]), LocalParams(), backend="R")


@pytest.mark.parametrize("weighted", [False, True])
def test_label_vectors_equal_one_fit_per_vector(weighted):
    # fit(labels=...) fits B label vectors on the sample's scores and weights at once: degree
    # 0 rect from float64 running sums (exact integers without weights, so bit for bit the
    # single fit's int64 counts; with weights against the single fit's long-double sums),
    # other degrees and kernels as one copy per row (resampled_fits' summation order)
    s, y, w = _sample(400, 3, weighted)
    sample = sort_sample(s, y, w)
    labels = np.random.default_rng(4).uniform(size=(6, sample.n)) < sample.scores
    grid = np.linspace(0.05, 0.95, 13)
    # (weighted degree 0: measured 1.4e-15)
    for params, atol in ((local_params(0, 0.15, None, "rect"), 0.0 if w is None else 1e-14),
                         (local_params(1, 0.4, None, "tricube"), 1e-12)):
        got = fit(sample, grid, params, labels=labels.astype(np.float64)).value
        for row, vector in zip(got, labels, strict=True):
            single = fit(sort_sample(sample.scores, vector, sample.weights), grid, params).value
            np.testing.assert_allclose(row, single, rtol=0, atol=atol)


def test_cell_index_and_cell_nearest_mean_rows():
    # a CellIndex of unweighted rows: the window means without sorting, bit for bit the
    # sorted fit; None when the undecided cells hold too many rows (the caller sorts)
    from locacal.data.cells import ScoreStatistics
    from locacal.data.grid import CellIndex
    from locacal.localfit._cells import nearest_mean

    s, y, _ = _sample(5000, 6)
    grid = np.linspace(0, 1, 21)
    params = local_params(0, 0.15, None, "rect")
    got = fit(CellIndex(s, y.astype(np.float64)), grid, params).value
    np.testing.assert_array_equal(got, fit(sort_sample(s, y, None), grid, params).value)
    piled = np.repeat([0.3, 0.6], 2500)
    assert fit(CellIndex(piled, y.astype(np.float64)), grid, params).value is None
    with pytest.raises(ValueError, match="CellIndex"):
        fit(CellIndex(s, y.astype(np.float64)), grid, local_params(1, 0.15, None, "rect"))
    # the WMSE's nearest-weight mean from the cell sums, with its bound
    stats = ScoreStatistics.from_arrays(s, y.astype(np.float64))
    fits = fit(stats, grid, NearestMean(750.0), outputs=("value", "bound"))
    value, bound = nearest_mean(stats, grid, 750.0)
    np.testing.assert_array_equal(fits.value, value)
    np.testing.assert_array_equal(fits.bound, bound)
    exact = fit(sort_sample(s, y, None), grid, NearestMean(750.0)).value
    assert np.all(np.abs(fits.value - exact) <= fits.bound + 1e-12)


@pytest.mark.parametrize("reg_type", ["lc", "ll"])
@pytest.mark.parametrize("weighting", ["none", "weights", "counts"])
def test_binned_kernel_variance_factor_is_the_direct_sum(reg_type, weighting):
    # above EXACT_MAX_WORK pairs the factor comes from binned sums of the squared kernel
    # (a Gaussian of sd h / sqrt(2)); 1e-5 relative covers the tail points, 2e-6 measured
    from locacal.localfit import _gauss

    rng = np.random.default_rng(11)
    n = 60_000
    s = rng.beta(2, 5, n)
    w = counts = None
    if weighting != "none":
        w = rng.exponential(size=n)
    if weighting == "counts":
        counts = rng.integers(1, 6, n).astype(float)
        w = w * counts
    t = np.linspace(0.001, 0.999, 101)
    assert s.size * t.size > _gauss.EXACT_MAX_WORK
    binned = kernel_var_factor(s, w, t, 0.02, reg_type, counts)
    direct = _gauss._direct_var_factor(s, w, t, 0.02, reg_type,
                                       None if counts is None else 1.0 / counts)
    np.testing.assert_allclose(binned, direct, rtol=1e-5)
    assert np.max(np.abs(binned / direct - 1)) > 0  # the binned route was taken
