"""Recalibrators: scikit-learn protocol, closed-form cases, bad input and invariants."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from locacal._validation import CalibrationWarning
from locacal.curves import (
    BetaCalibrator,
    IsotonicCalibrator,
    LocalRegressionCalibrator,
    PlattCalibrator,
)
from locacal.curves.curve import CalibrationCurve

PARAMETRIC = [PlattCalibrator(), PlattCalibrator(logit=True), BetaCalibrator(),
              BetaCalibrator(parameters="ab"), BetaCalibrator(parameters="am")]
# Integer weights are duplicated rows for these (not for local regression, whose
# nearest-neighbour count is in rows, as in locfit).
WEIGHTED = [*PARAMETRIC, IsotonicCalibrator(), IsotonicCalibrator(interpolation="linear")]
# Higher degrees cost 0.3 s a fit for their fine prediction grid, and locfit's evaluation tree
# up to 0.5 s on the degenerate ties hypothesis generates: only degree 0 enters the property
# tests.
LOCAL = [LocalRegressionCalibrator()]
ALL = [*WEIGHTED, *LOCAL, LocalRegressionCalibrator(degree=1),
       LocalRegressionCalibrator(degree=2, evaluation="locfit")]
IDS = [repr(e) for e in ALL]


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s**2).astype(int)


# --- scikit-learn protocol -------------------------------------------------------------------

@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_not_fitted_error_before_fit(est):
    est = clone(est)
    with pytest.raises(NotFittedError):
        est.predict([0.5])
    with pytest.raises(NotFittedError):
        est.curve(np.linspace(0, 1, 201))


@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_clone_pickle_params_round_trip(est):
    s, y = _data()
    fitted = clone(est).fit(s, y)
    params = fitted.get_params()
    assert clone(fitted).get_params() == params
    assert not hasattr(clone(fitted), "weight_sum_")
    again = pickle.loads(pickle.dumps(fitted))
    t = np.linspace(0, 1, 57)
    np.testing.assert_array_equal(again.predict(t), fitted.predict(t))
    key, value = next(iter(params.items()))
    assert clone(est).set_params(**{key: value}).get_params() == params


@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_column_input_pipeline_and_transform_shape(est):
    s, y = _data()
    flat = clone(est).fit(s, y)
    col = clone(est).fit(s.reshape(-1, 1), y)
    frame = clone(est).fit(pd.DataFrame({"score": s}), pd.Series(y))
    t = np.linspace(0, 1, 11)
    np.testing.assert_array_equal(col.predict(t.reshape(-1, 1)), flat.predict(t))
    np.testing.assert_array_equal(frame.predict(t), flat.predict(t))
    assert flat.transform(t).shape == (11,)
    assert flat.transform(t.reshape(-1, 1)).shape == (11, 1)
    # at the end of a Pipeline, after a step that outputs one column of scores
    pipe = make_pipeline(FunctionTransformer(lambda x: np.asarray(x)[:, :1]), clone(est))
    two_cols = np.column_stack([s, 1 - s])
    pipe.fit(two_cols, y)
    np.testing.assert_allclose(pipe.predict(two_cols), flat.predict(s))


@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_curve_is_the_map(est):
    s, y = _data()
    fitted = clone(est).fit(s, y)
    grid = np.linspace(0, 1, 201)
    if isinstance(est, IsotonicCalibrator):  # with its vertical steps, as a plot draws them
        grid = fitted._with_steps(grid)
    curve = fitted.curve(grid)
    assert isinstance(curve, CalibrationCurve)
    assert curve.grid[0] == 0.0 and curve.grid[-1] == 1.0
    t = np.array([0.0, 0.123, 0.5, 1.0])
    np.testing.assert_array_equal(curve(t), fitted.predict(t))
    if isinstance(est, LocalRegressionCalibrator):  # exact fits at the grid, see its tests
        assert curve.method == "local"
        return
    np.testing.assert_array_equal(curve.estimate, fitted.predict(curve.grid))
    assert curve.method in ("platt", "isotonic", "beta")
    assert curve.to_frame().shape[0] == len(curve)


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("est", ALL, ids=IDS)
@pytest.mark.parametrize(
    ("scores", "labels", "weights", "match"),
    [
        ([0.5], [1], None, "at least 2"),
        ([0.2, 0.4], [0, 1], [0, 1], "at least 2"),
        ([0.2, 1.4], [0, 1], None, "scores must lie in"),
        ([0.2, -0.1], [0, 1], None, "scores must lie in"),
        ([0.2, np.nan], [0, 1], None, "scores contains NaN"),
        ([0.2, 0.3, 0.5], [0, 1], None, "labels has length 2"),
        ([0.2, 0.3], [0, 2], None, "labels must be 0/1"),
        ([0.2, 0.3], [0, 1], [1.0], "sample_weight has length 1"),
        ([0.2, 0.3], [0, 1], [1.0, -1.0], "sample_weight must be non-negative"),
    ],
)
def test_bad_fit_input_raises(est, scores, labels, weights, match):
    with pytest.raises(ValueError, match=match):
        clone(est).fit(scores, labels, sample_weight=weights)


@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_one_class_fails_logistic_fits_and_gives_a_constant_map_otherwise(est):
    s, y = [0.2, 0.4, 0.6], [1, 1, 1]
    if est.method in ("platt", "beta"):
        with pytest.raises(ValueError, match="single class"):
            clone(est).fit(s, y)
        return
    with pytest.warns(CalibrationWarning, match="single class"):
        fitted = clone(est).fit(s, y)
    np.testing.assert_array_equal(fitted.predict([0.1, 0.5, 0.9]), 1.0)


@pytest.mark.parametrize("est", ALL, ids=IDS)
def test_bad_predict_input_raises(est):
    fitted = clone(est).fit(*_data())
    with pytest.raises(ValueError, match="scores contains NaN"):
        fitted.predict([0.2, np.nan])
    with pytest.raises(ValueError, match="scores must lie in"):
        fitted.predict([1.5])
    with pytest.raises(ValueError, match="must be 1-D"):
        fitted.predict(np.ones((3, 2)) / 2)


@pytest.mark.parametrize(("est", "match"), [
    (PlattCalibrator(logit="yes"), "logit must be True or False"),
    (BetaCalibrator(parameters="abc"), "unknown parameters"),
    (IsotonicCalibrator(interpolation="cubic"), "unknown interpolation"),
    (LocalRegressionCalibrator(degree=5), "degree must be one of"),
])
def test_bad_hyperparameters_raise_in_fit(est, match):
    with pytest.raises((ValueError, TypeError), match=match):
        est.fit(*_data())


# --- closed forms ----------------------------------------------------------------------------

def _two_point_data(rates=(0.25, 0.7), points=(0.2, 0.8), n=20):
    s = np.repeat(points, n)
    y = np.concatenate([np.arange(n) < rates[0] * n, np.arange(n) < rates[1] * n]).astype(int)
    return s, y


def test_platt_is_saturated_on_two_distinct_scores():
    # Two distinct scores: the logistic curve passes through both event rates exactly.
    s, y = _two_point_data()
    platt = PlattCalibrator().fit(s, y)
    a = (logit(0.7) - logit(0.25)) / 0.6
    assert platt.coef_ == pytest.approx(a, abs=1e-9)
    assert platt.intercept_ == pytest.approx(logit(0.25) - 0.2 * a, abs=1e-9)
    np.testing.assert_allclose(platt.predict([0.2, 0.8]), [0.25, 0.7], atol=1e-10)
    # on the logit scale the map is linear in logit(s)
    lp = PlattCalibrator(logit=True).fit(s, y)
    a = (logit(0.7) - logit(0.25)) / (logit(0.8) - logit(0.2))
    assert lp.coef_ == pytest.approx(a, abs=1e-9)


def test_beta_am_is_platt_on_the_logit_and_saturates():
    s, y = _two_point_data()
    beta = BetaCalibrator(parameters="am").fit(s, y)
    lp = PlattCalibrator(logit=True).fit(s, y)
    assert beta.a_ == beta.b_ == pytest.approx(lp.coef_, abs=1e-9)
    assert beta.c_ == pytest.approx(lp.intercept_, abs=1e-9)
    np.testing.assert_allclose(beta.predict([0.2, 0.8]), [0.25, 0.7], atol=1e-10)
    assert beta.m_ == pytest.approx(expit(-beta.c_ / beta.a_))


def test_beta_formula_and_midpoint():
    rng = np.random.default_rng(3)
    s = rng.uniform(size=3000)
    y = (rng.uniform(size=s.size) < s**2).astype(int)
    beta = BetaCalibrator().fit(s, y)
    a, b, c = beta.a_, beta.b_, beta.c_
    t = np.array([0.05, 0.3, 0.6, 0.95])
    expected = 1 / (1 + 1 / (np.exp(c) * t**a / (1 - t) ** b))  # Kull et al. (2017), eq. 2
    np.testing.assert_allclose(beta.predict(t), expected, rtol=1e-12)
    assert beta.predict([beta.m_])[0] == pytest.approx(0.5, abs=1e-12)
    ab = BetaCalibrator(parameters="ab").fit(s, y)
    assert ab.m_ == 0.5 and ab.predict([0.5])[0] == pytest.approx(0.5, abs=1e-12)


def test_beta_keeps_calibrated_scores_and_platt_does_not():
    # Kull et al. (2017): the beta family contains the identity, the logistic-in-s family not.
    rng = np.random.default_rng(11)
    s = rng.beta(0.5, 0.5, size=50_000)
    y = (rng.uniform(size=s.size) < s).astype(int)
    beta = BetaCalibrator().fit(s, y)
    # standard errors of (a, b, c) here: 0.026, 0.025, 0.044; allow three of them
    assert (beta.a_, beta.b_, beta.c_) == pytest.approx((1, 1, 0), abs=0.13)
    t = np.linspace(0.01, 0.99, 99)
    assert np.max(np.abs(beta.predict(t) - t)) < 0.02
    assert np.max(np.abs(PlattCalibrator().fit(s, y).predict(t) - t)) > 0.05


def test_beta_negative_coefficient_is_set_to_zero_and_refitted():
    # Events more frequent at *both* ends: the unconstrained fit has a < 0 (betacal refits
    # on log(1 - s) alone). The map must stay non-decreasing.
    rng = np.random.default_rng(5)
    s = rng.uniform(size=4000)
    y = (rng.uniform(size=s.size) < 0.2 + 0.7 * (s < 0.15) + 0.5 * (s > 0.8)).astype(int)
    for parameters in ("abm", "ab", "am"):
        beta = BetaCalibrator(parameters=parameters).fit(s, y)
        assert beta.a_ >= 0 and beta.b_ >= 0
        assert np.all(np.diff(beta.predict(np.linspace(0, 1, 1001))) >= 0)
    abm = BetaCalibrator().fit(s, y)
    assert abm.a_ == 0.0 and abm.b_ > 0


def test_beta_and_platt_logit_handle_scores_of_exactly_0_and_1():
    s = np.array([0.0, 0.0, 0.1, 0.4, 0.5, 0.6, 0.9, 1.0, 1.0, 0.3])
    y = np.array([0, 1, 0, 0, 1, 0, 1, 1, 0, 1])
    for est in (BetaCalibrator(), BetaCalibrator(parameters="ab"),
                BetaCalibrator(parameters="am"), PlattCalibrator(logit=True)):
        fitted = est.fit(s, y)
        out = fitted.predict([0.0, 1.0, 0.5])
        assert np.all(np.isfinite(out)) and np.all((out >= 0) & (out <= 1))


def test_isotonic_closed_form_and_r_step_semantics():
    # PAVA by hand: (0.1: 0), (0.3: 1, 0 tied -> pooled 0.5), (0.5, 0.7, 0.7, 0.9: 1, 1, 1, 0
    # -> pooled 0.75).
    s = [0.1, 0.3, 0.3, 0.5, 0.7, 0.7, 0.9]
    y = [0, 1, 0, 1, 1, 1, 0]
    iso = IsotonicCalibrator().fit(s, y)
    np.testing.assert_allclose(iso.block_values_, [0, 0.5, 0.75])
    np.testing.assert_allclose(iso.knots_, [0.1, 0.3, 0.9])
    np.testing.assert_allclose(iso.block_weights_, [1, 2, 4])
    # R: as.stepfun(isoreg(s, y)) at these points (printed by R 4.2.2):
    t = [0, 0.1, 0.2, 0.3, 0.31, 0.5, 0.6, 0.7, 0.8, 0.9, 1]
    r = [0, 0.0, 0.5, 0.5, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]
    np.testing.assert_array_equal(iso.predict(t), r)
    # linear interpolation between the first and last score of each block (scikit-learn)
    lin = IsotonicCalibrator(interpolation="linear").fit(s, y)
    np.testing.assert_allclose(lin.predict([0.05, 0.2, 0.4, 0.95]), [0, 0.25, 0.625, 0.75])


def test_isotonic_curve_counts_are_block_weights():
    iso = IsotonicCalibrator().fit([0.1, 0.3, 0.3, 0.5, 0.7, 0.7, 0.9], [0, 1, 0, 1, 1, 1, 0])
    curve = iso.curve(iso._with_steps(np.linspace(0, 1, 201)))
    frame = curve.to_frame().set_index("score")
    assert frame.loc[0.0, "count"] == 1 and frame.loc[0.2, "count"] == 2
    assert frame.loc[1.0, "count"] == 4
    assert np.nextafter(0.3, 2) in frame.index  # the step is drawn vertically


def test_platt_warns_on_perfect_separation():
    with pytest.warns(CalibrationWarning, match="separate the two classes"):
        platt = PlattCalibrator().fit([0.1, 0.2, 0.3, 0.6, 0.7, 0.8], [0, 0, 0, 1, 1, 1])
    out = platt.predict(np.linspace(0, 1, 11))
    assert np.all(np.isfinite(out)) and np.all(np.diff(out) >= 0)


def test_extreme_features_do_not_derail_the_fit():
    # Scores of exactly 0 and 1 give features log(eps) = -36: plain IRLS (statsmodels' GLM)
    # diverged here to coefficients of 1e14 while reporting convergence. A generic optimiser
    # finds no better likelihood than locacal's fit.
    s = np.r_[[0.1, 0.1, 0.5, 0.5, 0.9, 0.9], [0.0] * 7, 1.0, 0.5, 0.5, 0.17, 0.18, 0.19, 0.33,
              0.70]
    y = np.r_[[0, 1] * 3, [0] * 7, 1, 0, 0, 0, 0, 0, 0, 0]
    w = np.r_[[1] * 6, [1] * 7, 1, 1, 1, 1, 1, 3, 2, 2]
    c = np.clip(s, 2.2e-16, 1 - 2.2e-16)
    x = np.column_stack([np.log(2 * c), -np.log(2 * (1 - c))])  # the "ab" model's columns

    def nll(coef):
        eta = x @ coef
        return np.sum(w * (np.logaddexp(0, eta) - y * eta))

    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationWarning)  # no separation here
        ab = BetaCalibrator(parameters="ab").fit(s, y, sample_weight=w)
    best = minimize(nll, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    assert nll(np.array([ab.a_, ab.b_])) <= best.fun + 1e-9
    np.testing.assert_allclose([ab.a_, ab.b_], best.x, atol=1e-5)
    assert abs(ab.a_) < 10 and abs(ab.b_) < 10


def test_zero_weights_drop_rows():
    s, y = _data(200)
    w = np.ones(s.size)
    w[:50] = 0
    for est in ALL:
        a = clone(est).fit(s, y, sample_weight=w)
        b = clone(est).fit(s[50:], y[50:])
        np.testing.assert_allclose(a.predict(s), b.predict(s), rtol=1e-7, atol=1e-9)


# --- invariants (hypothesis) -----------------------------------------------------------------

# Rows (0.1, 0), (0.1, 1), (0.5, 0), (0.5, 1), (0.9, 0), (0.9, 1) are added to every
# generated sample: both classes at three scores, so no logistic fit on (s) or on
# (log s, log(1 - s)) can separate the classes and the MLE exists.
ANCHOR_S = np.array([0.1, 0.1, 0.5, 0.5, 0.9, 0.9])
ANCHOR_Y = np.array([0, 1, 0, 1, 0, 1])

samples = st.lists(
    st.tuples(
        st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.25, 0.5, 1.0])),
        st.integers(0, 1),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=40,
)


def _unpack(rows):
    s = np.concatenate([ANCHOR_S, [r[0] for r in rows]])
    y = np.concatenate([ANCHOR_Y, [r[1] for r in rows]])
    k = np.concatenate([np.ones(6, dtype=int), [r[2] for r in rows]])
    return s, y, k


@settings(max_examples=40, deadline=None)
@given(samples)
def test_integer_weights_equal_duplicated_rows(rows):
    s, y, k = _unpack(rows)
    t = np.linspace(0, 1, 41)
    for est in WEIGHTED:
        weighted = clone(est).fit(s, y, sample_weight=k)
        duplicated = clone(est).fit(np.repeat(s, k), np.repeat(y, k))
        np.testing.assert_allclose(weighted.predict(t), duplicated.predict(t),
                                   rtol=1e-6, atol=1e-7, err_msg=repr(est))


@settings(max_examples=40, deadline=None)
@given(samples, st.randoms(use_true_random=False))
def test_row_order_does_not_matter(rows, rnd):
    s, y, k = _unpack(rows)
    perm = np.array(rnd.sample(range(s.size), s.size))
    t = np.linspace(0, 1, 41)
    for est in [*WEIGHTED, *LOCAL]:
        a = clone(est).fit(s, y, sample_weight=k).predict(t)
        b = clone(est).fit(s[perm], y[perm], sample_weight=k[perm]).predict(t)
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, err_msg=repr(est))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1), st.floats(0.01, 5)),
                min_size=2, max_size=60))
def test_monotone_maps_stay_monotone_and_in_unit_interval(rows):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    if y.min() == y.max():
        y[0] = 1 - y[0]
    t = np.concatenate([np.linspace(0, 1, 201), s])
    t.sort()
    for est in (BetaCalibrator(), BetaCalibrator(parameters="ab"),
                BetaCalibrator(parameters="am"), IsotonicCalibrator(),
                IsotonicCalibrator(interpolation="linear"), PlattCalibrator()):
        with warnings.catch_warnings():  # small random samples are often separated
            warnings.simplefilter("ignore", CalibrationWarning)
            fitted = est.fit(s, y, sample_weight=w)
        out = fitted.predict(t)
        assert np.all(np.isfinite(out)) and np.all((out >= 0) & (out <= 1))
        if isinstance(est, PlattCalibrator):  # monotone, in the direction of its slope
            out = out * np.sign(fitted.coef_) if fitted.coef_ != 0 else out
        assert np.all(np.diff(out) >= -1e-12), repr(est)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=2, max_size=60))
def test_isotonic_output_is_non_decreasing_and_pools_ties(rows):
    s = np.round(np.array([r[0] for r in rows]), 1)  # many ties
    y = np.array([r[1] for r in rows])
    if y.min() == y.max():
        y[0] = 1 - y[0]
    iso = IsotonicCalibrator().fit(s, y)
    fitted = iso.predict(s)
    assert np.all(np.diff(iso.predict(np.sort(s))) >= 0)
    for value in np.unique(s):  # tied scores share one value
        assert np.ptp(fitted[s == value]) == 0
    # the block values are weighted label means: the fitted values preserve the label sum
    assert fitted.sum() == pytest.approx(y.sum())
