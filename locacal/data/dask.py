"""Dask collections in, mergeable cell statistics out: the only module that imports Dask.

The public functions (:func:`locacal.lcs`, :func:`locacal.ece`, :func:`locacal.brier_score`,
:func:`locacal.calibration_curve`, :func:`locacal.calibration_report`, every calibrator's
``predict``) call :func:`locacal._validation.has_dask` first; a Dask array, Series or
one-column DataFrame among their data sends them here, and the column is never gathered in
one process:

* each partition (a block of scores with its labels and weights) is validated
  (:func:`locacal._validation.check_scores_labels`: scores in [0, 1], binary labels, weights;
  an error names the argument and the partition) and reduced to its cell sums, about 10 MB,
  (:class:`locacal.data.cells.ScoreStatistics`, for the metrics of
  :mod:`locacal.metrics._dispatch`, the curves and the report);
* the per-partition statistics merge by addition in a tree (:data:`SPLIT_EVERY` at a time),
  with ``dask.delayed``; :func:`dask.compute` runs the graph on the default scheduler, or on
  the ``dask.distributed`` client when one is active (:func:`statistics`);
* the metric is read off the merged statistics (bounds stated with each cell version).

:func:`lazy_predict` maps the exact in-memory ``predict`` over the blocks (``map_blocks``) and
returns a lazy Dask array (:func:`lazy_proba`: its two class columns); :func:`read_columns`
reads the columns of a Parquet or CSV file for ``locacal report --dask``.

Dask is an optional dependency (``pip install "locacal[dask]"``): every import of it is inside
a function, and :func:`locacal._validation.is_dask` looks at the module of the type, so
nothing imports Dask unless a Dask object was passed or a file is read with ``--dask``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from locacal._validation import (
    check_frequency_weights,
    check_scores,
    check_scores_labels,
    is_dask,
    plain,
    warn,
)
from locacal.data.cells import ScoreStatistics

__all__ = ["SPLIT_EVERY", "lazy_predict", "lazy_proba", "read_columns", "statistics"]

#: How many partition statistics one task of the tree reduction merges.
SPLIT_EVERY = 8


def _column(value: Any, name: str) -> Any:
    """A Dask (or in-memory) input as a 1-D Dask array or Dask Series."""
    if value is None:
        return None
    if not is_dask(value):
        return value
    if getattr(value, "ndim", 1) == 2 and hasattr(value, "columns"):  # a Dask DataFrame
        if len(value.columns) != 1:
            raise ValueError(f"{name} must be 1-D (or a single column), got a Dask DataFrame "
                             f"with {len(value.columns)} columns")
        return value[value.columns[0]]
    if hasattr(value, "chunks"):  # a Dask array
        if value.ndim == 2 and value.shape[1] == 1:
            return value[:, 0]
        if value.ndim != 1:
            raise ValueError(f"{name} must be 1-D (or a single column), got shape "
                             f"{value.shape}")
    return value


def _blocks(named: dict[str, Any]) -> list[list[Any]]:
    """The inputs cut into aligned partitions: one list ``[scores, labels, weights]`` of
    Delayed objects (or None) per partition.

    Dask Series of one DataFrame (same number of partitions) are zipped partition by
    partition. Otherwise every input becomes a Dask array cut like the scores (a Series
    through ``to_dask_array(lengths=True)``, an in-memory array through ``from_array``),
    lengths checked first.
    """
    import dask.array as da

    cols = {name: _column(v, name) for name, v in named.items()}
    scores_name = next(iter(cols))
    present = {k: v for k, v in cols.items() if v is not None}
    frames = [v for v in present.values() if is_dask(v) and not hasattr(v, "chunks")]
    if len(frames) == len(present) and len({v.npartitions for v in frames}) == 1:
        parts = {k: v.to_delayed() for k, v in present.items()}
    else:
        arrays = {}
        for k, v in present.items():
            if not is_dask(v):
                v = np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v)
            elif not hasattr(v, "chunks"):
                v = v.to_dask_array(lengths=True)
            arrays[k] = v
        base = arrays[scores_name]
        if not isinstance(base, da.Array):
            base = da.from_array(base, chunks=max(base.shape[0], 1))
            arrays[scores_name] = base
        if any(np.isnan(c) for c in base.chunks[0]):
            base = base.compute_chunk_sizes()
            arrays[scores_name] = base
        n = base.shape[0]
        for k, v in arrays.items():
            if k == scores_name:
                continue
            if v.ndim == 2 and v.shape[1] == 1:
                v = v[:, 0]
            if isinstance(v, da.Array) and any(np.isnan(c) for c in v.chunks[0]):
                v = v.compute_chunk_sizes()
            if v.shape[0] != n:
                raise ValueError(f"{k} has length {v.shape[0]} but {scores_name} have length "
                                 f"{n}")
            arrays[k] = (v.rechunk(base.chunks) if isinstance(v, da.Array)
                         else da.from_array(v, chunks=base.chunks))
        parts = {k: list(v.to_delayed().ravel()) for k, v in arrays.items()}
    count = len(parts[scores_name])
    return [[parts[k][i] if k in parts else None for k in cols] for i in range(count)]


def _partition_statistics(index: int, scores: Any, labels: Any, weights: Any,
                          counts: Any = None) -> ScoreStatistics | int | None:
    """Validate one partition and reduce it to its cell statistics (None when empty, the
    number of rows when all weigh zero); an error names the argument and the partition.
    ``counts``: frequency weights, whose sums the statistics hold
    (:meth:`ScoreStatistics.from_arrays`); a partition whose counts are all zero holds no
    observation (0), one whose weights are zero the number of its observations."""
    try:
        if np.size(scores) == 0:
            return None
        if counts is not None:
            f = check_frequency_weights(counts, np.size(scores)) if np.any(
                np.asarray(counts) != 0) else None
            if f is None:  # validated like the others, but no observation
                check_scores_labels(scores, labels, None, warn_one_class=False,
                                    warn_class_predictions=False)
                return 0
            w = None if weights is None else np.asarray(weights, dtype=np.float64)
            if w is not None and not (w * f).any():
                check_scores_labels(scores, labels, weights, warn_one_class=False,
                                    warn_class_predictions=False)
                return int(f.sum())
            return ScoreStatistics.from_arrays(scores, labels, weights, f)
        if weights is not None and not (np.asarray(weights) != 0).any():
            # a partition of weight zero holds no row of the sample, but is still checked
            check_scores_labels(scores, labels, np.ones(np.size(scores)) if np.size(weights)
                                == np.size(scores) else weights, warn_one_class=False,
                                warn_class_predictions=False)
            return int(np.size(scores))
        return ScoreStatistics.from_arrays(scores, labels, weights)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{exc} (in partition {index} of the Dask input)") from None


def _merge(*parts: ScoreStatistics | int | None) -> ScoreStatistics | int | None:
    """Merge partition statistics; ints count rows of weight zero."""
    total, dropped = None, 0
    for part in parts:
        if isinstance(part, ScoreStatistics):
            total = part if total is None else total.merge(part)
        elif part is not None:
            dropped += part
    if total is None:
        return dropped or None
    return replace(total, zero_weight_rows=total.zero_weight_rows + dropped)


def statistics(scores: Any, labels: Any, weights: Any = None, *,
               names: tuple[str, str, str] = ("scores", "labels", "weights"),
               frequency_weights: Any = None) -> ScoreStatistics:
    """The merged cell sums (:class:`~locacal.data.cells.ScoreStatistics`) of Dask (or mixed
    Dask and in-memory) inputs, computed partition by partition
    (``ScoreStatistics.from_arrays``) and merged in a tree; then the warnings of the
    in-memory path (one class, all scores equal, class predictions) on the whole.

    ``frequency_weights`` (counts, Dask or in memory, cut like the scores): every cell sum
    is then the expanded rows' (the statistics, hence every number read off them, equal
    those of the expanded rows up to summation order), and the expansion is never built."""
    import dask

    named = dict(zip(names, (scores, labels, weights), strict=True))
    if frequency_weights is not None:
        named["frequency_weights"] = frequency_weights
    blocks = _blocks(named)
    level = [dask.delayed(_partition_statistics)(i, *b) for i, b in enumerate(blocks)]
    while len(level) > 1:
        level = [dask.delayed(_merge)(*level[i:i + SPLIT_EVERY])
                 for i in range(0, len(level), SPLIT_EVERY)]
    if not level:
        raise ValueError(f"{names[0]} is empty")
    (total,) = dask.compute(level[0])
    if not isinstance(total, ScoreStatistics):
        raise ValueError(f"{names[0]} is empty" if total is None else f"{names[2]} are all zero")
    _warn_like_memory(total, names)
    return total


def _warn_like_memory(stats: ScoreStatistics, names: tuple[str, str, str]) -> None:
    """The warnings of :func:`locacal._validation.check_scores_labels`, from the cells."""
    scores_name, labels_name, _ = names
    events, total = float(stats.wy.sum()), stats.total_weight
    if events == 0.0 or events == total:
        warn(f"{labels_name} hold a single class ({int(events > 0)}); calibration can only "
             "be judged against that constant")
    if stats.min_score == stats.max_score:
        warn(f"all {scores_name} equal {plain(stats.min_score)!r}: the calibration curve is a "
             "single point (the mean label)")
    elif (stats.min_score == 0.0 and stats.max_score == 1.0 and stats.ws[0] == 0.0
          and stats.edge_count[-1] == stats.count[-1]
          and stats.count[0] + stats.count[-1] == stats.count.sum()):
        warn(f"all {scores_name} are exactly 0 or 1: they look like class predictions "
             "(predict), not probabilities; pass the probability of the positive class "
             "(predict_proba(X)[:, 1])")


def lazy_predict(predict: Any, values: Any, name: str = "scores") -> Any:
    """``predict`` (an in-memory map of validated scores) over every block of a Dask input,
    as a lazy 1-D Dask array of float64; each block is validated (scores in [0, 1])."""
    column = _column(values, name)
    if not hasattr(column, "chunks"):
        column = column.to_dask_array()

    def block(s: np.ndarray, block_info: Any = None) -> np.ndarray:
        if s.size == 0:
            return np.empty(0)
        try:
            checked = check_scores(s, name)
        except (ValueError, TypeError) as exc:
            if block_info is None:
                raise
            block_index = block_info[0]["chunk-location"][0]
            raise type(exc)(f"{exc} (in block {block_index} of the Dask input)") from None
        return np.asarray(predict(checked), dtype=np.float64)

    return column.map_blocks(block, dtype=np.float64)


def lazy_proba(predicted: Any) -> Any:
    """The columns ``[1 - g, g]`` of a lazy prediction ``g`` (:func:`lazy_predict`), as a
    lazy (n, 2) Dask array, block by block."""
    return predicted.map_blocks(lambda b: np.column_stack([1.0 - b, b]), new_axis=1,
                                chunks=(predicted.chunks[0], (2,)), dtype=np.float64)


def read_columns(path: Path, columns: list[str], *, parquet: bool) -> Any:
    """The columns ``columns`` of the Parquet (``parquet=True``: a file or a directory of
    files) or CSV file ``path`` as a lazy Dask DataFrame, read partition by partition.

    Raises
    ------
    ImportError
        Dask is not installed.
    FileNotFoundError
        ``path`` does not exist.
    KeyError
        A column is not in the file (the message, ``args[0]``, names it and lists the file's
        columns).
    """
    import dask.dataframe as dd

    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    frame = dd.read_parquet(path) if parquet else dd.read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        shown = ", ".join(repr(str(c)) for c in frame.columns)
        raise KeyError(f"column {plain(missing[0])!r} is not in the data; its columns are "
                       f"{shown}")
    return frame[columns]
