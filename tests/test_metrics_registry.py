"""The metric registry: one validated, sorted sample shared by every metric.

The shared bins are checked against the independent implementation of
:func:`locacal.data.bins.bin_statistics` (its function form), the Mann-Whitney
AUC against scikit-learn, and every registry entry against its public function.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import locacal
from locacal import metrics
from locacal._validation import check_weights
from locacal.data.bins import bin_statistics
from locacal.metrics._prepared import prepare
from locacal.metrics.registry import METRICS, NEEDS, evaluate
from locacal.recalibration.workflow import METRIC_COLUMNS
from locacal.report.table import REPORT_COLUMNS


def _sample(seed: int, n: int, ties: bool, weighted: bool):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 5, size=n)
    if ties:
        s = np.round(s, 1)
    y = (rng.uniform(size=n) < s).astype(float)
    y[:2] = [0.0, 1.0]  # both classes
    w = None
    if weighted:
        w = rng.uniform(0, 3, size=n)
        w[rng.uniform(size=n) < 0.1] = 0.0
        w[:2] = 1.0
    return s, y, w


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 400), st.booleans(), st.booleans(),
       st.sampled_from(["quantile", "uniform", "adaptive"]), st.integers(1, 12))
def test_shared_bins_equal_the_binning_module(seed, n, ties, weighted, strategy, bins):
    s, y, w = _sample(seed, n, ties, weighted)
    # at most one bin per observation of positive weight (or the default 10)
    bins = min(bins, max(n if w is None else int(np.count_nonzero(w)), 10))
    size = max(1, n // bins) if strategy == "adaptive" else None
    # bin_statistics takes validated data: weights relative to their maximum, as prepare has
    w = check_weights(w, s.size)
    ref = bin_statistics(s, y, w, strategy=strategy, bins=bins, bin_size=size)
    got = prepare(s, y, w).bin_statistics(strategy, bins, size)
    np.testing.assert_array_equal(got.count, ref.count)
    # adaptive and weighted quantile bins: sums in sorted rather than row order, and
    # weighted quantile breaks from cumulative weights in that order; uniform and unweighted
    # quantile bins are summed in row order, as here: equal to rounding (measured <= 6e-16
    # relative)
    for name in ("upper", "weight", "weight_sq", "label_sum", "score_sum"):
        np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-13,
                                   atol=1e-13, err_msg=name)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 500), st.booleans(), st.booleans())
def test_mann_whitney_auc_equals_sklearn(seed, n, ties, weighted):
    s, y, w = _sample(seed, n, ties, weighted)
    expected = roc_auc_score(y, s, sample_weight=w)
    assert metrics.auc(s, y, weights=w) == pytest.approx(expected, abs=1e-12, rel=0)


def test_auc_by_hand_with_ties():
    # negatives 0.2, 0.5; positives 0.5, 0.9: pairs (.5 vs .2) 1, (.5 vs .5) 1/2,
    # (.9 vs both) 2  ->  3.5 / 4
    assert metrics.auc([0.2, 0.5, 0.5, 0.9], [0, 0, 1, 1]) == 3.5 / 4
    # integer weights are duplicated rows
    assert metrics.auc([0.2, 0.5, 0.9], [0, 1, 1], weights=[2, 1, 3]) == metrics.auc(
        [0.2, 0.2, 0.5, 0.9, 0.9, 0.9], [0, 0, 1, 1, 1, 1])
    with pytest.warns(locacal.CalibrationWarning, match="single class"):
        assert np.isnan(metrics.auc([0.2, 0.5, 0.9], [1, 1, 0], weights=[1, 1, 0]))


def _public(name, s, y, w, p, tau):
    rates = {"accuracy": metrics.accuracy, "sensitivity": metrics.sensitivity,
             "specificity": metrics.specificity}
    if name in rates:
        return rates[name](s, y, weights=w, threshold=tau)
    if name == "ece_thresholded":
        return metrics.ece_thresholded(s, y, weights=w, threshold=tau)
    if name == "true_mse":
        return metrics.true_mse(s, p, weights=w)
    if name == "n":
        return float(len(s))
    if name == "kl":
        return locacal.kl_divergence(s, p)
    if name in ("refinement",):
        return metrics.brier_decomposition(s, y, weights=w).refinement
    if name in ("mcb", "dsc", "unc"):
        return float(metrics.corp_decomposition(s, y, weights=w)[name])
    if name in ("ici", "e50", "e90", "emax"):
        return float(metrics.calibration_errors(s, y, weights=w)[name])
    if name in ("cal_intercept", "cal_slope"):
        table = metrics.calibration_intercept_slope(s, y, weights=w)
        return float(table.loc[name.removeprefix("cal_"), "estimate"])
    if name == "spiegelhalter_z":
        return metrics.spiegelhalter_z(s, y, weights=w).statistic
    if name == "smece":
        return metrics.smece(s, y)
    func = {"brier": metrics.brier_score}.get(name) or getattr(metrics, name)
    return func(s, y, weights=w)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
@pytest.mark.parametrize(("ties", "weighted"), [(False, False), (True, False), (True, True)])
def test_every_entry_equals_its_public_function(ties, weighted):
    s, y, w = _sample(7, 600, ties, weighted)
    p = np.clip(s + 0.05, 0, 1)
    names = [m for m in METRICS if not (weighted and m in ("kl", "smece"))]
    got = evaluate(names, s, y, weights=w, true_p=p, threshold=0.3)
    assert list(got) == names
    for name in names:
        assert got[name] == _public(name, s, y, w, p, 0.3), name


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")
def test_report_and_recalibrate_columns_come_from_the_registry():
    assert set(REPORT_COLUMNS) <= set(METRICS)
    assert set(METRIC_COLUMNS) <= set(METRICS)
    s, y, w = _sample(3, 300, True, True)
    report = locacal.calibration_report(s, y, weights=w, threshold=0.4)
    assert list(report.index) == list(REPORT_COLUMNS)
    # no true_p, and the smooth ECE has no weighted version
    assert np.isnan(report["true_mse"]) and np.isnan(report["smece"])
    expected = evaluate([c for c in REPORT_COLUMNS if c not in ("true_mse", "smece")], s, y,
                        weights=w, threshold=0.4)
    pd.testing.assert_series_equal(report.drop(["true_mse", "smece"]),
                                   pd.Series(expected, name="value"))
    wide = locacal.calibration_report({"a": s, "b": s[::-1]}, y)
    assert list(wide.columns) == ["model", *REPORT_COLUMNS]


def test_table_entries_are_complete():
    for name, m in METRICS.items():
        assert m.name == name
        assert m.needs <= set(NEEDS)
        assert m.higher_is_better in (True, False, None)
        assert m.meaning and m.reference
    assert METRICS["auc"].higher_is_better and not METRICS["lcs"].higher_is_better
    assert METRICS["true_mse"].needs == {"true_p"}


def test_evaluate_validates_once_and_names_the_argument():
    s, y = [0.2, 0.8, 0.5], [0, 1, 1]
    with pytest.raises(ValueError, match="unknown metrics"):
        evaluate(["brier", "nope"], s, y)
    with pytest.raises(TypeError, match="sequence of names"):
        evaluate("brier", s, y)
    with pytest.raises(ValueError, match="need true_p"):
        evaluate(["true_mse"], s, y)
    with pytest.raises(ValueError, match="does not take weights"):
        evaluate(["kl"], s, y, weights=[1, 1, 1], true_p=s)
    with pytest.raises(ValueError, match="does not take weights"):
        evaluate(["smece"], s, y, weights=[1, 1, 1])
    with pytest.raises(ValueError, match="scores must lie in"):
        evaluate(["brier"], [0.2, 1.5, 0.5], y)
    with pytest.raises(ValueError, match="threshold"):
        evaluate(["accuracy"], s, y, threshold=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(["brier", "ece", "calib_mse"], [0.2, 0.8, 0.5], [1, 1, 1])
    one_class = [c for c in caught if "single class" in str(c.message)]
    assert len(one_class) == 1  # validated once for all three metrics
