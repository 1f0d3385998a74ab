"""Mergeable per-cell sums of a scored sample: what the Dask path reduces each partition to.

A :class:`ScoreStatistics` holds, for each of the :data:`~locacal.data.grid.CELLS` right-closed
cells of [0, 1], the number of rows and the weighted sums a calibration analysis needs (sum w,
w^2, w y, w s, w s^2, w y s, w^2 s, w^2 s^2, and the same sums of the rows exactly on a cell
edge), plus exact scalars: the Brier sum sum w (y - s)^2, the smallest and largest score, the
log-score sum and the two sums of Spiegelhalter's z. It is built in one pass over a chunk of
data (:meth:`ScoreStatistics.from_arrays`, ``np.bincount``) and two of them merge by elementwise
addition (min/max for the range), so chunked data and the whole sample give the same sums up
to the order of summation. The sums also give the uniform bins exactly
(:meth:`ScoreStatistics.uniform_bins`) and the quantile bins within a bound
(:meth:`ScoreStatistics.quantile_bins`).

What is read off the sums is beside the in-memory version of each, with its bound: the
metrics' cell versions (``*_cells``, ``*_with_bound`` in :mod:`locacal.metrics`), the
reflected density (:func:`locacal.density.reflected_kde_cells`), the binned local fits
(:func:`locacal.localfit.fit` of the cells) and the LCS
(:func:`locacal.metrics.lcs_wmse.lcs_with_bound`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from locacal._validation import (
    as_1d_float,
    check_bins,
    check_frequency_weights,
    check_scores_labels,
    positive_weight_rows,
    warn,
)
from locacal.data.bins import BinStatistics
from locacal.data.grid import CELLS, EDGES, cell_index, order_stat_cells
from locacal.data.quantile import warn_tied_bins

__all__ = ["LOG_LOSS_EPS", "ScoreStatistics"]

#: Scores are clipped to [eps, 1 - eps] before taking logs (:func:`locacal.metrics.log_loss`
#: and the log-score sum of the cells): the machine epsilon of float64, the clipping
#: scikit-learn's ``log_loss`` applies (versions >= 1.5).
LOG_LOSS_EPS = float(np.finfo(np.float64).eps)

#: The per-cell sums, in the order they are stored.
_CELL_SUMS = ("count", "weight", "weight_sq", "wy", "ws", "ws2", "wys", "w2s", "w2s2",
              "edge_count", "edge_weight", "edge_weight_sq", "edge_wy", "edge_ws")
#: The exact scalar sums (and the count of dropped rows), merged by addition.
_SCALAR_SUMS = ("brier_sum", "zero_weight_rows", "log_sum", "spiegel_num", "spiegel_var")
#: The sums that uniform bins need, and their parts at the edges.
_BIN_SUMS = ("count", "weight", "weight_sq", "wy", "ws")

_S = TypeVar("_S", bound="ScoreStatistics")


def _cell_sums(scores: np.ndarray) -> tuple[Callable[[np.ndarray | None], np.ndarray],
                                             Callable[[np.ndarray | None], np.ndarray]]:
    """Per-cell and per-edge sums of row values (None: the number of rows) for ``scores``:
    each row's cell (:func:`cell_index`), and the edge a row sitting exactly on a cell's
    upper edge lands on."""
    j = cell_index(scores)
    on_edge = scores == EDGES[j + 1]
    top = j[on_edge] + 1

    def per_cell(values: np.ndarray | None) -> np.ndarray:
        if values is None:
            return np.bincount(j, minlength=CELLS).astype(np.float64)
        return np.bincount(j, weights=values, minlength=CELLS)

    def per_edge(values: np.ndarray | None) -> np.ndarray:
        if values is None:
            return np.bincount(top, minlength=CELLS + 1).astype(np.float64)
        return np.bincount(top, weights=values[on_edge], minlength=CELLS + 1)

    return per_cell, per_edge


def _row_scalars(s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                 square: np.ndarray | None = None) -> dict[str, float]:
    """The exact scalar sums of one chunk (w = 1 when None): the Brier sum
    sum w (y - s)^2, the log-score sum sum w [y log s~ + (1 - y) log(1 - s~)] with s~ the
    score clipped to [eps, 1 - eps] as :func:`locacal.metrics.log_loss` clips it (log for
    the events, log1p(-s~) for the others, as there), and Spiegelhalter's numerator
    sum w (y - s)(1 - 2 s) and variance sum w^2 (1 - 2 s)^2 s (1 - s). Two row-sized
    buffers, reused, so the chunk's peak memory stays that of the cell sums. ``square``
    replaces w^2 when given (frequency weights: w the rows' w f, ``square`` their f w^2)."""
    a = np.subtract(y, s)                       # y - s
    b = np.multiply(s, -2.0)
    b += 1.0                                    # 1 - 2 s
    if w is None:
        brier, num = float(np.dot(a, a)), float(np.dot(a, b))
    else:
        weighted_gap = w * a
        brier, num = float(np.dot(weighted_gap, a)), float(np.dot(weighted_gap, b))
        del weighted_gap
    b *= b                                      # (1 - 2 s)^2
    if square is not None:
        b *= square
    elif w is not None:
        b *= w
        b *= w                                  # w^2 (1 - 2 s)^2
    np.subtract(1.0, s, out=a)
    a *= s                                      # s (1 - s)
    var = float(np.dot(b, a))
    # both logs on every row (vectorised; a masked log is 8x slower), each kept by a dot
    # with the 0/1 labels (0 x finite = 0 exactly)
    np.clip(s, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS, out=a)
    np.log(a, out=b)
    if w is not None:
        b *= w
    log_sum = float(np.dot(y, b))               # sum w y log s~
    np.negative(a, out=a)
    np.log1p(a, out=a)
    np.subtract(1.0, y, out=b)
    if w is not None:
        b *= w
    log_sum += float(np.dot(b, a))              # + sum w (1 - y) log(1 - s~)
    return {"brier_sum": brier, "log_sum": log_sum, "spiegel_num": num, "spiegel_var": var}


@dataclass(frozen=True, eq=False)
class ScoreStatistics:
    """Per-cell sums of a scored sample (rows of positive weight only) and exact scalars.

    Attributes
    ----------
    count, weight, weight_sq, wy, ws, ws2, wys : ndarray, shape (CELLS,)
        Per cell: the number of rows, sum w, sum w^2, sum w y, sum w s, sum w s^2 and
        sum w y s (w = 1 without weights). The last two, with the others, are what a binned
        local-linear fit needs.
    w2s, w2s2 : ndarray, shape (CELLS,)
        Per cell: sum w^2 s and sum w^2 s^2 (equal to ws and ws2 without weights); with
        weight_sq, the variance of a binned local-linear fit
        (output ``"var_factor"`` of :func:`locacal.localfit.fit` of the cells).
    edge_count, edge_weight, edge_weight_sq, edge_wy, edge_ws : ndarray, shape (CELLS + 1,)
        The same sums over the rows whose score equals the edge EDGES[j] exactly (they are
        also counted in cell j - 1, whose top they are). A uniform bin edge of
        :mod:`locacal.curves.binning` is ``linspace(0, 1, B + 1)[b]`` = fl(b fl(1/B)), which
        may be one unit in the last place off the correctly rounded edge; rounded scores
        (0.35, 0.3) sit exactly on the edges, and these sums put them on the side the
        in-memory bins put them.
    brier_sum : float
        sum w (y - s)^2 over all rows, exactly.
    min_score, max_score : float
        The score range (the LCS grid is restricted to it).
    zero_weight_rows : int
        Rows of weight zero that were dropped (the report's ``n`` counts them, as in memory).
    log_sum : float
        sum w [y log s~ + (1 - y) log(1 - s~)], s~ the score clipped to
        [eps, 1 - eps] as :func:`locacal.metrics.log_loss` clips it.
    spiegel_num, spiegel_var : float
        sum w (y - s)(1 - 2 s) and sum w^2 (1 - 2 s)^2 s (1 - s): the numerator and the
        variance of :func:`locacal.metrics.spiegelhalter_z`.
    """

    count: np.ndarray
    weight: np.ndarray
    weight_sq: np.ndarray
    wy: np.ndarray
    ws: np.ndarray
    ws2: np.ndarray
    wys: np.ndarray
    w2s: np.ndarray
    w2s2: np.ndarray
    edge_count: np.ndarray
    edge_weight: np.ndarray
    edge_weight_sq: np.ndarray
    edge_wy: np.ndarray
    edge_ws: np.ndarray
    brier_sum: float
    min_score: float
    max_score: float
    zero_weight_rows: int = 0
    log_sum: float = 0.0
    spiegel_num: float = 0.0
    spiegel_var: float = 0.0

    # ------------------------------------------------------------------ building

    @classmethod
    def from_arrays(cls: type[_S], scores: Any, labels: Any, weights: Any = None,
                    frequency_weights: Any = None) -> _S:
        """The statistics of one chunk, in one pass (validated by
        :func:`locacal._validation.check_scores_labels`; rows of weight zero are dropped, as
        :func:`locacal.lcs` drops them). Weights are relative across the whole sample, so
        every chunk's weights must be on the same scale; they are summed as given.
        Single-class and constant-score warnings are left to the merged whole, since a chunk
        may legitimately hold one class.

        ``frequency_weights`` (whole counts f, :func:`locacal._validation.
        check_frequency_weights`): every sum is the expanded rows' sum, row i entering
        ``count`` with f_i, the sums of w with f_i w_i and those of w^2 with f_i w_i^2; the
        statistics equal those of the expanded rows up to summation order."""
        if frequency_weights is not None:
            return cls._from_counts(scores, labels, weights, frequency_weights)
        s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False,
                                      warn_class_predictions=False)
        rows = s.size
        if w is not None:
            # check_weights divides by the chunk's largest weight; chunks must share one
            # scale, so the validated weights are used as given
            s, y, w = positive_weight_rows(s, y, as_1d_float(weights, "weights"))
            with np.errstate(over="ignore"):
                square_sum = np.dot(w, w)
            if not np.isfinite(square_sum):
                raise ValueError("weights are too large: their squares overflow; rescale "
                                 "every chunk by the same factor")
        per_cell, per_edge = _cell_sums(s)
        scalars = _row_scalars(s, y, w)
        count = per_cell(None)
        ys = y * s
        if w is None:  # unit weights: w y = y, w s = w^2 s = s, and sum w = sum w^2 = count
            score_sum, square_sum = per_cell(s), per_cell(s * s)
            return cls(
                count=count, weight=count, weight_sq=count.copy(), wy=per_cell(y),
                ws=score_sum, ws2=square_sum, wys=per_cell(ys), w2s=score_sum.copy(),
                w2s2=square_sum.copy(),
                edge_count=per_edge(None), edge_weight=per_edge(None),
                edge_weight_sq=per_edge(None), edge_wy=per_edge(y), edge_ws=per_edge(s),
                min_score=float(s.min()), max_score=float(s.max()),
                zero_weight_rows=rows - s.size, **scalars,
            )
        wy, ws = w * y, w * s
        return cls(
            count=count, weight=per_cell(w), weight_sq=per_cell(w * w), wy=per_cell(wy),
            ws=per_cell(ws), ws2=per_cell(ws * s), wys=per_cell(w * ys),
            w2s=per_cell(w * ws), w2s2=per_cell(w * ws * s),
            edge_count=per_edge(None), edge_weight=per_edge(w),
            edge_weight_sq=per_edge(w * w), edge_wy=per_edge(wy), edge_ws=per_edge(ws),
            min_score=float(s.min()), max_score=float(s.max()),
            zero_weight_rows=rows - s.size, **scalars,
        )

    @classmethod
    def _from_counts(cls: type[_S], scores: Any, labels: Any, weights: Any,
                     frequency_weights: Any) -> _S:
        """:meth:`from_arrays` of grouped rows: the expanded rows' sums (its docstring)."""
        s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False,
                                      warn_class_predictions=False)
        f = check_frequency_weights(frequency_weights, s.size)
        relative = None if w is None else as_1d_float(weights, "weights")
        zero_weight_observations = 0 if relative is None else int(f[relative == 0].sum())
        keep = f > 0 if relative is None else (f > 0) & (relative > 0)
        if not keep.any():
            raise ValueError("weights x frequency_weights are zero on every row of this chunk")
        s, y, f = s[keep], y[keep], f[keep]
        point = f if relative is None else relative[keep] * f
        square = f if relative is None else relative[keep] ** 2 * f
        if not np.isfinite(float(square.sum())):
            raise ValueError("weights are too large: their squares overflow; rescale "
                             "every chunk by the same factor")
        per_cell, per_edge = _cell_sums(s)

        scalars = _row_scalars(s, y, point, square)
        wy, ws, w2s = point * y, point * s, square * s
        return cls(
            count=per_cell(f), weight=per_cell(point), weight_sq=per_cell(square),
            wy=per_cell(wy), ws=per_cell(ws), ws2=per_cell(ws * s), wys=per_cell(wy * s),
            w2s=per_cell(w2s), w2s2=per_cell(w2s * s),
            edge_count=per_edge(f), edge_weight=per_edge(point),
            edge_weight_sq=per_edge(square), edge_wy=per_edge(wy), edge_ws=per_edge(ws),
            min_score=float(s.min()), max_score=float(s.max()),
            zero_weight_rows=zero_weight_observations, **scalars,
        )

    def merge(self: _S, other: ScoreStatistics) -> _S:
        """The statistics of the union of two samples: sums add, the range widens."""
        if not isinstance(other, ScoreStatistics):
            raise TypeError(f"other must be {type(self).__name__}, not "
                            f"{type(other).__name__}")
        sums = {name: getattr(self, name) + getattr(other, name)
                for name in (*_CELL_SUMS, *_SCALAR_SUMS)}
        return type(self)(**sums, min_score=min(self.min_score, other.min_score),
                          max_score=max(self.max_score, other.max_score))

    def __add__(self: _S, other: ScoreStatistics) -> _S:
        if not isinstance(other, ScoreStatistics):
            return NotImplemented
        return self.merge(other)

    @classmethod
    def from_chunks(cls: type[_S], chunks: Iterable[tuple[Any, Any, Any]]) -> _S:
        """Merge the statistics of chunks ``(scores, labels, weights)`` (weights may be
        None), one chunk in memory at a time."""
        total = None
        for chunk in chunks:
            scores, labels, weights = chunk
            part = cls.from_arrays(scores, labels, weights)
            total = part if total is None else total.merge(part)
        if total is None:
            raise ValueError("chunks is empty: no statistics to merge")
        return total

    # ------------------------------------------------------------------ sums and bins

    @property
    def n(self) -> int:
        """Number of rows (of positive weight)."""
        return round(float(self.count.sum()))

    @property
    def total_weight(self) -> float:
        return float(self.weight.sum())

    def uniform_bins(self, bins: int = 10) -> BinStatistics:
        """Statistics of the ``bins`` uniform bins of :mod:`locacal.curves.binning` that hold
        weight, exactly: each bin is a union of C / bins whole cells, and the scores equal to
        an inner edge move to the bin above when the in-memory edge
        ``linspace(0, 1, bins + 1)[b]`` lies below them. Only a score strictly between the
        two roundings of an edge (one unit in the last place apart; no decimal or fraction
        is) could be binned differently."""
        bins = check_bins(bins, int(self.count.sum()))
        if CELLS % bins:
            raise ValueError(f"bins must divide the {CELLS} cells for exact uniform bins; "
                             f"got {bins}")

        edges = np.linspace(0.0, 1.0, bins + 1)
        inner = np.arange(1, bins) * (CELLS // bins)      # cell edges at the inner bin edges
        moves = EDGES[inner] > edges[1:-1]                 # in memory, s = EDGES[j] > edge
        per_bin = {}
        for name in _BIN_SUMS:
            sums = getattr(self, name).reshape(bins, CELLS // bins).sum(axis=1)
            atoms = np.where(moves, getattr(self, "edge_" + name)[inner], 0.0)
            sums[:-1] -= atoms
            sums[1:] += atoms
            per_bin[name] = sums
        keep = per_bin["weight"] > 0
        count = per_bin["count"][keep]
        small = count < 10
        if small.any():  # the warning of the in-memory bins
            warn(f"{int(small.sum())} bin(s) hold fewer than 10 observations: their "
                 "estimates are noisy")
        return BinStatistics(count, per_bin["weight"][keep], per_bin["weight_sq"][keep],
                             per_bin["wy"][keep], per_bin["ws"][keep], edges[1:][keep])

    def _row_mass(self) -> tuple[np.ndarray, float]:
        """Each cell's weight normalised so that all rows sum to their number n (the weights
        of :func:`locacal.data.quantile.quantile_type7`; the counts without weights), and n."""
        rows = float(self.count.sum())
        return self.weight * (rows / self.total_weight), rows

    def quantile_bins(self, bins: int = 10) -> tuple[BinStatistics, float]:
        """Approximately the ``bins`` quantile bins of :mod:`locacal.curves.binning`, and a
        bound on the ECE's change.

        The break at probability p interpolates order statistics j = floor((n - 1) p) and
        j + 1; every row at or below order statistic j falls below it and every row from
        order statistic j + 1 on above it (the break lies in between, or equals order
        statistic j). The cells cut at the top of the cell c_j holding order statistic j,
        so only rows of that one cell can land in the other bin. Moving rows of weight m
        between two bins changes each bin's |sum w (y - s)| by at most m, so

        .. math:: |\\widetilde{\\mathrm{ECE}} - \\mathrm{ECE}| \\le
            \\frac{2}{W} \\sum_{\\text{inner breaks}} A_j

        with W the total weight and A_j the weight of the rows of c_j ranked above j (from
        the cumulative normalised weights: n cum(c_j) - j - 1 rows' worth, scaled by W/n).
        It is 0 when each c_j ends at order statistic j, and loose with ties (tied rows
        above rank j share the break's side). The bins' ``upper`` are the cut cells' top
        edges.
        """
        bounds, error = self.quantile_bounds(bins)
        per_bin = {name: np.add.reduceat(getattr(self, name), bounds[:-1])
                   for name in _BIN_SUMS}
        keep = per_bin["weight"] > 0
        stats = BinStatistics(per_bin["count"][keep], per_bin["weight"][keep],
                              per_bin["weight_sq"][keep], per_bin["wy"][keep],
                              per_bin["ws"][keep], EDGES[bounds[1:]][keep])
        return stats, error

    def quantile_bounds(self, bins: int = 10) -> tuple[np.ndarray, float]:
        """The cell ranges of the approximate quantile bins of :meth:`quantile_bins`: bin b
        holds cells ``bounds[b]`` to ``bounds[b + 1] - 1``; and the bound on the ECE's change
        (any bin-wise sum of w x with |x| <= 1 moves as the ECE's, see there)."""
        bins = check_bins(bins, int(self.count.sum()))
        mass, rows = self._row_mass()
        pos = (rows - 1.0) * np.arange(1, bins) / bins
        ranks = np.floor(pos)
        cells = order_stat_cells(mass, ranks)
        # rows of the cut cells ranked above j, the only ones that may change bin
        above = np.maximum(np.cumsum(mass)[cells] - (ranks + 1.0), 0.0)
        error = 2.0 * float(above.sum()) / rows
        cut = np.unique(cells)
        cut = cut[cut < CELLS - 1]
        if cut.size < bins - 1:
            warn_tied_bins(cut.size + 1, bins)
        return np.concatenate([[0], cut + 1, [CELLS]]), error

    def _cumulative(self, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        """Cumulative cell sums with a leading 0: the sum over cells [a, b) is c[b] - c[a]."""
        return {name: np.concatenate([[0.0], np.cumsum(getattr(self, name))])
                for name in names}
