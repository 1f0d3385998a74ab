"""``by=``: per-group results equal the call on the group's rows; the family-wise test holds
its size and finds the one miscalibrated group (full study: benchmarks/size_power_subgroups.py).
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

import locacal
from locacal._validation import CalibrationWarning
from locacal.data.groups import split_by
from locacal.metrics.grouped_test import minp_adjust


def grouped_sample(seed: int, groups: int = 4, size: int = 600, shift: float = 0.0,
                   shifted: int = -1):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.03, 0.97, groups * size)
    g = np.repeat([f"g{k:02d}" for k in range(groups)], size)
    p = s.copy()
    if shifted >= 0:
        rows = g == f"g{shifted:02d}"
        p[rows] = expit(logit(s[rows]) + shift)
    d = (rng.uniform(size=s.size) < p).astype(int)
    order = rng.permutation(s.size)  # groups interleaved, as real data
    return s[order], d[order], pd.Series(g[order], name="region")


def test_split_by_orders_levels_and_refuses_bad_groups():
    groups = split_by(np.array(["b", "a", "b", "c"] * 60), 240)
    assert groups.levels == ("a", "b", "c")
    np.testing.assert_array_equal(groups.rows[0], np.arange(1, 240, 4))
    assert groups.name == "group"
    assert split_by(pd.Series([2, 1] * 60, name="age"), 120).name == "age"
    mixed = split_by(np.array([1, "a"] * 60, dtype=object), 120)  # incomparable: appearance
    assert mixed.levels == (1, "a")
    with pytest.raises(ValueError, match="length 3"):
        split_by(["a", "b", "a"], 4)
    with pytest.raises(ValueError, match="missing value at position 1"):
        split_by(pd.Series(["a", None, "b", "b"]), 4)
    with pytest.raises(ValueError, match="one-dimensional"):
        split_by(np.zeros((4, 2)), 4)
    with pytest.warns(CalibrationWarning, match="fewer than 50 rows"):
        split_by(["a", "b"] * 10, 20)
    with pytest.warns(CalibrationWarning, match="single group"):
        split_by(["a"] * 60, 60)


def test_report_by_group_equals_subset_calls():
    s, d, g = grouped_sample(0)
    w = np.random.default_rng(1).uniform(0.5, 2.0, s.size)
    table = locacal.calibration_report(s, d, weights=w, by=g)
    assert list(table["region"]) == ["g00", "g01", "g02", "g03"]
    for _, row in table.iterrows():
        rows = (g == row["region"]).to_numpy()
        alone = locacal.calibration_report(s[rows], d[rows], weights=w[rows])
        np.testing.assert_allclose(row[alone.index].to_numpy(float), alone.to_numpy(float),
                                   rtol=1e-12, atol=1e-15, equal_nan=True)


def test_report_by_column_name_of_the_models_frame_and_with_intervals():
    s, d, g = grouped_sample(2, groups=2)
    frame = pd.DataFrame({"a": s, "b": np.clip(s * 1.1, 0, 1), "region": g})
    table = locacal.calibration_report(frame, d, by="region")
    assert list(table.columns[:2]) == ["region", "model"]
    assert table.shape[0] == 4 and set(table["model"]) == {"a", "b"}
    ci = locacal.calibration_report(s, d, by=g, ci=True, n_boot=20, seed=3)
    rows = (g == "g01").to_numpy()
    alone = locacal.calibration_report(s[rows], d[rows], ci=True, n_boot=20, seed=3)
    mine = ci[ci["region"] == "g01"].set_index("metric")[alone.columns]
    np.testing.assert_allclose(mine.to_numpy(float), alone.to_numpy(float), rtol=1e-12,
                               equal_nan=True)
    with pytest.raises(ValueError, match="not a column"):
        locacal.calibration_report(frame, d, by="sex")
    with pytest.raises(ValueError, match="length 3"):
        locacal.calibration_report(s, d, by=["a", "b", "a"])


def test_curve_and_display_by_group_equal_subset_calls():
    s, d, g = grouped_sample(4, groups=3)
    curves = locacal.calibration_curve(s, d, by=g, band="bootstrap", n_boot=20, seed=5)
    assert list(curves) == ["g00", "g01", "g02"] and curves.name == "region"
    rows = (g == "g02").to_numpy()
    alone = locacal.calibration_curve(s[rows], d[rows], band="bootstrap", n_boot=20, seed=5)
    np.testing.assert_array_equal(curves["g02"].estimate, alone.estimate)
    np.testing.assert_array_equal(curves["g02"].upper, alone.upper)
    frame = curves.to_frame()
    assert frame.columns[0] == "region" and len(frame) == sum(len(c) for c in curves.values())
    assert list(curves.summary()["n"]) == [600, 600, 600]
    display = locacal.ReliabilityDisplay.from_predictions({"m": s}, d, by=g, plot=False)
    np.testing.assert_array_equal(display.groups["g02"].curves["m"].estimate,
                                  locacal.calibration_curve(s[rows], d[rows]).estimate)
    panels = display.plot()
    assert len(panels) == 3 and panels[0].get_title() == "g00"
    assert display.summary().index.names == ["region", "model"]


def test_grouped_test_per_group_results_are_the_subset_tests():
    s, d, g = grouped_sample(6, groups=3)
    result = locacal.calibration_test(s, d, by=g, n_resamples=199, seed=11)
    streams = np.random.SeedSequence(11).spawn(3)
    for (group, r), stream in zip(result.results.items(), streams, strict=True):
        rows = (g == group).to_numpy()
        alone = locacal.calibration_test(s[rows], d[rows], n_resamples=199, seed=stream)
        assert r.statistic == alone.statistic and r.pvalue == alone.pvalue
    table = result.to_frame()
    assert list(table.columns) == ["n", "statistic", "pvalue", "adjusted_pvalue", "method",
                                   "flagged"]
    assert (table["adjusted_pvalue"] >= table["pvalue"]).all()
    assert result.pvalue == table["adjusted_pvalue"].min()
    assert "family-wise" in result._repr_html_()


def test_minp_adjustment_by_hand():
    # two groups, B = 4 resamples each: p*_gb = #{b': T*_gb' >= T*_gb} / 5
    nulls = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([4.0, 3.0, 2.0, 1.0])]
    # p* = [4/5, 3/5, 2/5, 1/5] and [1/5, 2/5, 3/5, 4/5]; min over groups per resample:
    # [1/5, 2/5, 2/5, 1/5]
    family, adjusted = minp_adjust([0.2, 0.6], nulls)
    np.testing.assert_allclose(adjusted, [(1 + 2) / 5, (1 + 4) / 5])
    assert family == pytest.approx(0.6)
    family, adjusted = minp_adjust([0.01, 0.5], [None, None])  # Šidák
    np.testing.assert_allclose(adjusted, [1 - 0.99**2, 1 - 0.5**2])


def test_family_wise_size_and_power_small_study():
    """20 groups of 300 rows; seeded. Size: calibrated everywhere; power: one group off by
    0.8 on the logit scale (the full study, 20 x 1000 rows and a 0.5 shift: benchmarks)."""
    reps = 40
    size = sum(locacal.calibration_test(*grouped_sample(100 + r, 20, 300)[:2],
                                        by=grouped_sample(100 + r, 20, 300)[2],
                                        n_resamples=499, seed=r).pvalue < 0.05
               for r in range(reps))
    power = sum(locacal.calibration_test(*grouped_sample(200 + r, 20, 300, 0.8, 7)[:2],
                                         by=grouped_sample(200 + r, 20, 300, 0.8, 7)[2],
                                         n_resamples=499, seed=r).pvalue < 0.05
                for r in range(reps))
    # size 0.05: 0..6 rejections of 40 hold 98 % of the binomial; power well above half
    assert size <= 6
    assert power >= 24


def test_too_few_resamples_for_many_groups_warns():
    s, d, g = grouped_sample(8, groups=12, size=100)
    with pytest.warns(CalibrationWarning, match="cannot fall below"):
        locacal.calibration_test(s, d, by=g, n_resamples=99, seed=0)


def test_cli_by_writes_groups_and_flags(tmp_path):
    s, d, g = grouped_sample(9, groups=3, size=800, shift=1.0, shifted=1)
    data = tmp_path / "d.csv"
    pd.DataFrame({"score": s, "y": d, "region": g}).to_csv(data, index=False)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "locacal", "report", str(data), "--score",
                           "score", "--label", "y", "--by", "region", "--n-boot", "0",
                           "--seed", "1", "--out", str(out), "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    groups = pd.read_csv(out / "groups.csv")
    assert list(groups.columns[:3]) == ["region", "model", "metric"]
    assert set(groups["region"]) == {"g00", "g01", "g02"}
    page = (out / "report.html").read_text()
    assert "By group" in page and page.count('class="flagged"') == 1
    # an empty group cell is refused with its row
    frame = pd.read_csv(data)
    frame.loc[4, "region"] = None
    frame.to_csv(data, index=False)
    bad = subprocess.run([sys.executable, "-m", "locacal", "report", str(data), "--score",
                          "score", "--label", "y", "--by", "region", "--out",
                          str(tmp_path / "o2")], capture_output=True, text=True)
    assert bad.returncode == 2 and "row 5" in bad.stderr


def test_grouped_test_seeded_by_a_child_seed_sequence_keeps_its_spawn_key():
    """Sibling SeedSequences share their entropy; their groups' streams must still differ."""
    s, d, g = grouped_sample(10, groups=2, size=300)
    first, second = np.random.SeedSequence(5).spawn(2)
    a = locacal.calibration_test(s, d, by=g, n_resamples=99, seed=first)
    b = locacal.calibration_test(s, d, by=g, n_resamples=99, seed=second)
    assert not np.array_equal(a.results["g00"].null, b.results["g00"].null)
    again = locacal.calibration_test(s, d, by=g, n_resamples=99, seed=first)
    np.testing.assert_array_equal(a.results["g00"].null, again.results["g00"].null)
