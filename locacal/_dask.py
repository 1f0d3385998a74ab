"""Dask collections in, mergeable cell statistics out: the larger-than-memory path.

The public functions (:func:`locacal.lcs`, :func:`locacal.ece`, :func:`locacal.brier_score`,
:func:`locacal.calibration_curve`, :func:`locacal.calibration_report`, every calibrator's
``predict``) call :func:`has_dask` first; a Dask array, Series or one-column DataFrame among
their data sends them here, and the column is never gathered in one process:

* each partition (a block of scores with its labels and weights) is validated
  (:func:`locacal._validation.check_scores_labels`: scores in [0, 1], binary labels, weights;
  an error names the argument and the partition) and reduced to a
  :class:`locacal._sufficient.ScoreStatistics` (about 10 MB);
* the per-partition statistics merge by addition in a tree (``SPLIT_EVERY`` at a time), with
  ``dask.delayed``; :func:`dask.compute` runs the graph on the default scheduler, or on the
  ``dask.distributed`` client when one is active;
* the metric is read off the merged statistics (bounds in :mod:`locacal._sufficient`).

``predict`` maps the exact in-memory ``predict`` over the blocks (``map_blocks``) and returns
a lazy Dask array.

Dask is an optional dependency (``pip install "locacal[dask]"``): :func:`is_dask` looks at the
module of the type, so nothing imports Dask unless a Dask object was passed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from locacal._sufficient import ScoreStatistics
from locacal._validation import (
    check_choice,
    check_int,
    check_scores,
    check_scores_labels,
    has_dask,
    is_dask,
    plain,
    warn,
)
from locacal.data.bins import STRATEGIES
from locacal.localfit import EVALUATIONS

__all__ = ["SPLIT_EVERY", "has_dask", "is_dask", "lazy_predict", "statistics"]

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


def _partition_statistics(index: int, scores: Any, labels: Any,
                          weights: Any) -> ScoreStatistics | int | None:
    """Validate one partition and reduce it to its cell statistics (None when empty, the
    number of rows when all weigh zero); an error names the argument and the partition."""
    try:
        if np.size(scores) == 0:
            return None
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
               names: tuple[str, str, str] = ("scores", "labels", "weights")
               ) -> ScoreStatistics:
    """The merged :class:`ScoreStatistics` of Dask (or mixed Dask and in-memory) inputs,
    computed partition by partition and merged in a tree; then the warnings of the in-memory
    path (one class, all scores equal, class predictions) on the whole."""
    import dask

    blocks = _blocks(dict(zip(names, (scores, labels, weights), strict=True)))
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


# ---------------------------------------------------------------- the public functions' Dask path


def brier_score(scores: Any, labels: Any, weights: Any = None) -> float:
    """:func:`locacal.brier_score` of Dask input: exact (the sum is kept, not binned)."""
    return statistics(scores, labels, weights).brier()


def ece(scores: Any, labels: Any, weights: Any, bins: Any, strategy: str) -> float:
    """:func:`locacal.ece` of Dask input: uniform bins exactly (``bins`` must divide the
    100800 cells), quantile bins cut at cell edges within the bound of
    :meth:`ScoreStatistics.quantile_bins`; adaptive bins are refused."""
    check_choice(strategy, STRATEGIES, "strategy")
    bins = check_int(bins, "bins", minimum=1)
    if strategy == "adaptive":
        raise ValueError("strategy='adaptive' is not available for Dask input (its bins of "
                         "bin_size rows cut inside cells); use 'quantile' or 'uniform'")
    stats = statistics(scores, labels, weights)
    return stats.ece(bins) if strategy == "uniform" else stats.ece_quantile(bins)[0]


def lcs(scores: Any, labels: Any, weights: Any, nn: float, degree: int, kernel: str,
        evaluation: str, grid_size: int) -> float:
    """:func:`locacal.lcs` of Dask input, within :meth:`ScoreStatistics.lcs_with_bound`."""
    if check_choice(evaluation, EVALUATIONS, "evaluation") != "exact":
        raise ValueError("evaluation='locfit' is not available for Dask input; the LCS is "
                         "computed from cell statistics (evaluation='exact')")
    stats = statistics(scores, labels, weights)
    return stats.lcs(nn, grid_size, degree=degree, kernel=kernel)


def calibration_curve(scores: Any, labels: Any, weights: Any, method: str, grid: Any,
                      band: Any, level: float, interval: str, params: dict[str, Any]) -> Any:
    """:func:`locacal.calibration_curve` of Dask input: ``method="binning"`` (quantile or
    uniform bins) or ``method="local"`` (degree 0/1, rect/tricube, by default the in-memory
    default :data:`locacal.curves.local.DEFAULT_LOCAL`; the binned fit of
    :class:`locacal._cells.CellLocalCalibrator`), with the pointwise band or none."""
    from locacal._cells import CellLocalCalibrator, binning_calibrator
    from locacal.curves.bands import check_band
    from locacal.curves.local import DEFAULT_LOCAL

    if method not in ("binning", "local"):
        raise ValueError(f"method={plain(method)!r} is not available for Dask input; use 'binning' "
                         "or 'local' (curves from cell statistics)")
    if check_band(band) not in ("pointwise", None):
        raise ValueError(f"band={plain(band)!r} resamples rows, which Dask input does not "
                         "keep; use band='pointwise' or None")
    if method == "binning":
        unknown = sorted(set(params) - {"strategy", "bins"})
        if unknown:
            raise TypeError(f"method='binning' with Dask input has no option(s) {unknown}; "
                            "its options are ['strategy', 'bins']")
        calibrator, _ = binning_calibrator(statistics(scores, labels, weights), **params)
    else:
        unknown = sorted(set(params) - {"degree", "nn", "kernel", "clip"})
        if unknown:
            raise TypeError(f"method='local' with Dask input has no option(s) {unknown}; "
                            "its options are ['degree', 'nn', 'kernel', 'clip']")
        params = {**DEFAULT_LOCAL, **params}  # the in-memory default curve
        probe = CellLocalCalibrator(**params)
        probe._check_params()  # before the pass over the data
        calibrator = CellLocalCalibrator.from_statistics(
            statistics(scores, labels, weights), **params)
    return calibrator.curve(grid, band=band, level=level, interval=interval)


def calibration_report(scores: Any, labels: Any, weights: Any, threshold: float,
                       columns: tuple[str, ...]) -> Any:
    """:func:`locacal.calibration_report` of Dask input: the columns of
    :data:`locacal._cells.CELL_COLUMNS` from the cells, NaN for the others."""
    from locacal._cells import report_from_statistics

    value, _ = report_from_statistics(statistics(scores, labels, weights), threshold, columns)
    return value
