"""Reading and checking the data table of ``locacal report``.

Every check names the column and the first bad row, counted from 1 at the first data row
(the line after a CSV header), so that a user can find the value in a spreadsheet. The
library's own validation (:mod:`locacal._validation`) speaks of array positions instead; the
command line checks first, with these messages, and hands clean 0/1 labels to the library.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from locacal._validation import plain

__all__ = ["InputError", "counts_column", "labels_column", "read_table", "scores_column",
           "weights_column"]

#: File suffixes read as Parquet; anything else is read as CSV.
PARQUET_SUFFIXES = (".parquet", ".pq")


class InputError(ValueError):
    """Bad input to the command line: the message is shown to the user, exit code 2."""


def read_table(path: Path) -> pd.DataFrame:
    """The table in ``path``: Parquet for ``.parquet``/``.pq`` (needs pyarrow), else CSV."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix.lower() in PARQUET_SUFFIXES:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError(f"{path}: reading Parquet needs pyarrow; install it with "
                             "`pip install 'locacal[parquet]'` or give a CSV file") from None
        try:
            return pd.read_parquet(path)
        except (ValueError, OSError) as err:  # pyarrow's ArrowInvalid is a ValueError
            raise InputError(f"{path}: not a readable Parquet file ({err})") from None
    try:
        # only a truly empty cell is missing: "NA" or "nan" is named as the text it is; blank
        # lines are rows (of empty cells), so row numbers match the file's lines
        table = pd.read_csv(path, keep_default_na=False, na_values=[""],
                            skip_blank_lines=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: not a readable CSV file ({err})") from None
    filled = np.flatnonzero(table.notna().any(axis=1).to_numpy())
    return table.iloc[: filled[-1] + 1 if filled.size else 0]  # blank lines at the end


def _column(table: pd.DataFrame, name: str, role: str) -> pd.Series:
    if name not in table.columns:
        shown = ", ".join(repr(str(c)) for c in table.columns)
        raise InputError(f"{role} column {name!r} is not in the data; its columns are {shown}")
    if table.empty:
        raise InputError(f"the data have no rows (looking for {role} column {name!r})")
    return table[name]


def _row(i: int) -> str:
    return f"row {i + 1}"


def _empty(column: pd.Series) -> np.ndarray:
    """Missing cells, and text cells holding only blanks."""
    raw = column.to_numpy(dtype=object)
    blank = np.fromiter((isinstance(v, str) and not v.strip() for v in raw), bool, len(raw))
    return pd.isna(column).to_numpy() | blank


def _numeric(column: pd.Series, name: str, role: str) -> np.ndarray:
    """The column as floats; empty and non-numeric cells raise, naming the first one."""
    raw = column.to_numpy(dtype=object)
    if column.dtype.kind == "b":
        raise InputError(f"{role} column {name!r} holds true/false values, not numbers")
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    empty = _empty(column)
    bad = np.isnan(values) | empty
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        what = "is empty" if empty[i] else f"{plain(raw[i])!r} is not a number"
        raise InputError(f"{role} column {name!r}, {_row(i)}: the value {what}")
    return values


def scores_column(table: pd.DataFrame, name: str) -> np.ndarray:
    """A score column as floats in [0, 1]."""
    s = _numeric(_column(table, name, "score"), name, "score")
    outside = ~((s >= 0.0) & (s <= 1.0))  # also catches +-inf
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InputError(f"score column {name!r}, {_row(i)}: the value {plain(s[i])!r} is outside "
                         "[0, 1] (scores must be probabilities)")
    return s


def groups_column(table: pd.DataFrame, name: str) -> pd.Series:
    """A column of group labels, as read (text or numbers); an empty cell is refused."""
    column = _column(table, name, "group")
    empty = _empty(column)
    if empty.any():
        raise InputError(f"group column {name!r}, {_row(int(np.flatnonzero(empty)[0]))}: the "
                         "value is empty (give every row a group)")
    return column.reset_index(drop=True).rename(name)


def weights_column(table: pd.DataFrame, name: str) -> np.ndarray:
    """A weight column as finite non-negative floats, not all zero."""
    w = _numeric(_column(table, name, "weight"), name, "weight")
    bad = ~(np.isfinite(w) & (w >= 0.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"weight column {name!r}, {_row(i)}: the value {plain(w[i])!r} is not a "
                         "finite non-negative number")
    if not (w > 0).any():
        raise InputError(f"weight column {name!r}: every weight is zero")
    return w


def counts_column(table: pd.DataFrame, name: str) -> np.ndarray:
    """A count column (frequency weights: a row stands for that many identical observations)
    as finite non-negative whole numbers, not all zero."""
    f = _numeric(_column(table, name, "count"), name, "count")
    bad = ~(np.isfinite(f) & (f >= 0.0) & (f == np.floor(f)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"count column {name!r}, {_row(i)}: the value {plain(f[i])!r} is not a "
                         "non-negative whole number (a count of identical observations; use "
                         "--weight for relative weights)")
    if not (f > 0).any():
        raise InputError(f"count column {name!r}: every count is zero")
    return f


def _matches(column: pd.Series, pos_label: str, name: str) -> np.ndarray:
    """``column == pos_label`` with the command-line string read in the column's type."""
    if column.dtype.kind == "b":
        lowered = pos_label.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise InputError(f"label column {name!r} holds true/false values; --pos-label "
                             f"{plain(pos_label)!r} is neither")
        return column.to_numpy() == (lowered in ("true", "1"))
    if column.dtype.kind in "iuf":
        try:
            target = float(pos_label)
        except ValueError:
            raise InputError(f"label column {name!r} is numeric; --pos-label {plain(pos_label)!r} "
                             "is not a number") from None
        return column.to_numpy(dtype=np.float64) == target
    return column.astype(str).to_numpy() == pos_label


def labels_column(table: pd.DataFrame, name: str, pos_label: str | None) -> np.ndarray:
    """A label column as 0.0/1.0: 0/1 or true/false values, or two classes and ``pos_label``.

    Raises :class:`InputError` at the first empty cell, at the first row holding a third
    distinct value, for two classes other than 0/1 without ``pos_label``, and for a
    ``pos_label`` that is not one of the classes.
    """
    column = _column(table, name, "label")
    missing = _empty(column)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise InputError(f"label column {name!r}, {_row(i)}: the value is empty")
    codes, classes = pd.factorize(column)  # classes in order of first appearance
    if len(classes) > 2:
        i = int(np.flatnonzero(codes == 2)[0])
        raise InputError(f"label column {name!r}, {_row(i)}: a third distinct value "
                         f"{plain(classes[2])!r} (after {plain(classes[0])!r} and "
                         f"{plain(classes[1])!r}); labels "
                         "must hold two classes")
    shown = ", ".join(repr(plain(c)) for c in classes)
    if pos_label is not None:
        y = _matches(column, pos_label, name)
        if not y.any():
            raise InputError(f"--pos-label {plain(pos_label)!r} is not a value of label column "
                             f"{name!r}, which holds {shown}")
        return y.astype(np.float64)
    if column.dtype.kind == "b":
        return column.to_numpy(dtype=np.float64)
    if column.dtype.kind in "iuf" and set(np.unique(column.to_numpy(np.float64))) <= {0.0, 1.0}:
        return column.to_numpy(dtype=np.float64)
    raise InputError(f"label column {name!r} holds {shown}, not 0/1: give the positive class "
                     f"with --pos-label (e.g. --pos-label {plain(classes[-1])})")
