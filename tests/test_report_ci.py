"""calibration_report(ci=True): bootstrap intervals, their coverage, the calibrated-model null
expectation, determinism, pairing across models and validation."""

import numpy as np
import pandas as pd
import pytest

from locacal import CalibrationWarning, calibration_report, metrics
from locacal.report.intervals import (
    BASIC_METRICS,
    NULL_METRICS,
    bootstrap_intervals,
    bootstrap_replicates,
    interval_bounds,
    null_means,
)
from locacal.report.table import CI_COLUMNS, CLINICAL_COLUMNS, REPORT_COLUMNS
from locacal.simulate import logistic_dgp

#: Metrics that are smooth means of the rows: their percentile interval contains the plug-in
#: value on a large sample. The calibration errors get the basic interval, which takes their
#: upward bias off and so may lie below the value.
SMOOTH = ("brier", "accuracy", "sensitivity", "specificity", "auc", "log_loss", "unc",
          "cal_intercept", "cal_slope", "spiegelhalter_z")


def _data(n, gamma=1.0, seed=0):
    d = logistic_dgp(n, gamma=gamma, seed=seed)
    return d["score"].to_numpy(), d["label"].to_numpy(), d["true_p"].to_numpy()


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_ci_table_layout_and_containment():
    s, y, p = _data(1500, gamma=1.2, seed=1)
    table = calibration_report(s, y, true_p=p, ci=True, n_boot=40, seed=2, clinical=True)
    columns = (*REPORT_COLUMNS, *CLINICAL_COLUMNS)
    assert list(table.index) == list(columns) and table.index.name == "metric"
    assert list(table.columns) == list(CI_COLUMNS)
    pd.testing.assert_series_equal(table["value"],
                                   calibration_report(s, y, true_p=p, clinical=True),
                                   check_names=False)
    computed = table.drop(index="n")
    assert (computed["lower"] <= computed["upper"]).all()
    assert table.loc["n", "lower"] == table.loc["n", "upper"] == 1500
    inside = table.loc[list(SMOOTH)]
    assert ((inside["lower"] <= inside["value"]) & (inside["value"] <= inside["upper"])).all()
    errors = table.loc[[m for m in columns if m in BASIC_METRICS]]
    assert (errors["lower"] >= 0).all() and errors["upper"].notna().all()
    assert table.loc[[m for m in columns if m in NULL_METRICS],
                     "null_mean"].notna().all()
    assert table.loc[[m for m in columns if m not in NULL_METRICS],
                     "null_mean"].isna().all()


def test_brier_interval_coverage():
    # population Brier of logistic_dgp(gamma = 1.25): E[(D - s)^2] = E[p - 2 s p + s^2],
    # computed from true_p on 2e6 rows (s.e. about 2e-4, against intervals ~0.05 wide)
    s, _, p = _data(2_000_000, gamma=1.25, seed=100)
    true_brier = float(np.mean(p - 2 * s * p + s * s))
    covered, reps = 0, 150
    for child in np.random.SeedSequence(101).spawn(reps):
        data_seed, boot_seed = child.spawn(2)
        s, y, _ = _data(300, gamma=1.25, seed=data_seed)
        lower, upper = bootstrap_intervals(["brier"], s, y, values=np.mean((s - y) ** 2),
                                           weights=None, true_p=None,
                                           threshold=0.5, n_boot=150, level=0.9,
                                           rng=np.random.default_rng(boot_seed),
                                           tick=lambda: None)
        covered += lower[0] <= true_brier <= upper[0]
    # nominal 0.90; s.e. of the rate sqrt(.9 * .1 / 150) = 0.0245, accepted within 3 s.e.
    assert abs(covered / reps - 0.90) <= 3 * 0.0245


def test_interval_bounds_by_hand():
    # replicates 0, 0.01, ..., 1: their type-7 quantiles at 0.05 and 0.95 are 0.05 and 0.95
    grid = np.arange(101) / 100
    names = ["auc", "ece", "mcb", "calib_err"]
    replicates = np.column_stack([grid, grid, grid, grid])
    lower, upper = interval_bounds(names, np.array([0.5, 0.6, 0.3, 0.8]), replicates, 0.9)
    # auc: percentile [0.05, 0.95]; ece: basic [1.2 - 0.95, 1.2 - 0.05];
    # mcb: basic [0.6 - 0.95, 0.6 - 0.05] clipped at 0;
    # calib_err: basic on the squared scale, [sqrt(1.28 - 0.95^2), sqrt(1.28 - 0.05^2)]
    np.testing.assert_allclose(lower, [0.05, 0.25, 0.0, np.sqrt(1.28 - 0.9025)], atol=1e-12)
    np.testing.assert_allclose(upper, [0.95, 1.15, 0.55, np.sqrt(1.28 - 0.0025)], atol=1e-12)
    # undefined replicates are skipped; a column without any finite replicate gives NaN
    replicates[::2, 0] = np.nan
    replicates[:, 1] = np.nan
    lower, upper = interval_bounds(names, np.array([0.5, 0.6, 0.3, 0.8]), replicates, 0.9)
    assert np.isnan([lower[1], upper[1]]).all() and 0.0 < lower[0] < upper[0] < 1.0


def test_calibration_error_interval_coverage():
    # over-confident scores (gamma = 1.5): s and p = E[D | s] increase together, so the
    # population calib_mse is E[(p - s)^2] and the population QMSE the squared decile-bin
    # means of p - s weighted by 1/10, here from 1e6 rows of (s, p) without labels
    s, _, p = _data(1_000_000, gamma=1.5, seed=200)
    chunks = np.array_split(np.argsort(s), 10)
    truth = np.array([np.mean((p - s) ** 2),
                      np.mean([np.mean(p[c] - s[c]) ** 2 for c in chunks])])
    names = ["calib_mse", "qmse"]
    reps, covered, percentile = 100, np.zeros(2), np.zeros(2)
    for child in np.random.SeedSequence(201).spawn(reps):
        data_seed, boot_seed = child.spawn(2)
        s, y, _ = _data(300, gamma=1.5, seed=data_seed)
        values = np.array([metrics.calib_mse(s, y), metrics.qmse(s, y)])
        replicates = bootstrap_replicates(names, s, y, weights=None, true_p=None,
                                          threshold=0.5, n_boot=60,
                                          rng=np.random.default_rng(boot_seed),
                                          tick=lambda: None)
        lower, upper = interval_bounds(names, values, replicates, 0.9)
        covered += (lower <= truth) & (truth <= upper)
        q_lo, q_hi = np.quantile(replicates, [0.05, 0.95], axis=0)
        percentile += (q_lo <= truth) & (truth <= q_hi)
    # nominal 0.90; s.e. of a rate sqrt(.9 * .1 / 100) = 0.03: at least 0.9 - 3 s.e. (the
    # clipped basic interval may over-cover: benchmarks/coverage_report_ci.py)
    assert (covered / reps >= 0.90 - 3 * 0.03).all(), covered / reps
    # the percentile interval, centred on value + bias, misses the population value
    assert (percentile / reps <= 0.3).all(), percentile / reps


def test_lcs_null_mean_is_the_calibrated_model_lcs():
    s, _, _ = _data(800, seed=3)
    got = null_means(["lcs", "brier"], s, weights=None, threshold=0.5, n_draws=300,
                     rng=np.random.default_rng(4), tick=lambda: None)
    assert np.isnan(got[1])  # not a calibration metric
    # the calibrated-model LCS measured independently: labels drawn here, scalar lcs
    rng = np.random.default_rng(5)
    values = np.array([metrics.lcs(s, (rng.random(s.size) < s).astype(float))
                       for _ in range(400)])
    # both are means of draws of the same distribution: s.e. of the difference
    se = values.std(ddof=1) * np.sqrt(1 / 300 + 1 / 400)
    assert abs(got[0] - values.mean()) <= 4 * se
    # and a calibration error is far from 0 under calibration at this n
    assert got[0] > 10 * se


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_seeded_tables_are_reproducible_and_models_are_paired():
    s, y, _ = _data(400, gamma=1.3, seed=6)
    first = calibration_report(s, y, ci=True, n_boot=15, seed=7)
    pd.testing.assert_frame_equal(first, calibration_report(s, y, ci=True, n_boot=15, seed=7))
    other = calibration_report(s, y, ci=True, n_boot=15, seed=8)
    assert not np.allclose(first["lower"], other["lower"], equal_nan=True)
    wide = calibration_report({"a": s, "b": np.sqrt(s)}, y, ci=True, n_boot=15, seed=7)
    assert list(wide.columns) == ["model", "metric", *CI_COLUMNS]
    assert list(wide["model"].unique()) == ["a", "b"]
    # model "a" got the same bootstrap rows and null draws as the single report
    a = wide[wide["model"] == "a"].drop(columns="model").set_index("metric")
    pd.testing.assert_frame_equal(a, first)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_weights_are_carried_along_and_smece_is_undefined_with_them():
    s, y, _ = _data(400, seed=9)
    w = np.random.default_rng(10).uniform(0.5, 2.0, size=s.size)
    table = calibration_report(s, y, weights=w, ci=True, n_boot=15, seed=11)
    assert table.loc["smece"].isna().all()
    assert table.drop(index=["smece", "true_mse"])[["value", "lower", "upper"]].notna().all(
        axis=None)
    # the weights enter every replicate: the interval differs from the unweighted one
    plain = calibration_report(s, y, ci=True, n_boot=15, seed=11)
    assert table.loc["brier", "lower"] != plain.loc["brier", "lower"]


def test_undefined_replicates_are_reported():
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9] * 3)
    y = np.zeros(s.size)
    y[-1] = 1.0  # one event: many resamples hold a single class
    with pytest.warns(CalibrationWarning, match="left out"):
        table = calibration_report(s, y, ci=True, n_boot=30, seed=0)
    assert np.isfinite(table.loc["auc", ["lower", "upper"]]).all()


def test_validation():
    s, y, _ = _data(50, seed=12)
    with pytest.raises(TypeError, match="ci"):
        calibration_report(s, y, ci="yes")
    with pytest.raises(ValueError, match="n_boot"):
        calibration_report(s, y, ci=True, n_boot=0)
    with pytest.raises(TypeError, match="n_boot"):
        calibration_report(s, y, ci=True, n_boot=2.5)
    with pytest.raises(ValueError, match="level"):
        calibration_report(s, y, ci=True, level=1.0)
    with pytest.raises(ValueError, match="labels"):
        calibration_report(s, np.full(s.size, 3.0), ci=True)


def test_clinical_columns_join_on_request():
    s, y, _ = _data(400, seed=5)
    plain = calibration_report(s, y)
    full = calibration_report(s, y, clinical=True)
    assert list(plain.index) == list(REPORT_COLUMNS)
    assert list(full.index) == [*REPORT_COLUMNS, *CLINICAL_COLUMNS]
    pd.testing.assert_series_equal(full[list(REPORT_COLUMNS)], plain)
    expected = metrics.calibration_intercept_slope(s, y)
    assert full["cal_slope"] == pytest.approx(expected.loc["slope", "estimate"], rel=1e-12)
    assert full["ici"] == pytest.approx(metrics.calibration_errors(s, y)["ici"], rel=1e-12)
    with pytest.raises(TypeError, match="clinical must be True or False"):
        calibration_report(s, y, clinical="yes")
