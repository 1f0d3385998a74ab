"""The native locfit tree's vertex cap: a bandwidth tiny next to the score range raises a
ValueError naming it, instead of growing ~1e9 vertices (memory of the machine)."""

from __future__ import annotations

import numpy as np
import pytest

import locacal
from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams
from locacal.localfit._tree import (
    TREE_VERTEX_FLOOR,
    build_tree,
    locfit_tree_would_crash,
    tree_vertex_cap,
    vertex_budget,
)


def _data(n: int = 2000, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s).astype(float)


def test_tiny_fixed_bandwidth_raises_naming_the_bandwidth():
    s, d = _data()
    with pytest.raises(ValueError, match=r"nn=None, h=1e-09.*larger h or nn"):
        locacal.calibration_curve(s, d, method="local", nn=None, h=1e-9, evaluation="locfit")


@pytest.mark.parametrize(("h", "vertices"), [(1e-3, 2049), (1e-4, 16385)])
def test_small_but_sensible_fixed_bandwidths_stay_under_the_cap(h, vertices):
    # a fixed h alone needs about 1.6 / h vertices on [0, 1] (counts measured); the cap
    # leaves h down to ~2e-5
    s, d = _data()
    tree = build_tree(sort_sample(s, d, None), LocalParams(0, None, h, "rect"))
    assert tree.vertices.size == vertices < tree_vertex_cap(None, 0.8)


def test_cap_is_ten_times_locfits_budget_or_the_floor():
    assert tree_vertex_cap(0.15, 0.8) == TREE_VERTEX_FLOOR == 100_000
    # atree_guessnv at nn = 0.001, maxk = 200: int((5 / 0.001 / 0.8 + 1) * 2) * 2 = 25,004
    assert tree_vertex_cap(1e-3, 0.8) == 10 * vertex_budget(1e-3, 0.8, 200) == 250_040


def test_heavily_tied_scores_stay_under_the_cap():
    # 6 values each holding 16 % of n (>= k at nn = 0.15): the tree refines to float64
    # resolution at each of them (where R would crash), well inside the cap
    rng = np.random.default_rng(2)
    s = np.sort(rng.choice(rng.uniform(size=6), size=3000))
    s = np.concatenate([s, rng.uniform(size=120)])
    d = (rng.uniform(size=s.size) < s).astype(float)
    tree = build_tree(sort_sample(s, d, None), LocalParams(0, 0.15, None, "rect"))
    assert len(tree.unsplittable) > 0
    assert tree.vertices.size < tree_vertex_cap(0.15, 0.8) / 50


def test_crash_predictor_names_a_tiny_bandwidth():
    # k = floor(100 * 0.005) = 0 leaves only h = 1e-9: the explanation must not grow the
    # (unbounded) tree to find a tie
    s, _ = _data(100)
    reason = locfit_tree_would_crash(s, nn=0.005, h=1e-9)
    assert reason is not None and "bandwidth (nn=0.005, h=1e-09) is tiny" in reason
