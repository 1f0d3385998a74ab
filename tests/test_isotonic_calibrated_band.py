"""The calibrated-level simultaneous band of isotonic regression, the default of
``band="simultaneous"`` for ``method="isotonic"`` (locacal/curves/calibrated_monotone.py).

Independent checks: the screened minimum p-value equals the brute-force minimum of the
binomial tails (scipy.stats.binom) over every window; the band equals the honest
construction's running max/min of Clopper-Pearson bounds (statsmodels) over every window of
its cells at the calibrated level; counts of one change nothing; the band is seeded; the
honest band stays selectable and unchanged; a small seeded coverage simulation at level 0.8
that the honest band's over-coverage fails and the calibrated band passes (the full study:
benchmarks/coverage_simultaneous.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

import locacal
from locacal import calibration_curve
from locacal.curves.calibrated_monotone import (
    CELLS,
    _min_pvalues,
    calibrated_monotone_band,
    equal_count_cells,
)
from locacal.curves.monotone import monotone_band, window_level
from locacal.curves.simultaneous import RANGE


def _sample(n, seed, g=lambda s: s, a=2.0, b=3.0):
    rng = np.random.default_rng(seed)
    s = rng.beta(a, b, size=n)
    return s, (rng.uniform(size=n) < g(s)).astype(int)


def test_screened_minimum_equals_the_brute_force_over_every_window():
    """_min_pvalues computes the Beta function only on the windows the Chernoff/Ash bounds
    leave; the minimum must equal the binomial upper tail minimised over all windows."""
    rng = np.random.default_rng(0)
    for _ in range(30):
        k = int(rng.integers(5, 60))
        n = rng.integers(1, 80, size=k).astype(float)
        theta = rng.uniform(0.01, 0.99, size=k)
        events = rng.binomial(n.astype(int), np.clip(theta * rng.uniform(0.8, 1.6, size=k),
                                                      0, 1), size=(7, k)).astype(float)
        want = np.min(binom.sf(events - 1, n, theta), axis=1)
        got = _min_pvalues(events, n, theta, float(n.sum()))
        # exact below 1/2; 1 stands for "no window above its truth" (every p >= 1/2)
        assert np.all((got < 0.5) | (got == 1.0))
        np.testing.assert_allclose(np.minimum(got, 0.5), np.minimum(want, 0.5), rtol=1e-9,
                                   atol=1e-300)


def test_theta_zero_and_one():
    n = np.array([5.0, 5.0, 5.0])
    theta = np.array([0.0, 1.0, 0.5])
    events = np.array([[1.0, 5.0, 2.0], [0.0, 5.0, 4.0], [0.0, 5.0, 2.0]])
    got = _min_pvalues(events, n, theta, 15.0)
    assert got[0] == 0.0  # an event where the truth is 0
    assert got[1] == pytest.approx(binom.sf(3, 5, 0.5), rel=1e-12)
    # no window above its truth: every p-value is at least 1/2 (the binomial median), and
    # the minimum is reported as 1 (the level is capped at 1/2)
    assert got[2] == 1.0 and binom.sf(1, 5, 0.5) >= 0.5


def test_cells_keep_ties_and_have_about_equal_counts():
    rng = np.random.default_rng(1)
    s = np.sort(np.round(rng.beta(2, 5, size=5000), 3))
    starts = equal_count_cells(s, np.ones(s.size), CELLS)
    assert starts.size <= CELLS and starts[0] == 0
    assert np.all(s[starts[1:]] != s[starts[1:] - 1])  # no tie split
    sizes = np.diff(np.append(starts, s.size))
    assert sizes.max() < 3 * s.size / CELLS
    few = np.sort(rng.uniform(size=50))
    np.testing.assert_array_equal(equal_count_cells(few, np.ones(50), CELLS), np.arange(50))


def _cp_bounds(events, n, delta):
    lo, hi = proportion_confint(events, n, alpha=2 * delta, method="beta")
    return np.where(events == 0, 0.0, lo), np.where(events == n, 1.0, hi)


def test_band_is_the_window_construction_at_the_calibrated_level():
    """At its calibrated level, the band is max/min of the Clopper-Pearson bounds over every
    window of its cells (brute force, statsmodels' intervals)."""
    s, d = _sample(400, 2)
    band = calibrated_monotone_band(s, d, 0.9, seed=5)
    order = np.argsort(s, kind="stable")
    ss, dd = s[order], d[order]
    starts = equal_count_cells(ss, np.ones(s.size), CELLS)
    ends = np.append(starts[1:], s.size)
    np.testing.assert_array_equal(band.first, ss[starts])
    np.testing.assert_array_equal(band.last, ss[ends - 1])
    m = starts.size
    assert band.windows == m * (m + 1) // 2
    # the level: the ceil(0.1 * 200) = 20th smallest draw, above the honest level
    assert band.delta == max(band.minima[19], window_level(0.9, band.windows))
    assert window_level(0.9, band.windows) < band.delta < 0.5
    n_c = ends - starts
    e_c = np.add.reduceat(dd, starts)
    lower = np.zeros(m)
    upper = np.ones(m)
    for j in range(m):
        for k in range(j, m):
            lo, hi = _cp_bounds(e_c[j:k + 1].sum(), n_c[j:k + 1].sum(), band.delta)
            lower[k:] = np.maximum(lower[k:], lo)
            upper[:j + 1] = np.minimum(upper[:j + 1], hi)
    np.testing.assert_allclose(band.lower, lower, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(band.upper, upper, rtol=1e-9, atol=1e-12)


@pytest.fixture(scope="module")
def data():
    return _sample(1500, 7, g=lambda s: s ** 1.3)


def test_curve_band_is_monotone_holds_the_estimate_and_is_inside_the_honest_band(data):
    s, d = data
    curve = calibration_curve(s, d, method="isotonic", band="simultaneous", seed=1)
    assert curve.params["simultaneous"] == "calibrated"
    lo, hi = np.quantile(s, RANGE)
    ok = ~np.isnan(curve.lower)
    assert np.array_equal(ok, (curve.grid >= lo) & (curve.grid <= hi))
    lower, upper, est = curve.lower[ok], curve.upper[ok], curve.estimate[ok]
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) >= 0)
    assert np.all((0 <= lower) & (lower <= est) & (est <= upper) & (upper <= 1))
    raw = calibrated_monotone_band(s, d, 0.95, seed=1, points=curve.grid)
    raw_lower, raw_upper = raw(curve.grid[ok])
    # calibrated for the grid's points: the same draws miss the continuum of the range at
    # least as often, so its level is at most the grid's
    assert calibrated_monotone_band(s, d, 0.95, seed=1).delta <= raw.delta
    np.testing.assert_array_equal(lower, np.minimum(raw_lower, est))
    np.testing.assert_array_equal(upper, np.maximum(raw_upper, est))
    honest = calibration_curve(s, d, method="isotonic", band="simultaneous",
                               simultaneous="honest")
    width = np.mean(upper - lower)
    assert width < 0.9 * np.mean(honest.upper[ok] - honest.lower[ok])
    # a lower level: the same draws, a larger quantile, a band inside this one
    narrow = calibration_curve(s, d, method="isotonic", band="simultaneous", level=0.8,
                               seed=1)
    assert np.all(narrow.lower[ok] >= lower) and np.all(narrow.upper[ok] <= upper)


def test_seeded_and_deterministic(data):
    s, d = data
    a = calibration_curve(s, d, method="isotonic", band="simultaneous", seed=3)
    b = calibration_curve(s, d, method="isotonic", band="simultaneous", seed=3,
                          critical="tube")
    np.testing.assert_array_equal(a.lower, b.lower)
    none = calibration_curve(s, d, method="isotonic", band="simultaneous")
    zero = calibration_curve(s, d, method="isotonic", band="simultaneous", seed=0)
    np.testing.assert_array_equal(none.lower, zero.lower)
    np.testing.assert_array_equal(none.upper, zero.upper)
    other = calibrated_monotone_band(s, d, seed=4)
    assert other.delta != calibrated_monotone_band(s, d, seed=3).delta


def test_counts_of_one_change_nothing_and_counts_are_close_to_the_expanded_rows(data):
    s, d = data
    plain = calibrated_monotone_band(s, d, seed=2)
    ones = calibrated_monotone_band(s, d, counts=np.ones(s.size), seed=2)
    np.testing.assert_array_equal(plain.lower, ones.lower)
    np.testing.assert_array_equal(plain.upper, ones.upper)
    f = np.random.default_rng(3).integers(0, 4, size=s.size)
    grouped = calibrated_monotone_band(s, d, counts=f, seed=2)
    expanded = calibrated_monotone_band(np.repeat(s, f), np.repeat(d, f), seed=2)
    np.testing.assert_array_equal(grouped.first, expanded.first)  # the same cells
    # the draws differ (binomial counts against single rows): equal in law only
    assert 0.5 < grouped.delta / expanded.delta < 2.0
    t = np.linspace(*np.quantile(s, RANGE), 50)
    gl, gu = grouped(t)
    el, eu = expanded(t)
    assert np.max(np.abs(gl - el)) < 0.03 and np.max(np.abs(gu - eu)) < 0.03


def test_bad_options_name_their_argument(data):
    s, d = data
    with pytest.raises(ValueError, match="simultaneous"):
        calibration_curve(s, d, method="isotonic", simultaneous="exact")
    with pytest.raises(ValueError, match="truth"):
        calibrated_monotone_band(s, d, truth="smooth")
    with pytest.raises(ValueError, match="draws"):
        calibrated_monotone_band(s, d, draws=3)
    with pytest.raises(ValueError, match="points"):
        calibrated_monotone_band(s, d, points=[0.2, 1.5])
    w = np.random.default_rng(4).uniform(0.5, 2.0, size=s.size)
    with pytest.raises(ValueError, match="no relative weights"):
        calibration_curve(s, d, method="isotonic", band="simultaneous", weights=w)


def test_honest_band_is_still_the_honest_band(data):
    s, d = data
    curve = calibration_curve(s, d, method="isotonic", band="simultaneous",
                              simultaneous="honest", seed=9)
    ok = ~np.isnan(curve.lower)
    raw_lower, raw_upper = monotone_band(s, d, 0.95)(curve.grid[ok])
    np.testing.assert_array_equal(curve.lower[ok], np.minimum(raw_lower, curve.estimate[ok]))
    np.testing.assert_array_equal(curve.upper[ok], np.maximum(raw_upper, curve.estimate[ok]))
    est = locacal.IsotonicCalibrator(simultaneous="honest").fit(s, d)
    assert est.curve(band="simultaneous").params["simultaneous"] == "honest"


def test_seeded_coverage_at_level_080():
    """40 samples of n = 100 on two monotone maps (an over-confident logistic map on
    Beta(2, 3) scores; g(s) = s^1.5 on skewed Beta(0.7, 1.5) scores), joint coverage of g on
    the curve's grid points in the 5-95 % range at level 0.8. The calibrated band must cover
    in 0.65-0.93 of samples (at a true 0.80, MC s.e. 0.063, this fails with probability
    about 0.03); the honest band, conservative by construction, covers in (nearly) every
    sample and fails the same bounds (measured 40 of 40 on the first map)."""
    maps = {
        "over": (2.0, 3.0, lambda p: expit(logit(p) / 2)),
        "convex": (0.7, 1.5, lambda p: p ** 1.5),
    }

    def coverage(kind, a, b, g):
        hits = 0
        for r in range(40):
            s, d = _sample(100, 3000 + r, g=g, a=a, b=b)
            c = calibration_curve(s, d, method="isotonic", band="simultaneous", level=0.8,
                                  simultaneous=kind, seed=r)
            ok = ~np.isnan(c.lower)
            t = g(c.grid[ok])
            hits += bool(np.all((c.lower[ok] <= t) & (t <= c.upper[ok])))
        return hits / 40

    for name, (a, b, g) in maps.items():
        assert 0.65 <= coverage("calibrated", a, b, g) <= 0.93, name
    assert coverage("honest", *maps["over"]) > 0.93


def test_one_class_keeps_a_real_band():
    """Thirty zeros: the rearranged local fit is 0, a truth without variance; clipped to
    1/(2n) its draws still miss, so the level stays below alpha and each upper bound is at
    least the one-sided 95 % Clopper-Pearson bound of the rows above it, 1 - 0.05^(1/m)
    (the level had sat at its cap of 1/2: an upper bound of 0.03 at 0.2)."""
    s = np.linspace(0.1, 0.9, 30)
    d = np.zeros(30, dtype=int)
    band = calibrated_monotone_band(s, d, 0.95)
    assert window_level(0.95, band.windows) <= band.delta <= 0.05
    t = np.array([0.2, 0.5, 0.8])
    lower, upper = band(t)
    above = np.array([np.sum(s >= x) for x in t])
    assert np.all(lower == 0.0)
    assert np.all(upper >= 1.0 - 0.05 ** (1.0 / above))
