"""Parity of the native engine with R's locfit 1.5-9.7.

R's numbers are committed in tests/reference/local_parity_r/ (see tests/rreference.py);
tests/test_r_references.py re-runs R (``Rscript``) to prove them.

Exact evaluation in R: ``predict(locfit(..., ev = points), where = "fitp")`` (``ev`` given
as a numeric vector makes locfit fit at exactly those points; ``predict`` at ``newdata``
would fail for that structure). locfit is given the data sorted by score, as the native
engine sorts it: locfit then uses its one-dimensional neighbourhood search (``nbhd1``) and
sums in the same order. With unsorted input it sums in input order, and its eigen-solver
turns that rounding into ~1e-10 differences in degree 2 (see test_unsorted_input_to_r).

Tolerances, each next to the measurement behind it (n = 500, 82 points; R 4.2.2, x86-64):

* exact evaluation: max |native - R| <= 2.3e-15 over every dataset x weights x kernel x
  degree x nn below -> asserted at 1e-12;
* the tree (default ``predict``): bit-for-bit equal except the rectangular degree-0 fits,
  which differ by <= 3.1e-15 (summation order) -> 1e-12.

Points where a compact kernel gives every window score weight 0 (tied scores exactly at
distance h) are excluded: locfit warns "no points with non-zero weight" and returns the
previous point's coefficients there (undefined); the native engine uses uniform weights.
"""

from __future__ import annotations

import numpy as np
import pytest

from locacal.curves.curve import slides_grid
from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams, fit_points
from locacal.localfit._tree import build_tree
from locacal.localfit._window import fixed_or_nn_bandwidth, nn_count
from tests.rreference import r_reference

R_KERNELS = {"rect": "rect", "tricube": "tcub", "gauss": "gauss", "epan": "epan"}
NN = (0.05, 0.15, 0.5, 1.0)
TOL = 1e-12

R_EXACT = """
library(locfit)
kerns <- c("rect", "tcub", "gauss", "epan")
dat <- data.frame(s = s, d = d, w = if (length(w) > 1) w else rep(1, length(s)))
out <- list()
for (ki in seq_along(kerns)) for (dg in 0:2) for (nnv in nnvals) {
  fit <- suppressWarnings(locfit(d ~ lp(s, nn = nnv, deg = dg), data = dat, weights = w,
                                 kern = kerns[ki], ev = pts))
  out[[sprintf("%s_%d_%g", kerns[ki], dg, nnv)]] <- predict(fit, where = "fitp")
}
"""

R_TREE = """
library(locfit)
kerns <- c("rect", "tcub")
dat <- data.frame(s = s, d = d, w = if (length(w) > 1) w else rep(1, length(s)))
out <- list()
for (ki in seq_along(kerns)) for (dg in 0:2) for (nnv in nnvals) {
  fit <- locfit(d ~ lp(s, nn = nnv, deg = dg), data = dat, weights = w, kern = kerns[ki],
                maxk = 200)
  out[[sprintf("%s_%d_%g", kerns[ki], dg, nnv)]] <- predict(fit, newdata = pts)
}
"""


def _datasets():
    rng = np.random.default_rng(1)
    n = 500
    cont = rng.uniform(size=n)
    d_cont = (rng.uniform(size=n) < cont).astype(float)
    leaves = np.sort(rng.uniform(size=20))
    tree = leaves[rng.integers(0, 20, size=n)]  # decision-tree-like: 20 distinct scores
    d_tree = (rng.uniform(size=n) < tree).astype(float)
    edges = cont.copy()
    edges[:40], edges[40:70] = 0.0, 1.0  # exact 0 and 1
    pts = np.concatenate([np.linspace(0, 1, 41), rng.uniform(size=20), leaves])
    weights = rng.exponential(size=n)
    return {"continuous": (cont, d_cont), "tied": (tree, d_tree),
            "zeros_ones": (edges, d_cont)}, pts, weights


DATA, POINTS, WEIGHTS = _datasets()


def _r_args(sample):
    w = sample.weights if sample.weights is not None else np.array([0.0])
    return {"s": sample.scores, "d": sample.labels.astype(float), "w": w}


def _r_sample(arrays):
    """The sorted sample of a reference's stored inputs (``w = 0``: unweighted)."""
    w = arrays["w"] if arrays["w"].size > 1 else None
    return sort_sample(arrays["s"], arrays["d"], w)


def _weighting(weighted):
    return "weighted" if weighted else "unweighted"


def _exact_sample(name, weighted):
    s, d = DATA[name]
    return sort_sample(s, d, WEIGHTS if weighted else None)


R_EXACT_REFS = {(name, weighted): r_reference(
    f"local_parity_r/exact_{name}_{_weighting(weighted)}", R_EXACT,
    lambda name=name, weighted=weighted: {"pts": POINTS, "nnvals": np.array(NN),
                                          **_r_args(_exact_sample(name, weighted))})
    for name in DATA for weighted in (False, True)}

TREE_NN = (0.05, 0.15, 0.5)


def _tree_case(n, weighted):
    """Scores and labels made by bit-stable operations only, so that the 5,000-row references
    need not store them (tests/rreference.py): Beta(2, 5), the second smallest of six
    uniforms, and labels with P(D = 1 | s) = s. Weights and points are stored."""
    rng = np.random.default_rng(n)
    s = np.sort(rng.random((n, 6)), axis=1)[:, 1]
    d = (rng.random(n) < s).astype(float)
    w = rng.exponential(size=n) if weighted else None
    sample = sort_sample(s, d, w)
    pts = np.concatenate([slides_grid(s), np.linspace(0, 1, 100), rng.uniform(size=50)])
    return sample, pts


R_TREE_REFS = {(n, weighted): r_reference(
    f"local_parity_r/tree_n{n}_{_weighting(weighted)}", R_TREE,
    lambda n=n, weighted=weighted: {"pts": _tree_case(n, weighted)[1],
                                    "nnvals": np.array(TREE_NN),
                                    **_r_args(_tree_case(n, weighted)[0])},
    stable=("s", "d"))
    for n in (200, 1000, 5000) for weighted in (False, True)}


def _undefined_in_r(sample, pts, nn, kernel):
    """Points where every window score sits exactly at distance h (compact kernels)."""
    if kernel not in ("tricube", "epan"):
        return np.zeros(pts.size, dtype=bool)
    s = sample.scores
    h = fixed_or_nn_bandwidth(s, pts, nn_count(s.size, nn), None)
    return np.array([h[j] > 0 and not np.any(np.abs(s - pts[j]) < h[j])
                     for j in range(pts.size)])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", list(DATA))
def test_exact_evaluation_matches_locfit(name, weighted):
    arrays, ref = R_EXACT_REFS[name, weighted].inputs_and_output()
    sample, pts = _r_sample(arrays), arrays["pts"]
    worst = 0.0
    for kernel, rname in R_KERNELS.items():
        for degree in (0, 1, 2):
            for nn in NN:
                got = fit_points(sample, pts, LocalParams(degree, nn, None, kernel)).value
                want = ref[f"{rname}_{degree}_{nn:g}"]
                keep = ~_undefined_in_r(sample, pts, nn, kernel)
                err = np.max(np.abs(got[keep] - want[keep]))
                assert err <= TOL, (kernel, degree, nn, err)
                worst = max(worst, err)
    assert worst <= TOL


def test_undefined_points_are_really_undefined_in_r():
    """The excluded points exist in the tied dataset (so the exclusion is not vacuous) and
    R's value there is not the uniform-weight answer."""
    s, d = DATA["tied"]
    sample = sort_sample(s, d, None)
    mask = _undefined_in_r(sample, POINTS, 0.05, "tricube")
    assert mask.any()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("n", [200, 1000, 5000])
def test_tree_evaluation_matches_locfit_predict(n, weighted):
    arrays, ref = R_TREE_REFS[n, weighted].inputs_and_output()
    sample, pts = _r_sample(arrays), arrays["pts"]
    for kernel in ("rect", "tricube"):
        for degree in (0, 1, 2):
            for nn in TREE_NN:
                tree = build_tree(sample, LocalParams(degree, nn, None, kernel))
                want = ref[f"{R_KERNELS[kernel]}_{degree}_{nn:g}"]
                err = np.max(np.abs(tree(pts) - want))
                assert err <= TOL, (kernel, degree, nn, err)


def test_tree_differs_from_exact_as_published():
    """Why the tree matters: on the slides' grid it moves the degree-0 curve by a few
    hundredths against exact evaluation (n = 1000, beta scores)."""
    rng = np.random.default_rng(7)
    s = rng.beta(2, 5, size=1000)
    d = (rng.uniform(size=1000) < s).astype(float)
    sample = sort_sample(s, d, None)
    grid = slides_grid(s)
    params = LocalParams(0, 0.15, None, "rect")
    gap = np.max(np.abs(build_tree(sample, params)(grid) - fit_points(sample, grid,
                                                                      params).value))
    assert gap > 0.005


def _zero_weight_sample():
    rng = np.random.default_rng(3)
    s = rng.uniform(size=100)
    d = (rng.uniform(size=100) < s).astype(float)
    w = rng.integers(0, 4, size=100).astype(float)
    return sort_sample(s, d, w)


R_ZERO_WEIGHTS = r_reference("local_parity_r/zero_weight_rows", """
library(locfit)
fit <- locfit(d ~ lp(s, nn = 0.3, deg = 0), weights = w, kern = "rect", ev = pts)
dup <- locfit(rep(d, w) ~ lp(rep(s, w), nn = 0.3, deg = 0), kern = "rect", ev = pts)
out <- list(w = predict(fit, where = "fitp"), dup = predict(dup, where = "fitp"))
""", lambda: {"pts": np.array([0.2, 0.5, 0.8]), **_r_args(_zero_weight_sample())})


def test_weights_count_rows_in_r_too():
    """locfit's k = floor(n nn) counts rows whatever their weights: zero-weight rows change
    the bandwidth, so the native rule (and R) differ from dropping those rows."""
    arrays, ref = R_ZERO_WEIGHTS.inputs_and_output()
    sample, pts = _r_sample(arrays), arrays["pts"]
    got = fit_points(sample, pts, LocalParams(0, 0.3, None, "rect")).value
    np.testing.assert_allclose(got, ref["w"], atol=TOL)
    assert np.max(np.abs(ref["w"] - ref["dup"])) > 1e-3


R_UNSORTED = r_reference("local_parity_r/unsorted_input", """
library(locfit)
out <- list()
for (dg in 0:2) out[[paste0("d", dg)]] <- predict(locfit(d ~ lp(s, nn = 0.15, deg = dg),
  kern = "rect", ev = pts), where = "fitp")
""", lambda: {"s": DATA["continuous"][0], "d": DATA["continuous"][1], "pts": POINTS})


def test_unsorted_input_to_r():
    """locfit sums in input order when the data are not sorted; degree 2 then moves by its
    solver's rounding amplification (measured 1.2e-10 here, 5.4e-10 on the tied scores),
    degrees 0-1 by ~1e-15."""
    arrays, ref = R_UNSORTED.inputs_and_output()
    sample = sort_sample(arrays["s"], arrays["d"], None)
    for degree, tol in ((0, 1e-13), (1, 1e-12), (2, 1e-7)):
        got = fit_points(sample, arrays["pts"], LocalParams(degree, 0.15, None, "rect")).value
        np.testing.assert_allclose(got, ref[f"d{degree}"], atol=tol)


R_FIXED_BANDWIDTH = r_reference("local_parity_r/fixed_bandwidth", """
library(locfit)
out <- list()
for (dg in 0:2) for (k in c("rect", "tcub")) {
  a <- locfit(d ~ lp(s, h = 0.05, deg = dg), kern = k, ev = pts)
  b <- locfit(d ~ lp(s, nn = 0.1, h = 0.05, deg = dg), kern = k, ev = pts)
  tr <- locfit(d ~ lp(s, h = 0.05, deg = dg), kern = k, maxk = 200)
  out[[paste0("h_", k, dg)]] <- predict(a, where = "fitp")
  out[[paste0("both_", k, dg)]] <- predict(b, where = "fitp")
  out[[paste0("tree_", k, dg)]] <- predict(tr, newdata = pts)
}
""", lambda: {"pts": POINTS, **_r_args(sort_sample(*DATA["continuous"], None))})


def test_fixed_bandwidth_alone_and_with_nn():
    """``lp(h = )`` alone is a fixed bandwidth; with ``nn`` locfit takes max(nn distance, h).
    Exact and tree evaluation, degrees 0-2 (measured: <= 2.3e-15)."""
    arrays, ref = R_FIXED_BANDWIDTH.inputs_and_output()
    sample, pts = _r_sample(arrays), arrays["pts"]
    for degree in (0, 1, 2):
        for kernel in ("rect", "tricube"):
            rk = f"{R_KERNELS[kernel]}{degree}"
            fixed = LocalParams(degree, None, 0.05, kernel)
            both = LocalParams(degree, 0.1, 0.05, kernel)
            np.testing.assert_allclose(fit_points(sample, pts, fixed).value, ref[f"h_{rk}"],
                                       atol=TOL)
            np.testing.assert_allclose(fit_points(sample, pts, both).value,
                                       ref[f"both_{rk}"], atol=TOL)
            np.testing.assert_allclose(build_tree(sample, fixed)(pts), ref[f"tree_{rk}"],
                                       atol=TOL)
