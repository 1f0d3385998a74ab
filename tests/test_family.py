"""The calibrator family: every method name is a calibrator, every curve a fitted map that
pickles, weights are relative, labels may be class names, import stays light."""

import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locacal
from locacal.curves import METHODS, calibration_curve, make_calibrator

NATIVE = [m for m in METHODS if m != "locfit"]


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 2, size=n)
    return s, (rng.uniform(size=n) < s**1.5).astype(float)


@pytest.mark.parametrize("method", NATIVE)
def test_curve_is_fit_then_tabulate(method):
    s, d = _data()
    curve = calibration_curve(s, d, method=method)
    again = make_calibrator(method).fit(s, d).curve()
    np.testing.assert_array_equal(curve.grid, again.grid)
    np.testing.assert_array_equal(curve.estimate, again.estimate)
    assert curve.method == method
    x = np.linspace(0, 1, 57)
    np.testing.assert_array_equal(curve(x), curve.estimator.predict(x))
    np.testing.assert_array_equal(curve.estimate, curve.estimator.predict(curve.grid))


@pytest.mark.parametrize("method", NATIVE)
def test_curves_pickle_with_their_fitted_map(method):
    s, d = _data()
    curve = calibration_curve(s, d, method=method)
    back = pickle.loads(pickle.dumps(curve))
    x = np.linspace(0, 1, 31)
    np.testing.assert_array_equal(back(x), curve(x))
    np.testing.assert_array_equal(back.estimate, curve.estimate)
    assert dict(back.params) == dict(curve.params) and back.method == curve.method


@pytest.mark.parametrize("method", NATIVE)
def test_recalibrate_takes_every_method_name(method):
    s, d = _data(900, seed=1)
    result = locacal.recalibrate(None, (s[:600], d[:600]), (s[600:], d[600:]),
                                 methods=[method])
    assert set(result.metrics["method"]) == {"uncalibrated", method}


def test_unknown_options_name_the_method():
    s, d = _data()
    with pytest.raises(TypeError, match="method='platt' has no option"):
        calibration_curve(s, d, method="platt", nn=0.2)
    with pytest.raises(ValueError, match="unknown method"):
        calibration_curve(s, d, method="spline")
    with pytest.raises(ValueError, match="bins: adaptive bins are set by bin_size"):
        calibration_curve(s, d, method="binning", strategy="adaptive", bins=5)
    with pytest.raises(ValueError, match="bin_size applies to strategy='adaptive' only"):
        calibration_curve(s, d, method="binning", strategy="uniform", bin_size=50)


@settings(max_examples=15, deadline=None)
@given(c=st.floats(1e-6, 1e6), method=st.sampled_from(NATIVE), seed=st.integers(0, 100))
def test_weights_times_c_change_no_curve(c, method, seed):
    s, d = _data(300, seed=seed)
    w = np.random.default_rng(seed).exponential(size=s.size)
    a = calibration_curve(s, d, method=method, weights=w)
    b = calibration_curve(s, d, method=method, weights=c * w)
    np.testing.assert_allclose(b.grid, a.grid, rtol=1e-12)
    # measured: <= 2e-12 (logistic fits converge to the same optimum within their tolerance)
    np.testing.assert_allclose(b.estimate, a.estimate, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("method", NATIVE)
def test_class_names_with_pos_label(method):
    s, d = _data()
    names = np.where(d == 1, "event", "none")
    a = calibration_curve(s, names, method=method, pos_label="event")
    b = calibration_curve(s, d, method=method)
    np.testing.assert_array_equal(a.estimate, b.estimate)
    with pytest.raises(ValueError, match="pos_label"):
        calibration_curve(s, names, method=method)


@pytest.mark.parametrize("func", ["lcs", "ece", "brier_score", "qmse", "wmse", "calib_mse",
                                  "auc", "log_loss", "corp_decomposition",
                                  "calibration_report"])
def test_pos_label_everywhere_labels_are_taken(func):
    s, d = _data()
    labels = pd.Series(np.where(d == 1, "yes", "no"))
    got = getattr(locacal, func)(pd.Series(s), labels, pos_label="yes")
    expected = getattr(locacal, func)(s, d)
    if isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected)
    else:
        assert got == expected


def test_misaligned_pandas_inputs_raise():
    s, d = _data(10)
    with pytest.raises(ValueError, match="index"):
        locacal.lcs(pd.Series(s), pd.Series(d, index=np.arange(10)[::-1]))


def test_import_is_light_and_quiet():
    code = ("import sys, warnings; warnings.simplefilter('error'); import locacal; "
            "heavy = [m for m in ('sklearn', 'statsmodels', 'matplotlib', 'tqdm', 'joblib', "
            "'rpy2') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]" and out.stderr == ""


def test_lcs_and_ece_load_no_scikit_learn():
    # (the report's CORP term uses scikit-learn's PAV, so the report loads it)
    code = ("import sys, numpy as np, locacal; s = np.linspace(0.01, 0.99, 200); "
            "d = (np.arange(200) % 3 == 0).astype(float); locacal.lcs(s, d); "
            "locacal.ece(s, d); print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_public_names_resolve():
    for name in locacal.__all__:
        assert getattr(locacal, name) is not None
    assert set(locacal.__all__) <= set(dir(locacal))
