"""compare_models: DeLong's paired AUC test against R's pROC, the paired bootstrap's rules,
the validation, the display, and a small seeded size / coverage simulation (the full one is
benchmarks/coverage_compare_models.py).

R's numbers are committed in tests/reference/compare_models/ (see tests/rreference.py);
tests/test_r_references.py re-runs R to prove them.
"""

from __future__ import annotations

import re
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

import locacal
from locacal._validation import CalibrationWarning
from locacal.metrics.delong import delong
from locacal.report.comparison import (
    COLUMNS,
    compare_models,
    paired_bootstrap_bounds,
    permutation_pvalue,
)
from tests.rreference import r_reference

matplotlib.use("Agg")

R_DELONG = """
library(pROC)
r1 <- roc(d, a, direction = "<", levels = c(0, 1), quiet = TRUE)
r2 <- roc(d, b, direction = "<", levels = c(0, 1), quiet = TRUE)
t <- roc.test(r1, r2, method = "delong", paired = TRUE)
out <- list(auc = c(as.numeric(auc(r1)), as.numeric(auc(r2))), var = c(var(r1), var(r2)),
            cov = cov(r1, r2), z = unname(t$statistic), p = t$p.value,
            ci = as.numeric(t$conf.int), ci_a = as.numeric(ci.auc(r1, method = "delong")))
"""


def _two_models(n, seed, ties):
    """Two noisy versions of one logistic score; rounded to 0.05 for many ties."""
    rng = np.random.default_rng(seed)
    eta = rng.normal(0.0, 1.2, n)
    d = (rng.random(n) < expit(eta)).astype(float)
    a = expit(eta + rng.normal(0.0, 0.6, n))
    b = expit(0.7 * eta + rng.normal(0.0, 0.9, n))
    if ties:
        a, b = np.round(a, 2), np.round(b * 20) / 20
    return {"d": d, "a": a, "b": b}


DELONG_CASES = [(40, 0, True), (500, 1, False), (500, 2, True), (3000, 3, False)]
DELONG = {case: r_reference(
    f"compare_models/delong_n{case[0]}_seed{case[1]}", R_DELONG,
    lambda case=case: _two_models(*case)) for case in DELONG_CASES}


@pytest.mark.parametrize("case", DELONG_CASES)
def test_delong_matches_proc(case):
    arrays, r = DELONG[case].inputs_and_output()
    d, a, b = arrays["d"], arrays["a"], arrays["b"]
    fit = delong(np.vstack([a, b]), d)
    # same formulas on the same midranks: agreement to rounding (measured <= 3e-16 on the
    # variances, <= 4e-15 on z and the p-value)
    np.testing.assert_allclose(fit.auc, r["auc"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.diag(fit.cov), r["var"], rtol=1e-12, atol=0)
    assert fit.cov[0, 1] == pytest.approx(r["cov"][0], rel=1e-12, abs=1e-15)
    table = compare_models({"a": a, "b": b}, d, metrics=["auc"], ci=False).to_frame()
    row = table.iloc[0]
    diff, se = fit.difference(0, 1)
    assert diff / se == pytest.approx(r["z"][0], rel=1e-12)
    assert row["pvalue"] == pytest.approx(r["p"][0], rel=1e-10, abs=1e-14)
    np.testing.assert_allclose([row["lower"], row["upper"]], r["ci"], rtol=0, atol=1e-12)
    z = 1.959963984540054
    se_a = np.sqrt(fit.cov[0, 0])
    np.testing.assert_allclose([fit.auc[0] - z * se_a, fit.auc[0], fit.auc[0] + z * se_a],
                               r["ci_a"], rtol=0, atol=1e-12)


def _delong_by_pairs(scores, labels):
    """The O(m n) definition (DeLong et al. 1988, §3), independent of the midranks."""
    pos, neg = scores[:, labels == 1], scores[:, labels == 0]
    psi = ((pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :]))
    v10, v01 = psi.mean(axis=2), psi.mean(axis=1)
    return psi.mean(axis=(1, 2)), np.cov(v10) / pos.shape[1] + np.cov(v01) / neg.shape[1]


@pytest.mark.parametrize("ties", [False, True])
def test_delong_equals_its_pairwise_definition_and_the_auc(ties):
    arrays = _two_models(300, 7, ties)
    scores = np.vstack([arrays["a"], arrays["b"], np.round(arrays["a"], 1)])
    fit = delong(scores, arrays["d"])
    auc, cov = _delong_by_pairs(scores, arrays["d"])
    np.testing.assert_allclose(fit.auc, auc, rtol=0, atol=1e-14)
    np.testing.assert_allclose(fit.cov, cov, rtol=1e-12, atol=1e-17)
    assert fit.auc[0] == pytest.approx(locacal.auc(arrays["a"], arrays["d"]), abs=1e-14)


# --- the table --------------------------------------------------------------------------------


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    return p, y, rng


def test_table_has_the_contract_columns_all_pairs_in_order():
    p, y, rng = _data()
    scores = pd.DataFrame({"x": p, "y": p ** 1.4, "z": np.clip(p + rng.normal(0, .05, p.size),
                                                              0.01, 0.99)})
    res = compare_models(scores, y, metrics=["brier", "ece", "auc"], n_boot=30, seed=0)
    table = res.to_frame()
    assert tuple(table.columns) == COLUMNS
    assert list(zip(table["model_a"], table["model_b"], strict=True))[::3] == [
        ("x", "y"), ("x", "z"), ("y", "z")]
    assert (table["metric"][:3] == ["brier", "ece", "auc"]).all()
    # the differences are those of the package's metrics on the data
    row = table[(table.model_a == "x") & (table.model_b == "y") & (table.metric == "brier")]
    assert row["difference"].iloc[0] == pytest.approx(
        locacal.brier_score(p, y) - locacal.brier_score(p ** 1.4, y), abs=1e-15)
    row = table[(table.model_a == "y") & (table.model_b == "z") & (table.metric == "ece")]
    assert row["difference"].iloc[0] == pytest.approx(
        locacal.ece(p ** 1.4, y) - locacal.ece(scores["z"], y), abs=1e-15)
    assert (table["lower"] <= table["upper"]).all()
    assert table["pvalue"].between(0, 1).all()


def test_reference_compares_every_model_with_it():
    p, y, _ = _data()
    res = compare_models({"a": p, "b": p ** 1.2, "c": p ** 0.8}, y, reference="b",
                         metrics=["brier"], n_boot=20, seed=0)
    table = res.to_frame()
    assert list(zip(table["model_a"], table["model_b"], strict=True)) == [("a", "b"),
                                                                         ("c", "b")]


def test_same_seed_same_table_and_swapped_models_mirror():
    p, y, _ = _data()
    metrics = ["brier", "lcs", "ece"]
    one = compare_models({"a": p, "b": p ** 1.3}, y, metrics=metrics, n_boot=40,
                         seed=5).to_frame()
    again = compare_models({"a": p, "b": p ** 1.3}, y, metrics=metrics, n_boot=40,
                           seed=5).to_frame()
    pd.testing.assert_frame_equal(one, again)
    swapped = compare_models({"b": p ** 1.3, "a": p}, y, metrics=metrics, n_boot=40,
                             seed=5).to_frame()
    np.testing.assert_allclose(swapped["difference"], -one["difference"], atol=1e-15)
    np.testing.assert_allclose(swapped["lower"], -one["upper"], atol=1e-15)
    np.testing.assert_allclose(swapped["pvalue"], one["pvalue"], atol=1e-15)


def test_identical_models_differ_by_zero_with_p_one():
    p, y, _ = _data()
    table = compare_models({"a": p, "b": p.copy()}, y, n_boot=20, seed=0).to_frame()
    assert (table["difference"] == 0).all()
    assert (table["pvalue"] == 1).all()
    basic = ~table["metric"].isin(["ece", "ici"])
    assert (table["lower"][basic] == 0).all() and (table["upper"][basic] == 0).all()
    # the ECE and ICI bounds do not know that the two models' gaps are the same: they
    # hold 0, symmetrically (each model's plug-in error lies between the same two bounds)
    bounds = table[~basic]
    assert (bounds["lower"] < 0).all() and (bounds["upper"] > 0).all()
    np.testing.assert_allclose(bounds["lower"], -bounds["upper"], rtol=1e-12)


def test_paired_bootstrap_bounds_by_hand():
    d = np.array([0.5, 0.2])
    reps = np.column_stack([np.arange(1.0, 10.0) / 10, np.arange(1.0, 10.0) / 10])  # .1-.9
    lower, upper, pvalue = paired_bootstrap_bounds(d, reps, 0.8)
    q_lo, q_hi = np.quantile(reps[:, 0], [0.1, 0.9])
    assert lower[0] == pytest.approx(1.0 - q_hi) and upper[0] == pytest.approx(1.0 - q_lo)
    # 2d = 1.0 lies above every replicate: u = 1, p at its floor 1 / (B + 1)
    assert pvalue[0] == pytest.approx(0.1)
    # 2d = 0.4 is the 4th of 9 sorted replicates: u = 3 / 8, p = 2 * 3 / 8
    assert pvalue[1] == pytest.approx(0.75)


def test_pvalue_inverts_the_interval():
    """p < 1 - level exactly when the basic interval at that level excludes 0."""
    rng = np.random.default_rng(3)
    reps = rng.normal(0.0, 1.0, (200, 400)) + rng.normal(0.0, 2.0, 400)
    d = rng.normal(0.0, 2.0, 400)
    for level in (0.8, 0.9, 0.95):
        lower, upper, pvalue = paired_bootstrap_bounds(d, reps, level)
        outside = (lower > 0) | (upper < 0)
        np.testing.assert_array_equal(pvalue < 1 - level, outside)
        assert 10 < outside.sum() < 390


def test_permutation_pvalue_by_hand():
    d = np.array([0.3, -0.3, 0.0, 0.3])
    perm = np.column_stack([[0.1, -0.2, 0.3, -0.4, np.nan]] * 4)
    perm[:, 2] = 0.0
    perm[:, 3] = np.nan
    p = permutation_pvalue(d, perm)
    # |d_b| >= 0.3 for 2 of the 4 finite permutations: (1 + 2) / (1 + 4); the sign of d
    # does not matter; all d_b = 0 = d gives 1; no finite permutation gives NaN
    np.testing.assert_allclose(p[:3], [0.6, 0.6, 1.0])
    assert np.isnan(p[3])


def test_permutation_is_the_default_test_and_bootstrap_inverts_the_interval():
    p, y, _ = _data()
    scores = {"a": p, "b": np.clip(p ** 1.3 + 0.02, 0, 1)}
    perm = compare_models(scores, y, metrics=["brier", "lcs", "ece"], n_boot=40,
                          seed=2).to_frame()
    boot = compare_models(scores, y, metrics=["brier", "lcs", "ece"], n_boot=40, seed=2,
                          test="bootstrap").to_frame()
    # the same resamples give the same intervals; only the p-values differ
    pd.testing.assert_frame_equal(perm[["lower", "upper"]], boot[["lower", "upper"]])
    assert list(perm["method"]) == ["paired bootstrap (basic), permutation"] * 2 + [
        "paired bootstrap (directional bounds), permutation"]
    assert list(boot["method"]) == ["paired bootstrap (basic)"] * 2 + [
        "paired bootstrap (directional bounds)"]
    # permutation p-values live on the grid (1 + k) / 41
    k = perm["pvalue"].to_numpy() * 41 - 1
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)
    # (the ECE's bootstrap p-value inverts the basic interval, not the bounds: next test)
    boot = boot.iloc[:2]
    outside = (boot["lower"] > 0) | (boot["upper"] < 0)
    np.testing.assert_array_equal(boot["pvalue"] < 0.05, outside)


def test_basic_intervals_and_all_pvalues_come_from_the_shared_resamples():
    """compare_models' table from its own pieces: the paired resamples (``_bootstrap``),
    the basic interval and its inverted p-value for every metric but the ECE and ICI
    (``paired_bootstrap_bounds``), the directional bounds for those two, whose
    ``test="bootstrap"`` p-value stays the basic interval inverted."""
    from locacal.report._directional import directional_bounds
    from locacal.report.comparison import _bootstrap

    p, y, _ = _data(300)
    a, b = p, np.clip(p ** 1.3 + 0.02, 0, 1)
    names = ["brier", "ece", "lcs", "ici"]
    table = compare_models({"a": a, "b": b}, y, metrics=names, n_boot=30, seed=4,
                           test="bootstrap").to_frame().set_index("metric")
    reps, deltas = _bootstrap(names, [a, b], y.astype(float), 30, np.random.default_rng(4))
    diff = table.loc[names, "difference"].to_numpy()
    lower, upper, pvalue = paired_bootstrap_bounds(diff, reps[:, 0] - reps[:, 1], 0.95)
    np.testing.assert_array_equal(table.loc[names, "pvalue"], pvalue)
    np.testing.assert_array_equal(table.loc[["brier", "lcs"], "lower"], lower[[0, 2]])
    np.testing.assert_array_equal(table.loc[["brier", "lcs"], "upper"], upper[[0, 2]])
    for j, m in ((1, "ece"), (3, "ici")):
        up, lo = deltas[m]
        bounds = directional_bounds(diff[j:j + 1], up[:, [0]] - lo[:, [1]],
                                    lo[:, [0]] - up[:, [1]], 0.95)
        assert (table.loc[m, "lower"], table.loc[m, "upper"]) == (bounds[0][0], bounds[1][0])
        # the bounds hold Fang & Santos's pointwise interval (the estimated zero sets)
        point = directional_bounds(diff[j:j + 1], up[:, [0]] - up[:, [1]],
                                   up[:, [0]] - up[:, [1]], 0.95)
        assert bounds[0][0] <= point[0][0] and point[1][0] <= bounds[1][0]


def test_ci_false_skips_the_bootstrap_but_keeps_delong():
    p, y, _ = _data()
    table = compare_models({"a": p, "b": p ** 2}, y, metrics=["brier", "auc"],
                           ci=False).to_frame()
    assert table.loc[0, ["lower", "upper", "pvalue"]].isna().all()
    assert table.loc[1, ["lower", "upper", "pvalue"]].notna().all()


@pytest.mark.parametrize(("scores", "message"), [
    ({"a": np.full(10, 0.5)}, "at least two models"),
    (pd.DataFrame(np.full((10, 2), 0.5), columns=["m", "m"]), "duplicate"),
    ({1: np.full(10, 0.5), "1": np.full(10, 0.4)}, "coincide"),
    ({"a": np.full(10, 0.5), "b": np.full(9, 0.5)}, "lengths differ: {'a': 10, 'b': 9}"),
    (np.full(10, 0.5), "dict"),
    ({"a": pd.Series(np.full(10, 0.5)), "b": pd.Series(np.full(10, 0.5), index=range(1, 11))},
     "scores['b']"),
])
def test_bad_models_are_refused(scores, message):
    y = np.tile([0, 1], 5)
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        compare_models(scores, y)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"metrics": ["nope"]}, "metrics"), ({"metrics": []}, "metrics"),
    ({"metrics": ["true_mse"]}, "metrics"), ({"reference": "zz"}, "reference"),
    ({"n_boot": 2}, "n_boot"), ({"level": 1.5}, "level"), ({"ci": "yes"}, "ci"),
    ({"test": "wilcoxon"}, "test"), ({"test": 1}, "test"),
])
def test_bad_options_are_refused(kwargs, message):
    p, y, _ = _data(60)
    with pytest.raises((ValueError, TypeError), match=message):
        compare_models({"a": p, "b": p}, y, **kwargs)


def test_display_overlays_the_curves_and_shows_itself():
    import matplotlib.pyplot as plt

    p, y, _ = _data()
    res = compare_models({"a": p, "b": p ** 1.5}, y, metrics=["brier", "auc"], n_boot=20,
                         seed=0)
    ax = res.plot()
    labels = [line.get_label() for line in ax.get_lines()]
    assert "a" in labels and "b" in labels
    ax2 = res.plot_differences(metrics=["brier", "auc"])
    assert len(ax2.get_yticklabels()) == 2
    html = res._repr_html_()
    assert "ModelComparison" in html and "<img" in html and "brier" in html
    assert "ModelComparison(models=['a', 'b']" in repr(res)
    plt.close("all")


# --- small seeded size and coverage study ---------------------------------------------------


_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)


def calibrated_signal(z, tau, sigma):
    """P(D = 1 | Z = z), Z = eta + e, eta ~ N(0, tau^2), e ~ N(0, sigma^2), D ~ Bernoulli(
    expit eta): E[expit(eta) | z] by Gauss-Hermite quadrature (as the benchmark's)."""
    shrink, sd = tau**2 / (tau**2 + sigma**2), tau * sigma / np.sqrt(tau**2 + sigma**2)
    return expit(shrink * z[:, None] + sd * _NODES) @ (_WEIGHTS / _WEIGHTS.sum())


def test_calibrated_signal_is_calibrated():
    """E[D | s] = s: on 4 * 10^5 draws, the mean of D - s in each score decile is within
    4 standard errors of 0."""
    rng = np.random.default_rng(11)
    eta = rng.normal(0.0, 1.5, 400_000)
    d = (rng.random(eta.size) < expit(eta)).astype(float)
    s = calibrated_signal(eta + rng.normal(0, 0.8, eta.size), 1.5, 0.8)
    deciles = np.searchsorted(np.quantile(s, np.linspace(0.1, 0.9, 9)), s)
    for k in range(10):
        gap = d[deciles == k] - s[deciles == k]
        assert abs(gap.mean()) < 4 * gap.std() / np.sqrt(gap.size)


def _equal_pair(n, rng, tau=1.5, sigma=0.8):
    """Two calibrated models seeing the true logit through independent noise of the same
    size: s_k = P(D = 1 | eta + e_k). They are exchangeable: every population difference
    is 0."""
    eta = rng.normal(0.0, tau, n)
    d = (rng.random(n) < expit(eta)).astype(float)
    return d, calibrated_signal(eta + rng.normal(0, sigma, n), tau, sigma), \
        calibrated_signal(eta + rng.normal(0, sigma, n), tau, sigma)


def test_size_of_the_permutation_tests_for_two_equally_calibrated_models():
    """100 data sets of n = 300, 39 permutations: the paired permutation test is exact for
    interchangeable models, and p <= 0.05 happens with probability 2/40 = 0.05 exactly.
    Each of the Brier score, log loss and ECE rejects in 1-12 of 100 (binomial(100, 0.05):
    P(outside) < 0.01 each; measured 5, 6, 6). The test can fail: on the same data sets
    and seeds, ``test="bootstrap"`` (the basic bootstrap interval inverted, the former
    default) rejects in 11, 11 and 19 (the ECE's near-zero problem). DeLong's test on 400
    data sets rejects in 8-32 (binomial 0.05: P(outside) < 0.003)."""
    rng = np.random.default_rng(2026)
    metrics = ["brier", "log_loss", "ece"]
    rejections = dict.fromkeys(metrics, 0)
    for _ in range(100):
        d, a, b = _equal_pair(300, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CalibrationWarning)
            table = compare_models({"a": a, "b": b}, d, metrics=metrics, n_boot=39,
                                   seed=rng.integers(2**32)).to_frame()
        for m, p in zip(table["metric"], table["pvalue"], strict=True):
            rejections[m] += p <= 0.05
    assert all(1 <= k <= 12 for k in rejections.values()), rejections
    delong_rejections = 0
    for _ in range(400):
        d, a, b = _equal_pair(300, rng)
        fit = delong(np.vstack([a, b]), d)
        diff, se = fit.difference(0, 1)
        delong_rejections += abs(diff / se) > 1.959963984540054
    assert 8 <= delong_rejections <= 32


def test_coverage_of_the_brier_difference_between_unequal_models():
    """Model a calibrated, b over-confident (logit x 1.6): the true Brier difference, from one
    sample of 10^6, is covered by the 90 % interval in 37-53 of 50 data sets of n = 400
    (binomial 0.9: P(outside) < 0.003)."""
    rng = np.random.default_rng(7)

    def draw(n):
        eta = rng.normal(0.0, 1.5, n)
        d = (rng.random(n) < expit(eta)).astype(float)
        return d, expit(eta), expit(1.6 * eta)

    d, a, b = draw(10**6)
    truth = np.mean((a - d) ** 2) - np.mean((b - d) ** 2)
    covered = 0
    for _ in range(50):
        d, a, b = draw(400)
        row = compare_models({"a": a, "b": b}, d, metrics=["brier"], n_boot=99, level=0.9,
                             seed=rng.integers(2**32)).to_frame().iloc[0]
        covered += row["lower"] <= truth <= row["upper"]
    assert 37 <= covered <= 50


# --- the directional-derivative bootstrap of the ECE and ICI differences ---------------------


def _ece_by_hand(s, y):
    """Share and gap of 10 type-7 quantile bins, right-closed, the lowest closed on the
    left (R's cut(..., include.lowest = TRUE)), written out with numpy."""
    breaks = np.unique(np.quantile(s, np.linspace(0.0, 1.0, 11)))
    k = np.clip(np.searchsorted(breaks, s, side="left") - 1, 0, breaks.size - 2)
    share = np.array([np.mean(k == j) for j in range(breaks.size - 1)])
    gap = np.array([np.mean((y - s)[k == j]) for j in range(breaks.size - 1)])
    return share, gap


@pytest.mark.parametrize("ties", [False, True])
def test_ece_and_ici_gaps_are_the_registry_metrics(ties):
    """The gap functions give the registry's ECE and ICI bit for bit (the basic replicates
    and the test="bootstrap" p-values stay those of evaluate), and the ECE's shares and
    gaps are the quantile bins' written out by hand."""
    from locacal.metrics._gaps import ece_gaps, ici_gaps
    from locacal.metrics.registry import evaluate

    arrays = _two_models(500, 4, ties)
    for s in (arrays["a"], arrays["b"]):
        for idx in (np.arange(s.size), np.random.default_rng(1).integers(0, s.size, s.size)):
            x, y = s[idx], arrays["d"][idx]
            value, share, gap, _ = ece_gaps(x, y)
            ici, gaps = ici_gaps(x, y)
            ref = evaluate(["ece", "ici"], x, y)
            assert value == ref["ece"] and ici == ref["ici"]
            assert value == pytest.approx(np.sum(share * np.abs(gap)), rel=1e-13)
            assert ici == pytest.approx(np.mean(np.abs(gaps)), rel=1e-13)
            if not ties:
                by_hand = _ece_by_hand(x, y)
                np.testing.assert_allclose(share, by_hand[0], atol=1e-15)
                np.testing.assert_allclose(gap, by_hand[1], atol=1e-13)


def _deltas_by_hand(metric, s, y, draws, threshold):
    """delta*_b written out from its definition, one resample at a time, twice over the
    resamples (the first pass for the standard errors): the gaps of the resample's own
    bins or lowess fit, their bootstrap sd, the zero set |gap| <= threshold * se, then
    sum_j w*_j [s_j gap*_j (non-zero) or |gap*_j - gap_j| (zero)] - sum_NZ w_j |gap_j|."""
    from locacal.metrics._r_lowess import r_lowess_fit

    n = s.size
    if metric == "ece":
        w, g = _ece_by_hand(s, y)
        boot = [_ece_by_hand(s[i], y[i]) for i in draws]
        h = np.array([gb - g for _, gb in boot])
        se = h.std(axis=0, ddof=1)
        nz = np.abs(g) > threshold * se
        return np.array([np.sum(np.where(nz, wb * np.sign(g) * gb, wb * np.abs(gb - g)))
                         - np.sum(w[nz] * np.abs(g[nz])) for wb, gb in boot])
    g = r_lowess_fit(s, y) - s
    fits = [r_lowess_fit(s[i], y[i]) - s[i] for i in draws]
    se = np.array([np.std([f[i == j][0] - g[j] for f, i in zip(fits, draws, strict=True)
                           if (i == j).any()], ddof=1) for j in range(n)])
    nz = np.abs(g) > threshold * se
    out = []
    for f, i in zip(fits, draws, strict=True):  # row by row of the resample
        terms = np.where(nz[i], np.sign(g[i]) * f, np.abs(f - g[i]))
        out.append(terms.sum() / n - np.abs(g[nz]).sum() / n)
    return np.array(out)


@pytest.mark.parametrize("metric", ["ece", "ici"])
@pytest.mark.parametrize("threshold", [None, 0.0, 1.0])
def test_derivative_replicates_equal_their_definition(metric, threshold):
    from locacal.report._directional import DirectionalReplicates, kappa

    arrays = _two_models(120 if metric == "ici" else 400, 5, False)
    s, y = arrays["b"], arrays["d"]
    rng = np.random.default_rng(9)
    draws = [rng.integers(0, s.size, s.size) for _ in range(40)]
    reps = DirectionalReplicates(metric, s, y, len(draws))
    for b, idx in enumerate(draws):
        reps.add(b, idx)
    k = kappa(s.size) if threshold is None else threshold
    expected = _deltas_by_hand(metric, s, y, draws, k)
    np.testing.assert_allclose(reps.deltas(threshold), expected, rtol=0, atol=1e-13)
    if threshold == 0.0:  # no gap is exactly 0: every gap non-zero, the lower bound
        assert (reps.gap != 0).all()
        np.testing.assert_allclose(reps.lower(), expected, rtol=0, atol=1e-13)
    if threshold is None:
        np.testing.assert_array_equal(reps.upper(), reps.deltas())
    # the mix of both kinds of gaps is exercised
    nz = reps.nonzero(threshold)
    assert (threshold == 0.0) or (nz.any() and not nz.all())


@pytest.mark.parametrize("metric", ["ece", "ici"])
def test_with_every_gap_nonzero_the_derivative_bootstrap_is_the_basic_one(metric):
    """Where every gap is taken for non-zero and keeps its sign in the resample,
    delta*_b = M*_b - M_hat exactly."""
    from locacal.report._directional import DirectionalReplicates

    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.75, 2000 if metric == "ece" else 600)
    y = (rng.random(p.size) < p).astype(float)
    s = p + 0.2  # every gap near -0.2, many standard errors from 0
    reps = DirectionalReplicates(metric, s, y, 30)
    values = np.array([reps.add(b, rng.integers(0, s.size, s.size)) for b in range(30)])
    assert (reps.gap < -0.1).all() and reps.nonzero().all()
    np.testing.assert_allclose(reps.deltas(0.0), values - reps.value, rtol=0, atol=1e-14)


def test_a_zero_gap_gives_the_half_normal_law():
    """One bin (a constant score 0.5) and labels half ones: the gap is exactly 0, so
    delta*_b = |mean(y*) - 1/2| (and not the basic bootstrap's mean(y*) - 1/2), whose law
    is that of |K / n - 1/2|, K ~ binomial(n, 1/2), the discrete |N(0, 1 / (4 n))|: at
    n = 400 its distribution function at 0.0125, 0.025, 0.05 is 0.4176, 0.7063, 0.9598
    (binomial; the half-normal's 0.3829, 0.6827, 0.9545 without the continuity correction),
    and 4000 resamples estimate each within 0.025 (3 Monte Carlo standard errors)."""
    from scipy.stats import binom

    from locacal.report._directional import DirectionalReplicates

    n = 400
    s, y = np.full(n, 0.5), np.tile([0.0, 1.0], n // 2)
    rng = np.random.default_rng(8)
    draws = [rng.integers(0, n, n) for _ in range(4000)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        reps = DirectionalReplicates("ece", s, y, len(draws))
        for b, idx in enumerate(draws):
            reps.add(b, idx)
    assert reps.value == 0.0 and not reps.nonzero().any()
    deltas = reps.deltas()
    np.testing.assert_allclose(deltas, [abs(y[i].mean() - 0.5) for i in draws], atol=1e-15)
    points = np.array([0.0125, 0.025, 0.05])
    exact = binom.cdf(200 + n * points, n, 0.5) - binom.cdf(199 - n * points, n, 0.5)
    np.testing.assert_allclose(exact, [0.4176, 0.7063, 0.9598], atol=1e-4)
    ecdf = (deltas[:, None] <= points + 1e-12).mean(axis=0)
    np.testing.assert_allclose(ecdf, exact, atol=0.025)


def _unequal(n, rng, tau=1.5):
    """The benchmark's "unequal" process: model a calibrated (noise 0.5), model b
    over-confident (noise 1, logit x 1.5)."""
    eta = rng.normal(0.0, tau, n)
    d = (rng.random(n) < expit(eta)).astype(float)
    a = calibrated_signal(eta + rng.normal(0, 0.5, n), tau, 0.5)
    b = expit(1.5 * logit(calibrated_signal(eta + rng.normal(0, 1.0, n), tau, 1.0)))
    return d, a, b


def test_ece_bounds_cover_where_the_basic_interval_does_not():
    """One model calibrated, the other over-confident, n = 1000: the true ECE difference
    (about -0.059, from 4 * 10^5 rows) is covered by the directional bounds in at least 36
    of 40 data sets (measured 40; binomial(40, 0.95): P(< 36) = 0.05; the benchmark
    measures 0.97-1.00), by the basic interval from the same 100 resamples in at most 32
    (measured 27; the benchmark's 0.6-0.8; binomial(40, 0.75): P(> 32) = 0.18). Fang &
    Santos's pointwise interval (the zero sets taken as estimated) covers in 22: it is not
    enough to bootstrap the derivative."""
    from locacal.metrics.registry import evaluate
    from locacal.report._directional import directional_bounds
    from locacal.report.comparison import _bootstrap

    rng = np.random.default_rng(31)
    d, a, b = _unequal(400_000, rng)
    truth = evaluate(["ece"], a, d)["ece"] - evaluate(["ece"], b, d)["ece"]
    assert -0.065 < truth < -0.055
    covered = {"basic": 0, "bounds": 0, "pointwise": 0}
    for _ in range(40):
        d, a, b = _unequal(1000, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CalibrationWarning)
            reps, deltas = _bootstrap(["ece"], [a, b], d, 100,
                                      np.random.default_rng(rng.integers(2**32)))
        diff = np.array([evaluate(["ece"], a, d)["ece"] - evaluate(["ece"], b, d)["ece"]])
        lo, hi, _ = paired_bootstrap_bounds(diff, reps[:, 0] - reps[:, 1], 0.95)
        covered["basic"] += lo[0] <= truth <= hi[0]
        up, low = deltas["ece"]
        lo, hi = directional_bounds(diff, up[:, [0]] - low[:, [1]], low[:, [0]] - up[:, [1]],
                                    0.95)
        covered["bounds"] += lo[0] <= truth <= hi[0]
        lo, hi = directional_bounds(diff, up[:, [0]] - up[:, [1]], up[:, [0]] - up[:, [1]],
                                    0.95)
        covered["pointwise"] += lo[0] <= truth <= hi[0]
    assert covered["bounds"] >= 36 and covered["basic"] <= 32, covered
    assert covered["pointwise"] <= 32, covered


def test_tied_scores_take_the_data_bins_when_a_resample_has_fewer():
    """Scores on a grid of 0.1: the quantile bins of a resample can merge where the data's
    do not; that resample's gaps are then taken on the data's bins, which on the data
    themselves give the data's shares and gaps."""
    from locacal.metrics._gaps import ece_gaps, ece_gaps_on_bins
    from locacal.report._directional import DirectionalReplicates

    rng = np.random.default_rng(12)
    s = np.round(rng.beta(2, 5, 300), 1)
    y = (rng.random(s.size) < s).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)  # 6 distinct quantile bins
        _, share, gap, bins = ece_gaps(s, y)
    on_bins = ece_gaps_on_bins(bins, s, y)
    np.testing.assert_allclose(on_bins[0], share, atol=1e-15)
    np.testing.assert_allclose(on_bins[1], gap, atol=1e-14)
    draws = [rng.integers(0, s.size, s.size) for _ in range(60)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        sizes = [ece_gaps(s[i], y[i])[1].size for i in draws]
        reps = DirectionalReplicates("ece", s, y, len(draws))
        for b, idx in enumerate(draws):
            reps.add(b, idx)
    assert min(sizes) < share.size or max(sizes) > share.size
    assert np.isfinite(reps.upper()).all() and np.isfinite(reps.lower()).all()


def test_unstored_ici_replicates_equal_the_stored_ones():
    """store=False keeps no n_boot x n arrays: a second pass over the same resamples gives
    the stored replicates (to rounding); a study threshold needs the stored ones."""
    from locacal.report._directional import DirectionalReplicates

    arrays = _two_models(120, 5, False)
    s, y = arrays["b"], arrays["d"]
    rng = np.random.default_rng(9)
    draws = [rng.integers(0, s.size, s.size) for _ in range(40)]
    stored = DirectionalReplicates("ici", s, y, len(draws))
    streamed = DirectionalReplicates("ici", s, y, len(draws), store=False)
    for b, idx in enumerate(draws):
        assert stored.add(b, idx) == streamed.add(b, idx)
    assert streamed.second_pass and not stored.second_pass
    for b, idx in enumerate(draws):
        streamed.revisit(b, idx)
    nz = stored.nonzero()
    assert nz.any() and not nz.all()
    np.testing.assert_array_equal(streamed.nonzero(), nz)
    np.testing.assert_allclose(streamed.upper(), stored.upper(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(streamed.lower(), stored.lower(), rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="threshold"):
        streamed.deltas(1.0)


def test_compare_models_without_stored_resamples_gives_the_same_table(monkeypatch):
    """Above STORE_MAX (resample, row) pairs the ICI's bounds come from a second pass over
    the same resamples: the table is the stored one's, and later draws (the permutations)
    are unchanged."""
    import locacal.report.comparison as comparison

    arrays = _two_models(250, 7, False)
    scores = {"a": arrays["a"], "b": arrays["b"]}
    kwargs = {"metrics": ["ici", "ece", "brier"], "n_boot": 20, "seed": 5}
    stored = comparison.compare_models(scores, arrays["d"], **kwargs).to_frame()
    monkeypatch.setattr(comparison, "STORE_MAX", 0)
    streamed = comparison.compare_models(scores, arrays["d"], **kwargs).to_frame()
    numeric = ["difference", "lower", "upper", "pvalue"]
    np.testing.assert_allclose(streamed[numeric], stored[numeric], rtol=0, atol=1e-15)
    assert (streamed["method"] == stored["method"]).all()
