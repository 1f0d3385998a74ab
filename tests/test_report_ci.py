"""calibration_report(ci=True): bootstrap intervals, their coverage, the calibrated-model null
expectation, determinism, pairing across models and validation."""

import numpy as np
import pandas as pd
import pytest

from locacal import CalibrationWarning, calibration_report, metrics
from locacal.metrics.report import CI_COLUMNS, CLINICAL_COLUMNS, REPORT_COLUMNS
from locacal.metrics.report_intervals import NULL_METRICS, bootstrap_intervals, null_means
from locacal.simulate import logistic_dgp

#: Metrics that are smooth means of the rows: their percentile interval contains the plug-in
#: value on a large sample. The binned and smoothed calibration errors are biased upwards on a
#: bootstrap resample (duplicated rows), so their interval may lie above the value.
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
        lower, upper = bootstrap_intervals(["brier"], s, y, weights=None, true_p=None,
                                           threshold=0.5, n_boot=150, level=0.9,
                                           rng=np.random.default_rng(boot_seed),
                                           tick=lambda: None)
        covered += lower[0] <= true_brier <= upper[0]
    # nominal 0.90; s.e. of the rate sqrt(.9 * .1 / 150) = 0.0245, accepted within 3 s.e.
    assert abs(covered / reps - 0.90) <= 3 * 0.0245


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
