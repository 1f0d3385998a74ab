"""Every public name of locacal fed bad and edge input (issue 16, section 4).

The table :data:`TABLE` says how to call each callable of ``locacal.__all__`` with valid
small input; :func:`test_the_table_covers_every_public_callable` fails when a public name is
added without a row, so no name can be forgotten. From each row the sweep derives:

* data cases, by the role of each data argument (scores, labels, weights, probabilities,
  samples): wrong length, NaN, inf, scores outside [0, 1] (1.7 and -0.1), labels other than
  0/1 (2 and 0.5), text (even numeric text), empty arrays, 2-D arrays, negative weights,
  misaligned pandas indexes, None;
* parameter cases, the row's own list of bad values: negative, zero, huge and non-integer
  counts, unknown method names, wrong types.

Each must raise a ValueError or TypeError whose message names the argument and shows values
as plain numbers (``1.7``, never ``np.float64(1.7)``). Valid but weak input (one class)
must raise in the same way or warn, and a NaN result must come with a warning. The command
line gets the same sweep through :func:`locacal.cli.main`: exit code 2 and a one-line message
without a traceback.

Cases that are another branch's open items (issue 16, section 4, part A) are marked
``xfail(strict=True, reason="fuzza: <item>")``, for the lead to flip once both are merged.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest

import locacal
from locacal.cli import main as cli_main

N = 40
_RNG = np.random.default_rng(16)
S = np.round(np.sort(_RNG.uniform(0.05, 0.95, N)), 4)
Y = (_RNG.uniform(size=N) < S).astype(float)
W = np.round(_RNG.uniform(0.5, 2.0, N), 3)
P = np.clip(S + 0.05, 0.0, 1.0)

# --- the table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """How to call one public name with valid small input, and its bad parameters.

    ``call(**data, **params)`` runs it; ``data`` are its data arguments with valid values and
    ``roles`` their kinds; ``named`` maps a data argument to the name its messages use (the
    calibrators' ``sample_weight`` is named so, their X and y "scores" and "labels").
    ``params`` lists (parameter, bad value) pairs.
    """

    name: str
    call: Callable[..., Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    roles: Mapping[str, str] = field(default_factory=dict)
    params: tuple[tuple[str, Any], ...] = ()
    named: Mapping[str, str] = field(default_factory=dict)
    label: str = ""
    slow: bool = False  # its valid call takes seconds: tested by its own module

    @property
    def id(self) -> str:
        return self.label or self.name


SLW = {"scores": S, "labels": Y, "weights": W}
SLW_ROLES = {"scores": "scores", "labels": "labels", "weights": "weights"}
SL = {"scores": S, "labels": Y}
SL_ROLES = {"scores": "scores", "labels": "labels"}
COUNT = (0, -1, 2.5, "3", True)  # bad values of a count: zero, negative, non-integer, text
#: Bad thresholds of a decision curve: the ends of (0, 1), outside it, NaN, text, empty.
THRESHOLDS = (0.0, 1.0, -0.1, 1.5, np.nan, "0.5", [])
#: Bad frequency weights: fractional, negative, all zero, wrong length.
FREQUENCIES = (np.full(N, 1.5), -np.ones(N), np.zeros(N), np.ones(N + 1))
LEVEL = (0.0, 1.0, 1.5, -0.1, "0.9", float("nan"))
FRACTION = (-0.1, 1.5, "0.5", float("nan"))
NN = (0.0, -0.1, 1.5, "0.5", float("nan"))
SEED = ("bogus", -1, 1.5)
#: bad groups (by=): too short, two-dimensional, a missing label
BY = (["a", "b"], np.zeros((N, 2)), np.array(["a"] * (N - 1) + [None], dtype=object))


def _params(**bad: tuple[Any, ...]) -> tuple[tuple[str, Any], ...]:
    return tuple((name, value) for name, values in bad.items() for value in values)


def _metric(func: Callable[..., Any], weights: bool = True, **bad: tuple[Any, ...]) -> Row:
    name = func.__name__
    if weights:
        return Row(name, lambda scores, labels, weights, **kw: func(scores, labels,
                                                                    weights=weights, **kw),
                   SLW, SLW_ROLES, _params(**bad))
    return Row(name, lambda scores, labels, **kw: func(scores, labels, **kw), SL, SL_ROLES,
               _params(**bad))


def _fit(cls: type, **bad: tuple[Any, ...]) -> Row:
    """A calibrator: constructed with the parameters, fitted, then predicting."""
    def call(scores: Any, labels: Any, weights: Any, **kw: Any) -> Any:
        return cls(**kw).fit(scores, labels, sample_weight=weights).predict(S)

    return Row(cls.__name__, call, SLW, SLW_ROLES, _params(**bad),
               named={"weights": "sample_weight"}, label=f"{cls.__name__}.fit")


def _predict(cls: type) -> Row:
    """A fitted calibrator's predict and curve: new scores and the curve's options."""
    with warnings.catch_warnings():  # binning: small bins
        warnings.simplefilter("ignore")
        fitted = cls().fit(S, Y)

    def call(scores: Any, **kw: Any) -> Any:
        return fitted.curve(**kw) if kw else fitted.predict(scores)

    return Row(cls.__name__, call, {"scores": S}, {"scores": "scores"},
               _params(band=("nope", 1), level=LEVEL, interval=("nope",),
                       n_boot=(0, -1, 2.5, 5), seed=SEED, grid=([1.7], ["0.5"], []),
                       critical=("nope", 1)),
               label=f"{cls.__name__}.predict")


def _frame(scores: Any = S, labels: Any = Y) -> pd.DataFrame:
    return pd.DataFrame({"score": scores, "label": labels})


def _recalibrate(scores: Any, labels: Any, **kw: Any) -> Any:
    """The calibration split as a (scores, labels) pair, the test split a DataFrame."""
    half = len(S) // 2
    kw.setdefault("methods", ("platt",))
    return locacal.recalibrate(None, (scores, labels), _frame(S[:half], Y[:half]), **kw)


def _recalibration_result(**kw: Any) -> Any:
    half = len(S) // 2
    result = locacal.recalibrate(None, _frame(S[half:], Y[half:]), _frame(S[:half], Y[:half]),
                                 methods=("platt",))
    return result.summary(**kw)


XV = np.column_stack([S, _RNG.normal(size=N)])


def _internal_validation(y: Any, **kw: Any) -> Any:
    from sklearn.linear_model import LogisticRegression

    kw = {"estimator": LogisticRegression(), "X": XV, "n_boot": 3, "seed": 0,
          "progress": False, **kw}
    return locacal.internal_validation(kw.pop("estimator"), kw.pop("X"), y, **kw)


def _internal_validation_result(**kw: Any) -> Any:
    return _internal_validation(Y, **kw).to_frame()


def _curve_call(scores: Any) -> Any:
    return locacal.calibration_curve(S, Y, method="platt")(scores)


def _display(scores: Any, labels: Any, weights: Any, **kw: Any) -> Any:
    return locacal.ReliabilityDisplay.from_predictions(scores, labels, weights=weights,
                                                       plot=False, **kw)


def _explain(report: Any = None) -> Any:
    if report is None:  # the valid call: a report of the valid data
        report = locacal.calibration_report(S, Y)
    return locacal.explain_report(report)


def _tree_data() -> dict[str, pd.DataFrame]:
    from locacal.studies import tree_data

    return tree_data(600, seed=3)


def _split(data_or_arrays: Any, **kw: Any) -> Any:
    kw.setdefault("seed", 0)
    return locacal.split(data_or_arrays, **kw)


def _warning_class() -> Any:
    return locacal.CalibrationWarning("a message")


def _build_table() -> list[Row]:
    lc = locacal
    grid_data = _tree_data()
    study = {"progress": False, "n_jobs": 1}
    return [
        # metrics
        _metric(lc.accuracy, threshold=(*FRACTION, "x")),
        _metric(lc.sensitivity, threshold=FRACTION),
        _metric(lc.specificity, threshold=FRACTION),
        _metric(lc.auc),
        _metric(lc.brier_score),
        _metric(lc.log_loss),
        _metric(lc.corp_decomposition),
        _metric(lc.decision_curve, thresholds=THRESHOLDS, decompose=("yes", 1),
                frequency_weights=FREQUENCIES),
        _metric(lc.murphy_diagram, thresholds=THRESHOLDS, decompose=("yes",),
                frequency_weights=FREQUENCIES),
        _metric(lc.spiegelhalter_z),
        _metric(lc.smece, weights=False),
        _metric(lc.brier_decomposition, bin_size=COUNT),
        _metric(lc.calib_err, bin_size=COUNT),
        _metric(lc.calib_mse, bin_size=COUNT),
        _metric(lc.calib_mse_interval, bin_size=COUNT, n_samples=(0, 1, 2.5, "9"),
                seed=SEED, method=("nope", 1), level=LEVEL),
        _metric(lc.ece, bins=(*COUNT, 10 ** 6), strategy=("nope", 1)),
        _metric(lc.qmse, bins=(*COUNT, 10 ** 6), strategy=("nope",)),
        _metric(lc.ece_thresholded, bins=COUNT, strategy=("nope",), threshold=FRACTION),
        _metric(lc.hosmer_lemeshow, groups=(*COUNT, 1, 10 ** 6)),
        _metric(lc.lcs, nn=NN, degree=(3, -1, 1.5, "1"), kernel=("nope", 1),
                evaluation=("nope",), grid_size=(*COUNT, 1)),
        _metric(lc.wmse, nn=NN, grid_size=(*COUNT, 1)),
        _metric(lc.calibration_errors, smoother=("nope", 1)),
        _metric(lc.calibration_intercept_slope, level=LEVEL),
        _metric(lc.calibration_test, statistic=("nope", 1), method=("nope",),
                n_resamples=COUNT, seed=SEED, by=BY),
        Row("calibration_equivalence_test",
            lambda scores, labels, weights, **kw: lc.calibration_equivalence_test(
                scores, labels, weights=weights, **{"margin": 0.05, "n_resamples": 19, **kw}),
            SLW, SLW_ROLES, _params(margin=(0.0, -1.0, "x"), measure=("nope", 1),
                                    level=LEVEL, n_resamples=COUNT, seed=SEED)),
        _metric(lc.calibration_report, threshold=FRACTION, clinical=("yes", 1),
                extra=(["nope"], "brier", 3), ci=("yes", 1), n_boot=COUNT, level=LEVEL,
                seed=SEED, true_p=(P[:-1], P + 1.0, P.astype(str), "x"), by=BY),
        Row("compare_models", lambda scores, labels, **kw: lc.compare_models(
            {"a": scores, "b": S}, labels, **{"metrics": ["brier", "auc"], "n_boot": 10,
                                             "seed": 0, **kw}), SL, SL_ROLES,
            _params(metrics=(["nope"], [], "nope", 3, ["true_mse"]),
                    reference=("nope", 3), ci=("yes", 1), n_boot=(*COUNT, 5),
                    level=LEVEL, seed=SEED)),
        Row("ModelComparison", lambda **kw: lc.compare_models(
            {"a": S, "b": P}, Y, metrics=["brier"], n_boot=10, seed=0).curves(**kw),
            params=_params(method=("nope", 1))),
        Row("true_mse", lambda scores, true_p, weights: lc.true_mse(scores, true_p,
                                                                    weights=weights),
            {"scores": S, "true_p": P, "weights": W},
            {"scores": "scores", "true_p": "probabilities", "weights": "weights"}),
        Row("kl_divergence", lambda p_sample, q_sample, **kw: lc.kl_divergence(
            p_sample, q_sample, **kw), {"p_sample": S, "q_sample": P},
            {"p_sample": "samples", "q_sample": "samples"},
            _params(method=("nope", 1), bins=(*COUNT, [0.5, 0.2], ["0", "1"]),
                    bandwidth=(0.0, -1.0, "x"), epsilon=(-1.0, float("nan"), "0.1"),
                    base=(0.0, 1.0, -2.0, "2"))),
        Row("explain_report", _explain, params=_params(
            report=(pd.Series(dtype=float), pd.DataFrame(), "x", [1.0],
                    pd.Series({"nope": 1.0})))),
        # curves
        _metric(lc.calibration_curve, method=("nope", 1), band=("nope",), level=LEVEL,
                interval=("nope",), n_boot=(0, 5, 2.5), seed=SEED, grid=([1.7], ["0.5"]),
                critical=("nope", 1),
                nn=NN, degree=(5,), no_such_option=(1,), by=BY),
        # the isotonic simultaneous band: its own checks (level, grid; relative weights are
        # refused, frequency weights are counts); its rows outside the 5-95 % score range
        # are NaN by design, so the band where it is defined is the result
        Row("calibration_curve", lambda scores, labels, **kw: lc.calibration_curve(
            scores, labels, **{"method": "isotonic", "band": "simultaneous", **kw}
        ).to_frame().dropna(subset=["lower"]), SL,
            SL_ROLES, _params(level=LEVEL, grid=([1.7], ["0.5"]), weights=(W,),
                              frequency_weights=FREQUENCIES),
            label="calibration_curve[isotonic-simultaneous]"),
        Row("make_calibrator", lambda method="platt", **kw: lc.make_calibrator(
            method, **kw).fit(S, Y), params=_params(method=("nope", 1, None),
                                                    no_such_option=(1,))),
        _metric(lc.smoothing_table, degree=(3, -1, 1.5), nn=([0.0], [1.5], ["0.5"], [],
                                                              "x"),
                h=([0.0], [-1.0], ["0.1"], "nope"), kernel=("gauss", "nope"),
                family=("nope", 1)),
        # with true_p, so that no column is NaN by design (ise needs it)
        Row("compare_curves", lambda scores, labels, weights, true_p, specs=None, **kw:
            lc.compare_curves(scores, labels, {"platt": "platt"} if specs is None else specs,
                              weights=weights, true_p=true_p, **kw),
            {**SLW, "true_p": P}, {**SLW_ROLES, "true_p": "probabilities"},
            _params(specs=({}, "platt", {"a": "nope"}, {"a": {"degree": 1}}, {"a": 3}),
                    folds=(*COUNT, 1, 10 ** 6), seed=SEED, level=LEVEL,
                    grid=([1.7], ["0.5"]))),
        _fit(lc.BinningCalibrator, strategy=("nope", 1), bins=(*COUNT, 10 ** 6),
             bin_size=COUNT),
        _fit(lc.LocalRegressionCalibrator, degree=(3, -1, 1.5), nn=(*NN, "nope"),
             h=(0.0, -1.0, "0.1"), kernel=("nope", 1), evaluation=("nope",),
             backend=("nope",), maxk=COUNT, clip=("yes", 1), family=("nope", 1, None)),
        _fit(lc.LowessCalibrator, frac=NN, it=(-1, 1.5, "2"), delta=(-1.0, "0"),
             clip=("yes",)),
        _fit(lc.KernelCalibrator, reg_type=("nope", 1), bw=(0.0, -1.0, "nope", float("nan")),
             clip=("yes",)),
        _fit(lc.IsotonicCalibrator, interpolation=("nope", 1)),
        _fit(lc.PlattCalibrator, logit=("yes", 1)),
        _fit(lc.BetaCalibrator, parameters=("nope", 1)),
        _predict(lc.LocalRegressionCalibrator),
        _predict(lc.PlattCalibrator),
        _predict(lc.IsotonicCalibrator),
        _predict(lc.BinningCalibrator),
        Row("CalibrationCurve", _curve_call, {"scores": S}, {"scores": "scores"},
            label="CalibrationCurve.__call__"),
        Row("ReliabilityDisplay", _display, SLW, SLW_ROLES,
            _params(method=("nope", 1), band=("nope",), name=(3,))),
        # a warning category: it takes a message and validates nothing
        Row("CalibrationWarning", _warning_class),
        # workflow
        Row("split", _split, {"data_or_arrays": _frame()}, {},
            _params(data_or_arrays=("x", 3, (), pd.DataFrame()),
                    proportions=((0.5, 0.5), (0.6, 0.2, 0.3), ("0.6", "0.2", "0.2"),
                                 (-0.2, 0.6, 0.6), 0.5),
                    seed=SEED, stratify=(Y[:-1], "nope", np.full(N, np.nan)))),
        Row("recalibrate", _recalibrate, SL, SL_ROLES,
            _params(methods=(["nope"], (), 3, {"a": 3}), threshold=FRACTION,
                    true_p=("nope", [P])),
            named={"scores": "calibration scores", "labels": "calibration labels"}),
        Row("recalibrate", lambda **kw: locacal.recalibrate(
            None, _frame(), _frame(), methods=("platt",), **kw),
            params=_params(score_column=("nope", 3), label_column=("nope",)),
            label="recalibrate DataFrames"),
        Row("RecalibrationResult", _recalibration_result, params=_params(split=("nope", 1))),
        # studies
        Row("internal_validation", _internal_validation, {"y": Y}, {"y": "labels"},
            _params(method=("nope", 1), n_boot=COUNT, n_folds=(0, 1, 2.5, "3"),
                    curve_method=("nope", 1), seed=SEED, n_jobs=(0, 2.5, "x"),
                    progress=("yes",), X=(XV[:-1], XV[:, 0], "x"),
                    estimator=("x", locacal.PlattCalibrator, None))),
        Row("InternalValidation", _internal_validation_result),
        Row("run_simulation", lambda **kw: lc.run_simulation(
            **{"n_samples": 1, "n_obs": 200, "alphas": (1.0,), "gammas": (1.0,), **study,
               **kw}), params=_params(
            alphas=((-1.0,), ("x",), 3.0), gammas=((0.0,),), n_samples=COUNT,
            n_obs=(5, 2.5, "x"), a=((), ("x",)), threshold=FRACTION, nn=NN, seed=SEED,
            n_jobs=(0, 2.5, "x"), progress=("yes",))),
        Row("real_data_study", lambda **kw: lc.real_data_study(**kw), params=_params(
            proportions=((0.5, 0.5), ("0.6", "0.2", "0.2")), methods=(["nope"], (), 3),
            seed=SEED), slow=True),
        Row("tree_case_study", lambda **kw: lc.tree_case_study(
            **{"n_obs": 2000, "methods": ("platt",), **kw}), params=_params(
            n_obs=(0, -1, 2.5, "x"), proportions=((0.5, 0.5),), cp=(-1.0, "x"),
            min_leaf=COUNT, cv=(0, 1, 2.5), methods=(["nope"], ()), seed=SEED)),
        Row("tree_grid_study", lambda **kw: lc.tree_grid_study(
            **{"data": grid_data, "min_leaves": (50,), "cps": (0.01,), **study, **kw}),
            params=_params(data=("x", {"train": 1}), min_leaves=((), (0,), (2.5,), ("x",), 10),
                           cps=((), (-1.0,), ("x",)), seed=SEED, n_jobs=(0,),
                           progress=("yes",))),
        Row("forest_grid_study", lambda **kw: lc.forest_grid_study(
            **{"data": grid_data, "n_estimators": (2,), "min_leaves": (50,),
               "max_features": (1,), **study, **kw}),
            params=_params(data=("x",), n_estimators=((), (0,), (2.5,)),
                           min_leaves=((), (0,)), max_features=((), (3,), (0,)), seed=SEED,
                           n_jobs=(0,))),
    ]


TABLE = _build_table()
#: Public names that are not callables: the subpackages (outside the sweep).
MODULES = {name for name in locacal.__all__ if inspect.ismodule(getattr(locacal, name))}


def test_the_table_covers_every_public_callable():
    callables = {name for name in locacal.__all__ if callable(getattr(locacal, name))}
    assert callables | MODULES == set(locacal.__all__)
    rows = {row.name for row in TABLE}
    assert callables - rows == set(), "public callables without a row in TABLE"
    assert rows - callables == set(), "rows of TABLE for names that are not public"


@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.id)
def test_the_valid_call_of_each_row_works(row):
    """The baseline: each row's own input is valid, so each error below is the bad input's."""
    if row.slow:
        pytest.skip("the valid call takes seconds; its own test module runs it")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row.call(**row.data)


# --- the cases --------------------------------------------------------------------------------


def _with(values: Any, position: int, value: Any) -> np.ndarray:
    out = np.array(values, dtype=object if isinstance(value, str) else np.float64)
    out[position] = value
    return out


#: Bad values of a data argument, by role: (case id, transform of the valid value).
BAD_DATA: dict[str, list[tuple[str, Callable[[Any], Any]]]] = {
    "scores": [
        ("nan", lambda v: _with(v, 3, np.nan)),
        ("inf", lambda v: _with(v, 3, np.inf)),
        ("1.7", lambda v: _with(v, 3, 1.7)),
        ("-0.1", lambda v: _with(v, 3, -0.1)),
        ("text", lambda v: np.asarray(v).astype(str).astype(object)),
        ("pandas text", lambda v: pd.Series(np.asarray(v).astype(str), dtype="string")),
        ("2-D", lambda v: np.column_stack([v, v, v])),
        ("None", lambda v: None),
    ],
    "labels": [
        ("2", lambda v: _with(v, 3, 2.0)),
        ("0.5", lambda v: _with(v, 3, 0.5)),
        ("nan", lambda v: _with(v, 3, np.nan)),
        ("text", lambda v: np.asarray(v).astype(int).astype(str).astype(object)),
        ("2-D", lambda v: np.column_stack([v, v])),
        ("None", lambda v: None),
    ],
    "weights": [
        ("negative", lambda v: _with(v, 3, -1.0)),
        ("nan", lambda v: _with(v, 3, np.nan)),
        ("inf", lambda v: _with(v, 3, np.inf)),
        ("all zero", lambda v: np.zeros(len(v))),
        ("text", lambda v: np.asarray(v).astype(str).astype(object)),
        ("2-D", lambda v: np.column_stack([v, v])),
    ],
    "probabilities": [
        ("nan", lambda v: _with(v, 3, np.nan)),
        ("1.7", lambda v: _with(v, 3, 1.7)),
        ("-0.1", lambda v: _with(v, 3, -0.1)),
        ("text", lambda v: np.asarray(v).astype(str).astype(object)),
    ],
    "samples": [
        ("nan", lambda v: _with(v, 3, np.nan)),
        ("inf", lambda v: _with(v, 3, np.inf)),
        ("1.7", lambda v: _with(v, 3, 1.7)),
        ("text", lambda v: np.asarray(v).astype(str).astype(object)),
        ("empty", lambda v: np.array([])),
        ("2-D", lambda v: np.column_stack([v, v])),
    ],
}
#: Roles whose length must match the first data argument's.
PAIRED_ROLES = ("labels", "weights", "probabilities")


@dataclass(frozen=True)
class Case:
    """One bad call: the row, the arguments that replace its valid ones, the name the message
    must show, and whether a result is an acceptable answer (valid but weak input: then a
    NaN in it needs a warning)."""

    row: Row
    what: str
    replace: Mapping[str, Any]
    name: str
    weak: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """What the message may name: the argument; for weak input, the argument that the
        size of the data makes invalid ("folds = 5 exceeds the number of observations")."""
        if not self.weak:
            return (self.name,)
        return (self.name, *(self.row.named.get(a, a) for a in self.row.data), "observations")

    @property
    def id(self) -> str:
        return f"{self.row.id}-{self.what}"


def _data_cases(row: Row) -> list[Case]:
    cases = []
    names = list(row.data)
    for arg, role in row.roles.items():
        shown = row.named.get(arg, arg)
        value = row.data[arg]
        for what, bad in BAD_DATA[role]:
            cases.append(Case(row, f"{arg} {what}", {arg: bad(value)}, shown))
        if role in PAIRED_ROLES and arg != names[0]:
            cases.append(Case(row, f"{arg} wrong length", {arg: np.asarray(value)[:-1]}, shown))
    first = names[0] if names else None
    if first is not None and row.roles.get(first) == "scores":
        empty = {a: np.array([]) for a, r in row.roles.items() if r in ("scores", *PAIRED_ROLES)}
        cases.append(Case(row, "empty", empty, row.named.get(first, first)))
        paired = [a for a, r in row.roles.items() if r in PAIRED_ROLES]
        if paired:
            second = paired[0]
            shifted = pd.Series(np.asarray(row.data[second]), index=np.arange(1, N + 1))
            cases.append(Case(row, "misaligned pandas",
                              {first: pd.Series(np.asarray(row.data[first])), second: shifted},
                              row.named.get(second, second)))
        labels = [a for a, r in row.roles.items() if r == "labels"]
        if labels:  # an error about a single class speaks of the labels, however named
            cases.append(Case(row, "one class", {labels[0]: np.zeros(N)}, "labels", weak=True))
        # valid but weak: works, warns, or raises naming the argument; never a silent NaN
        cases.append(Case(row, "constant scores", {first: np.full(N, 0.5)}, first, weak=True))
        cases.append(Case(row, "scores all 0 or 1", {first: (S > 0.5).astype(float)}, first,
                          weak=True))
        small = {a: np.asarray(row.data[a])[[0, -1]] for a in empty}
        if labels:
            small[labels[0]] = np.array([0.0, 1.0])
        cases.append(Case(row, "two observations", small, first, weak=True))
        weights = [a for a, r in row.roles.items() if r == "weights"]
        if weights:
            zeros = np.where(np.arange(N) % 2 == 0, 0.0, np.asarray(row.data[weights[0]]))
            cases.append(Case(row, "half the weights zero", {weights[0]: zeros},
                              row.named.get(weights[0], weights[0]), weak=True))
    return cases


def _numpy_scalar(value: Any) -> Any:
    """The NumPy scalar of a Python number (its message must still show the plain number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return np.int64(value) if isinstance(value, int) else np.float64(value)


def _param_cases(row: Row) -> list[Case]:
    cases = []
    for param, value in row.params:
        cases.append(Case(row, f"{param}={value!r}", {param: value}, param))
        scalar = _numpy_scalar(value)
        if scalar is not None:
            cases.append(Case(row, f"{param}=np.{value!r}", {param: scalar}, param))
    return cases


CASES = [case for row in TABLE for case in (*_data_cases(row), *_param_cases(row))]

def _has_nan(result: Any) -> bool:
    """Whether a result holds NaN: a number, an array, a pandas object or a result class."""
    if isinstance(result, float | np.floating):
        return math.isnan(result)
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        return bool(np.isnan(result).any())
    if isinstance(result, pd.Series):
        result = result.to_frame()
    if isinstance(result, pd.DataFrame):
        return bool(result.select_dtypes("number").isna().to_numpy().any())
    if dataclasses.is_dataclass(result):
        return any(_has_nan(getattr(result, f.name)) for f in dataclasses.fields(result))
    return False


NUMPY_REPR = re.compile(r"np\.(float|int|uint|bool|str)\w*\(")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_bad_input_raises_naming_the_argument(case):
    """ValueError/TypeError naming the argument; for valid but weak input (one class) a
    warning is a documented answer too. Messages show plain numbers."""
    row = case.row
    kwargs = {**row.data, **case.replace}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = row.call(**kwargs)
        except (ValueError, TypeError) as err:
            message = str(err)
            assert any(name in message for name in case.names), (
                f"the message does not name {case.name!r}: {message}")
            assert not NUMPY_REPR.search(message), f"a NumPy repr in the message: {message}"
            return
    assert case.weak, f"accepted silently (returned {type(result).__name__})"
    assert caught or not _has_nan(result), "a NaN result without a warning saying why"


# --- the command line ------------------------------------------------------------------------

CSV_ROWS = [f"{s},{int(y)},{w}" for s, y, w in zip(S, Y, W, strict=True)]


def _csv(tmp_path: Any, row: int | None = None, line: str | None = None,
         header: str = "s,y,w") -> Any:
    rows = list(CSV_ROWS)
    if row is not None:
        rows[row - 1] = line
    path = tmp_path / "data.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


CLI_CASES = [
    # (id, data row to replace, its new line, extra options, what the message must say)
    ("missing score column", None, None, ["--score", "nope"], "score column 'nope'"),
    ("missing label column", None, None, ["--label", "nope"], "label column 'nope'"),
    ("missing weight column", None, None, ["--weight", "nope"], "weight column 'nope'"),
    ("missing count column", None, None, ["--count", "nope"], "count column 'nope'"),
    ("fractional count", None, None, ["--count", "w"], "count column 'w', row 1"),
    ("text score", 3, "abc,1,1", [], "score column 's', row 3"),
    ("empty score", 3, ",1,1", [], "score column 's', row 3"),
    ("nan score", 3, "nan,1,1", [], "score column 's', row 3"),
    ("score 1.7", 3, "1.7,1,1", [], "the value 1.7 is outside"),
    ("score -0.1", 3, "-0.1,1,1", [], "the value -0.1 is outside"),
    ("label 2", 3, "0.5,2,1", [], "label column 'y'"),
    ("label 0.5", 3, "0.5,0.5,1", [], "label column 'y'"),
    ("text label", 3, "0.5,yes,1", [], "label column 'y'"),
    ("negative weight", 3, "0.5,1,-1", [], "weight column 'w', row 3"),
    ("text weight", 3, "0.5,1,x", [], "weight column 'w', row 3"),
    ("nan weight", 3, "0.5,1,nan", [], "weight column 'w', row 3"),
    ("inf weight", 3, "0.5,1,inf", [], "weight column 'w', row 3"),
    ("bad --n-boot", None, None, ["--n-boot", "-1"], "--n-boot"),
    ("text --n-boot", None, None, ["--n-boot", "x"], "--n-boot"),
    ("bad --level", None, None, ["--level", "1.5"], "--level"),
    ("bad --method", None, None, ["--method", "nope"], "--method"),
    ("bad --seed", None, None, ["--seed", "-1"], "--seed"),
    ("text --seed", None, None, ["--seed", "x"], "--seed"),
    ("bad --pos-label", None, None, ["--pos-label", "7"], "--pos-label"),
]


@pytest.mark.parametrize(("row", "line", "options", "says"),
                         [pytest.param(*c[1:], id=c[0]) for c in CLI_CASES])
def test_the_command_line_refuses_bad_input_in_one_line(tmp_path, capsys, row, line, options,
                                                        says):
    path = _csv(tmp_path, row, line)
    argv = ["report", str(path), "--score", "s", "--label", "y", "--weight", "w",
            "--n-boot", "0", "--quiet", "--out", str(tmp_path / "out")]
    for flag, value in zip(options[::2], options[1::2], strict=True):
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    code = cli_main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert says in err
    assert "Traceback" not in err
    messages = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("usage:")
                and not ln.startswith("  ")]
    assert len(messages) == 1, err
    assert not NUMPY_REPR.search(err)
    assert not (tmp_path / "out").exists()


# --- frequency weights (counts) --------------------------------------------------------------

F = np.arange(N, dtype=float) % 4  # valid counts, zeros included

FREQUENCY_CALLS = {
    "brier_score": lambda f: locacal.brier_score(S, Y, frequency_weights=f),
    "lcs": lambda f: locacal.lcs(S, Y, frequency_weights=f),
    "spiegelhalter_z": lambda f: locacal.spiegelhalter_z(S, Y, frequency_weights=f),
    "hosmer_lemeshow": lambda f: locacal.hosmer_lemeshow(S, Y, frequency_weights=f),
    "calibration_intercept_slope": lambda f: locacal.calibration_intercept_slope(
        S, Y, frequency_weights=f),
    "calibration_curve": lambda f: locacal.calibration_curve(S, Y, frequency_weights=f),
    "LocalRegressionCalibrator.fit": lambda f: locacal.LocalRegressionCalibrator().fit(
        S, Y, frequency_weights=f),
    "PlattCalibrator.fit": lambda f: locacal.PlattCalibrator().fit(S, Y, frequency_weights=f),
    "BinningCalibrator.fit": lambda f: locacal.BinningCalibrator().fit(
        S, Y, frequency_weights=f),
    "ece": lambda f: locacal.ece(S, Y, frequency_weights=f),
    "calib_mse_interval": lambda f: locacal.calib_mse_interval(S, Y, frequency_weights=f),
    "log_loss": lambda f: locacal.log_loss(S, Y, frequency_weights=f),
    "auc": lambda f: locacal.auc(S, Y, frequency_weights=f),
    "calibration_test": lambda f: locacal.calibration_test(S, Y, frequency_weights=f,
                                                           n_resamples=19),
    "calibration_report": lambda f: locacal.calibration_report(S, Y, frequency_weights=f),
    "calibration_errors": lambda f: locacal.calibration_errors(S, Y, frequency_weights=f,
                                                               smoother="loess"),
    "smoothing_table": lambda f: locacal.smoothing_table(S, Y, frequency_weights=f,
                                                         nn=[0.5]),
    "compare_curves": lambda f: locacal.compare_curves(S, Y, {"platt": "platt"},
                                                       frequency_weights=f),
}


BAD_COUNTS = {
    "negative": np.where(np.arange(N) == 3, -1.0, F),
    "fractional": np.where(np.arange(N) == 5, 2.5, F),
    "all zero": np.zeros(N),
    "wrong length": F[:-1],
    "nan": np.where(np.arange(N) == 2, np.nan, F),
    "text": np.array(["a"] * N, dtype=object),
}


@pytest.mark.parametrize("bad", list(BAD_COUNTS))
@pytest.mark.parametrize("call", list(FREQUENCY_CALLS))
def test_bad_frequency_weights_raise_naming_them(call, bad):
    with pytest.raises((ValueError, TypeError), match="frequency_weights"):
        FREQUENCY_CALLS[call](BAD_COUNTS[bad])


def test_fractional_frequency_weights_point_to_weights():
    with pytest.raises(ValueError, match=r"whole numbers.*position 5 holds 2\.5.*weights="):
        locacal.brier_score(S, Y, frequency_weights=BAD_COUNTS["fractional"])


@pytest.mark.parametrize("make", [
    lambda: locacal.LowessCalibrator(it=2, delta=0.01),
    lambda: locacal.LocalRegressionCalibrator(evaluation="locfit"),
], ids=["lowess delta", "locfit tree"])
def test_fits_counting_rows_refuse_frequency_weights(make):
    with pytest.raises(ValueError, match="weights"):
        make().fit(S, Y, frequency_weights=F)
