"""Input a statistician actually has: class names with pos_label, predict_proba output,
hard class predictions, pandas objects with their own indexes; warnings at the user's line,
once per call."""

import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from locacal import PlattCalibrator, calibration_curve, metrics
from locacal._validation import (
    CalibrationWarning,
    check_aligned,
    check_labels,
    check_scores,
    check_scores_labels,
    public_api,
    warn,
)

S = [0.1, 0.4, 0.6, 0.9]
Z = np.array([0.0, 1.0, 0.0, 1.0])  # the 0/1 labels every case below encodes


# --- pos_label ----------------------------------------------------------------------------

TWO_CLASS = [  # (labels encoding Z, the positive class, its repr in messages)
    (["no", "yes", "no", "yes"], "yes", "'yes'"),
    (np.array(["no", "yes", "no", "yes"]), "yes", "'yes'"),
    (np.array([b"n", b"y", b"n", b"y"]), b"y", "b'y'"),
    (pd.Series(["no", "yes", "no", "yes"], dtype=object), "yes", "'yes'"),
    (pd.Series(["no", "yes", "no", "yes"], dtype="category"), "yes", "'yes'"),
    (pd.Series(["no", "yes", "no", "yes"], dtype="string"), "yes", "'yes'"),
    (pd.DataFrame({"y": ["no", "yes", "no", "yes"]}), "yes", "'yes'"),
    ([-1, 1, -1, 1], 1, "1"),
    (np.array([1, 2, 1, 2]), 2, "2"),
    (np.array([1.0, 2.0, 1.0, 2.0]), 2, "2.0"),
    (pd.Series([3, 7, 3, 7], dtype="category"), 7, "7"),
]


@pytest.mark.parametrize(("labels", "positive", "shown"), TWO_CLASS)
def test_two_class_labels_other_than_0_1_ask_for_pos_label(labels, positive, shown):
    with pytest.raises(ValueError, match=rf"labels .*values .*{shown}: pass pos_label="):
        check_scores_labels(S, labels)


@pytest.mark.parametrize(("labels", "positive", "shown"), TWO_CLASS)
def test_pos_label_marks_the_positive_class(labels, positive, shown):
    _, y, _ = check_scores_labels(S, labels, pos_label=positive)
    np.testing.assert_array_equal(y, Z)
    assert y.dtype == np.float64


@pytest.mark.parametrize("labels", [
    [0, 1, 0, 1], [0.0, 1.0, 0.0, 1.0], [False, True, False, True],
    np.array([0, 1, 0, 1], dtype=np.int8), pd.Series([0, 1, 0, 1], dtype="Int64"),
    pd.Series([False, True, False, True], dtype="boolean"),
    pd.Series([0, 1, 0, 1], dtype=object), pd.Series([0, 1, 0, 1], dtype="category"),
])
def test_0_1_and_bool_labels_need_no_pos_label(labels):
    np.testing.assert_array_equal(check_labels(labels, 4), Z)


def test_pos_label_on_0_1_labels_can_flip_the_classes():
    np.testing.assert_array_equal(check_labels([0, 1, 0, 1], 4, pos_label=0), 1 - Z)
    np.testing.assert_array_equal(check_labels([False, True, False, True], 4, pos_label=True), Z)


@pytest.mark.parametrize(("labels", "pos_label", "match"), [
    (["no", "yes", "no", "yes"], "Yes", r"pos_label='Yes' is not among the labels, which "
                                        r"hold 'no', 'yes'"),
    (["no", "no", "no", "no"], "yes", r"pos_label='yes' is not among the labels, which hold "
                                      r"'no'$"),
    ([0, 1, 0, 1], "1", r"pos_label='1' is not among the labels, which hold 0, 1"),
    ([1, 2, 1, 2], 3, r"pos_label=3 is not among the labels, which hold 1, 2"),
])
def test_pos_label_not_among_the_labels_is_refused(labels, pos_label, match):
    with pytest.raises(ValueError, match=match):
        check_labels(labels, 4, pos_label=pos_label)


@pytest.mark.parametrize("pos_label", [None, "b", 2])
@pytest.mark.parametrize("labels", [["a", "b", "c", "b"], [0, 1, 2, 1], [1, 2, 3, 2]])
def test_more_than_two_classes_always_raise(labels, pos_label):
    if pos_label is not None and pos_label not in labels:
        pos_label = labels[1]
    with pytest.raises(ValueError, match=r"labels must .*3 distinct values"):
        check_labels(labels, 4, pos_label=pos_label)


@pytest.mark.parametrize("labels", [
    pd.Series(["no", None, "no", "yes"]), pd.Series(["no", pd.NA, "no", "yes"], dtype="string"),
    pd.Series([True, None, False, True], dtype="boolean"),
    pd.Series(["no", np.nan, "no", "yes"], dtype="category"),
])
def test_missing_class_labels_are_refused_with_their_position(labels):
    with pytest.raises(ValueError, match=r"labels contains missing values .*position 1"):
        check_labels(labels, 4, pos_label="yes")


@pytest.mark.parametrize("container", [list, tuple, lambda v: pd.Series(v, dtype=object),
                                       pd.Series])
def test_class_names_differing_by_a_trailing_nul_stay_apart(container):
    """NumPy turns "\x00" into "" when it makes a string array or compares with a string, so
    ["\x00", ""] with pos_label="" was read as two positives."""
    np.testing.assert_array_equal(check_labels(container(["\x00", ""]), 2, pos_label=""),
                                  [0.0, 1.0])


def test_messages_name_the_argument():
    with pytest.raises(ValueError, match=r"^y hold class names, not 0/1"):
        check_labels(["a", "b"], 2, "y")
    with pytest.raises(ValueError, match="pos_label='c' is not among the y"):
        check_labels(["a", "b"], 2, "y", pos_label="c")
    with pytest.raises(TypeError, match="y must hold class labels"):
        check_labels(np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"), 2, "y")


def test_public_metrics_pass_string_labels_through_when_told():
    # With pos_label threaded through (lead's task) this is brier_score(S, names, pos_label=);
    # here the validated triple is fed to the metric as 0/1 labels.
    s, y, _ = check_scores_labels(S, ["no", "yes", "no", "yes"], pos_label="yes")
    assert metrics.brier_score(s, y) == metrics.brier_score(S, [0, 1, 0, 1])


def _same_type_pair(values):
    return st.tuples(values, values)


class_pairs = st.one_of(_same_type_pair(st.text(max_size=3)), _same_type_pair(st.integers(-5, 5)),
                        _same_type_pair(st.floats(-3, 3, allow_nan=False)),
                        _same_type_pair(st.booleans()))
containers = st.sampled_from([list, np.array, pd.Series, lambda v: pd.Series(v, dtype=object),
                              lambda v: pd.Series(v, dtype="category")])


@given(st.lists(st.booleans(), min_size=1, max_size=30), class_pairs, containers)
def test_property_pos_label_recovers_the_indicator(z, pair, container):
    """For any two distinct class values of one type, in any container, validating with
    ``pos_label`` gives the 0/1 indicator of the positive class (which must occur: an absent
    pos_label is refused, tested above)."""
    positive, negative = pair
    assume(any(z) and positive != negative)
    values = [positive if zi else negative for zi in z]
    labels = container(values)
    # a NumPy string array drops trailing NUL characters ("\x00" becomes ""): only containers
    # that hold the values as given are in question
    assume(list(labels) == values)
    y = check_labels(labels, len(z), pos_label=positive)
    np.testing.assert_array_equal(y, np.array(z, dtype=float))


# --- scores: predict_proba output and hard class predictions ------------------------------

def test_predict_proba_output_points_at_the_positive_column():
    proba = np.column_stack([1 - np.array(S), S])
    with pytest.raises(ValueError, match=r"scores must be 1-D .*shape \(4, 2\).*"
                                         r"predict_proba.*scores\[:, 1\]"):
        check_scores_labels(proba, Z)
    with pytest.raises(ValueError, match=r"predict_proba.*scores\.iloc\[:, 1\]"):
        check_scores_labels(pd.DataFrame(proba, columns=["p0", "p1"]), Z)
    with pytest.raises(ValueError, match=r"predict_proba.*scores\[:, 1\]"):
        metrics.brier_score(proba, Z)


def test_multiclass_and_single_column_scores():
    with pytest.raises(ValueError, match=r"scores must be 1-D .*shape \(4, 3\).*binary"):
        check_scores(np.full((4, 3), 1 / 3))
    np.testing.assert_array_equal(check_scores(pd.DataFrame({"p": S})), S)
    np.testing.assert_array_equal(check_scores(np.array(S)[:, None]), S)


def test_grid_and_true_p_with_two_columns_get_no_predict_proba_hint():
    from locacal._validation import check_points, check_probabilities
    with pytest.raises(ValueError, match=r"^grid must be 1-D") as info:
        check_points(np.zeros((3, 2)))
    assert "predict_proba" not in str(info.value)
    with pytest.raises(ValueError, match=r"^true_p must be 1-D"):
        check_probabilities(np.zeros((3, 2)), 3)


def test_hard_class_predictions_warn():
    with pytest.warns(CalibrationWarning, match="exactly 0 or 1: they look like class "
                                                "predictions") as record:
        check_scores_labels([0, 1, 1, 0], Z)
    assert len(record) == 1
    with pytest.warns(CalibrationWarning, match="class predictions"):
        metrics.brier_score([1.0, 0.0, 1.0, 1.0], Z)


@pytest.mark.parametrize("scores", [[0.0, 1.0, 0.5, 1.0], [0.0, 0.0, 0.0, 0.0]])
def test_scores_that_are_not_all_0_or_1_do_not_warn_about_classes(scores):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        check_scores_labels(scores, Z)
    assert not [r for r in record if "class predictions" in str(r.message)]


def test_evaluation_points_0_and_1_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_scores([0.0, 1.0])
        check_scores_labels([0.0, 1.0, 1.0, 0.0], Z, warn_class_predictions=False)


# --- pandas alignment ---------------------------------------------------------------------

def test_same_index_in_another_order_is_refused():
    scores = pd.Series(S, index=[10, 11, 12, 13])
    labels = pd.Series(Z, index=[13, 12, 11, 10])
    with pytest.raises(ValueError, match=r"scores and labels .*different order.*reset_index"):
        check_scores_labels(scores, labels)


def test_different_indexes_show_the_first_differing_position():
    scores = pd.Series(S, index=["a", "b", "c", "d"])
    weights = pd.Series([1.0, 2, 3, 4], index=["a", "b", "x", "d"])
    with pytest.raises(ValueError, match=r"scores and weights .*at position 2 scores has "
                                         r"index 'c' but weights has 'x'"):
        check_scores_labels(scores, Z, weights)
    with pytest.raises(ValueError, match=r"scores and labels .*position 0 .*index 0 but labels "
                                         r"has 5"):
        metrics.brier_score(pd.Series(S), pd.Series(Z, index=[5, 6, 7, 8]))


def test_aligned_pandas_and_mixes_with_numpy_are_positional():
    idx = [7, 3, 9, 1]
    expected = check_scores_labels(S, Z, [1.0, 2, 3, 4])
    got = check_scores_labels(pd.Series(S, index=idx), pd.DataFrame({"y": Z}, index=idx),
                              pd.Series([1.0, 2, 3, 4], index=idx))
    mixed = check_scores_labels(pd.Series(S, index=idx), Z, np.array([1.0, 2, 3, 4]))
    for a, b, c in zip(expected, got, mixed, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_check_aligned_for_other_arguments():
    check_aligned({"scores": pd.Series(S), "true_p": None, "weights": np.ones(4)})
    with pytest.raises(ValueError, match="scores and true_p are pandas objects"):
        check_aligned({"scores": pd.Series(S), "true_p": pd.Series(S, index=[1, 2, 3, 4])})
    nan_index = pd.Index([0.0, np.nan, 2.0, 3.0])
    check_aligned({"a": pd.Series(S, index=nan_index), "b": pd.Series(S, index=nan_index)})


def test_lengths_are_checked_before_indexes_matter():
    with pytest.raises(ValueError, match="labels has length 3"):
        check_scores_labels(pd.Series(S), pd.Series([0, 1, 0], index=[4, 5, 6]))


# --- warnings: the user's line, once per call ---------------------------------------------

def _captured(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        func(*args, **kwargs)
    return [r for r in record if issubclass(r.category, CalibrationWarning)]


@public_api
def _inner_public(scores, labels):
    return check_scores_labels(scores, labels)


@public_api
def _outer_public(scores, labels):
    _inner_public(scores, labels)
    check_scores_labels(scores, labels)
    return check_scores_labels(scores, labels)


def test_each_cause_warns_once_per_public_call_at_the_callers_line():
    record = _captured(_outer_public, S, [1, 1, 1, 1])
    assert [str(r.message) for r in record] == [
        "labels hold a single class (1); calibration can only be judged against that constant"]
    assert record[0].filename == __file__
    # a second call is a new scope: it warns again
    assert len(_captured(_outer_public, S, [1, 1, 1, 1])) == 1


def test_outside_a_scope_every_check_warns():
    def twice():
        check_scores_labels(S, [1, 1, 1, 1])
        check_scores_labels(S, [1, 1, 1, 1])
    assert len(_captured(twice)) == 2


def test_distinct_causes_each_warn_once():
    record = _captured(_outer_public, [0.0, 0.0, 0.0, 0.0], [1, 1, 1, 1])
    assert sorted(str(r.message)[:10] for r in record) == ["all scores", "labels hol"]


def test_a_scope_closes_when_the_call_raises():
    @public_api
    def warns_then_fails():
        warn("weak input")
        raise RuntimeError("boom")

    for _ in range(2):
        with pytest.raises(RuntimeError), pytest.warns(CalibrationWarning, match="weak input"):
            warns_then_fails()


def test_scopes_are_per_thread():
    """Two calls that overlap in time in two threads each warn: the scope is not global."""
    barrier = threading.Barrier(2, timeout=10)

    @public_api
    def slow_call():
        barrier.wait()  # both scopes are open now
        warn("weak input")
        barrier.wait()

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=slow_call) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [str(r.message) for r in record] == ["weak input", "weak input"]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: metrics.brier_score(S, [1, 1, 1, 1]), "single class"),
    (lambda: metrics.auc(S, [1, 1, 1, 1]), "AUC is undefined"),
    (lambda: calibration_curve(np.linspace(0.05, 0.95, 30), np.tile([0, 1], 15),
                               method="binning", bins=5), "fewer than 10"),
])
def test_warnings_from_deep_inside_point_at_the_users_line(call, match):
    record = _captured(call)
    assert record and all(r.filename == __file__ for r in record)
    assert any(match in str(r.message) for r in record)


# --- text is never read as a number (issue 16, section 4) ---------------------------------

TEXT = ["0.1", "0.4", "0.6", "0.9"]  # text that reads as numbers: refused all the same
TEXT_CONTAINERS = {
    "list": lambda v: list(v),
    "numpy str": lambda v: np.array(v),
    "numpy object": lambda v: np.array(v, dtype=object),
    "pandas object": lambda v: pd.Series(v, dtype=object),
    "pandas string": lambda v: pd.Series(v, dtype="string"),
    "pandas str": lambda v: pd.Series(v),
    "pandas category": lambda v: pd.Series(v, dtype="category"),
    "one-column frame": lambda v: pd.DataFrame({"col": v}),
}


@pytest.mark.parametrize("container", TEXT_CONTAINERS)
@pytest.mark.parametrize(("argument", "call"), [
    ("scores", lambda t: metrics.brier_score(t, Z)),
    ("weights", lambda t: metrics.brier_score(S, Z, weights=_as_weights(t))),
    ("true_p", lambda t: metrics.true_mse(S, t)),
    ("scores", lambda t: calibration_curve(t, Z, method="platt")),
    ("sample_weight", lambda t: PlattCalibrator().fit(S, Z, sample_weight=_as_weights(t))),
    ("scores", lambda t: PlattCalibrator().fit(t, Z)),
    ("grid", lambda t: PlattCalibrator().fit(S, Z).curve(t)),
])
def test_text_is_refused_whatever_holds_it(container, argument, call):
    """Numeric text in an object array or a pandas string column used to be parsed silently
    while a NumPy string array was refused: one rule now, naming the argument."""
    with pytest.raises(TypeError, match=rf"^{argument} must contain numbers, not text: "
                                        r"position 0 holds '[0-9.]+'"):
        call(TEXT_CONTAINERS[container](TEXT))


def _as_weights(text):
    """The same container of text, holding weights ("1.0", "2.0", ...) instead."""
    values = [str(float(i + 1)) for i in range(len(TEXT))]
    if isinstance(text, pd.DataFrame):
        return pd.DataFrame({"col": values})
    if isinstance(text, pd.Series):
        return pd.Series(values, dtype=text.dtype if text.dtype != "category" else "category")
    if isinstance(text, np.ndarray):
        return np.array(values, dtype=text.dtype if text.dtype == object else None)
    return values


def test_text_anywhere_is_refused_at_its_position():
    mixed = np.array([0.1, 0.4, "0.6", 0.9], dtype=object)
    with pytest.raises(TypeError, match=r"^scores must contain numbers, not text: position 2 "
                                        r"holds '0.6'"):
        metrics.brier_score(mixed, Z)


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_values_in_object_scores_are_reported_as_missing_not_as_text(missing):
    scores = np.array([0.1, missing, 0.6, 0.9], dtype=object)
    with pytest.raises(ValueError, match=r"^scores contains NaN .*position 1"):
        metrics.brier_score(scores, Z)


@pytest.mark.parametrize("labels", [
    ["0", "1", "0", "1"], np.array(["0", "1", "0", "1"]),
    pd.Series(["0", "1", "0", "1"], dtype="string"),
    pd.Series(["0", "1", "0", "1"], dtype=object),
])
def test_text_labels_are_class_names_read_only_with_pos_label(labels):
    """Labels in text are class names: refused without pos_label (the message says they are
    text and shows the pos_label to pass), read with it."""
    with pytest.raises(ValueError, match=r"^labels hold class names, not 0/1 \(text, never "
                                         r"read as numbers\).*pos_label='1'"):
        metrics.brier_score(S, labels)
    assert metrics.brier_score(S, labels, pos_label="1") == metrics.brier_score(S, Z)


def test_numbers_and_bools_in_object_arrays_are_numbers():
    assert metrics.brier_score(np.array(S, dtype=object), np.array([False, True] * 2,
                                                                   dtype=object)) == \
        metrics.brier_score(S, Z)
    assert metrics.brier_score(S, Z, weights=np.array([1, 2.0, np.float32(1), True],
                                                      dtype=object)) == \
        metrics.brier_score(S, Z, weights=[1, 2, 1, 1])


# --- one alignment rule for functions and calibrators --------------------------------------

CALIBRATOR_METHODS = ["binning", "local", "lowess", "kernel", "isotonic", "platt", "beta"]


@pytest.mark.parametrize("method", CALIBRATOR_METHODS)
def test_calibrators_refuse_misaligned_pandas_like_the_functions(method):
    """Calibrator.fit used to pair misaligned pandas indexes by position silently."""
    from locacal import make_calibrator

    n = 40
    s = pd.Series(np.linspace(0.05, 0.95, n))
    y = pd.Series(np.tile([0.0, 1.0], n // 2))
    shifted = y.set_axis(y.index + 1)
    with pytest.raises(ValueError, match=r"^scores and labels are pandas objects with "
                                         r"different indexes: at position 0 scores has "
                                         r"index 0 but labels has 1"):
        make_calibrator(method).fit(s, shifted)
    with pytest.raises(ValueError, match=r"^scores and sample_weight .*same index labels "
                                         r"in a different order"):
        make_calibrator(method).fit(s.to_frame(), y, sample_weight=pd.Series(
            np.ones(n), index=s.index[::-1]))
    with pytest.raises(ValueError, match=r"^scores and labels are pandas objects with "
                                         r"different indexes"):
        calibration_curve(s, shifted, method=method)  # the function: the same rule
    with warnings.catch_warnings():  # binning warns about its small bins
        warnings.simplefilter("ignore", CalibrationWarning)
        make_calibrator(method).fit(s, y.to_numpy())  # pandas with NumPy: positional


# --- one seed check for every function that takes a seed -----------------------------------

def _seeded_calls():
    from locacal import (
        calib_mse_interval,
        calibration_report,
        calibration_test,
        compare_curves,
        split,
    )
    from locacal.simulate import logistic_dgp

    s = np.linspace(0.05, 0.95, 40)
    y = np.tile([0.0, 1.0], 20)
    return {
        "calib_mse_interval": lambda seed: calib_mse_interval(s, y, seed=seed),
        "calib_mse_interval thesis": lambda seed: calib_mse_interval(s, y, seed=seed,
                                                                     method="thesis"),
        "calibration_curve": lambda seed: calibration_curve(s, y, method="platt",
                                                            seed=seed),
        "curve": lambda seed: PlattCalibrator().fit(s, y).curve(seed=seed, band=None),
        "calibration_report": lambda seed: calibration_report(s, y, seed=seed),
        "calibration_test": lambda seed: calibration_test(s, y, seed=seed,
                                                          method="asymptotic",
                                                          statistic="hl"),
        "compare_curves": lambda seed: compare_curves(s, y, {"p": "platt"}, seed=seed),
        "split": lambda seed: split((s, y), seed=seed),
        "logistic_dgp": lambda seed: logistic_dgp(10, seed=seed),
    }


@pytest.mark.parametrize("call", list(_seeded_calls()))
@pytest.mark.parametrize(("seed", "error", "match"), [
    ("bogus", TypeError, r"^seed must be None(,| or) an int >= 0.*got 'bogus'"),
    (1.5, TypeError, r"^seed must be None(,| or) an int >= 0.*got 1\.5"),
    (np.float64(2.0), TypeError, r"^seed must be None(,| or) an int >= 0.*got 2\.0$"),
    (True, TypeError, r"^seed must be None(,| or) an int >= 0.*got True"),
    (-1, ValueError, r"^seed must be >= 0, got -1"),
])
def test_a_bad_seed_is_refused_even_where_it_would_go_unused(call, seed, error, match):
    """calib_mse_interval(seed="bogus") was accepted: its default method draws nothing."""
    with pytest.raises(error, match=match):
        _seeded_calls()[call](seed)


def test_what_each_kind_of_seed_accepts():
    from locacal._validation import check_seed

    seq = np.random.SeedSequence(3)
    rng = np.random.default_rng(3)
    assert check_seed(np.int64(3)) == 3 and type(check_seed(np.int64(3))) is int
    assert check_seed(None) is None
    assert check_seed(seq) is seq and check_seed(rng) is rng and check_seed([1, 2]) == [1, 2]
    assert check_seed(seq, kind="spawn") is seq
    with pytest.raises(TypeError, match=r"^seed must be None, an int >= 0 or a numpy "
                                        r"SeedSequence, got Generator"):
        check_seed(rng, kind="spawn")
    with pytest.raises(TypeError, match=r"^random_state must be None or an int >= 0, got "):
        check_seed(seq, "random_state", kind="int")
    with pytest.raises(TypeError, match=r"got \[-1\]"):
        check_seed([-1])


# --- pos_label on every function that takes labels -----------------------------------------

def test_every_public_function_with_labels_takes_pos_label():
    import inspect

    import locacal

    missing = [name for name in locacal.__all__
               if inspect.isfunction(getattr(locacal, name))
               and "labels" in inspect.signature(getattr(locacal, name)).parameters
               and "pos_label" not in inspect.signature(getattr(locacal, name)).parameters]
    assert missing == []


def test_compare_curves_and_smoothing_table_read_class_names_with_pos_label():
    from locacal import compare_curves, smoothing_table

    s = np.linspace(0.02, 0.98, 60)
    z = (np.arange(60) % 3 == 0).astype(float)
    names = np.where(z == 1, "event", "none")
    assert smoothing_table(s, names, nn=[0.5, 1.0], pos_label="event").table.equals(
        smoothing_table(s, z, nn=[0.5, 1.0]).table)
    pd.testing.assert_frame_equal(
        compare_curves(s, names, {"p": "platt"}, pos_label="event").table,
        compare_curves(s, z, {"p": "platt"}).table)
    with pytest.raises(ValueError, match=r"labels hold class names.*pass pos_label="):
        smoothing_table(s, names)


# --- empty results are errors -------------------------------------------------------------

@pytest.mark.parametrize("report", [pd.Series(dtype=float), pd.DataFrame(),
                                    pd.DataFrame({"model": []}),
                                    pd.DataFrame({"metric": [], "value": []})])
def test_explain_report_of_an_empty_report_raises(report):
    from locacal import explain_report

    with pytest.raises(ValueError, match=r"^report is an empty (Series|DataFrame): it holds "
                                         r"no metric"):
        explain_report(report)


@pytest.mark.parametrize(("study", "kwargs", "match"), [
    ("tree_grid_study", {"min_leaves": ()}, "^min_leaves is empty"),
    ("tree_grid_study", {"cps": []}, "^cps is empty"),
    ("tree_grid_study", {"cps": ["0.01"]}, "^cps must contain numbers, not text"),
    ("forest_grid_study", {"min_leaves": ()}, "^min_leaves is empty"),
    ("forest_grid_study", {"n_estimators": ()}, "^n_estimators is empty"),
    ("forest_grid_study", {"max_features": ()}, "^max_features is empty"),
])
def test_grid_studies_refuse_an_empty_grid_before_any_work(study, kwargs, match):
    """min_leaves=() returned an empty study; now an error, raised before the data are made
    (data=None would simulate 200,000 rows first)."""
    import locacal

    with pytest.raises((ValueError, TypeError), match=match):
        getattr(locacal, study)(progress=False, n_jobs=1, **kwargs)
