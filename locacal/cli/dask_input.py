"""``locacal report`` on a table larger than memory: read with Dask, reduce per partition.

With ``--dask`` (or automatically for a Parquet file larger than :data:`AUTO_BYTES`) the
command reads only the named columns with :func:`locacal.data.dask.read_columns` (Dask's
``read_parquet`` or ``read_csv``) and computes everything from the cell statistics of
:mod:`locacal.data.dask`: the metrics of
:data:`locacal.report.table.CELL_COLUMNS` (the others are NaN), the curve by ``binning`` or
``local`` (binned fit), no bootstrap intervals. The score histograms of the figure are drawn
from a random sample of at most :data:`HISTOGRAM_ROWS` rows.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from locacal._validation import plain
from locacal.cli.input import PARQUET_SUFFIXES, InputError
from locacal.data.dask import read_columns

__all__ = ["AUTO_BYTES", "HISTOGRAM_ROWS", "DaskTable", "read_dask", "use_dask"]

#: Parquet files larger than this (2 GiB on disk, several times that in memory) go through
#: Dask without ``--dask``.
AUTO_BYTES = 2 * 2**30
#: Rows sampled for the score histograms of the figure.
HISTOGRAM_ROWS = 100_000


def use_dask(args: argparse.Namespace) -> bool:
    """``--dask``, or a Parquet file above :data:`AUTO_BYTES`."""
    path: Path = args.data
    big = (path.is_file() and path.suffix.lower() in PARQUET_SUFFIXES
           and path.stat().st_size > AUTO_BYTES)
    return bool(args.dask or big)


class DaskTable:
    """The named columns of ``path`` as lazy Dask Series."""

    def __init__(self, path: Path, columns: list[str]) -> None:
        parquet = path.suffix.lower() in PARQUET_SUFFIXES or path.is_dir()
        try:
            self.frame = read_columns(path, columns, parquet=parquet)
        except ImportError:
            raise InputError("--dask needs Dask; install it with "
                             "`pip install 'locacal[dask]'`") from None
        except (FileNotFoundError, KeyError) as exc:
            raise InputError(exc.args[0]) from None

    def labels(self, name: str, pos_label: str | None) -> Any:
        """The label column, or ``column == pos_label`` read in the column's type (lazy)."""
        column = self.frame[name]
        if pos_label is None:
            return column
        kind = column.dtype.kind
        if kind == "b":
            return column == (pos_label.strip().lower() in ("true", "1"))
        if kind in "iuf":
            try:
                return column == float(pos_label)
            except ValueError:
                raise InputError(f"label column {name!r} is numeric; --pos-label "
                                 f"{plain(pos_label)!r} is not a number") from None
        return column.astype(str) == pos_label

    def histogram_sample(self, n_rows: int, columns: list[str]) -> pd.DataFrame:
        """A random sample of at most :data:`HISTOGRAM_ROWS` rows, in memory."""
        frac = min(1.0, HISTOGRAM_ROWS / max(n_rows, 1))
        return self.frame[columns].sample(frac=frac, random_state=0).compute()


def read_dask(args: argparse.Namespace) -> DaskTable:
    columns = list(dict.fromkeys([*args.score, args.label,
                                  *([args.weight] if args.weight else [])]))
    return DaskTable(args.data, columns)
