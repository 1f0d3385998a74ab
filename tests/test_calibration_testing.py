"""calibration_test: batch statistics equal the scalar metrics, the p-value rule, seeded size
and power simulations, the auto rule, results and validation."""

import dataclasses

import matplotlib
import numpy as np
import pytest
from scipy import stats

from locacal import CalibrationWarning, metrics
from locacal.metrics import calibration_testing as ct
from locacal.metrics._null_statistics import rowwise
from locacal.simulate import logistic_dgp

SCALAR = {
    "lcs": metrics.lcs,
    "ece": metrics.ece,
    "brier": metrics.qmse,
    "mcb": lambda s, y, weights=None: float(
        metrics.corp_decomposition(s, y, weights=weights)["mcb"]),
    "hl": lambda s, y, weights=None: metrics.hosmer_lemeshow(s, y, weights=weights).statistic,
    "spiegelhalter": lambda s, y, weights=None: abs(
        metrics.spiegelhalter_z(s, y, weights=weights).statistic),
}
ASYMPTOTIC = ("hl", "spiegelhalter")


def _sample(seed: int, n: int = 60):
    """n = 60 rows with tied scores, scores within 1e-7 of 0 and 1, weights (one zero)."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(size=n), 2)
    s[:4] = [1e-7, 1 - 1e-7, 0.0, 1.0]
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.uniform(0.2, 3.0, size=n)
    w[7] = 0.0
    return s, y, w


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")  # bins under 10 rows
@pytest.mark.parametrize("statistic", list(SCALAR))
@pytest.mark.parametrize("weighted", [False, True])
def test_observed_and_null_equal_the_scalar_metric(statistic, weighted):
    s, y, w = _sample(0)
    w = w if weighted else None
    res = metrics.calibration_test(s, y, statistic=statistic, n_resamples=15, seed=3,
                                   weights=w)
    # measured differences <= 2e-16
    assert res.statistic == pytest.approx(SCALAR[statistic](s, y, weights=w), abs=1e-12)
    # the resampled labels, redrawn independently of the code under test: rows of weight
    # zero dropped (not in the sample), rows sorted by score (stable), then Bernoulli(score)
    # from the same generator stream
    if w is not None:
        s, y, w = s[w > 0], y[w > 0], w[w > 0]
    order = np.argsort(s, kind="stable")
    ws = None if w is None else w[order]
    draws = np.random.default_rng(3).random((15, s.size)) < s[order]
    expected = [SCALAR[statistic](s[order], d.astype(float), weights=ws) for d in draws]
    np.testing.assert_allclose(res.null, expected, rtol=0, atol=1e-12)
    assert res.pvalue == (1 + np.sum(res.null >= res.statistic)) / 16
    assert res.n == s.size


def test_rowwise_builder_equals_the_batched_one():
    s, y, w = _sample(1)
    order = np.argsort(s, kind="stable")
    s, y, w = s[order], y[order], w[order]
    labels = (np.random.default_rng(0).random((5, s.size)) < s).astype(float)
    with pytest.warns(CalibrationWarning):
        looped = rowwise(lambda a, b, c: metrics.ece(a, b, weights=c))(s, w)(labels)
    batched = ct.STATISTICS["ece"].batch(s, w)(labels)
    np.testing.assert_allclose(batched, looped, rtol=0, atol=1e-14)


def test_result_does_not_depend_on_chunking_or_row_order(monkeypatch):
    s, y, _ = _sample(2)
    first = metrics.calibration_test(s, y, n_resamples=40, seed=11)
    monkeypatch.setattr(ct, "_CHUNK_CELLS", 7 * s.size)  # chunks of 7 resamples
    chunked = metrics.calibration_test(s, y, n_resamples=40, seed=11)
    # same draws; only the BLAS reduction order differs with the batch shape (measured 6e-16)
    np.testing.assert_allclose(first.null, chunked.null, rtol=1e-13, atol=0)
    perm = np.random.default_rng(0).permutation(s.size)
    permuted = metrics.calibration_test(s[perm], y[perm], n_resamples=40, seed=11)
    assert permuted.statistic == pytest.approx(first.statistic, abs=1e-15)


def _rejection_rate(statistic, n, gamma, reps, resamples, seed, method="resampling"):
    rejected = 0
    for child in np.random.SeedSequence(seed).spawn(reps):
        data_seed, test_seed = child.spawn(2)
        d = logistic_dgp(n, gamma=gamma, seed=data_seed)
        res = metrics.calibration_test(d["score"], d["label"], statistic=statistic,
                                       n_resamples=resamples, seed=test_seed, method=method)
        rejected += res.pvalue <= 0.05
    return rejected / reps


@pytest.mark.parametrize("statistic", ["lcs", "ece", "hl", "spiegelhalter"])
def test_size_on_calibrated_scores(statistic):
    # 200 samples, 99 resamples: with 99 resamples p <= 0.05 iff at most 4 resampled values
    # reach the observed one, so the exact size is 5/100. Monte Carlo s.e. of the rate is
    # sqrt(.05 * .95 / 200) = 0.0154; accept within 3 s.e. (the full study with 1000 samples
    # is benchmarks/bench_calibration_test.py).
    rate = _rejection_rate(statistic, 500, 1.0, reps=200, resamples=99, seed=20)
    assert abs(rate - 0.05) <= 3 * 0.0154


@pytest.mark.parametrize("statistic", ASYMPTOTIC)
def test_asymptotic_size_on_calibrated_scores(statistic):
    # chi-square on G for HL and the normal for |z|: 400 samples at n = 2000, s.e. of the
    # rate sqrt(.05 * .95 / 400) = 0.0109, accepted within 3 s.e. (hoslem.test's G - 2 would
    # reject about 0.115, far outside; benchmarks/bench_calibration_test.py has the full table)
    rate = _rejection_rate(statistic, 2000, 1.0, reps=400, resamples=1, seed=22,
                           method="asymptotic")
    assert abs(rate - 0.05) <= 3 * 0.0109


def test_asymptotic_pvalues_are_the_clinical_ones():
    d = logistic_dgp(6000, gamma=1.2, seed=5)
    s, y = d["score"].to_numpy(), d["label"].to_numpy()
    hl = metrics.hosmer_lemeshow(s, y)
    res = metrics.calibration_test(s, y, statistic="hl")  # auto: n > 5000
    assert res.method == "asymptotic" and res.null is None
    # chi-square on G = 10 groups computed here, not by the code under test
    assert res.pvalue == pytest.approx(stats.chi2.sf(hl.statistic, 10), rel=1e-12)
    assert res.pvalue != pytest.approx(hl.pvalue)
    z = metrics.spiegelhalter_z(s, y).statistic
    res = metrics.calibration_test(s, y, statistic="spiegelhalter", method="asymptotic")
    assert res.statistic == abs(z)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


def test_lcs_power_on_over_confident_scores():
    # gamma = 1.25, n = 2000: the benchmark measures power 0.70 (300 samples, 199 resamples);
    # with 100 samples the s.e. is about 0.046, so 0.6 - 3 s.e. = 0.46 must be exceeded
    # (and the brief's 0.6 is shown by the benchmark).
    rate = _rejection_rate("lcs", 2000, 1.25, reps=100, resamples=99, seed=21)
    assert rate >= 0.46


def test_asymptotic_is_refused_for_statistics_without_one():
    s, y, _ = _sample(3)
    # the sup test's "asymptotic" method is the tube formula of its band (test_simultaneous)
    for statistic in set(ct.STATISTICS) - set(ASYMPTOTIC) - {"sup"}:
        with pytest.raises(ValueError, match="no known asymptotic"):
            metrics.calibration_test(s, y, statistic=statistic, method="asymptotic")
        res = metrics.calibration_test(s, y, statistic=statistic, n_resamples=9, seed=0)
        assert res.method == "resampling"


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")  # few distinct scores
def test_auto_rule_with_an_asymptotic_statistic(monkeypatch):
    calls = []

    def asymptotic(s, y, w):
        calls.append(s.size)
        return 1.5, 0.25

    spec = ct.CalibrationStatistic("toy", ct.STATISTICS["ece"].batch, asymptotic)
    monkeypatch.setitem(ct.STATISTICS, "toy", spec)
    rng = np.random.default_rng(0)
    # n <= max(1000, min(5000, 50 * distinct)) -> resampling, else asymptotic
    for n, distinct, expected in [(1000, 5, "resampling"), (1001, 5, "asymptotic"),
                                  (4000, 100, "resampling"), (5001, 4000, "asymptotic")]:
        s = rng.choice(np.linspace(0.05, 0.95, distinct), size=n)
        s[:distinct] = np.linspace(0.05, 0.95, distinct)
        y = (rng.random(n) < s).astype(float)
        res = metrics.calibration_test(s, y, statistic="toy", n_resamples=9, seed=0)
        assert res.method == expected
    res = metrics.calibration_test(s, y, statistic="toy", method="asymptotic")
    assert (res.statistic, res.pvalue, res.null) == (1.5, 0.25, None)
    with pytest.raises(ValueError, match="no resampled null"):
        res.plot()


def test_result_display_and_plot():
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s, y, _ = _sample(4)
    res = metrics.calibration_test(s, y, statistic="lcs", n_resamples=49, seed=0)
    assert 0 < res.pvalue <= 1 and res.null.shape == (49,)
    html = res._repr_html_()
    assert "LCS" in html and f"{res.pvalue:.4g}" in html and "resampling" in html
    ax = res.plot()
    assert ax.get_xlabel() == "LCS" and len(ax.lines) == 1
    assert ax.lines[0].get_xdata()[0] == res.statistic
    plt.close("all")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.5


def test_extreme_scores_give_finite_results():
    s = np.array([0.0, 1e-7, 1e-6, 0.3, 0.5, 0.7, 1 - 1e-6, 1 - 1e-7, 1.0] * 7)
    y = (np.arange(s.size) % 3 == 0).astype(float)
    for statistic in ct.STATISTICS:
        with np.errstate(all="raise"):
            res = metrics.calibration_test(s, y, statistic=statistic, n_resamples=19, seed=1)
        assert np.isfinite(res.null).all()
        if statistic == "hl":
            # the group of the seven scores equal to 1 expects 0 non-events and has 7 labels 0:
            # C = inf (strong evidence, not an error), which no resample (label 1 there) reaches
            assert res.statistic == np.inf and res.pvalue == 1 / 20
        else:
            assert np.isfinite(res.statistic)


def test_validation():
    s, y, _ = _sample(5)
    with pytest.raises(ValueError, match="statistic"):
        metrics.calibration_test(s, y, statistic="nope")
    with pytest.raises(ValueError, match="method"):
        metrics.calibration_test(s, y, method="bootstrap")
    with pytest.raises(ValueError, match="n_resamples"):
        metrics.calibration_test(s, y, n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples"):
        metrics.calibration_test(s, y, n_resamples=9.5)
    with pytest.raises(ValueError, match="labels"):
        metrics.calibration_test(s, np.full(s.size, 2.0))
    with pytest.raises(ValueError, match="weights"):
        metrics.calibration_test(s, y, weights=np.ones(3))
