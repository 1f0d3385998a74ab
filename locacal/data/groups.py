"""Subgroups of a sample: the ``by=`` argument of the report, the test, the curve and the display.

A subgroup analysis asks the same question of every level of a grouping variable (sex, age
band, region, sales channel): is the model calibrated *there*? Each per-group result is the
call on that group's rows, so :func:`split_by` only turns ``by`` into the row indices of each
group, in a documented order, and refuses what cannot be grouped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import plain, warn

__all__ = ["Groups", "pop_by_column", "split_by"]

#: Fewer rows than this in a group warns: its curve and metrics are mostly noise.
SMALL_GROUP = 50


@dataclass(frozen=True, eq=False)
class Groups:
    """The levels of a grouping variable and the rows of each.

    Attributes
    ----------
    name : str
        What the groups are called in tables: the Series' or column's name, else ``"group"``.
    levels : tuple
        The distinct values of ``by``, sorted when they can be compared (numbers, strings,
        ordered categories in their category order), otherwise in order of first appearance.
    rows : tuple of ndarray
        For each level, the positions (0-based, increasing) of its rows.
    """

    name: str
    levels: tuple[Any, ...]
    rows: tuple[np.ndarray, ...]

    def __iter__(self) -> Iterator[tuple[Any, np.ndarray]]:
        return iter(zip(self.levels, self.rows, strict=True))

    def __len__(self) -> int:
        return len(self.levels)


def split_by(by: Any, n: int, name: str = "by") -> Groups:
    """Validate a grouping variable of ``n`` rows and return the rows of each of its levels.

    Parameters
    ----------
    by : array-like of shape (n,)
        One group label per row (strings, integers, booleans, a pandas Categorical...).
    n : int
        Number of rows of the scores.
    name : str
        The argument's name, for messages.

    Returns
    -------
    Groups

    Raises
    ------
    ValueError
        ``by`` is not one-dimensional, has the wrong length or a missing value (None, NaN).

    Warns
    -----
    CalibrationWarning
        A group holds fewer than :data:`SMALL_GROUP` rows, or there is only one group.
    """
    series = by if isinstance(by, pd.Series) else None
    if np.ndim(by) != 1:
        raise ValueError(f"{name} must be one-dimensional (one group per row), got an array "
                         f"of shape {np.shape(by)}")
    values = pd.Series(np.asarray(by, dtype=object) if series is None else by.array,
                       copy=False)
    if values.size != n:
        raise ValueError(f"{name} has length {values.size} but scores have length {n}")
    missing = values.isna().to_numpy()
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{name} has a missing value at position {i}; give every row a group "
                         "(e.g. fill the missing ones with a level of their own)")
    codes, levels = _factorize(values)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(levels) + 1))
    rows = tuple(np.sort(order[a:b]) for a, b in pairwise(bounds))
    label = str(series.name) if series is not None and series.name is not None else "group"
    small = [plain(level) for level, r in zip(levels, rows, strict=True) if r.size < SMALL_GROUP]
    if small:
        warn(f"{len(small)} group(s) of {name} hold fewer than {SMALL_GROUP} rows "
             f"({small[:5]}{'...' if len(small) > 5 else ''}): their curves and metrics are "
             "mostly noise")
    if len(levels) == 1:
        warn(f"{name} has a single group ({plain(levels[0])!r}): the result is the whole "
             "sample's")
    return Groups(label, tuple(plain(v) for v in levels), rows)


def _factorize(values: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Integer codes and levels: sorted when the values compare, first appearance otherwise."""
    try:
        codes, levels = pd.factorize(values, sort=True)
    except TypeError:  # values of types that do not compare (1 and "a")
        codes, levels = pd.factorize(values, sort=False)
    return np.asarray(codes), list(levels)


def pop_by_column(scores: Any, by: Any) -> tuple[Any, Any]:
    """Resolve ``by`` given as a column name of a DataFrame of scores.

    ``calibration_report(frame[["model_a", "model_b", "sex"]], y, by="sex")`` groups by the
    column ``sex``, which is then no model. Any other ``by`` is returned as given.
    """
    if not isinstance(by, str):
        return scores, by
    if isinstance(scores, pd.DataFrame):
        if by not in scores.columns:
            raise ValueError(f"by={by!r} is not a column of the scores' DataFrame (columns: "
                             f"{[str(c) for c in scores.columns]})")
        return scores.drop(columns=by), scores[by]
    if isinstance(scores, Mapping) and by in scores:
        rest = {k: v for k, v in scores.items() if k != by}
        return rest, pd.Series(np.asarray(scores[by]), name=by)
    raise ValueError(f"by={by!r} names a column, but the scores are not a DataFrame or dict "
                     "holding it; pass the group of each row as an array instead")
