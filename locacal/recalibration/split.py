"""Random train / calibration / test splits (2024 slides, §4 "Methodology")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import as_1d_float, check_seed, plain

__all__ = ["SLIDES_PROPORTIONS", "SPLIT_NAMES", "TREE_PROPORTIONS", "split"]

SPLIT_NAMES = ("train", "calibration", "test")
#: Train / calibration / test shares of the slides' recalibration study (§4): 60 / 20 / 20 %
#: of n = 2000 rows, the default of :func:`split`.
SLIDES_PROPORTIONS = (0.6, 0.2, 0.2)
#: Train / calibration / test shares of the slides' tree study (§5): 100,000 / 50,000 /
#: 50,000 of 200,000 rows.
TREE_PROPORTIONS = (0.5, 0.25, 0.25)


def _check_proportions(proportions: Any) -> np.ndarray:
    p = as_1d_float(proportions, "proportions")
    if p.shape != (3,):
        raise ValueError(f"proportions must be three numbers (train, calibration, test), "
                         f"got {plain(proportions)!r}")
    if not (np.all(np.isfinite(p)) and np.all(p > 0) and abs(p.sum() - 1.0) < 1e-9):
        raise ValueError(f"proportions must be positive and sum to 1, got {plain(proportions)!r}")
    return p


def _n_rows(data: Any) -> int:
    if isinstance(data, pd.DataFrame | pd.Series | np.ndarray):
        return len(data)
    raise TypeError("data_or_arrays must be a DataFrame, an array, or a tuple or list of "
                    f"arrays; got {type(data).__name__}")


def _strata_codes(stratify: Any, n: int) -> np.ndarray:
    """Group number of each row (any hashable labels; missing values are refused)."""
    values = stratify if isinstance(stratify, pd.Series) else np.asarray(stratify)
    if np.ndim(values) != 1:
        raise ValueError(f"stratify must be 1-D, got shape {np.shape(values)}")
    if len(values) != n:
        raise ValueError(f"stratify has length {len(values)} but the data have {n} rows")
    codes = pd.factorize(values)[0]
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise ValueError(f"stratify has a missing value at position {i}")
    return codes


def _sizes(m: int, p: np.ndarray) -> tuple[int, int]:
    """Calibration and test sizes of a group of m rows (rounded half up); train takes the rest."""
    n_cal = int(np.floor(p[1] * m + 0.5))
    n_test = int(np.floor(p[2] * m + 0.5))
    return n_cal, n_test


def split(
    data_or_arrays: Any,
    proportions: Sequence[float] = SLIDES_PROPORTIONS,
    *,
    seed: Any,
    stratify: Any = None,
) -> tuple[Any, Any, Any]:
    """Split rows at random into train, calibration and test sets.

    The recalibration methodology of the 2024 slides (§4): train the classifier on *train*,
    fit the recalibration map on the classifier's scores on *calibration*, judge performance
    and calibration on *test*. The study itself uses 60 / 20 / 20 % of n = 2000 rows.

    Parameters
    ----------
    data_or_arrays : DataFrame, array, or tuple / list of arrays
        Rows to split. Arrays (NumPy arrays, pandas Series or DataFrames) in a tuple must have
        the same number of rows; they are split alike.
    proportions : three positive floats summing to 1, default :data:`SLIDES_PROPORTIONS`
        Shares of train, calibration and test. The calibration and test sizes are
        ``round(p * n)`` (half up) and train takes the rest: 2000 rows give 1200 / 400 / 400.
    seed : int, SeedSequence or Generator
        Required, so that a split is always reproducible.
    stratify : array-like or str, optional
        Class labels (or, for a DataFrame, the name of a column) whose groups are each split
        in the given proportions (sizes rounded within each group), so that every split keeps
        the event rate.

    Returns
    -------
    (train, calibration, test)
        Each of the input's type: DataFrames (original index kept), arrays, or tuples of
        arrays. Rows keep their original order within each split.

    Examples
    --------
    >>> import numpy as np
    >>> from locacal.recalibration import split
    >>> scores = np.linspace(0, 1, 10); labels = np.arange(10) % 2
    >>> train, calibration, test = split((scores, labels), seed=0)
    >>> [len(part[0]) for part in (train, calibration, test)]
    [6, 2, 2]
    """
    p = _check_proportions(proportions)
    seed = check_seed(seed)
    arrays = data_or_arrays
    if isinstance(arrays, tuple | list):
        if len(arrays) == 0:
            raise ValueError("data_or_arrays is an empty tuple")
        arrays = [a if hasattr(a, "iloc") else np.asarray(a) for a in arrays]
        lengths = {_n_rows(a) for a in arrays}
        if len(lengths) > 1:
            raise ValueError(f"the arrays in data_or_arrays have different lengths {lengths}")
        n = lengths.pop()
    else:
        n = _n_rows(arrays)
    if n == 0:
        raise ValueError("data_or_arrays has no rows")
    if isinstance(stratify, str):
        if not isinstance(data_or_arrays, pd.DataFrame):
            raise TypeError("stratify may name a column only when data_or_arrays is a DataFrame")
        if stratify not in data_or_arrays.columns:
            raise ValueError(f"stratify names no column of the DataFrame: {plain(stratify)!r}")
        stratify = data_or_arrays[stratify]
    if stratify is None:
        groups = [np.arange(n)]
    else:
        codes = _strata_codes(stratify, n)
        groups = [np.flatnonzero(codes == k) for k in range(codes.max() + 1)]

    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for rows in groups:
        shuffled = rng.permutation(rows)
        n_cal, n_test = _sizes(shuffled.size, p)
        n_train = shuffled.size - n_cal - n_test
        parts[0].append(shuffled[:n_train])
        parts[1].append(shuffled[n_train:n_train + n_cal])
        parts[2].append(shuffled[n_train + n_cal:])
    index = [np.sort(np.concatenate(part)) for part in parts]
    for name, idx in zip(SPLIT_NAMES, index, strict=True):
        if idx.size == 0:
            raise ValueError(f"the {name} split is empty: {n} rows are too few for proportions "
                             f"{tuple(p.tolist())}")

    def take(a: Any, idx: np.ndarray) -> Any:
        # a copy, not a view flagged as one: adding a column to a split (the usual next
        # step) must not raise pandas' SettingWithCopyWarning (pandas < 3)
        return a.iloc[idx].copy() if hasattr(a, "iloc") else a[idx]

    if isinstance(arrays, list):
        out = [tuple(take(a, idx) for a in arrays) for idx in index]
    else:
        out = [take(arrays, idx) for idx in index]
    return out[0], out[1], out[2]
