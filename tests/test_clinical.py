"""Clinical calibration diagnostics: golden values from R, R rerun for real, closed forms,
invariants, input validation and the size of the two tests.

Reference numbers are in tests/reference/clinical_r.json with the R code that produced them
(R 4.2.2, rms 6.5-0, stats' glm/loess/lowess, a transcription of
ResourceSelection::hoslem.test 0.3-6, which Debian does not package). Measured differences
against R on these data sets (and on six more random ones during development):

* calibration intercept/slope (glm, epsilon = 1e-14, + confint.default): estimates <= 2e-14,
  bounds and p-values <= 4e-8 (R's vcov takes the working weights of its last IRLS step,
  one step behind the estimate; at the estimate R's information gives our SE to 1e-15);
* lowess errors (rms::val.prob's Eavg/E90/Emax and median): <= 4e-15;
* loess errors (surface = "direct"): <= 3e-9 (the native engine's degree-2 solver);
* Hosmer-Lemeshow and Spiegelhalter: <= 5e-14.

Tolerances below are set a little above those measurements.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from locacal import CalibrationWarning
from locacal.metrics import (
    calibration_errors,
    calibration_intercept_slope,
    hosmer_lemeshow,
    spiegelhalter_z,
)
from locacal.metrics._r_lowess import r_lowess_fit
from locacal.simulate import logistic_dgp
from tests.rhelpers import run_r

REF = json.loads((Path(__file__).parent / "reference" / "clinical_r.json").read_text())
SETS = sorted(REF["datasets"])
TOL_GLM = 1e-7       # measured <= 4e-8 (see above)
TOL_LOWESS = 1e-12   # measured <= 4e-15
TOL_LOESS = 1e-7     # measured <= 3e-9
TOL_TEST = 1e-11     # measured <= 5e-14


def _data(name):
    d = REF["datasets"][name]
    return np.array(d["p"]), np.array(d["y"]), np.array(d["w"]), d["expected"]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        return fn(*args, **kwargs)


def _check_against(name, expected):
    p, y, w, _ = _data(name)
    table_w = _quiet(calibration_intercept_slope, p, y, weights=w)
    for row in ("intercept", "slope", "joint_intercept"):
        np.testing.assert_allclose(table_w.loc[row].to_numpy(), expected[row], rtol=0,
                                   atol=TOL_GLM, err_msg=f"{name} {row}")
    table = _quiet(calibration_intercept_slope, p, y)
    vp = expected["valprob"]  # Intercept, Slope, Eavg, E90, Emax, S:z, S:p
    # rms's "Intercept" is the joint model's intercept (lrm.fit converges to ~1e-9 here)
    assert table.loc["joint_intercept", "estimate"] == pytest.approx(vp[0], abs=1e-7)
    assert table.loc["slope", "estimate"] == pytest.approx(vp[1], abs=1e-7)

    lw = _quiet(calibration_errors, p, y)
    np.testing.assert_allclose(lw[["ici", "e90", "emax"]].to_numpy(), vp[2:5], rtol=0,
                               atol=TOL_LOWESS)
    assert lw["e50"] == pytest.approx(expected["lowess_e50"][0], abs=TOL_LOWESS)
    lo = _quiet(calibration_errors, p, y, smoother="loess")
    np.testing.assert_allclose(lo.to_numpy(), expected["loess_direct"], rtol=0, atol=TOL_LOESS)
    low = _quiet(calibration_errors, p, y, weights=w, smoother="loess")
    np.testing.assert_allclose(low[["ici", "emax"]].to_numpy(),
                               expected["loess_weighted_ici_emax"], rtol=0, atol=TOL_LOESS)

    sz = spiegelhalter_z(p, y)
    assert sz.statistic == pytest.approx(vp[5], abs=TOL_TEST)
    assert sz.pvalue == pytest.approx(vp[6], abs=TOL_TEST)
    szw = spiegelhalter_z(p, y, weights=w)
    np.testing.assert_allclose([szw.statistic, szw.pvalue], expected["spiegelhalter_weighted"],
                               rtol=0, atol=TOL_TEST)

    hl = _quiet(hosmer_lemeshow, p, y)
    stat, df, pval, stat_nonempty, p_nonempty = expected["hoslem"]
    assert hl.df == df
    if np.isfinite(stat):  # hoslem.test itself: NaN when an interval is empty
        assert hl.statistic == pytest.approx(stat, abs=TOL_TEST)
        assert hl.pvalue == pytest.approx(pval, abs=TOL_TEST)
    assert hl.statistic == pytest.approx(stat_nonempty, abs=TOL_TEST)
    assert hl.pvalue == pytest.approx(p_nonempty, abs=TOL_TEST)


@pytest.mark.parametrize("name", SETS)
def test_golden_values_from_r(name):
    _check_against(name, REF["datasets"][name]["expected"])


@pytest.mark.r
@pytest.mark.parametrize("name", SETS)
def test_r_reproduces_the_committed_numbers(name):
    p, y, w, expected = _data(name)
    fresh = run_r(REF["r_code"], p=p, y=y, w=w)
    for key, values in expected.items():
        np.testing.assert_allclose(fresh[key], np.array(values, dtype=float), rtol=1e-12,
                                   atol=1e-14, equal_nan=True, err_msg=key)


@pytest.mark.r
@pytest.mark.parametrize("seed", [3, 4])
def test_lowess_port_equals_r_lowess(seed):
    """R's clowess, fitted values at every score, on random data with ties and delta skips."""
    rng = np.random.default_rng(seed)
    n = 997
    x = np.round(rng.beta(2, 3, n), 3 if seed == 3 else 6)
    y = (rng.uniform(size=n) < x).astype(float)
    r = run_r("out <- approx(lowess(x, y, iter = 0), xout = x, ties = mean)$y", x=x, y=y)
    np.testing.assert_allclose(r_lowess_fit(x, y), r, rtol=0, atol=1e-13)  # measured 1e-14


def test_lowess_small_samples_and_weights():
    x = np.array([0.2, 0.4])
    y = np.array([0.0, 1.0])
    np.testing.assert_allclose(r_lowess_fit(x, y), y)  # two points: the line through them
    assert r_lowess_fit(np.array([0.3]), np.array([1.0]))[0] == 1.0
    rng = np.random.default_rng(1)
    x = rng.uniform(size=200)
    y = (rng.uniform(size=200) < x).astype(float)
    w = rng.uniform(0.5, 2, 200)
    np.testing.assert_allclose(r_lowess_fit(x, y, w), r_lowess_fit(x, y, 3 * w), atol=1e-14)
    np.testing.assert_allclose(r_lowess_fit(x, y, np.ones(200)), r_lowess_fit(x, y),
                               atol=1e-14)


def test_intercept_slope_closed_form_for_constant_score():
    """One distinct score: the offset model's MLE is logit(mean y) - logit(s)."""
    y = np.array([1.0] * 30 + [0.0] * 70)
    s = np.full(100, 0.2)
    with pytest.warns(CalibrationWarning, match="equal"):
        table = calibration_intercept_slope(s, y)
    assert table.loc["intercept", "estimate"] == pytest.approx(
        np.log(0.3 / 0.7) - np.log(0.2 / 0.8), abs=1e-10)
    se = np.sqrt(1 / (100 * 0.3 * 0.7))
    assert table.loc["intercept", "upper"] == pytest.approx(
        table.loc["intercept", "estimate"] + 1.959963984540054 * se, abs=1e-9)
    assert table.loc[["slope", "joint_intercept"]].isna().all().all()


def test_intercept_slope_extremes_and_invariants():
    p, y, w, _ = _data("smooth_n300")
    table = _quiet(calibration_intercept_slope, p, y, weights=w)
    assert np.isfinite(table.to_numpy()).all()
    assert list(table.index) == ["intercept", "slope", "joint_intercept"]
    assert list(table.columns) == ["estimate", "lower", "upper", "pvalue"]
    pd.testing.assert_frame_equal(table, _quiet(calibration_intercept_slope, p, y,
                                                weights=7.5 * w), atol=1e-9)
    perm = np.random.default_rng(0).permutation(p.size)
    pd.testing.assert_frame_equal(table, _quiet(calibration_intercept_slope, p[perm], y[perm],
                                                weights=w[perm]), atol=1e-9)
    wide = _quiet(calibration_intercept_slope, p, y, level=0.99)
    narrow = _quiet(calibration_intercept_slope, p, y, level=0.5)
    assert (wide["upper"] > narrow["upper"]).all() and (wide["lower"] < narrow["lower"]).all()
    with pytest.warns(CalibrationWarning, match="left out"):
        calibration_intercept_slope(np.r_[p, 0.0, 1.0], np.r_[y, 0.0, 1.0])


def test_extreme_scores_give_finite_results():
    rng = np.random.default_rng(5)
    n = 60
    s = rng.choice([1e-6, 1 - 1e-6, 1e-7, 1 - 1e-7, 0.3, 0.6], size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    y[:2] = [0, 1]
    s[:2] = [0.3, 0.6]
    w = rng.uniform(0.5, 2, n)
    table = _quiet(calibration_intercept_slope, s, y, weights=w)
    assert np.isfinite(table.to_numpy()).all()
    for smoother in ("lowess", "loess", "local", "binning"):
        assert np.isfinite(_quiet(calibration_errors, s, y, weights=w,
                                  smoother=smoother)).all()
    hl = _quiet(hosmer_lemeshow, s, y, weights=w)
    assert np.isfinite(hl.statistic)
    sz = spiegelhalter_z(s, y, weights=w)
    assert np.isfinite(sz.statistic) and np.isfinite(sz.pvalue)


def test_calibration_errors_other_curves_and_perfect_fit():
    rng = np.random.default_rng(2)
    s = rng.uniform(0.05, 0.95, 400)
    y = (rng.uniform(size=400) < s).astype(float)
    binned = calibration_errors(s, y, smoother="binning")
    assert binned.name == "binning" and list(binned.index) == ["ici", "e50", "e90", "emax"]
    assert 0 <= binned["e50"] <= binned["e90"] <= binned["emax"]
    # labels equal to a linear function of s: lowess/loess reproduce lines exactly
    lin = 0.1 + 0.5 * s
    for smoother in ("lowess", "loess"):
        out = calibration_errors(s, (lin > 0.4).astype(float), smoother=smoother)
        assert out["emax"] >= out["e90"] >= out["e50"]
    from locacal.metrics._r_lowess import r_lowess_fit as fit
    np.testing.assert_allclose(fit(s, lin), lin, atol=1e-12)


def test_hosmer_lemeshow_table_and_invariants():
    p, y, w, _ = _data("smooth_n300")
    hl = hosmer_lemeshow(p, y)
    t = hl.table
    assert len(t) == 10 and t["n"].sum() == p.size
    assert t["observed_events"].sum() == pytest.approx(y.sum())
    assert t["expected_events"].sum() == pytest.approx(p.sum())
    manual = (((t.observed_events - t.expected_events) ** 2 / t.expected_events).sum()
              + ((t.observed_nonevents - t.expected_nonevents) ** 2
                 / t.expected_nonevents).sum())
    assert hl.statistic == pytest.approx(manual, rel=1e-12)
    hw = hosmer_lemeshow(p, y, weights=w)
    hw3 = hosmer_lemeshow(p, y, weights=3 * w)
    assert hw.statistic == pytest.approx(hw3.statistic, rel=1e-10) and hw.df == hw3.df
    ones = hosmer_lemeshow(p, y, weights=np.full(p.size, 2.0))
    assert ones.statistic == pytest.approx(hl.statistic, rel=1e-12)
    assert "Hosmer" in hl._repr_html_() and hl.to_frame().loc["hosmer_lemeshow", "df"] == 8


def test_hosmer_lemeshow_few_groups_warns():
    s = np.repeat([0.2, 0.5], 50)
    y = np.tile([0.0, 1.0], 50)
    with pytest.warns(CalibrationWarning, match="non-empty"):
        hl = hosmer_lemeshow(s, y)
    assert np.isnan(hl.pvalue) and hl.df == 0


def test_spiegelhalter_closed_form_and_degenerate():
    s = np.array([0.1, 0.1, 0.8, 0.8])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    num = (0 - .1) * .8 + (1 - .1) * .8 + 2 * (1 - .8) * (-.6)
    den = np.sqrt(2 * .64 * .09 + 2 * .36 * .16)
    res = spiegelhalter_z(s, y)
    assert res.statistic == pytest.approx(num / den, rel=1e-14)
    assert "Spiegelhalter" in res._repr_html_()
    with pytest.warns(CalibrationWarning, match="zero variance"):
        assert np.isnan(spiegelhalter_z([0.5, 0.5, 1.0], [0, 1, 1]).statistic)


@pytest.mark.parametrize("fn", [calibration_intercept_slope, calibration_errors,
                                hosmer_lemeshow, spiegelhalter_z])
def test_input_validation(fn):
    with pytest.raises(ValueError, match="scores"):
        fn([0.2, 1.2], [0, 1])
    with pytest.raises(ValueError, match="labels"):
        fn([0.2, 0.4], [0, 2])
    with pytest.raises(ValueError, match="length"):
        fn([0.2, 0.4], [0, 1, 1])
    with pytest.raises(ValueError, match="weights"):
        fn([0.2, 0.4], [0, 1], weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="NaN"):
        fn([0.2, np.nan], [0, 1])


def test_bad_parameters():
    s, y = [0.2, 0.4, 0.6], [0, 1, 1]
    with pytest.raises(ValueError, match="smoother"):
        calibration_errors(s, y, smoother="spline")
    with pytest.raises(ValueError, match="level"):
        calibration_intercept_slope(s, y, level=1.0)
    with pytest.raises(TypeError, match="level"):
        calibration_intercept_slope(s, y, level="95%")
    with pytest.raises(ValueError, match="groups"):
        hosmer_lemeshow(s, y, groups=2)
    with pytest.raises(TypeError, match="groups"):
        hosmer_lemeshow(s, y, groups=2.5)


# Size on calibrated data (score = true probability, locacal.simulate.logistic_dgp): 300
# replications per n at the 5 % level. For scores not fitted on the data, HL is ~chi2 on G = 10
# df, so hoslem.test's G - 2 = 8 df rejects with probability P(chi2_10 > chi2_8,0.95) = 0.1146
# (measured 0.107 at n = 500); pvalue_external (G df), Spiegelhalter and the Wald tests of
# intercept = 0 and slope = 1 (1 - coverage of their 95 % intervals) with 0.05. Monte Carlo
# SE of a rate r is sqrt(r (1 - r) / 300) (0.0126 at 0.05, 0.0184 at 0.115); the tolerance is
# 3.5 SE (a false alarm ~5e-4 per check). benchmarks/bench_clinical_size.py prints the full
# table (1000 replications per row).
SIZE_REPS = 300
HL_G_MINUS_2_SIZE = float(stats.chi2.sf(stats.chi2.ppf(0.95, 8), 10))


@pytest.mark.parametrize("n_obs", [500, 2000])
def test_size_on_calibrated_data(n_obs):
    rejections = np.zeros(5)
    for rep in range(SIZE_REPS):
        d = logistic_dgp(n_obs, seed=[n_obs, rep])
        s, y = d["score"].to_numpy(), d["label"].to_numpy()
        hl = hosmer_lemeshow(s, y)
        wald = calibration_intercept_slope(s, y)["pvalue"]
        rejections += [hl.pvalue < 0.05, hl.pvalue_external < 0.05,
                       spiegelhalter_z(s, y).pvalue < 0.05,
                       wald["intercept"] < 0.05, wald["slope"] < 0.05]
    rates = rejections / SIZE_REPS
    target = np.array([HL_G_MINUS_2_SIZE, 0.05, 0.05, 0.05, 0.05])
    tol = 3.5 * np.sqrt(target * (1 - target) / SIZE_REPS)
    assert np.all(np.abs(rates - target) <= tol), rates


def test_intercept_slope_under_perfect_separation_is_nan_with_a_warning():
    # every event scores above every non-event: the slope model's likelihood grows without
    # bound (R's glm: "fitted probabilities numerically 0 or 1"); the offset-only intercept
    # model still has its finite maximum, 0 here by symmetry of scores and labels
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1.0])
    with pytest.warns(CalibrationWarning, match="separate the two classes"):
        table = calibration_intercept_slope(s, y)
    assert table.loc[["slope", "joint_intercept"]].isna().all(axis=None)
    assert table.loc["intercept", "estimate"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("n", "tie"), [(50, True), (5000, False)])
def test_intercept_slope_nan_whenever_the_slope_model_has_no_maximum(n, tie):
    # quasi-complete separation (one tied score carries both labels) and complete
    # separation with scores packed close to the boundary: the likelihood of the slope model
    # grows without bound either way (statsmodels' GLM, used before, missed both and reported
    # slopes of 240 and 5e4 with Wald intervals of +-1e8 and +-1e7, and no CalibrationWarning)
    s = np.sort(np.random.default_rng(n).uniform(0.02, 0.98, size=n))
    j = int(np.searchsorted(s, 0.5))
    if tie:
        s[j - 1] = s[j]
    y = (np.arange(n) >= j).astype(float)
    with pytest.warns(CalibrationWarning, match="separate the two classes"):
        table = calibration_intercept_slope(s, y)
    assert table.loc[["slope", "joint_intercept"]].isna().all(axis=None)
    assert np.isfinite(table.loc["intercept"]).all()
