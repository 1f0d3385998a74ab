"""Bad input gets a clear error naming the argument; weak input a warning."""

import numpy as np
import pandas as pd
import pytest

import locacal
from locacal import metrics
from locacal._validation import CalibrationWarning

S = [0.1, 0.4, 0.6, 0.9]
Y = [0, 1, 0, 1]

METRICS = [metrics.brier_score, metrics.ece, metrics.qmse, metrics.ece_thresholded,
           metrics.wmse, metrics.calib_mse, metrics.lcs]


@pytest.mark.parametrize("f", METRICS)
@pytest.mark.parametrize(
    ("scores", "labels", "kwargs", "error", "match"),
    [
        ([0.1, 0.2], [0, 1, 1], {}, ValueError, "labels has length 3"),
        ([], [], {}, ValueError, "scores is empty"),
        ([0.1, np.nan, 0.3, 0.4], Y, {}, ValueError, "scores contains NaN.*position 1"),
        ([0.1, np.inf, 0.3, 0.4], Y, {}, ValueError, "scores contains NaN"),
        ([0.1, 1.2, 0.3, 0.4], Y, {}, ValueError, r"scores must lie in \[0, 1\]; position 1"),
        ([-0.1, 0.2, 0.3, 0.4], Y, {}, ValueError, "scores must lie"),
        (S, [0, 2, 0, 1], {}, ValueError, r"labels must be 0/1 \(or bool\); position 1 holds 2"),
        (S, [0, np.nan, 0, 1], {}, ValueError, "labels contains NaN"),
        (np.array([S, S]), Y, {}, ValueError, "scores must be 1-D"),
        (S, Y, {"weights": [1, -1, 1, 1]}, ValueError, "weights must be non-negative"),
        (S, Y, {"weights": [0, 0, 0, 0]}, ValueError, "weights are all zero"),
        (S, Y, {"weights": [1, np.nan, 1, 1]}, ValueError, "weights contains NaN"),
        (S, Y, {"weights": [1, 1]}, ValueError, "weights has length 2"),
        (["a", "b", "c", "d"], Y, {}, TypeError, "scores must contain numbers"),
        ("0.5", Y, {}, TypeError, "scores must be array-like"),
    ],
)
def test_bad_data_is_rejected_naming_the_argument(f, scores, labels, kwargs, error, match):
    with pytest.raises(error, match=match):
        f(scores, labels, **kwargs)


def test_lists_arrays_series_and_bools_agree():
    rng = np.random.default_rng(3)
    s = rng.uniform(size=300)
    y = rng.uniform(size=300) < s
    expected = metrics.brier_score(s, y.astype(int))
    assert metrics.brier_score(list(s), list(y)) == expected
    assert metrics.brier_score(pd.Series(s), pd.Series(y)) == expected
    assert metrics.brier_score(s.reshape(-1, 1), y.astype(float)) == expected


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"bins": 0}, ValueError, "bins must be >= 1"),
        ({"bins": 2.5}, TypeError, "bins must be an integer"),
        ({"strategy": "kmeans"}, ValueError, "unknown strategy 'kmeans'"),
    ],
)
def test_bad_binning_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        metrics.ece(S, Y, **kwargs)


def test_unknown_method_and_bad_grid():
    with pytest.raises(ValueError, match="unknown method 'spline'"):
        locacal.calibration_curve(S, Y, method="spline")
    with pytest.raises(ValueError, match=r"grid must lie in \[0, 1\]"):
        locacal.calibration_curve(S, Y, method="binning", grid=[0.5, 1.5])


def test_threshold_outside_unit_interval():
    with pytest.raises(ValueError, match="threshold must lie"):
        metrics.accuracy(S, Y, threshold=1.5)


def test_one_class_warns_and_gives_documented_results():
    with pytest.warns(CalibrationWarning, match="single class"):
        b = metrics.brier_score(S, [1, 1, 1, 1])
    assert b == pytest.approx(np.mean((1 - np.array(S)) ** 2))
    with pytest.warns(CalibrationWarning, match="AUC is undefined"):
        assert np.isnan(metrics.auc(S, [1, 1, 1, 1]))


def test_check_frequency_weights_counts_and_errors():
    from locacal._validation import check_frequency_weights

    assert check_frequency_weights(None, 3) is None
    np.testing.assert_array_equal(check_frequency_weights([3, 0, 1], 3), [3.0, 0.0, 1.0])
    for bad, match in [([1, -1, 2], "non-negative"), ([1, 1.5, 2], "whole numbers"),
                       ([0, 0, 0], "all zero"), ([1, 2], "length 2"),
                       ([1, 2.0**53, 1], "2\\^53")]:
        with pytest.raises(ValueError, match=match):
            check_frequency_weights(bad, 3)
