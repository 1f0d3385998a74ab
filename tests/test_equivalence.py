"""calibration_equivalence_test and the noise-norm intervals of the report (issue 18)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from locacal import calibration_equivalence_test, calibration_report, metrics
from locacal.metrics.equivalence import noise_quantile, norm_interval
from locacal.report.intervals import NORM_METRICS, norm_bounds, null_values
from locacal.simulate import logistic_dgp


def _data(n, gamma=1.0, seed=0):
    d = logistic_dgp(n, gamma=gamma, seed=seed)
    return d["score"].to_numpy(), d["label"].to_numpy(), d["true_p"].to_numpy()


def test_noise_quantile_is_the_monte_carlo_order_statistic():
    null = np.arange(1.0, 100.0)  # B = 99: k = ceil(0.95 * 100) = 95 -> the 95th smallest
    assert noise_quantile(null, 1.0, 0.95) == 95.0
    # squared measure: quantile of the square roots
    assert noise_quantile(null**2, 2.0, 0.95) == pytest.approx(95.0)
    # too few resamples for the level: +inf, or the largest value when capped
    assert noise_quantile(null[:10], 1.0, 0.95) == math.inf
    assert noise_quantile(null[:10], 1.0, 0.95, cap=True) == 10.0
    assert np.isnan(noise_quantile(np.array([np.nan]), 1.0, 0.9))


def test_norm_interval_by_hand():
    null = np.arange(1.0, 100.0) / 1000  # q_0.95 = 0.095
    lo, hi = norm_interval(0.2, null, 1.0, 0.95)
    assert (lo, hi) == pytest.approx((0.105, 0.295))
    lo, hi = norm_interval(0.05, null, 1.0, 0.95)  # below the noise: lower bound 0
    assert (lo, hi) == pytest.approx((0.0, 0.145))
    # squared scale: (sqrt(0.04) -/+ sqrt(q^2))^2 with null values q^2
    lo, hi = norm_interval(0.04, null**2, 2.0, 0.95)
    assert (lo, hi) == pytest.approx(((0.2 - 0.095) ** 2, (0.2 + 0.095) ** 2))


@pytest.mark.parametrize("measure", ["ece", "lcs", "sup", "ici"])
def test_pvalue_and_upper_bound_agree(measure):
    s, y, _ = _data(800, gamma=1.3, seed=3)
    for margin in (0.01, 0.03, 0.06, 0.1, 0.3):
        r = calibration_equivalence_test(s, y, margin=margin, measure=measure, seed=4,
                                         n_resamples=99)
        assert r.equivalent == (r.upper < margin) == (r.pvalue <= 0.05 + 1e-12)
        assert r.estimate <= r.upper
        assert r.null.shape == (99,)
        # p-value by hand from the null values (scale of the norm)
        power = 2.0 if measure == "lcs" else 1.0
        c = margin ** (1 / power) - r.estimate ** (1 / power)
        expected = 1.0 if c <= 0 else (1 + np.sum(r.null ** (1 / power) >= c)) / 100
        assert r.pvalue == pytest.approx(expected)
    assert list(r.to_frame().columns) == ["estimate", "upper", "margin", "level", "pvalue",
                                          "equivalent", "n", "resamples"]


def test_estimates_are_the_metrics():
    s, y, _ = _data(1000, gamma=1.5, seed=5)
    got = {m: calibration_equivalence_test(s, y, margin=0.1, measure=m, seed=0,
                                           n_resamples=19).estimate
           for m in ("ece", "lcs", "ici", "sup")}
    assert got["ece"] == pytest.approx(metrics.ece(s, y), rel=1e-12)
    assert got["lcs"] == pytest.approx(metrics.lcs(s, y), rel=1e-10)
    assert got["ici"] == pytest.approx(metrics.calibration_errors(s, y)["ici"], rel=1e-12)
    # sup by brute force: the 100 nearest scores (n nn = 1000 * 0.1) of each of 101 points
    # between the 5 % and 95 % quantiles, mean residual there, largest absolute value
    grid = np.linspace(*np.quantile(s, [0.05, 0.95]), 101)
    gaps = [np.mean((y - s)[np.argsort(np.abs(s - t), kind="stable")[:100]]) for t in grid]
    assert got["sup"] == pytest.approx(np.max(np.abs(gaps)), rel=1e-10)


def test_weights_enter_the_measure():
    s, y, _ = _data(400, gamma=1.4, seed=6)
    w = np.ones(s.size)
    w[:50] = 2.5
    for measure, metric in (("ece", metrics.ece), ("lcs", metrics.lcs)):
        r = calibration_equivalence_test(s, y, margin=0.1, measure=measure, weights=w,
                                         n_resamples=19, seed=1)
        assert r.estimate == pytest.approx(metric(s, y, weights=w), rel=1e-10)
        # relative weights: multiplying them by a constant changes nothing
        r2 = calibration_equivalence_test(s, y, margin=0.1, measure=measure, weights=3 * w,
                                          n_resamples=19, seed=1)
        assert (r2.estimate, r2.upper) == pytest.approx((r.estimate, r.upper), rel=1e-10)


def test_size_at_the_margin_and_power_small():
    # ECE of logistic_dgp(gamma = 1.5): population value on the deciles of s from the bin
    # means of p - s (E[D | s] = p), 1e6 rows (s.e. ~1e-4 against bounds ~0.03 wide)
    s, _, p = _data(1_000_000, gamma=1.5, seed=300)
    chunks = np.array_split(np.argsort(s), 10)
    margin = float(np.mean([abs(np.mean(p[c] - s[c])) for c in chunks]))
    reps, rejected, power = 60, 0, 0
    for child in np.random.SeedSequence(301).spawn(reps):
        data_seed, test_seed = child.spawn(2)
        s, y, _ = _data(5000, gamma=1.5, seed=data_seed)
        rejected += calibration_equivalence_test(s, y, margin=margin, measure="ece",
                                                 n_resamples=99, seed=test_seed).equivalent
        s, y, _ = _data(20000, gamma=1.0, seed=data_seed)
        power += calibration_equivalence_test(s, y, margin=margin, measure="ece",
                                              n_resamples=99, seed=test_seed).equivalent
    # size <= 0.05: 3 s.e. of a rate 0.05 over 60 samples (0.028) allowed
    assert rejected / reps <= 0.05 + 3 * 0.028
    # the bound of calibrated scores at n = 20000 (about twice the noise ECE, ~0.02) lies
    # well below the margin
    assert power / reps >= 0.8, power / reps


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_report_uses_the_noise_norm_interval():
    s, y, _ = _data(1200, gamma=1.2, seed=7)
    table = calibration_report(s, y, ci=True, n_boot=40, seed=8, clinical=True)
    # the report's null draws, recomputed with its seeds, give its intervals
    entropy = int(np.random.default_rng(8).integers(2**63))
    _, null_seed = np.random.SeedSequence(entropy).spawn(2)
    names = list(NORM_METRICS)
    null = null_values(names, s, weights=None, threshold=0.5, n_draws=40,
                       rng=np.random.default_rng(null_seed), tick=lambda: None)
    lower, upper = norm_bounds(names, table.loc[names, "value"].to_numpy(), null, 0.95)
    np.testing.assert_allclose(table.loc[names, "lower"], lower, rtol=1e-12)
    np.testing.assert_allclose(table.loc[names, "upper"], upper, rtol=1e-12)
    assert (table.loc[names, "lower"] <= table.loc[names, "value"]).all()
    assert (table.loc[names, "value"] <= table.loc[names, "upper"]).all()


def test_report_intervals_cover_near_zero_small():
    # small seeded version of benchmarks/coverage_calibration_bounds.py for the batched
    # metrics (ECE, LCS, mcb): population values from 1e6 rows (ECE and mcb in closed form
    # from true_p; the LCS as the metric on a big sample, s.e. ~1e-4)
    names = ("ece", "lcs", "mcb")
    for gamma in (1.0, 3.0):
        s, y, p = _data(1_000_000, gamma=gamma, seed=400)
        chunks = np.array_split(np.argsort(s), 10)
        truth = np.array([np.mean([abs(np.mean(p[c] - s[c])) for c in chunks]),
                          metrics.lcs(s, y), np.mean((p - s) ** 2)])
        reps, covered = 40, np.zeros(3)
        for child in np.random.SeedSequence([401, int(gamma)]).spawn(reps):
            data_seed, null_seed = child.spawn(2)
            s, y, _ = _data(1000, gamma=gamma, seed=data_seed)
            values = np.array([metrics.ece(s, y), metrics.lcs(s, y),
                               metrics.corp_decomposition(s, y)["mcb"]])
            null = null_values(names, s, weights=None, threshold=0.5, n_draws=60,
                               rng=np.random.default_rng(null_seed), tick=lambda: None)
            lower, upper = norm_bounds(names, values, null, 0.95)
            covered += (lower <= truth) & (truth <= upper)
        # nominal 0.95; 3 s.e. of 0.95 over 40 samples is 0.10
        assert (covered / reps >= 0.95 - 0.10).all(), (gamma, covered / reps)


def test_validation_messages():
    s, y, _ = _data(100)
    with pytest.raises(ValueError, match="margin"):
        calibration_equivalence_test(s, y, margin=0.0)
    with pytest.raises(ValueError, match="measure"):
        calibration_equivalence_test(s, y, margin=0.1, measure="nope")
    with pytest.raises(TypeError):
        calibration_equivalence_test(s, y)  # margin is required
    assert isinstance(calibration_equivalence_test(s, y, margin=0.5, measure="ece",
                                                   n_resamples=9).to_frame(), pd.DataFrame)


def test_wmse_batch_equals_the_metric():
    from locacal.metrics._null_statistics import wmse_batch

    s, _, _ = _data(1500, gamma=1.3, seed=9)
    rng = np.random.default_rng(10)
    for scores in (np.sort(s), np.sort(np.round(s, 2))):  # ties at the boundary: shared
        labels = (rng.random((4, scores.size)) < scores).astype(float)
        weights = rng.random(scores.size) * 2
        weights[:7] = 0.0  # rows of weight zero are not neighbours
        for w in (None, weights):
            got = wmse_batch(scores, w)(labels)
            want = [metrics.wmse(scores, y, weights=w) for y in labels]
            np.testing.assert_allclose(got, want, rtol=1e-12)
