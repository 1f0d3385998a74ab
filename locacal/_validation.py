"""Turn user input into clean float arrays, or raise an error that names the argument.

Every public function of locacal passes its data through this module, so that the
rules are the same everywhere:

* anything array-like is accepted (list, tuple, NumPy array, pandas Series, a one-column
  DataFrame or an ``(n, 1)`` array); a two-column ``(n, 2)`` input, the raw output of
  ``predict_proba``, is refused with a pointer to its positive-class column ``[:, 1]``;
* ``scores`` must be finite and lie in [0, 1];
* ``labels`` must be 0/1 (ints, floats or bools), or any two class names (strings,
  {-1, 1}, {1, 2}, categories) together with ``pos_label``, the positive class;
* ``weights`` must be finite, non-negative and not all zero;
* text is never read as a number. Scores, weights, true probabilities and every other
  numeric input are refused (TypeError naming the argument and the first position holding
  text) when they hold text, even text that reads as a number ("0.3"), whatever holds it:
  a NumPy string array, an object array, a pandas ``str``/``string``/``object`` column.
  Labels in text ("yes"/"no", and "0"/"1" too) are class names: accepted with
  ``pos_label`` naming the positive one, refused without it (the message lists the
  classes and shows the ``pos_label`` to pass). Missing values (None, NaN, pandas' NA) are
  reported as missing, not as text;
* lengths must agree and arrays must not be empty;
* integer sizes are bounded above as well as below, so that a slip such as ``bins=1e9`` gets a
  ValueError naming the argument rather than a MemoryError or an endless loop: bins and
  groups by the sample (:func:`check_bins`), grids over [0, 1] by :data:`MAX_GRID_POINTS`,
  resample counts by :data:`MAX_RESAMPLES`;
* pandas inputs that meet (scores, labels, weights, true_p) must share one index, in the
  same order, because locacal pairs observations by position, not by index label.

Errors are :class:`ValueError` (bad values) or :class:`TypeError` (bad types) whose message
names the argument and shows the first offending value and its position. Weak but valid input
(one class only, all scores equal, scores that are all 0 or 1) gives a
:class:`CalibrationWarning`.

Warnings
--------
Warnings go through :func:`warn`, never :func:`warnings.warn` directly:

* :func:`warn` walks up the call stack to the first frame outside the locacal package and
  attributes the warning to that line, so users see the line of their own code that called
  locacal, however deep inside the package the cause was found (no ``stacklevel`` to count);
* every public function (and public method) is decorated with :func:`public_api`::

      from locacal._validation import check_scores_labels, public_api

      @public_api
      def brier_score(scores, labels, *, weights=None, pos_label=None):
          s, y, w = check_scores_labels(scores, labels, weights, pos_label=pos_label)
          ...

  The decorator opens a warning scope for the duration of the call; public functions called
  from inside share the scope of the outermost one. Inside a scope, :func:`warn` emits each
  distinct (category, message) once, so a cause found by several inner checks warns once per
  user call. The scope lives in a :class:`contextvars.ContextVar`, so concurrent calls in
  other threads keep their own scopes. Outside any scope (private helpers called directly)
  :func:`warn` emits every time.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import numbers
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "MAX_GRID_POINTS",
    "MAX_RESAMPLES",
    "MIN_BANDWIDTH",
    "CalibrationWarning",
    "as_1d_float",
    "binary_labels",
    "check_aligned",
    "check_bandwidth",
    "check_bins",
    "check_bool",
    "check_choice",
    "check_fraction",
    "check_grid_size",
    "check_int",
    "check_labels",
    "check_level",
    "check_nonnegative",
    "check_positive",
    "check_probabilities",
    "check_resamples",
    "check_scores",
    "check_scores_labels",
    "check_seed",
    "has_dask",
    "is_dask",
    "plain",
    "positive_weight_rows",
    "public_api",
    "warn",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Every file of the package lives under this folder; the first frame outside it is the user's.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# The (category, message) pairs already emitted in the current public call; None outside one.
_EMITTED: contextvars.ContextVar[set[tuple[type[Warning], str]] | None] = (
    contextvars.ContextVar("locacal_emitted_warnings", default=None)
)

# How many distinct label values an error message lists before it writes "...".
_SHOWN_VALUES = 10


class CalibrationWarning(UserWarning):
    """Statistically weak but valid input (one class, tiny bins, few distinct scores)."""


def public_api(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a public function: one warning per cause per call, and ``pos_label``.

    * The outermost decorated call opens a scope (a fresh set in a context variable) and
      closes it on return or error; decorated functions it calls reuse that scope. Inside
      the scope :func:`warn` drops a (category, message) pair it has already emitted.
    * A function with a ``labels`` parameter (and no ``pos_label`` of its own) gains a
      keyword-only ``pos_label=None``: given, ``labels`` are replaced by ``labels ==
      pos_label`` (0/1, checked by :func:`check_labels`, pandas index kept for the alignment
      check) before the function runs, so every function that takes labels accepts class
      names the same way.
    """
    signature = inspect.signature(func)
    params = signature.parameters
    adds_pos_label = "labels" in params and "pos_label" not in params

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        pos_label = kwargs.pop("pos_label", None) if adds_pos_label else None
        if pos_label is not None:
            bound = signature.bind(*args, **kwargs)
            bound.arguments["labels"] = binary_labels(bound.arguments["labels"], pos_label)
            args, kwargs = bound.args, bound.kwargs
        if _EMITTED.get() is not None:
            return func(*args, **kwargs)
        token = _EMITTED.set(set())
        try:
            return func(*args, **kwargs)
        finally:
            _EMITTED.reset(token)

    if adds_pos_label:
        extra = inspect.Parameter("pos_label", inspect.Parameter.KEYWORD_ONLY, default=None,
                                  annotation="Any")
        kept = [q for q in params.values() if q.kind is not inspect.Parameter.VAR_KEYWORD]
        tail = [q for q in params.values() if q.kind is inspect.Parameter.VAR_KEYWORD]
        wrapper.__signature__ = signature.replace(parameters=[*kept, extra, *tail])
    return wrapper


def is_dask(value: Any) -> bool:
    """Whether ``value`` is a Dask collection (array, Series, DataFrame), judged by the module
    of its type so that Dask is never imported to find out (:mod:`locacal.data.dask`)."""
    module = type(value).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr")


def has_dask(*values: Any) -> bool:
    """Whether any of ``values`` is a Dask collection: the public functions then take the
    partition-by-partition path of :mod:`locacal.data.dask`."""
    return any(is_dask(v) for v in values)


def binary_labels(labels: Any, pos_label: Any, name: str = "labels") -> Any:
    """``labels == pos_label`` as 0/1 floats (a pandas Series keeps its index; a Dask
    collection stays lazy, compared partition by partition)."""
    if is_dask(labels):
        return (labels == pos_label).astype("float64")
    if hasattr(labels, "index") and hasattr(labels, "to_numpy") and np.ndim(labels) == 1:
        converted = check_labels(labels, len(labels), name, pos_label=pos_label)
        return type(labels)(converted, index=labels.index)
    return check_labels(labels, len(np.asarray(labels, dtype=object)), name,
                        pos_label=pos_label)


def _user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn`, called from :func:`warn`, that names the
    first frame outside the locacal package (level 1 is :func:`warn` itself)."""
    frame = sys._getframe(2)  # the caller of warn()
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def warn(message: str, *, category: type[Warning] = CalibrationWarning) -> None:
    """Issue a warning (a :class:`CalibrationWarning` by default) at the user's line.

    The warning is attributed to the first frame outside the locacal package. Inside a
    :func:`public_api` call, a (category, message) pair already emitted in that call is
    dropped.

    Parameters
    ----------
    message : str
        The warning text; say what is weak and what the result then means.
    category : type of Warning
        The warning class.
    """
    emitted = _EMITTED.get()
    if emitted is not None:
        key = (category, message)
        if key in emitted:
            return
        emitted.add(key)
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def _as_array(values: Any, name: str) -> np.ndarray:
    """``values`` as a NumPy array of any dtype and shape; TypeError for non-array input."""
    if values is None:
        raise TypeError(f"{name} must be array-like, got None")
    if isinstance(values, str | bytes):
        raise TypeError(f"{name} must be array-like of numbers, got a string")
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be array-like of numbers: {exc}") from None
    if arr.dtype.kind in "US" and not isinstance(values, np.ndarray):
        # a list of strings: keep them as they are (a NumPy string array drops trailing NULs)
        arr = np.asarray(values, dtype=object)
    return arr


def _one_column(arr: np.ndarray, name: str, *, from_pandas: bool = False,
                proba_hint: bool = False) -> np.ndarray:
    """Flatten an ``(n, 1)`` array; refuse any other shape that is not 1-D.

    With ``proba_hint``, an ``(n, 2)`` array is recognised as the output of ``predict_proba``
    and the message says which column to pass.
    """
    if arr.ndim == 2 and arr.shape[1] == 1:
        return arr[:, 0]
    if arr.ndim == 1:
        return arr
    message = f"{name} must be 1-D (or a single column), got shape {arr.shape}"
    if proba_hint and arr.ndim == 2 and arr.shape[1] == 2:
        column = f"{name}.iloc[:, 1]" if from_pandas else f"{name}[:, 1]"
        message += (": two columns, like the output of predict_proba (one column per class). "
                    f"Pass the probability of the positive class, {column}")
    elif proba_hint and arr.ndim == 2:
        message += (": locacal assesses binary classifiers; for one class of a multiclass "
                    "predict_proba pass its column against one-vs-rest labels")
    raise ValueError(message)


def _float_column(values: Any, name: str, *, proba_hint: bool = False,
                  finite: bool = True) -> np.ndarray:
    """The work of :func:`as_1d_float`, optionally with the ``predict_proba`` hint;
    ``finite=False`` leaves the check for NaN and infinite values to the caller."""
    arr = _as_array(values, name)
    if arr.dtype == object:
        arr = _object_numbers(arr, name)
    elif arr.dtype.kind in "US":
        _refuse_text(arr.ravel(), 0, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain numbers, got dtype {arr.dtype}")
    arr = _one_column(arr, name, from_pandas=_is_pandas(values), proba_hint=proba_hint)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if finite:
        _check_finite(arr, name)
    return arr


def _is_missing(value: Any) -> bool:
    """Whether an element of an object array is None or pandas' NA (a NaN is a number, left
    to the finite check)."""
    if value is None:
        return True
    pd = sys.modules.get("pandas")  # pandas' NA exists only once pandas is imported
    return pd is not None and value is pd.NA


def _object_numbers(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array of numbers (Python or NumPy numbers, bools) as float64, missing values
    (None, pandas' NA) as NaN for the finite check to report.

    Text is refused even when it reads as a number ("0.3"): see :func:`_refuse_text`.
    Anything else that is not a number raises a TypeError naming its position.
    """
    flat = arr.ravel()
    number = np.fromiter((isinstance(v, numbers.Number | np.bool_) for v in flat), bool,
                         flat.size)
    if not number.all():
        missing = np.fromiter((_is_missing(v) for v in flat), bool, flat.size)
        bad = ~(number | missing)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            if isinstance(flat[i], str | bytes):
                _refuse_text(flat, i, name)
            raise TypeError(f"{name} must contain numbers only; position {i} holds "
                            f"{plain(flat[i])!r} ({type(flat[i]).__name__})")
        flat = np.where(missing, np.nan, flat)
    try:
        return flat.astype(np.float64).reshape(arr.shape)
    except (TypeError, ValueError):  # complex numbers
        raise TypeError(f"{name} must contain real numbers") from None


def _refuse_text(flat: np.ndarray, i: int, name: str) -> None:
    """Raise the TypeError of the text rule for ``flat[i]``, a string.

    The rule: numbers (scores, weights, probabilities, grids) are never read from text, not
    even from text that reads as a number, whatever holds it (a NumPy string array, an object
    array, a pandas ``str``/``string``/``object`` column): a numeric column read as text
    means a damaged file (a stray header, a comma decimal, a "NA"), which the user should
    see, not have guessed past. Convert it first, e.g. with :func:`pandas.to_numeric`.
    """
    raise TypeError(f"{name} must contain numbers, not text: position {i} holds "
                    f"{plain(flat[i])!r}; "
                    f"convert {name} to numbers first (e.g. pandas.to_numeric)")


def _check_finite(arr: np.ndarray, name: str) -> None:
    finite = np.isfinite(arr)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{name} contains NaN or infinite values (first at position {i}: {float(arr[i])})"
        )


def as_1d_float(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array (a copy only when needed).

    Accepts lists, NumPy arrays, pandas Series and single-column 2-D input (an ``(n, 1)``
    array or a one-column DataFrame), so that scores can sit at the end of a Pipeline.
    Raises ``TypeError`` for non-numeric input and ``ValueError`` for empty, non-1-D,
    NaN or infinite input.
    """
    return _float_column(values, name)


def _unit_interval(values: Any, name: str, *, proba_hint: bool) -> np.ndarray:
    return _unit_interval_range(values, name, proba_hint=proba_hint)[0]


def _unit_interval_range(values: Any, name: str, *,
                         proba_hint: bool) -> tuple[np.ndarray, float, float]:
    """:func:`_unit_interval` and the smallest and largest value.

    Two passes (min and max) settle valid input: NaN propagates through both, and 0 <= min,
    max <= 1 leaves no room for infinities; only invalid input is searched for its first bad
    position.
    """
    s = _float_column(values, name, proba_hint=proba_hint, finite=False)
    lo, hi = float(s.min()), float(s.max())
    if not (lo >= 0.0 and hi <= 1.0):
        _check_finite(s, name)
        i = int(np.flatnonzero((s < 0.0) | (s > 1.0))[0])
        raise ValueError(f"{name} must lie in [0, 1]; position {i} holds {float(s[i])!r}")
    return s, lo, hi


def check_scores(scores: Any, name: str = "scores", *,
                 warn_class_predictions: bool = False) -> np.ndarray:
    """Validate scores: a finite 1-D float array with every value in [0, 1].

    A two-column ``(n, 2)`` input (the raw output of ``predict_proba``) raises a ValueError
    that points at its positive-class column ``scores[:, 1]``. With
    ``warn_class_predictions``, scores that take only the values 0 and 1 warn that they look
    like class predictions (``predict``) rather than probabilities. It is off by default
    because this function also validates points at which a fitted curve is evaluated, where
    0 and 1 are ordinary points; :func:`check_scores_labels` turns it on.
    """
    s, lo, hi = _unit_interval_range(scores, name, proba_hint=True)
    if warn_class_predictions:
        _warn_if_class_predictions(s, name, lo, hi)
    return s


def _warn_if_class_predictions(s: np.ndarray, name: str, lo: float, hi: float) -> None:
    """Warn when the scores hold both 0 and 1 and nothing else (``lo`` and ``hi`` are their
    minimum and maximum).

    Scores that are all 0 (or all 1) are left to the "all scores equal" warning.
    """
    if lo != 0.0 or hi != 1.0:
        return
    if ((s == 0.0) | (s == 1.0)).all():
        warn(f"all {name} are exactly 0 or 1: they look like class predictions (predict), "
             f"not probabilities; pass the probability of the positive class "
             f"(predict_proba(X)[:, 1])")


def _is_pandas(values: Any) -> bool:
    pd = sys.modules.get("pandas")  # a pandas object implies pandas is already imported
    return pd is not None and isinstance(values, pd.Series | pd.DataFrame)


def _shown(values: Sequence[Any]) -> str:
    """Distinct values for a message: at most ``_SHOWN_VALUES`` reprs, comma-separated."""
    text = ", ".join(repr(v) for v in values[:_SHOWN_VALUES])
    return text + ", ..." if len(values) > _SHOWN_VALUES else text


def plain(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds, for messages: ``{plain(v)!r}`` shows
    ``1.7``, where ``{v!r}`` of a NumPy float shows ``np.float64(1.7)``. Every message that
    shows a value the user gave (the command line's included) formats it so."""
    return value.item() if isinstance(value, np.generic) else value


def _distinct(arr: np.ndarray) -> list[Any]:
    """The distinct values of a 1-D array as Python objects, sorted when they can be."""
    import pandas as pd

    values = [plain(v) for v in pd.unique(arr)]
    try:
        return sorted(values)
    except TypeError:  # mixed types: keep the order of appearance
        return values


def _as_label_array(values: Any, name: str) -> np.ndarray:
    """Labels as a 1-D array: numeric/bool, or strings/objects (class names)."""
    arr = _one_column(_as_array(values, name), name, from_pandas=_is_pandas(values))
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == object:
        import pandas as pd

        missing = pd.isna(arr)
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            raise ValueError(f"{name} contains missing values (first at position {i}: "
                             f"{plain(arr[i])!r})")
        if all(isinstance(v, numbers.Number | np.bool_) for v in arr):
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"{name} must hold numbers, bools or strings") from None
    if arr.dtype.kind == "f":
        _check_finite(arr, name)
    elif arr.dtype.kind not in "biuOUS":
        raise TypeError(f"{name} must hold class labels (numbers, bools or strings), got "
                        f"dtype {arr.dtype}")
    return arr


def _equal(arr: np.ndarray, value: Any) -> np.ndarray:
    """``arr == value`` elementwise as a bool array (all False for an incomparable value).

    Object arrays are compared with Python's ``==``, element by element: NumPy would first
    turn a string ``value`` into a NumPy string, which drops trailing NUL characters, so
    that ``"\x00"`` would equal ``""``.
    """
    if arr.dtype == object:
        return np.fromiter((_same_label(v, value) for v in arr), bool, arr.size)
    equal = np.asarray(arr == value)
    if equal.shape != arr.shape or equal.dtype != bool:
        return np.zeros(arr.shape, dtype=bool)
    return equal


def _labels_with_pos_label(arr: np.ndarray, name: str, pos_label: Any) -> np.ndarray:
    """``arr == pos_label`` as 0.0/1.0, after checking that there are at most two classes
    and that ``pos_label`` is one of them."""
    is_pos = _equal(arr, pos_label)
    if not is_pos.any():
        raise ValueError(f"pos_label={plain(pos_label)!r} is not among the {name}, which hold "
                         f"{_shown(_distinct(arr))}")
    rest = arr[~is_pos]
    if rest.size and not _equal(rest, rest[0]).all():
        values = _distinct(arr)
        raise ValueError(f"{name} must hold two classes; found {len(values)} distinct values: "
                         f"{_shown(values)}")
    return is_pos.astype(np.float64)


def _labels_without_pos_label(arr: np.ndarray, name: str) -> np.ndarray:
    """Numeric/bool 0/1 labels as 0.0/1.0; anything else raises, pointing at ``pos_label``."""
    if arr.dtype.kind in "biuf":
        y = np.ascontiguousarray(arr, dtype=np.float64)
        bad = (y != 0.0) & (y != 1.0)
        if not bad.any():
            return y
        i = int(np.flatnonzero(bad)[0])
        message = f"{name} must be 0/1 (or bool); position {i} holds {arr[i].item()!r}"
    else:
        message = f"{name} hold class names, not 0/1"
        if arr.dtype.kind in "US" or any(isinstance(v, str | bytes) for v in arr):
            message += " (text, never read as numbers)"
    values = _distinct(arr)
    if len(values) > 2:
        raise ValueError(f"{message}; labels must hold two classes but {len(values)} distinct "
                         f"values were found: {_shown(values)}")
    raise ValueError(f"{message}. The {name} take the values {_shown(values)}: pass "
                     f"pos_label=<the positive class> (e.g. pos_label={values[-1]!r})")


def check_labels(labels: Any, n: int, name: str = "labels", *,
                 pos_label: Any = None) -> np.ndarray:
    """Validate binary labels of length ``n`` and return them as 0.0/1.0 floats.

    Parameters
    ----------
    labels : array-like of shape (n,)
        0/1 numbers or bools; with ``pos_label``, any two class values (strings, numbers,
        bools, pandas categories).
    n : int
        The required length (that of the scores).
    name : str
        The argument's name in error messages.
    pos_label : scalar or None
        The positive class. ``None`` accepts only 0/1 and bool labels; two-valued labels of
        any other kind raise a ValueError that asks for ``pos_label``. Given, the result is
        ``labels == pos_label``; it must be one of the (at most two) values present.
    """
    return _counted_labels(labels, n, name, pos_label)[0]


def _counted_labels(labels: Any, n: int, name: str, pos_label: Any) -> tuple[np.ndarray, int]:
    """:func:`check_labels` and the number of positive labels."""
    if pos_label is None:
        fast = _numeric_01_labels(labels, n)
        if fast is not None:
            return fast
    arr = _as_label_array(labels, name)
    if arr.size != n:
        raise ValueError(f"{name} has length {arr.size} but scores have length {n}")
    y = (_labels_without_pos_label(arr, name) if pos_label is None
         else _labels_with_pos_label(arr, name, pos_label))
    return y, int(np.count_nonzero(y))


def _numeric_01_labels(labels: Any, n: int) -> tuple[np.ndarray, int] | None:
    """Labels already given as a 1-D bool, integer or float array of 0/1 of length ``n``,
    as 0.0/1.0 floats and their number of ones, in three passes; None for anything else
    (left to the full checks, which find the first bad value for the message)."""
    arr = labels.to_numpy() if _is_pandas(labels) and np.ndim(labels) == 1 else labels
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.size != n or n == 0:
        return None
    if arr.dtype == np.bool_:
        return arr.astype(np.float64), int(np.count_nonzero(arr))
    if arr.dtype.kind not in "iuf":
        return None
    ones = int(np.count_nonzero(arr == 1))
    if ones != np.count_nonzero(arr):  # a value other than 0 and 1 (NaN included)
        return None
    return np.ascontiguousarray(arr, dtype=np.float64), ones


#: Smallest relative weight summed without loss next to a weight of 1: 2^-52.
_WEIGHT_RANGE = 2.0**-52


def check_weights(weights: Any, n: int, name: str = "weights") -> np.ndarray | None:
    """Validate optional case weights and return them as relative weights ``w / max(w)``.

    Weights are relative case weights (exposure, survey or importance weights): every point
    estimate of locacal depends on them only through ``w / sum(w)``, so multiplying all of them
    by a constant changes nothing. They are returned divided by their maximum, which changes no
    point estimate and makes every later sum safe: the largest weight is 1, so ``sum(w) >= 1``
    cannot underflow to zero (weights of 1e-300) and ``sum(w) <= n``, ``sum(w^2) <= n`` cannot
    overflow (weights of 1e300). A weight below ``max(w) * 2^-1074`` becomes 0: its share of
    the total is below the smallest double. Constant weights become exactly 1. Weights that
    span more than 2^52 (smallest positive to largest) warn: the smallest vanish from any sum
    next to the largest, so a window or bin holding only them can be undefined.

    Raises
    ------
    ValueError
        Wrong length, NaN or infinite, negative, or all zero.
    """
    if weights is None:
        return None
    w = as_1d_float(weights, name)
    if w.size != n:
        raise ValueError(f"{name} has length {w.size} but scores have length {n}")
    if (w < 0).any():
        i = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"{name} must be non-negative; position {i} holds {float(w[i])!r}")
    top = float(w.max())
    if not top > 0:
        raise ValueError(f"{name} are all zero")
    w = w / top
    least = float(w[w > 0].min())
    if least < _WEIGHT_RANGE:
        warn(f"{name} span {1.0 / least:.3g} times from the smallest positive one to the "
             "largest, beyond double precision (4.5e15): a weight that small vanishes from "
             "any sum that holds a large one, so a window or bin of such rows only can be "
             "undefined (NaN)")
    return w


def check_frequency_weights(frequency_weights: Any, n: int,
                            name: str = "frequency_weights") -> np.ndarray | None:
    """Validate optional frequency weights and return them as float64 counts.

    A frequency weight is a count: a row with frequency weight ``f`` stands for ``f`` identical
    observations (grouped data: a cell of policyholders or patients with its count), so every
    result must equal the same call on the expanded rows. Unlike :func:`check_weights`, the
    counts are not rescaled: their sum is the number of observations, which intervals, tests
    and resampling use. A zero count drops the row.

    Raises
    ------
    ValueError
        Wrong length, NaN or infinite, negative, not a whole number, or all zero.
    """
    if frequency_weights is None:
        return None
    f = as_1d_float(frequency_weights, name)
    if f.size != n:
        raise ValueError(f"{name} has length {f.size} but scores have length {n}")
    if (f < 0).any():
        i = int(np.flatnonzero(f < 0)[0])
        raise ValueError(f"{name} must be non-negative counts; position {i} holds "
                         f"{float(f[i])!r}")
    fractional = f != np.floor(f)
    if fractional.any():
        i = int(np.flatnonzero(fractional)[0])
        raise ValueError(f"{name} must be whole numbers (a row stands for that many "
                         f"observations); position {i} holds {float(f[i])!r}; use weights= "
                         "for relative (exposure, survey) weights")
    if (f >= 2.0**53).any():
        i = int(np.flatnonzero(f >= 2.0**53)[0])
        raise ValueError(f"{name} must be below 2^53 to count exactly; position {i} holds "
                         f"{float(f[i])!r}")
    if not f.any():
        raise ValueError(f"{name} are all zero")
    return f


def check_scores_labels(
    scores: Any,
    labels: Any,
    weights: Any = None,
    *,
    warn_one_class: bool = True,
    warn_class_predictions: bool = True,
    pos_label: Any = None,
    names: tuple[str, str, str] = ("scores", "labels", "weights"),
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate the ``(scores, labels, weights)`` triple every metric and curve takes.

    Returns float64 arrays; ``weights`` is ``None`` for unit weights and the labels are
    0.0/1.0 (``labels == pos_label`` when ``pos_label`` is given, see :func:`check_labels`).
    pandas inputs must share one index (:func:`check_aligned`). Warns
    (:class:`CalibrationWarning`) when the labels hold a single class, since calibration
    is then only checked against a constant, when all scores are equal, and (with
    ``warn_class_predictions``) when the scores are all 0 or 1, like class predictions.
    ``names`` are the arguments' names in messages.
    """
    scores_name, labels_name, weights_name = names
    s, lo, hi = _unit_interval_range(scores, scores_name, proba_hint=True)
    check_aligned({scores_name: scores, labels_name: labels, weights_name: weights})
    y, ones = _counted_labels(labels, s.size, labels_name, pos_label)
    w = check_weights(weights, s.size, weights_name)
    if warn_one_class:
        if w is None:
            single = ones in (0, s.size)
            present_class = int(ones > 0)
        else:
            present = y[w > 0]
            single = bool(present.min() == present.max())
            present_class = int(present[0])
        if single:
            warn(
                f"{labels_name} hold a single class ({present_class}); calibration can only "
                "be judged against that constant",
            )
        if lo == hi:
            warn(f"all {scores_name} equal {float(s[0])!r}: the calibration curve is a single "
                 "point (the mean label)")
    if warn_class_predictions:
        _warn_if_class_predictions(s, scores_name, lo, hi)
    return s, y, w


def check_aligned(named: Mapping[str, Any]) -> None:
    """Refuse pandas inputs whose indexes differ; locacal pairs observations by position.

    ``named`` maps argument names to inputs (``None`` entries and non-pandas inputs are
    skipped; mixing pandas and NumPy is fine). Every pandas Series/DataFrame must have the
    index of the first one, element by element and in the same order, otherwise a ValueError
    names the two arguments and the first position where their indexes differ. Inputs of
    different lengths are left to the length checks.
    """
    frames = [(name, value) for name, value in named.items() if _is_pandas(value)]
    if len(frames) < 2:
        return
    first_name, first = frames[0]
    for name, other in frames[1:]:
        if len(other.index) != len(first.index) or other.index.equals(first.index):
            continue
        pair = f"{first_name} and {name} are pandas objects with different indexes"
        if _same_labels(first.index, other.index):
            raise ValueError(
                f"{pair}: the same index labels in a different order. locacal pairs "
                f"observations by position, not by index; reset_index or align first "
                f"(e.g. {name} = {name}.loc[{first_name}.index])"
            )
        i = next(k for k, (a, b) in enumerate(zip(first.index, other.index, strict=True))
                 if not _same_label(a, b))
        raise ValueError(
            f"{pair}: at position {i} {first_name} has index {plain(first.index[i])!r} but "
            f"{name} has {plain(other.index[i])!r}. locacal pairs observations by position, "
            f"not by index; reset_index or align first"
        )


def _same_label(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b) or (a != a and b != b)  # NaN labels match each other
    except (TypeError, ValueError):
        return False


def _same_labels(a: Any, b: Any) -> bool:
    """Whether two pandas indexes hold the same labels (with multiplicity) in any order."""
    try:
        return a.sort_values().equals(b.sort_values())
    except TypeError:  # labels that cannot be sorted together
        return False


def check_probabilities(values: Any, n: int, name: str = "true_p") -> np.ndarray:
    """Validate known probabilities (for the true MSE) of length ``n``."""
    p = _unit_interval(values, name, proba_hint=False)
    if p.size != n:
        raise ValueError(f"{name} has length {p.size} but scores have length {n}")
    return p


def check_fraction(value: Any, name: str, *, low_open: bool = True) -> float:
    """Validate a fraction in (0, 1] (or [0, 1] with ``low_open=False``)."""
    v = _real(value, name)
    ok = (0.0 < v <= 1.0) if low_open else (0.0 <= v <= 1.0)
    if not ok:
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}, got {plain(value)!r}")
    return v


def positive_weight_rows(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                         *aligned: np.ndarray | None) -> tuple[Any, ...]:
    """The rows with positive weight: ``(scores, labels, weights, *aligned)`` restricted to them.

    A case of weight zero is not in the sample (README, "Weights"): every fit, bin, window,
    resample and cross-validation fold is formed from the rows of positive weight only, so
    this is the one place where those rows leave. ``aligned`` are further arrays of the same
    rows (true probabilities, ...; None stays None). The arrays themselves are returned when
    no weight is zero.
    """
    if weights is None or (weights > 0).all():
        return (scores, labels, weights, *aligned)
    keep = weights > 0
    return (scores[keep], labels[keep], weights[keep],
            *(None if a is None else a[keep] for a in aligned))


def check_level(level: Any, name: str = "level") -> float:
    """Validate a confidence level in the open interval (0, 1)."""
    if not 0.0 < _real(level, name) < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {plain(level)!r}")
    return float(level)


def _real(value: Any, name: str) -> float:
    """``value`` as a float if it is a real number (not a bool, not text); TypeError else."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {plain(value)!r}")
    return float(value)


def check_positive(value: Any, name: str) -> float:
    """Validate a finite, strictly positive number."""
    v = _real(value, name)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite positive number, got {plain(value)!r}")
    return v


def check_nonnegative(value: Any, name: str) -> float:
    """Validate a finite number >= 0."""
    v = _real(value, name)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {plain(value)!r}")
    return v


def check_bool(value: Any, name: str) -> bool:
    """Validate a flag: True or False (a NumPy bool too). Anything else, even a truthy
    string such as "yes" or the integer 1, is a TypeError naming the argument."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {plain(value)!r}")
    return bool(value)


def check_int(value: Any, name: str, *, minimum: int | None = None,
              maximum: int | None = None, why: str = "",
              allowed: Iterable[int] | None = None) -> int:
    """Validate an integer parameter, optionally bounded below and above or from a fixed set.

    ``why`` (appended to the message when ``value`` exceeds ``maximum``) says where the upper
    bound comes from, e.g. ``"the number of observations with positive weight"``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {plain(value)!r}")
    v = int(value)
    if allowed is not None:
        allowed = tuple(allowed)
        if v not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {v}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name} must be at most {maximum}{reason}, got {v}")
    return v


#: What each ``kind`` of :func:`check_seed` accepts, as its messages say it.
_SEED_KINDS = {
    "rng": "None, an int >= 0, a numpy SeedSequence, BitGenerator or Generator, or a "
           "sequence of ints >= 0",
    "spawn": "None, an int >= 0 or a numpy SeedSequence",
    "int": "None or an int >= 0",
}


def check_seed(seed: Any, name: str = "seed", *, kind: str = "rng") -> Any:
    """Validate a random seed and return it (a NumPy integer as a Python int).

    Every function of locacal that takes ``seed`` checks it with this function on entry,
    whether or not the call then draws random numbers, so that a bad seed is never accepted
    silently.

    Parameters
    ----------
    seed : Any
        The seed. Always accepted: None (fresh entropy) and an int >= 0 (NumPy integers
        too).
    name : str
        The argument's name in error messages.
    kind : {"rng", "spawn", "int"}, default "rng"
        What the seed is used for. ``"rng"``: it goes to :func:`numpy.random.default_rng`,
        which also takes a :class:`~numpy.random.SeedSequence`, a BitGenerator, a
        :class:`~numpy.random.Generator` or a sequence of ints >= 0. ``"spawn"``: child
        seeds are spawned from it (a SeedSequence too, no Generator). ``"int"``: it goes to
        scikit-learn's ``random_state`` or into a study's parameters (None or an int).

    Raises
    ------
    TypeError
        A bool, a float, a string or any other object that is not a seed of that kind.
    ValueError
        A negative integer.
    """
    kinds = _SEED_KINDS[kind]
    if seed is None:
        return None
    if isinstance(seed, bool | np.bool_):
        raise TypeError(f"{name} must be {kinds}, got {plain(seed)!r}")
    if isinstance(seed, numbers.Integral):
        if seed < 0:
            raise ValueError(f"{name} must be >= 0, got {int(seed)}")
        return int(seed)
    if kind != "int" and isinstance(seed, np.random.SeedSequence):
        return seed
    if kind == "rng":
        if isinstance(seed, np.random.BitGenerator | np.random.Generator):
            return seed
        if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str | bytes):
            try:
                np.random.default_rng(seed)  # a sequence of ints >= 0
            except (TypeError, ValueError):
                pass
            else:
                return seed
    raise TypeError(f"{name} must be {kinds}, got {plain(seed)!r}")
def check_bins(value: Any, n: int, name: str = "bins", *, minimum: int = 1,
               default: int = 10) -> int:
    """Validate a number of bins (or groups) for ``n`` observations of positive weight.

    An integer from ``minimum`` to ``max(n, default)``. More bins than observations leave at
    least ``bins - n`` of them empty whatever the strategy, and empty bins are dropped, so a
    larger number adds nothing but memory (1e9 bins would allocate gigabytes). The function's
    ``default`` stays allowed on samples smaller than it: those bins are then mostly empty,
    which the small-bin warning of the binned statistics reports.
    """
    n = int(n)
    why = (f"the number of observations: more {name} than observations only add empty ones"
           if n >= default else f"its default, as there are only {n} observations")
    return check_int(value, name, minimum=minimum, maximum=max(n, default), why=why)


#: Most points (or cells) of a grid over [0, 1] (the LCS's and WMSE's ``grid_size``, the KL
#: divergence's points and bins): 2^16, the cells of the binned score density
#: (:data:`locacal.data.grid.BINNED_CELLS`), a step of 1.5e-5 below which a Riemann sum over
#: [0, 1] changes by rounding only while its cost keeps growing.
MAX_GRID_POINTS = 2**16

#: Most resamples of a bootstrap, consistency or permutation scheme (``n_boot``,
#: ``n_resamples``, ``n_samples``): the Monte Carlo error of a probability or quantile
#: estimated from B resamples is at most 0.5 / sqrt(B), 5e-4 at 10^6; more only cost (the
#: replicates alone take B x points x 8 bytes).
MAX_RESAMPLES = 10**6


def spawn_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child streams of a seed that :func:`check_seed` accepted.

    A SeedSequence keeps its spawn key (the children of a child are not its root's) and is
    not itself advanced: its copy spawns, so the same SeedSequence always gives the same
    children, and child i is the same whatever ``n`` is. A Generator or BitGenerator gives one
    draw of entropy; an int or a sequence of ints is the root's entropy; None is fresh
    entropy.
    """
    if isinstance(seed, np.random.SeedSequence):
        root = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    elif isinstance(seed, np.random.Generator | np.random.BitGenerator):
        root = np.random.SeedSequence(int(np.random.default_rng(seed).integers(2**63)))
    else:
        root = np.random.SeedSequence(seed)
    return root.spawn(n)


def check_grid_size(value: Any, name: str = "grid_size", *, minimum: int = 2) -> int:
    """Validate the number of points (or cells) of a grid over [0, 1]: ``minimum`` to
    :data:`MAX_GRID_POINTS`."""
    return check_int(value, name, minimum=minimum, maximum=MAX_GRID_POINTS,
                     why="a grid of [0, 1] finer than 2^16 steps resolves nothing more and "
                         "only costs")


def check_resamples(value: Any, name: str, *, minimum: int = 1) -> int:
    """Validate a number of resamples: ``minimum`` to :data:`MAX_RESAMPLES`."""
    return check_int(value, name, minimum=minimum, maximum=MAX_RESAMPLES,
                     why="the Monte Carlo error is then below 5e-4; more resamples only cost "
                         "time and memory")


#: Smallest standard deviation of a Gaussian kernel (kernel regression, score density), in
#: score units: squared distances in bandwidths, ((s - t) / h)^2 <= 1e300, stay finite for
#: scores in [0, 1]. Far below the spacing of the scores every such kernel already gives the
#: limit (the nearest scores only), so nothing is lost.
MIN_BANDWIDTH = 1e-150


def check_bandwidth(value: Any, name: str) -> float:
    """Validate a Gaussian kernel's bandwidth: a finite number of at least
    :data:`MIN_BANDWIDTH`."""
    h = check_positive(value, name)
    if h < MIN_BANDWIDTH:
        raise ValueError(f"{name} must be at least {MIN_BANDWIDTH} (squared distances in "
                         f"bandwidths would overflow; a bandwidth far below the spacing of "
                         f"the scores already sees the nearest scores only), got {plain(value)!r}")
    return h


def check_choice(value: Any, choices: Sequence[str], name: str) -> str:
    """Validate a string option against its allowed values."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {plain(value)!r}")
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {tuple(choices)}")
    return value


def check_points(points: Any, name: str = "grid") -> np.ndarray:
    """Validate evaluation points: finite, 1-D, within [0, 1]."""
    return _unit_interval(points, name, proba_hint=False)
