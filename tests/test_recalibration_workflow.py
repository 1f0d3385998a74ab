"""recalibrate() and its result: table layout, consistency with the metrics, input handling."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from locacal import metrics, simulate
from locacal.curves import (
    BetaCalibrator,
    IsotonicCalibrator,
    LocalRegressionCalibrator,
    PlattCalibrator,
)
from locacal.recalibration import RecalibrationResult, recalibrate, split

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def splits():
    data = simulate.logistic_dgp(2000, gamma=3, seed=7)
    return split(data, seed=7)


@pytest.fixture(scope="module")
def result(splits):
    return recalibrate(*splits, true_p="true_p")


def test_metrics_table_layout(result):
    table = result.metrics
    assert list(table.columns) == ["method", "split", "n", "true_mse", "brier", "ece", "qmse",
                                   "lcs", "accuracy", "sensitivity", "specificity", "auc"]
    methods = ["uncalibrated", "platt", "isotonic", "beta", "local", "true_p"]
    assert list(table["method"].unique()) == methods
    assert list(table["split"].unique()) == ["train", "calibration", "test"]
    assert len(table) == 18
    assert table.drop(columns=["method", "split"]).notna().all().all()
    assert table.set_index(["method", "split"])["n"].loc[("beta", "test")] == 400


def test_metrics_are_those_of_the_metric_functions(result, splits):
    test = splits[2]
    scores = result.scores["test"]
    np.testing.assert_array_equal(scores["uncalibrated"], test["score"])
    np.testing.assert_array_equal(scores["label"], test["label"])
    np.testing.assert_array_equal(scores["beta"],
                                  result.calibrators["beta"].predict(test["score"]))
    row = result.summary("test").loc["isotonic"]
    s, y = scores["isotonic"], scores["label"]
    assert row["lcs"] == metrics.lcs(s, y)
    assert row["ece"] == metrics.ece(s, y)
    # true_mse pairs by position only when the indexes agree (the rule of every function)
    assert row["true_mse"] == metrics.true_mse(s, test["true_p"].to_numpy())
    assert row["auc"] == metrics.auc(s, y)
    assert row["accuracy"] == metrics.accuracy(s, y, threshold=0.5)
    # the true probabilities as scores: zero true MSE
    assert result.summary("calibration").loc["true_p", "true_mse"] == 0.0


def test_maps_are_fitted_on_the_calibration_split(result, splits):
    cal = splits[1]
    # "local" is the 2024 study's local regression (degree 0, rectangular kernel, nn 0.15),
    # not LocalRegressionCalibrator's default (degree 1, tricube)
    settings = {"local": {"degree": 0, "kernel": "rect", "nn": 0.15}}
    for name, cls in [("platt", PlattCalibrator), ("isotonic", IsotonicCalibrator),
                      ("beta", BetaCalibrator), ("local", LocalRegressionCalibrator)]:
        again = cls(**settings.get(name, {})).fit(cal["score"], cal["label"])
        sub = result.maps[result.maps["method"] == name]
        np.testing.assert_allclose(sub["recalibrated"], again.predict(sub["score"]))
        assert sub["score"].iloc[0] == 0 and sub["score"].iloc[-1] == 1
        assert type(result.calibrators[name]) is cls
        for key, value in settings.get(name, {}).items():
            assert getattr(result.calibrators[name], key) == value


def test_pairs_and_true_p_arrays_give_the_same_table(result, splits):
    pairs = [(d["score"].to_numpy(), d["label"].to_numpy()) for d in splits]
    true_p = [d["true_p"] for d in splits]
    again = recalibrate(*pairs, true_p=true_p)
    pd.testing.assert_frame_equal(again.metrics, result.metrics)


def test_custom_methods_columns_and_no_train(splits):
    renamed = [d.rename(columns={"score": "s", "label": "d"}) for d in splits]
    res = recalibrate(None, renamed[1], renamed[2],
                      methods={"local_deg2": LocalRegressionCalibrator(degree=2),
                               "beta_am": BetaCalibrator(parameters="am")},
                      score_column="s", label_column="d")
    assert list(res.scores) == ["calibration", "test"]
    assert list(res.metrics["method"].unique()) == ["uncalibrated", "local_deg2", "beta_am"]
    assert "true_mse" not in res.metrics.columns
    assert res.calibrators["local_deg2"].degree == 2


def test_estimators_passed_in_are_not_modified(splits):
    est = PlattCalibrator()
    recalibrate(*splits, methods={"p": est})
    assert not hasattr(est, "coef_")


def test_threshold_changes_classification_metrics_only(result, splits):
    other = recalibrate(*splits, true_p="true_p", threshold=0.3)
    a, b = result.summary("test"), other.summary("test")
    pd.testing.assert_series_equal(a["lcs"], b["lcs"])
    assert not a["accuracy"].equals(b["accuracy"])


def test_plot_and_html(result):
    left, right = result.plot()
    assert left.figure is right.figure
    assert len(left.get_legend().get_texts()) == 4
    assert len(right.get_legend().get_texts()) == 5  # uncalibrated and four methods
    html = result._repr_html_()
    assert "RecalibrationResult" in html and "<table" in html and "isotonic" in html
    assert "test LCS" in repr(result)
    assert isinstance(result, RecalibrationResult)
    with pytest.raises(ValueError, match="unknown split"):
        result.summary("validation")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"methods": ("platt", "svm")}, ValueError, "unknown method 'svm'"),
        ({"methods": "platt"}, TypeError, "sequence of names"),
        ({"methods": ()}, ValueError, "methods is empty"),
        ({"methods": ("beta", "beta")}, ValueError, "holds a name twice"),
        ({"methods": {"uncalibrated": PlattCalibrator()}}, ValueError, "other than"),
        ({"methods": {"x": 3}}, TypeError, "estimator with fit and predict"),
        ({"true_p": "p_true"}, ValueError, "no true_p column 'p_true'"),
        ({"true_p": [None, None]}, ValueError, "three array-likes"),
        ({"threshold": 1.5}, ValueError, "threshold must lie"),
        ({"score_column": "p_u"}, ValueError, "no column 'p_u'"),
    ],
)
def test_bad_arguments(splits, kwargs, error, match):
    with pytest.raises(error, match=match):
        recalibrate(*splits, **kwargs)


def test_bad_splits(splits):
    train, cal, test = splits
    with pytest.raises(ValueError, match="calibration split is required"):
        recalibrate(train, None, test)
    with pytest.raises(TypeError, match="test must be a DataFrame or a"):
        recalibrate(train, cal, test["score"])
    bad = test.assign(score=test["score"].where(test.index != test.index[3], np.nan))
    with pytest.raises(ValueError, match="test scores contains NaN"):
        recalibrate(train, cal, bad)
    with pytest.raises(ValueError, match="labels hold a single class"):
        recalibrate(train, cal.assign(label=1), test)
    with pytest.raises(ValueError, match="true_p is given for some splits only"):
        recalibrate(train, cal, test, true_p=[train["true_p"], cal["true_p"], None])
    pair = (test["score"], test["label"])
    with pytest.raises(TypeError, match="names a column"):
        recalibrate(train, cal, pair, true_p="true_p")
