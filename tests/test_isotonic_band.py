"""The honest simultaneous band of isotonic regression (Dimitriadis et al. 2023;
locacal/curves/monotone.py).

Independent checks: each window's bound is statsmodels' Clopper-Pearson interval; the band
equals a brute-force maximum/minimum over every window written from the definition (distinct
scores and rounded cells); the per-window bound holds for Poisson-binomial sums, computed
exactly by convolution; one cell and two cells by hand; frequency weights equal the expanded
rows; invariances (hypothesis); a small seeded coverage simulation (the full study:
benchmarks/coverage_simultaneous.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from scipy.stats import beta, binom
from statsmodels.stats.proportion import proportion_confint

import locacal
from locacal import calibration_curve
from locacal.curves.monotone import MAX_CELLS, monotone_band, window_level
from locacal.curves.simultaneous import RANGE

#: The honest band through the curve (the default simultaneous band of isotonic regression
#: is the calibrated one, tests/test_isotonic_calibrated_band.py).
HONEST = {"method": "isotonic", "band": "simultaneous", "simultaneous": "honest"}


def _cp(events, n, delta):
    """statsmodels' two-sided Clopper-Pearson interval at alpha = 2 delta: delta per side;
    the bounds at S = 0 / S = n are 0 / 1."""
    events, n = np.asarray(events, float), np.asarray(n, float)
    lo, hi = proportion_confint(events, n, alpha=2 * delta, method="beta")
    return np.where(events == 0, 0.0, lo), np.where(events == n, 1.0, hi)


def _brute_force(keys, scores, labels, level, points):
    """The band from its definition: every window of consecutive cells (cells: rows of
    equal ``keys``), its Clopper-Pearson bounds, the max / min over the windows entirely
    below / above each point."""
    order = np.argsort(scores, kind="stable")
    keys, scores, labels = keys[order], scores[order], labels[order]
    cells = np.unique(keys)
    first = np.array([scores[keys == c].min() for c in cells])
    last = np.array([scores[keys == c].max() for c in cells])
    n = np.array([np.sum(keys == c) for c in cells], float)
    e = np.array([labels[keys == c].sum() for c in cells], float)
    m = cells.size
    delta = -math.expm1(-(1 - level) / (m * (m + 1)))
    lower = np.zeros(points.size)
    upper = np.ones(points.size)
    for j in range(m):
        for k in range(j, m):
            lo, hi = _cp(e[j:k + 1].sum(), n[j:k + 1].sum(), delta)
            lower = np.where(points >= last[k], np.maximum(lower, lo), lower)
            upper = np.where(points <= first[j], np.minimum(upper, hi), upper)
    return lower, upper


def _sample(n, seed, g=lambda s: s, a=2.0, b=3.0, decimals=None):
    rng = np.random.default_rng(seed)
    s = rng.beta(a, b, size=n)
    if decimals is not None:
        s = np.round(s, decimals)
    return s, (rng.uniform(size=n) < g(s)).astype(int)


# -- the construction, checked from its definition -------------------------------------------


def test_one_cell_is_clopper_pearson_at_the_window_level():
    """All scores equal: one window (K = 1), so the band is the Clopper-Pearson interval at
    delta = 1 - exp(-alpha / 2) per side, at every point (0 / 1 beyond the score)."""
    s = np.full(40, 0.3)
    d = np.r_[np.ones(11), np.zeros(29)]
    band = monotone_band(s, d, 0.9)
    delta = -math.expm1(-0.1 / 2)
    assert band.windows == 1 and band.delta == pytest.approx(delta, rel=1e-15)
    lo, hi = _cp(11, 40, delta)
    # the Beta quantiles by hand as well: B^-1(delta; 11, 30) and B^-1(1 - delta; 12, 29)
    assert lo == pytest.approx(beta.ppf(delta, 11, 30), rel=1e-10)
    assert hi == pytest.approx(beta.ppf(1 - delta, 12, 29), rel=1e-10)
    lower, upper = band(np.array([0.1, 0.3, 0.5]))
    np.testing.assert_allclose(lower, [0.0, lo, lo], rtol=1e-10)
    np.testing.assert_allclose(upper, [hi, hi, 1.0], rtol=1e-10)
    curve = calibration_curve(s, d, **HONEST, level=0.9,
                              grid=[0.3])
    np.testing.assert_allclose([curve.lower[0], curve.upper[0]], [lo, hi], rtol=1e-10)


def test_two_cells_by_hand():
    """Scores 0.2 (12 rows, 3 events) and 0.6 (8 rows, 7 events): K = 3 windows."""
    s = np.r_[np.full(12, 0.2), np.full(8, 0.6)]
    d = np.r_[np.ones(3), np.zeros(9), np.ones(7), np.zeros(1)]
    band = monotone_band(s, d, 0.95)
    delta = -math.expm1(-0.05 / 6)
    lo1, hi1 = beta.ppf(delta, 3, 10), beta.ppf(1 - delta, 4, 9)
    lo2, hi2 = beta.ppf(delta, 7, 2), beta.ppf(1 - delta, 8, 1)
    lo12, hi12 = beta.ppf(delta, 10, 11), beta.ppf(1 - delta, 11, 10)
    lower, upper = band(np.array([0.1, 0.2, 0.4, 0.6, 0.9]))
    np.testing.assert_allclose(lower, [0, lo1, lo1, max(lo1, lo2, lo12), max(lo1, lo2, lo12)],
                               rtol=1e-9)
    np.testing.assert_allclose(upper, [min(hi1, hi2, hi12), min(hi1, hi2, hi12), hi2, hi2, 1],
                               rtol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_band_equals_the_brute_force_over_all_windows(seed):
    """Distinct scores (at most MAX_CELLS): every window of consecutive distinct scores."""
    s, d = _sample(70, seed, decimals=2 if seed % 2 else None)
    band = monotone_band(s, d, 0.9)
    assert not band.rounded
    points = np.sort(np.r_[np.linspace(0, 1, 41), s[:15]])
    want = _brute_force(s, s, d, 0.9, points)
    got = band(points)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)


def test_rounded_cells_equal_the_brute_force_over_their_windows():
    """More than MAX_CELLS distinct scores: cells floor(1000 s), windows of cells; the
    scores here fill about 120 cells, so the brute force stays small."""
    rng = np.random.default_rng(5)
    s = rng.uniform(0.30, 0.42, size=MAX_CELLS + 500)
    d = (rng.uniform(size=s.size) < s).astype(int)
    band = monotone_band(s, d, 0.95)
    assert band.rounded
    keys = np.floor(s * 1000)
    m = np.unique(keys).size
    assert band.windows == m * (m + 1) // 2
    points = np.linspace(0.29, 0.43, 57)
    want = _brute_force(keys, s, d, 0.95, points)
    got = band(points)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)


def _poisson_binomial(p):
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1.0 - q, q])
    return pmf


def test_hoeffding_tail_comparison_used_by_the_proof():
    """The step of the proof (locacal/curves/monotone.py): for a Poisson-binomial S with
    mean probability p, P(S >= m) <= P(Bin(n, p) >= m) whenever m >= n p + 1 (Hoeffding
    1956), checked exactly on random probability vectors, small n p included."""
    rng = np.random.default_rng(1)
    for it in range(1500):
        n = int(rng.integers(1, 20))
        p = rng.uniform(size=n) ** rng.uniform(0.2, 10)
        if it % 3 == 0:  # n p below 1
            p = p * rng.uniform(0, 1) / n / p.mean()
        tail = _poisson_binomial(p)[::-1].cumsum()[::-1]  # P(S >= m), m = 0..n
        for m in range(n + 1):
            if m >= n * p.mean() + 1:
                assert tail[m] <= binom.sf(m - 1, n, p.mean()) * (1 + 1e-9) + 1e-300


def test_window_bound_holds_for_unequal_probabilities():
    """The failure probability of each one-sided bound for the *mean* probability of a
    Poisson-binomial sum (exact, by convolution) is at most -log(1 - delta), the level the
    union bound uses (window_level). It can exceed delta itself: with the mass on one
    observation the plain Clopper-Pearson bound fails up to ~1.10 delta at delta = 0.2
    (measured here), which is why delta = 1 - exp(-alpha / 2K) rather than alpha / 2K."""
    rng = np.random.default_rng(0)
    above_delta = 0
    for delta in (0.2, 0.05, 0.01, 1e-4):
        for it in range(600):
            n = int(rng.integers(1, 25))
            if it % 3 == 0:
                p = rng.uniform(size=n)
            elif it % 3 == 1:  # all the probability on one observation
                p = np.zeros(n)
                p[-1] = rng.uniform()
            else:
                p = rng.uniform(size=n) ** rng.uniform(1, 8)
            pmf, k = _poisson_binomial(p), np.arange(n + 1)
            lo, hi = _cp(k, n, delta)
            fail = max(pmf[lo > p.mean()].sum(), pmf[hi < p.mean()].sum())
            assert fail <= -math.log1p(-delta) * (1 + 1e-9)
            above_delta += fail > delta
    assert above_delta > 0  # the m = 1 case of the proof does occur
    assert window_level(0.95, 10) == pytest.approx(-math.expm1(-0.05 / 20), rel=1e-15)


# -- the curve's band -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return _sample(1500, 7, g=lambda s: s ** 1.3)


def test_curve_band_is_monotone_holds_the_estimate_and_lives_on_the_5_95_range(data):
    s, d = data
    curve = calibration_curve(s, d, **HONEST)
    lo, hi = np.quantile(s, RANGE)
    inside = (curve.grid >= lo) & (curve.grid <= hi)
    ok = ~np.isnan(curve.lower)
    assert np.array_equal(ok, inside) and ok.sum() >= 50
    lower, upper, est = curve.lower[ok], curve.upper[ok], curve.estimate[ok]
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) >= 0)
    assert np.all((0 <= lower) & (lower <= est) & (est <= upper) & (upper <= 1))
    # the raw band (before it is widened to hold the estimate) at the same points
    raw_lower, raw_upper = monotone_band(s, d, 0.95)(curve.grid[ok])
    np.testing.assert_array_equal(lower, np.minimum(raw_lower, est))
    np.testing.assert_array_equal(upper, np.maximum(raw_upper, est))
    assert np.mean((raw_lower <= est) & (est <= raw_upper)) > 0.9
    # a lower level gives a band inside this one
    narrow = calibration_curve(s, d, **HONEST, level=0.8)
    assert np.all(narrow.lower[ok] >= lower) and np.all(narrow.upper[ok] <= upper)
    assert np.mean(narrow.upper[ok] - narrow.lower[ok]) < np.mean(upper - lower)
    # linear interpolation: the same raw band, widened around the other estimate
    linear = calibration_curve(s, d, **HONEST, interpolation="linear")
    np.testing.assert_array_equal(linear.lower[ok], np.minimum(raw_lower,
                                                               linear.estimate[ok]))


def test_frequency_weights_equal_the_expanded_rows(data):
    s, d = data
    f = np.random.default_rng(3).integers(0, 4, size=s.size)
    grouped = calibration_curve(s, d, **HONEST, frequency_weights=f)
    expanded = calibration_curve(np.repeat(s, f), np.repeat(d, f), **HONEST,
                                 grid=grouped.grid)
    np.testing.assert_array_equal(grouped.lower, expanded.lower)
    np.testing.assert_array_equal(grouped.upper, expanded.upper)
    np.testing.assert_array_equal(grouped.estimate, expanded.estimate)


def test_relative_weights_are_refused_and_constant_weights_are_none(data):
    s, d = data
    w = np.random.default_rng(4).uniform(0.5, 2.0, size=s.size)
    with pytest.raises(ValueError, match="no relative weights"):
        calibration_curve(s, d, **HONEST, weights=w)
    with pytest.raises(ValueError, match="no relative weights"):
        calibration_curve(s, d, **HONEST, weights=w,
                          frequency_weights=np.ones(s.size))
    with pytest.raises(ValueError, match="no relative weights"):
        locacal.IsotonicCalibrator(simultaneous="honest").fit(s, d, sample_weight=w).curve(
            band="simultaneous")
    plain = calibration_curve(s, d, **HONEST)
    constant = calibration_curve(s, d, **HONEST,
                                 weights=np.full(s.size, 2.5))
    np.testing.assert_array_equal(plain.lower, constant.lower)
    np.testing.assert_array_equal(plain.upper, constant.upper)
    # the other bands still take weights
    calibration_curve(s, d, method="isotonic", band=None, weights=w)


def test_band_ignores_seed_and_critical(data):
    s, d = data
    a = calibration_curve(s, d, **HONEST, seed=1)
    b = calibration_curve(s, d, **HONEST, seed=2,
                          critical="tube")
    np.testing.assert_array_equal(a.lower, b.lower)
    np.testing.assert_array_equal(a.upper, b.upper)


# -- invariances --------------------------------------------------------------------------


_rows = st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=2, max_size=60)


@settings(max_examples=40, deadline=None)
@given(rows=_rows, seed=st.integers(0, 2 ** 16))
def test_permutation_of_rows_changes_nothing(rows, seed):
    s = np.array([r[0] for r in rows]) / 40.0
    d = np.array([r[1] for r in rows], dtype=int)
    perm = np.random.default_rng(seed).permutation(s.size)
    points = np.linspace(0, 1, 23)
    a, b = monotone_band(s, d, 0.9)(points), monotone_band(s[perm], d[perm], 0.9)(points)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@settings(max_examples=40, deadline=None)
@given(rows=_rows)
def test_mirror_symmetry(rows):
    """Scores 1 - s and labels 1 - d: the mirror image, lower'(1 - t) = 1 - upper(t)."""
    s = np.array([r[0] for r in rows]) / 40.0
    d = np.array([r[1] for r in rows], dtype=int)
    points = np.arange(41) / 40.0  # 1 - points and 1 - s round alike
    lower, upper = monotone_band(s, d, 0.9)(points)
    m_lower, m_upper = monotone_band(1 - s, 1 - d, 0.9)(1 - points)
    np.testing.assert_allclose(m_lower, 1 - upper, atol=1e-12)
    np.testing.assert_allclose(m_upper, 1 - lower, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(rows=_rows, level=st.sampled_from([0.5, 0.8, 0.95, 0.99]))
def test_bounds_are_monotone_ordered_in_level_and_hold_each_cell_mean(rows, level):
    s = np.array([r[0] for r in rows]) / 40.0
    d = np.array([r[1] for r in rows], dtype=int)
    points = np.linspace(0, 1, 81)
    lower, upper = monotone_band(s, d, level)(points)
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) >= 0)
    assert np.all((lower >= 0) & (upper <= 1))
    wider = monotone_band(s, d, min(level + 0.005, 0.999))(points)
    assert np.all(wider[0] <= lower) and np.all(wider[1] >= upper)
    # a window's bound never passes its own proportion: at each distinct score, the lower
    # bound is at most the largest mean of the windows ending there or before
    for t in np.unique(s):
        means = [d[(s >= a) & (s <= t)].mean() for a in np.unique(s[s <= t])]
        assert monotone_band(s, d, level)(np.array([t]))[0][0] <= max(means) + 1e-12


# -- coverage (the full study: benchmarks/coverage_simultaneous.py) ---------------------------


def test_seeded_coverage():
    """40 samples of n = 300 on three monotone maps (calibrated Beta(2, 3) scores; an
    over-confident logistic map; g(s) = s^1.5 on skewed Beta(0.7, 1.5) scores): joint
    coverage of g on all of [0, 1] (where the guarantee holds; the curve's band is this
    band on a subset of points, widened). The guarantee is >= 0.95 for every n; the band is
    conservative and covered in all 120 samples here, so >= 0.95 is asked of each map (a
    true coverage of 0.95 would pass with probability 0.68: the test catches a coverage well
    below the guarantee, not a small slip; the study with its MC s.e. is
    benchmarks/coverage_simultaneous.py)."""
    maps = {
        "calibrated": (2.0, 3.0, lambda p: p),
        "over": (2.0, 3.0, lambda p: expit(logit(p) / 2)),
        "convex": (0.7, 1.5, lambda p: p ** 1.5),
    }
    t = np.linspace(0, 1, 201)
    for name, (a, b, g) in maps.items():
        hits = 0
        for r in range(40):
            s, d = _sample(300, 2000 + r, g=g, a=a, b=b)
            lower, upper = monotone_band(s, d, 0.95)(t)
            hits += np.all((lower <= g(t)) & (g(t) <= upper))
        assert hits / 40 >= 0.95, name
