"""Turn user input into clean float arrays, or raise an error that names the argument.

Every public function of locacal passes its data through this module, so that the
rules are the same everywhere:

* anything array-like is accepted (list, tuple, NumPy array, pandas Series, a one-column
  DataFrame or an ``(n, 1)`` array);
* ``scores`` must be finite and lie in [0, 1];
* ``labels`` must be 0/1 (ints, floats or bools);
* ``weights`` must be finite, non-negative and not all zero;
* lengths must agree and arrays must not be empty.

Errors are :class:`ValueError` (bad values) or :class:`TypeError` (bad types) whose message
names the argument and shows the first offending value and its position. Weak but valid input
(one class only) gives a :class:`CalibrationWarning`.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "CalibrationWarning",
    "as_1d_float",
    "check_choice",
    "check_fraction",
    "check_int",
    "check_positive",
    "check_probabilities",
    "check_scores",
    "check_scores_labels",
    "warn",
]


class CalibrationWarning(UserWarning):
    """Statistically weak but valid input (one class, tiny bins, few distinct scores)."""


def warn(message: str, stacklevel: int = 3) -> None:
    """Issue a :class:`CalibrationWarning` pointing at the caller's caller."""
    warnings.warn(message, CalibrationWarning, stacklevel=stacklevel)


def as_1d_float(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array (a copy only when needed).

    Accepts lists, NumPy arrays, pandas Series and single-column 2-D input (an ``(n, 1)``
    array or a one-column DataFrame), so that scores can sit at the end of a Pipeline.
    Raises ``TypeError`` for non-numeric input and ``ValueError`` for empty, non-1-D,
    NaN or infinite input.
    """
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
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must contain numbers only") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain numbers, got dtype {arr.dtype}")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (or a single column), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{name} contains NaN or infinite values (first at position {i}: {float(arr[i])})"
        )
    return arr


def check_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """Validate scores: a finite 1-D float array with every value in [0, 1]."""
    s = as_1d_float(scores, name)
    bad = (s < 0.0) | (s > 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must lie in [0, 1]; position {i} holds {float(s[i])!r}")
    return s


def check_labels(labels: Any, n: int, name: str = "labels") -> np.ndarray:
    """Validate binary labels of length ``n`` and return them as 0.0/1.0 floats."""
    y = as_1d_float(labels, name)
    if y.size != n:
        raise ValueError(f"{name} has length {y.size} but scores have length {n}")
    bad = (y != 0.0) & (y != 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be 0/1 (or bool); position {i} holds {float(y[i])!r}")
    return y


def check_weights(weights: Any, n: int, name: str = "weights") -> np.ndarray | None:
    """Validate optional case weights and return them as relative weights ``w / max(w)``.

    Weights are relative case weights (exposure, survey or importance weights): every point
    estimate of locacal depends on them only through ``w / sum(w)``, so multiplying all of them
    by a constant changes nothing. They are returned divided by their maximum, which changes no
    point estimate and makes every later sum safe: the largest weight is 1, so ``sum(w) >= 1``
    cannot underflow to zero (weights of 1e-300) and ``sum(w) <= n``, ``sum(w^2) <= n`` cannot
    overflow (weights of 1e300). A weight below ``max(w) * 2^-1074`` becomes 0: its share of
    the total is below the smallest double. Constant weights become exactly 1.

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
    return w / top


def check_scores_labels(
    scores: Any,
    labels: Any,
    weights: Any = None,
    *,
    warn_one_class: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate the ``(scores, labels, weights)`` triple every metric and curve takes.

    Returns float64 arrays; ``weights`` is ``None`` for unit weights. Warns
    (:class:`CalibrationWarning`) when the labels hold a single class, since calibration
    is then only checked against a constant, and when all scores are equal.
    """
    s = check_scores(scores)
    y = check_labels(labels, s.size)
    w = check_weights(weights, s.size)
    if warn_one_class:
        present = y if w is None else y[w > 0]
        if present.min() == present.max():
            warn(
                f"labels hold a single class ({int(present[0])}); calibration can only be "
                "judged against that constant",
                stacklevel=4,
            )
        if s.min() == s.max():
            warn(f"all scores equal {float(s[0])!r}: the calibration curve is a single point "
                 "(the mean label)", stacklevel=4)
    return s, y, w


def check_probabilities(values: Any, n: int, name: str = "true_p") -> np.ndarray:
    """Validate known probabilities (for the true MSE) of length ``n``."""
    p = check_scores(values, name)
    if p.size != n:
        raise ValueError(f"{name} has length {p.size} but scores have length {n}")
    return p


def check_fraction(value: Any, name: str, *, low_open: bool = True) -> float:
    """Validate a fraction in (0, 1] (or [0, 1] with ``low_open=False``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    ok = (0.0 < v <= 1.0) if low_open else (0.0 <= v <= 1.0)
    if not ok:
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return v


def check_positive(value: Any, name: str) -> float:
    """Validate a finite, strictly positive number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return v


def check_int(value: Any, name: str, *, minimum: int | None = None,
              allowed: Iterable[int] | None = None) -> int:
    """Validate an integer parameter, optionally bounded below or from a fixed set."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if allowed is not None:
        allowed = tuple(allowed)
        if v not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {v}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    return v


def check_choice(value: Any, choices: Sequence[str], name: str) -> str:
    """Validate a string option against its allowed values."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {tuple(choices)}")
    return value


def check_points(points: Any, name: str = "grid") -> np.ndarray:
    """Validate evaluation points: finite, 1-D, within [0, 1]."""
    return check_scores(points, name)
