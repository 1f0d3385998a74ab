"""Nearest means of a large unweighted sample without sorting it: selection by cell counts.

:func:`locacal.lcs` with its defaults (degree 0, rectangular kernel, nearest-neighbour fraction
nn, exact evaluation) needs at each grid point t only the mean label of the window of the
k = floor(n nn) nearest scores (every score at the k-th smallest rounded distance
``|s_i - t|`` included, locfit's rule: :mod:`locacal.localfit._window`), and the reflected
density needs the scores' sums, four order statistics and a linear binning on the
:data:`~locacal.data.grid.BINNED_CELLS` cells of [0, 1]. None of this needs the whole sample in
order. Here the scores are sorted only where the answer depends on their order:

1. One pass puts each score in its cell j = floor(s B), B = 2^16 (exact: B is a power of two)
   and counts rows and events per cell (``bincount``; :class:`locacal.data.grid.CellIndex`);
   the same cells give the density's linear binning.
2. For a grid point t in cell c, let N(r) count the rows of cells c - r .. c + r and r* be the
   smallest r with N(r) >= k. Then the k-th smallest distance h lies in
   [(r* - 1) / B, (r* + 1) / B] (to the rounding of one subtraction, ~1e-16, far inside a
   cell): every score within (r* - 1) / B of t lies in cells c - r* + 1 .. c + r* - 1, which
   hold fewer than k rows, and the N(r*) >= k rows of cells c - r* .. c + r* lie within
   (r* + 1) / B. So the rows of cells c - r* + 3 .. c + r* - 3 are in the window for sure
   (closer than (r* - 2) / B), the rows beyond c -/+ (r* + 3) are out (farther than
   (r* + 2) / B), and only the rows of the five cells around each end of the window are
   undecided.
3. The undecided cells of every grid point, and the cells holding the four order statistics
   of the bandwidth, are gathered in one pass and sorted (about 1.5 % of a smooth sample).
   At each grid point, h is the (k - n_inner)-th smallest distance among its undecided rows,
   the window is the inner rows plus the undecided rows within h, and its mean label is a
   ratio of integer counts: bit for bit the value of the sorted computation
   (:func:`locacal.localfit._direct.fit_points`).

The work is a few passes over the data and no O(n log n) sort. When the scores are so
concentrated that the undecided cells hold more than :data:`MAX_UNDECIDED_SHARE` of the rows
(summed over grid points), :func:`nearest_means` returns None and the caller sorts
(the LCS's density half of this path is :func:`locacal.metrics.lcs_wmse.lcs_unsorted`).
"""

from __future__ import annotations

import numpy as np

from locacal.data.grid import BINNED_CELLS, CellIndex
from locacal.localfit._window import effective_count

__all__ = ["MAX_UNDECIDED_SHARE", "nearest_means", "selected_means"]

#: Largest number of undecided rows, summed over the grid points, as a share of n.
MAX_UNDECIDED_SHARE = 0.25
#: Cells of the selection: those of the density's binning.
CELLS = BINNED_CELLS
#: Undecided cells on each side of a window's ends (the bracket of step 2 plus one cell of
#: slack for the rounding of the distances).
_MARGIN = 2


def _smallest_radius(cells: CellIndex, centre: np.ndarray, k: int) -> np.ndarray:
    """Per point, the smallest r >= 0 such that cells centre - r .. centre + r hold at least k
    rows (vectorised bisection; r = CELLS always qualifies)."""
    lo = np.zeros_like(centre)
    hi = np.full_like(centre, CELLS)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        ok = cells.count(centre - mid, centre + mid + 1) >= k
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid + 1, lo)


def _runs(centre: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Cell boundaries u0 <= u1 <= u2 <= u3 per point (columns), clipped to [0, CELLS]:
    undecided cells [u0, u1) and [u2, u3), inner cells [u1, u2). When the two undecided runs
    meet (radius <= 2) they form one run [u0, u3) and the inner run is empty."""
    u0 = centre - radius - _MARGIN
    u1 = centre - radius + _MARGIN + 1
    u2 = centre + radius - _MARGIN
    u3 = centre + radius + _MARGIN + 1
    meet = u1 > u2
    u1 = np.where(meet, u3, u1)
    u2 = np.where(meet, u3, u2)
    return np.clip(np.stack([u0, u1, u2, u3]), 0, CELLS)


def _plan(cells: CellIndex, points: np.ndarray, k: int) -> np.ndarray:
    centre = np.minimum(np.floor(points * CELLS).astype(np.intp), CELLS - 1)
    return _runs(centre, _smallest_radius(cells, centre, k))


def _undecided_rows(cells: CellIndex, runs: np.ndarray) -> int:
    u0, u1, u2, u3 = runs
    return int(cells.count(u0, u1).sum() + cells.count(u2, u3).sum())


def _chosen_cells(runs: np.ndarray, extra: list[int]) -> np.ndarray:
    """Mask of the cells in any undecided run, plus the cells ``extra``."""
    u0, u1, u2, u3 = runs
    edges = np.zeros(CELLS + 1, dtype=np.int64)
    np.add.at(edges, u0, 1)
    np.add.at(edges, u1, -1)
    np.add.at(edges, u2, 1)
    np.add.at(edges, u3, -1)
    chosen = np.cumsum(edges[:-1]) > 0
    chosen[extra] = True
    return chosen


def _means(cells: CellIndex, points: np.ndarray, runs: np.ndarray, k: int) -> np.ndarray:
    """Mean label of each point's window, given gathered undecided cells."""
    s, y = cells.sorted.scores, cells.sorted.labels
    out = np.empty(points.size)
    for j, t in enumerate(points.tolist()):
        u0, u1, u2, u3 = (int(u) for u in runs[:, j])
        inner_rows = int(cells.rows[u2] - cells.rows[u1])
        inner_events = int(cells.events[u2] - cells.events[u1])
        parts = [slice(cells.start[u0], cells.start[u1]), slice(cells.start[u2], cells.start[u3])]
        near = np.concatenate([s[part] for part in parts])
        near_y = np.concatenate([y[part] for part in parts])
        dist = np.abs(near - t)  # fl(|s - t|): rounding is symmetric in the sign
        rank = k - inner_rows  # 1 <= rank <= near.size (module docstring, step 2)
        h = np.partition(dist, rank - 1)[rank - 1]
        inside = dist <= h
        total = inner_rows + int(np.count_nonzero(inside))
        events = inner_events + int(np.count_nonzero(near_y[inside]))
        out[j] = events / total
    return out


def nearest_means(scores: np.ndarray, labels: np.ndarray, points: np.ndarray, nn: float, *,
                  max_share: float = MAX_UNDECIDED_SHARE) -> np.ndarray | None:
    """Mean label of the k = floor(n nn) nearest scores around each point (all ties at the
    k-th distance included): ``fit_points(...).value`` for degree 0 and the rectangular
    kernel, unweighted, without sorting. None when the undecided rows, summed over the
    points, exceed ``max_share`` n."""
    return selected_means(CellIndex(scores, labels), points, nn, max_share=max_share)


def selected_means(cells: CellIndex, points: np.ndarray, nn: float, *,
                   max_share: float = MAX_UNDECIDED_SHARE) -> np.ndarray | None:
    """:func:`nearest_means` of the rows of ``cells``, which gathers (sorts) their undecided
    cells and the cells of their ``ranks`` (so that ``cells.order_stat`` answers those order
    statistics afterwards: the density's quartiles,
    :func:`locacal.metrics.lcs_wmse.lcs_unsorted`); None, gathering nothing, when the
    undecided rows exceed ``max_share`` n."""
    n = cells.scores.size
    k = effective_count(n, nn, None)
    runs = _plan(cells, points, k)
    if _undecided_rows(cells, runs) > max_share * n:
        return None
    cells.gather(_chosen_cells(runs, cells.rank_cells()))
    return _means(cells, points, runs, k)
