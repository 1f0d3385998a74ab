"""Mergeable per-cell statistics (locacal.data.cells.ScoreStatistics) against the exact
in-memory metrics."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locacal
from locacal.curves.curve import slides_grid
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import CELLS, EDGES, cell_index
from locacal.data.quantile import quantile_type7
from locacal.data.sample import sort_sample
from locacal.density import (
    _reflected_quartiles,
    reflected_kde_cells,
    reflected_kde_values,
    reflected_quartiles_cells,
)
from locacal.localfit import fit, local_params
from locacal.metrics.binned import calib_mse_from_bins, ece_cells, ece_from_bins
from locacal.metrics.classification import brier_cells
from locacal.metrics.lcs_wmse import lcs_cells, lcs_with_bound
from locacal.simulate import logistic_dgp

DELTA = 1.0 / CELLS


@pytest.fixture(scope="module", params=["unit", "weighted"])
def sample(request):
    """n = 1e5 miscalibrated scores of the slides' process, with and without weights."""
    df = logistic_dgp(100_000, alpha=0.8, gamma=1.3, seed=11)
    s, y = df["score"].to_numpy(), df["label"].to_numpy().astype(float)
    w = None
    if request.param == "weighted":
        w = np.random.default_rng(12).gamma(2.0, 1.0, s.size)
        w[::50] = 0.0  # rows of weight zero are dropped by both paths
    return s, y, w, ScoreStatistics.from_arrays(s, y, w)


def _close(a, b, rtol):
    return abs(a - b) <= rtol * max(abs(a), abs(b))


def test_brier_is_exact(sample):
    s, y, w, stats = sample
    # the Brier sum is kept, not binned: only summation order differs (measured 1e-16)
    assert _close(brier_cells(stats), locacal.brier_score(s, y, weights=w), 1e-13)


@pytest.mark.parametrize("bins", [5, 10, 20, 100])
def test_uniform_ece_and_qmse_are_exact(sample, bins):
    s, y, w, stats = sample
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        exact_ece = locacal.ece(s, y, weights=w, bins=bins, strategy="uniform")
        exact_qmse = locacal.qmse(s, y, weights=w, bins=bins, strategy="uniform")
        # same bins, only summation order differs (measured 7e-17 absolute)
        assert _close(ece_cells(stats, bins=bins, strategy="uniform"), exact_ece, 1e-12)
        assert _close(calib_mse_from_bins(stats.uniform_bins(bins)), exact_qmse, 1e-12)


@pytest.mark.parametrize("decimals", [1, 2, 3])
def test_uniform_bins_exact_on_rounded_scores(decimals):
    """Rounded scores sit on bin edges, where fl(b fl(1/B)) and the correctly rounded edge
    can differ by one ulp: the edge sums put them where the in-memory bins do."""
    rng = np.random.default_rng(decimals)
    s = np.round(rng.uniform(size=20_000), decimals)
    y = (rng.uniform(size=s.size) < s).astype(float)
    stats = ScoreStatistics.from_arrays(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        for bins in (3, 7, 10, 20, 25, 50, 100):
            assert _close(ece_cells(stats, bins=bins, strategy="uniform"),
                          locacal.ece(s, y, bins=bins, strategy="uniform"), 1e-12)


def test_cells_are_right_closed_at_rounded_edges():
    edges = EDGES[[1, 35_280, CELLS]]
    assert list(cell_index(edges)) == [0, 35_279, CELLS - 1]
    assert list(cell_index(np.nextafter(edges[:2], 2.0))) == [1, 35_280]
    assert cell_index(np.array([0.0]))[0] == 0
    assert EDGES[35_280] == 0.35


def test_squared_weight_moments_by_hand(sample):
    """sum w^2 s and sum w^2 s^2 per cell (the band of the binned local-linear fit), against
    sums over the rows of each cell taken directly (cells of 1/C, w = 1 without weights)."""
    s, _y, w, stats = sample
    w = np.ones(s.size) if w is None else w
    keep = w > 0
    sk, wk = s[keep], w[keep]
    cells = np.minimum(np.floor(sk * CELLS), CELLS - 1).astype(int)  # off only on edges
    filled = np.unique(cells)
    for name, values in (("weight_sq", wk**2), ("w2s", wk**2 * sk),
                         ("w2s2", wk**2 * sk**2)):
        by_hand = np.bincount(cells, weights=values, minlength=CELLS)
        np.testing.assert_allclose(getattr(stats, name)[filled], by_hand[filled],
                                   rtol=1e-12, err_msg=name)
    if np.all(w == 1):  # unweighted: equal to w s and w s^2
        np.testing.assert_array_equal(stats.w2s, stats.ws)
        np.testing.assert_array_equal(stats.w2s2, stats.ws2)


def test_density_from_cells(sample):
    s, _y, w, stats = sample
    grid = slides_grid(s[w > 0] if w is not None else s, 100)
    exact = reflected_kde_values(s, grid, w)
    # linear binning on 100800 cells vs the in-memory 2^16 cells: measured 2e-8 relative
    assert np.max(np.abs(reflected_kde_cells(stats, grid) / exact - 1.0)) < 1e-6


def test_reflected_quartiles_within_one_cell(sample):
    s, _y, w, stats = sample
    q1, q3 = reflected_quartiles_cells(stats)
    if w is None:
        e1, e3 = _reflected_quartiles(s)
    else:
        keep = w > 0
        order = np.argsort(s[keep], kind="stable")
        xs, ws = s[keep][order], w[keep][order]
        e1, e3 = quantile_type7(np.concatenate([-xs[::-1], xs, 2.0 - xs[::-1]]),
                                np.concatenate([ws[::-1], ws, ws[::-1]]),
                                np.array([0.25, 0.75]))
    # each order statistic is represented by the mean score of its cell (stated bound)
    assert abs(q1 - e1) <= DELTA and abs(q3 - e3) <= DELTA


@pytest.mark.parametrize("nn", [0.05, 0.15, 0.5])
def test_local_constant_within_its_bound(sample, nn):
    s, y, w, stats = sample
    keep = slice(None) if w is None else w > 0
    grid = slides_grid(s[keep], 100)
    exact = fit(sort_sample(s[keep], y[keep], None if w is None else w[keep]),
                grid, local_params(0, nn, None, "rect")).value
    fits = fit(stats, grid, local_params(0, nn, None, "rect"), outputs=("value", "bound"))
    binned, bound = fits.value, fits.bound
    err = np.abs(binned - exact)
    assert np.all(err <= bound * (1 + 1e-9) + 1e-14)
    # the bound is about 2 delta f(t) / nn: not vacuous (measured max 1.2e-4 at nn = 0.15)
    assert bound.max() < 2e-3 * 0.15 / nn


def test_lcs_within_stated_bound(sample):
    s, y, w, stats = sample
    value, bound = lcs_with_bound(stats)
    exact = locacal.lcs(s, y, weights=w)
    eta = 1e-6  # relative error of the density weights, see test_density_from_cells
    assert abs(value - exact) <= bound + 2.0 * eta / (1.0 - eta) * exact
    # measured: |error| 2e-7 (unit) and 8e-8 (weighted) against a bound of 1.1e-4
    assert bound < 2e-4
    assert lcs_cells(stats) == value


def _whole_vs_merged(whole: ScoreStatistics, merged: ScoreStatistics) -> None:
    for name in ("count", "weight", "weight_sq", "wy", "ws", "ws2", "wys", "w2s", "w2s2",
                 "edge_count", "edge_weight", "edge_weight_sq", "edge_wy", "edge_ws"):
        a, b = getattr(whole, name), getattr(merged, name)
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max(),
                                   err_msg=name)
    for name in ("brier_sum", "log_sum", "spiegel_var"):
        assert _close(getattr(merged, name), getattr(whole, name), 1e-12), name
    # terms of both signs, each at most w: compare on the scale of the total weight
    assert abs(merged.spiegel_num - whole.spiegel_num) <= 1e-12 * whole.total_weight
    assert merged.zero_weight_rows == whole.zero_weight_rows
    assert (merged.min_score, merged.max_score) == (whole.min_score, whole.max_score)


@settings(max_examples=30, deadline=None)
@given(cuts=st.lists(st.integers(1, 1_999), max_size=6, unique=True),
       weighted=st.booleans(), seed=st.integers(0, 2**16))
def test_any_split_merges_to_the_whole(cuts, weighted, seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 3, 2_000), 3)  # ties and scores on cell edges
    y = (rng.uniform(size=s.size) < s).astype(float)
    w = rng.exponential(size=s.size) if weighted else None
    bounds = [0, *sorted(cuts), s.size]
    chunks = [(s[a:b], y[a:b], None if w is None else w[a:b])
              for a, b in itertools.pairwise(bounds)]
    whole = ScoreStatistics.from_arrays(s, y, w)
    _whole_vs_merged(whole, ScoreStatistics.from_chunks(chunks))
    # addition is associative and commutative up to rounding
    parts = [ScoreStatistics.from_arrays(*c) for c in chunks]
    if len(parts) >= 3:
        _whole_vs_merged((parts[0] + parts[1]) + parts[2], parts[0] + (parts[1] + parts[2]))
    _whole_vs_merged(whole, sum(parts[1:], parts[0]) if len(parts) > 1 else parts[0])
    _whole_vs_merged(whole, sum(reversed(parts[:-1]), parts[-1]))


def test_chunked_lcs_equals_whole(sample):
    s, y, w, stats = sample
    chunks = [(s[i:i + 30_000], y[i:i + 30_000], None if w is None else w[i:i + 30_000])
              for i in range(0, s.size, 30_000)]
    merged = ScoreStatistics.from_chunks(chunks)
    assert _close(lcs_cells(merged), lcs_cells(stats), 1e-10)
    with pytest.warns(locacal.CalibrationWarning, match="fewer than 10"):  # a sparse tail bin
        assert _close(ece_cells(merged, bins=10, strategy="uniform"),
                      ece_cells(stats, bins=10, strategy="uniform"), 1e-12)


def test_validation():
    s, y = np.array([0.2, 0.7, 0.9]), np.array([0, 1, 1])
    with pytest.raises(ValueError, match="scores"):
        ScoreStatistics.from_arrays([0.2, 1.5, 0.3], y)
    with pytest.raises(ValueError, match="labels"):
        ScoreStatistics.from_arrays(s, [0, 1])
    with pytest.raises(ValueError, match="labels"):
        ScoreStatistics.from_arrays(s, [0, 2, 1])
    with pytest.raises(ValueError, match="weights"):
        ScoreStatistics.from_arrays(s, y, [1.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="weights"):
        ScoreStatistics.from_arrays(s, y, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="chunks"):
        ScoreStatistics.from_chunks([])
    stats = ScoreStatistics.from_arrays(s, y)
    with pytest.raises(TypeError, match="other"):
        stats.merge((s, y))
    with pytest.raises(TypeError):
        stats + 1
    with pytest.raises(ValueError, match="bins"):
        ece_cells(stats, bins=11, strategy="uniform")
    with pytest.raises(ValueError, match="nn"):
        lcs_cells(stats, nn=0.0)
    with pytest.raises(ValueError, match="grid_size"):
        lcs_cells(stats, grid_size=1)


def test_weights_keep_their_scale_across_chunks():
    """A chunk's weights are not rescaled by its own maximum: merged chunks with different
    maxima give the statistics of the whole."""
    s = np.array([0.1, 0.4, 0.6, 0.9])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    w = np.array([1.0, 3.0, 10.0, 2.0])
    merged = ScoreStatistics.from_chunks([(s[:2], y[:2], w[:2]), (s[2:], y[2:], w[2:])])
    assert merged.total_weight == 16.0
    assert brier_cells(merged) == pytest.approx(np.dot(w, (y - s) ** 2) / 16.0, rel=1e-15)
    with pytest.raises(ValueError, match="weights"):
        ScoreStatistics.from_arrays(s, y, w * 1e300)


@pytest.mark.parametrize("bins", [5, 10, 20, 50])
def test_quantile_ece_within_its_bound(sample, bins):
    s, y, w, stats = sample
    cut, bound = stats.quantile_bins(bins)
    value = ece_from_bins(cut)
    exact = locacal.ece(s, y, weights=w, bins=bins)
    # measured: equal to 1e-16 at n = 1e5 (the cut cells hold no row beyond the break)
    assert abs(value - exact) <= bound + 1e-12
    assert bound < 0.01


@pytest.mark.parametrize("bins", [4, 10])
def test_quantile_ece_on_tied_scores(bins):
    """Rounded scores: many rows per cut cell; the bound stays valid (and is loose)."""
    rng = np.random.default_rng(bins)
    s = np.round(rng.beta(2, 5, 20_000), 2)
    y = (rng.uniform(size=s.size) < s).astype(float)
    w = rng.exponential(size=s.size)
    for weights in (None, w):
        cut, bound = ScoreStatistics.from_arrays(s, y, weights).quantile_bins(bins)
        value = ece_from_bins(cut)
        assert abs(value - locacal.ece(s, y, weights=weights, bins=bins)) <= bound + 1e-12


def test_quantile_bins_small_sample_by_hand():
    """Four rows in four distinct cells, two bins: the break 0.45 lies between rows 2 and
    3, so the cells cut exactly as the in-memory bins (bound 0)."""
    s = np.array([0.1, 0.3, 0.6, 0.8])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    stats, bound = ScoreStatistics.from_arrays(s, y).quantile_bins(2)
    assert bound == 0.0
    np.testing.assert_array_equal(stats.count, [2.0, 2.0])
    np.testing.assert_allclose(stats.label_sum, [1.0, 2.0])
    # ECE = (2 |0.5 - 0.2| + 2 |1 - 0.7|) / 4 = 0.3
    assert ece_from_bins(stats) == pytest.approx(0.3, 1e-15)
