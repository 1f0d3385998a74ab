"""locfit's adaptive evaluation tree in Python: tied scores, the crash and its predictor.

Bit-for-bit parity of the tree's predictions with R on continuous scores is in
test_local_parity_r.py; here: tied scores (R's numbers committed in tests/reference/local_tree/,
re-run by tests/test_r_references.py), the crash condition (with R in a subprocess, which
catches the segfault as a failed run), and the native tree's defined answer where R would
crash.
"""

from __future__ import annotations

import numpy as np
import pytest

from locacal._validation import CalibrationWarning
from locacal.curves import calibration_curve
from locacal.curves.curve import slides_grid
from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams
from locacal.localfit._tree import (
    build_tree,
    locfit_tree_would_crash,
    stack_depth_limit,
    vertex_budget,
)
from tests.rhelpers import run_r
from tests.rreference import r_reference

R_FIT = """
library(locfit)
fit <- locfit(d ~ lp(s, nn = nnv, deg = dg), kern = "rect", maxk = mk)
out <- list(nv = length(fit$eva$xev), pred = predict(fit, newdata = pts))
"""


def _tied_at_half(copies: int, n: int = 1000, seed: int = 1):
    """n scores with ``copies`` of them at 0.5 (a vertex of the tree: midpoint of [0, 1])."""
    rng = np.random.default_rng(seed)
    s = np.concatenate([[0.0, 1.0], np.full(copies, 0.5), rng.uniform(size=n - 2 - copies)])
    d = (rng.uniform(size=n) < s).astype(float)
    return s, d


def _crowded_near_zero(exponent: float, n: int = 1000, seed: int = 3):
    """No ties, but 150 scores within [a, 1.5 a] of a score 0: the tree's depth is about
    log2(1 / a) (finite)."""
    rng = np.random.default_rng(seed)
    a = 10.0 ** exponent
    s = np.concatenate([[0.0], a * (1 + 0.5 * rng.uniform(size=150)),
                        rng.uniform(0.01, 1, size=n - 151)])
    d = (rng.uniform(size=n) < 0.5).astype(float)
    return s, d


# ----------------------------------------------------------------- predictor, no R


def test_tie_just_above_k_is_predicted_to_crash():
    s, _ = _tied_at_half(151)  # 15.1 % of n at nn = 0.15: k = 150
    reason = locfit_tree_would_crash(s, nn=0.15)
    assert reason is not None
    assert "0.5" in reason and "151 tied copies" in reason and "k = floor(n * nn) = 150" in reason


def test_tie_just_below_k_is_safe():
    s, _ = _tied_at_half(149)
    assert locfit_tree_would_crash(s, nn=0.15) is None


def test_tie_away_from_dyadic_vertices_still_crashes():
    """Bisection closes in on any value with >= k copies until a vertex lands on it."""
    rng = np.random.default_rng(4)
    s = np.concatenate([np.full(200, 0.3141592653589793), rng.uniform(size=800)])
    assert "0.3141592653589793" in locfit_tree_would_crash(s, nn=0.15)


def test_fixed_bandwidth_prevents_the_crash():
    s, _ = _tied_at_half(400)
    assert locfit_tree_would_crash(s, nn=0.15, h=0.01) is None


def test_exact_zeros_crash_when_numerous():
    rng = np.random.default_rng(5)
    s = np.concatenate([np.zeros(200), rng.uniform(size=800)])
    assert "0.0" in locfit_tree_would_crash(s, nn=0.15)
    s[:140] = rng.uniform(size=140)
    assert locfit_tree_would_crash(s, nn=0.15) is None


def test_vertex_budget_is_locfits():
    # atree_guessnv: (int)((5 / nn / cut + 1) * 2) * maxk / 100; the R debug output of the
    # 150-copies example prints "nvm 170".
    assert vertex_budget(0.15, 0.8, 200) == 170
    assert vertex_budget(0.15, 0.8, 100) == 85
    assert vertex_budget(None, 0.8, 100) == 204
    assert stack_depth_limit(8 * 1024 * 1024) == 63


# ----------------------------------------------------------------- the native tree


def test_native_tree_is_finite_where_r_crashes():
    s, d = _tied_at_half(300)
    sample = sort_sample(s, d, None)
    tree = build_tree(sample, LocalParams(0, 0.15, None, "rect"))
    assert tree.unsplittable  # where locfit would loop
    assert len(tree.vertices) < 400
    at_tie = tree(np.array([0.5]))[0]
    assert at_tie == pytest.approx(d[2:302].mean(), abs=1e-14)
    again = build_tree(sample, LocalParams(0, 0.15, None, "rect"))
    np.testing.assert_array_equal(tree(slides_grid(s)), again(slides_grid(s)))
    assert np.isfinite(tree(np.linspace(0, 1, 1001))).all()


@pytest.mark.parametrize("degree", [0, 1, 2])
def test_curve_warns_where_r_would_crash(degree):
    s, d = _tied_at_half(300)
    with pytest.warns(CalibrationWarning, match="forever"):
        curve = calibration_curve(s, d, method="local", degree=degree, evaluation="locfit")
    assert np.isfinite(curve.estimate).all()


# ----------------------------------------------------------------- with R

def _just_below_k_inputs():
    s, d = _tied_at_half(149)
    return {"s": s, "d": d, "pts": slides_grid(s), "nnv": np.array([0.15]),
            "dg": np.array([0.0]), "mk": np.array([200.0])}


R_JUST_BELOW_K = r_reference("local_tree/tied_149_copies", R_FIT, _just_below_k_inputs)


@pytest.mark.parametrize(("copies", "maxk", "outcome"),
                         [(149, 200, None),  # committed R reference: runs without R
                          pytest.param(151, 200, "segfault", marks=pytest.mark.r),
                          pytest.param(151, 100, "out of vertex space", marks=pytest.mark.r)])
def test_crash_condition_confirmed_by_r(copies, maxk, outcome):
    s, d = _tied_at_half(copies)
    reason = locfit_tree_would_crash(s, nn=0.15, maxk=maxk)
    pts = slides_grid(s)
    if outcome is None:
        assert reason is None
        arrays, ref = R_JUST_BELOW_K.inputs_and_output()
        assert arrays["mk"][0] == maxk
        tree = build_tree(sort_sample(arrays["s"], arrays["d"], None),
                          LocalParams(0, 0.15, None, "rect"))
        assert len(tree.vertices) == ref["nv"][0]
        np.testing.assert_allclose(tree(arrays["pts"]), ref["pred"], atol=1e-12)
        return
    assert reason is not None and ("stack" if outcome == "segfault" else "vertex") in reason
    with pytest.raises(RuntimeError, match=outcome):
        run_r(R_FIT, s=s, d=d, pts=pts, nnv=np.array([0.15]), dg=np.array([0.0]),
              mk=np.array([float(maxk)]), timeout=120)


@pytest.mark.r
@pytest.mark.parametrize(("exponent", "crashes"), [(-17.5, False), (-18.5, True)])
def test_deep_tree_without_ties_confirmed_by_r(exponent, crashes):
    """Scores crowded within 1e-18 of another make a finite tree deeper than the C stack
    allows (depth 64 crashes R with an 8 MiB stack, depth 63 does not)."""
    s, d = _crowded_near_zero(exponent)
    reason = locfit_tree_would_crash(s, nn=0.15, stack_bytes=8 * 1024 * 1024)
    assert (reason is not None) == crashes
    call = lambda: run_r(R_FIT, s=s, d=d, pts=np.array([0.5]),  # noqa: E731
                         nnv=np.array([0.15]), dg=np.array([0.0]), mk=np.array([200.0]),
                         timeout=120)
    if crashes:
        assert "no tied value" in reason
        with pytest.raises(RuntimeError, match="segfault"):
            call()
    else:
        call()


def _tree_leaves_with_ties():
    rng = np.random.default_rng(6)
    leaves = np.sort(rng.uniform(size=20))
    s = leaves[rng.integers(0, 20, size=1000)]
    s[:60], s[60:100] = 0.0, 1.0
    d = (rng.uniform(size=1000) < s).astype(float)
    pts = np.concatenate([slides_grid(s), leaves, rng.uniform(size=50)])
    return s, d, pts


def _tied_r_inputs(degree):
    s, d, pts = _tree_leaves_with_ties()
    sample = sort_sample(s, d, None)
    return {"s": sample.scores, "d": sample.labels.astype(float), "pts": pts,
            "dg": np.array([float(degree)])}


R_TIED = {degree: r_reference(f"local_tree/tied_leaves_degree{degree}", """
library(locfit)
out <- list()
for (nnv in c(0.15, 0.5)) out[[paste0("nn", nnv)]] <- predict(locfit(d ~ lp(s, nn = nnv,
  deg = dg), kern = "rect", maxk = 200), newdata = pts)
""", lambda degree=degree: _tied_r_inputs(degree)) for degree in (0, 1, 2)}


@pytest.mark.parametrize("degree", [0, 1, 2])
def test_tree_on_tied_scores_matches_r(degree):
    """Decision-tree-like scores (20 leaves, each < 15 % of n) and exact 0/1 ties: locfit
    finishes, and the native tree agrees with predict() (measured: bit for bit)."""
    arrays, ref = R_TIED[degree].inputs_and_output()
    s, pts = arrays["s"], arrays["pts"]
    for nn in (0.15, 0.5):
        assert locfit_tree_would_crash(s, nn=nn) is None
    sample = sort_sample(s, arrays["d"], None)
    for nn in (0.15, 0.5):
        tree = build_tree(sample, LocalParams(degree, nn, None, "rect"))
        np.testing.assert_allclose(tree(pts), ref[f"nn{nn:g}"], atol=1e-12)
