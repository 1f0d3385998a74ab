"""The fine grids of [0, 1] on which scores are binned, and what is computed on them.

Two grids, each chosen for its job (both kept, so that no number changes):

* :data:`CELLS` = 100800 right-closed cells, those of the mergeable cell statistics
  (:class:`locacal.data.cells.ScoreStatistics`, the Dask path): :data:`EDGES`,
  :func:`cell_index`, the cell of an order statistic (:func:`order_stat_cells`) and the
  bracket of a nearest-neighbour radius from cumulative cell counts (:func:`nn_bracket`).
* :data:`BINNED_CELLS` = 2^16 cells, those of the in-memory binned sums above their exact
  range: the reflected density (:mod:`locacal.density`), the Gaussian kernel regression
  (:mod:`locacal.localfit._gauss`) and the LCS without sorting (:class:`CellIndex`, the
  rows and events per cell that :mod:`locacal.localfit._selection` reads; a power of two
  makes ``floor(s B)`` exact).

On either grid, a score's mass is shared linearly between its two neighbouring nodes
k / cells (:func:`linear_binning`; convention-free: a score on a node gives it all its mass,
whether cells are closed left or right) and Gaussian kernel sums over the nodes are a
discrete convolution, by FFT at every node (:func:`gauss_convolve_nodes`) or by dot products
at a few (:func:`gauss_sum_at_nodes`); :func:`reflected_sum_from_mass` reflects the masses at
0 and 1 and interpolates the sum to any points.

Why C = 100800 = 2^6 3^2 5^2 7 cells for the cell statistics
    * C is a multiple of every bin count from 1 to 10 and of 12, 14, 15, 16, 18, 20, 21, 24,
      25, 28, 30, 32, 35, 36, 40, 45, 48, 50, 56, 60, 63, 64, 70, 72, 75, 80, 84, 90, 96, 100:
      uniform bins are unions of whole cells, so ECE and QMSE on them are exact (only a score
      within one rounding error, ~1e-16, of a bin edge may land on the other side).
    * The cell width delta = 1/C = 9.9e-6 bounds how far a score is moved when it is
      represented by its cell, as the 2^16 cells of the binned density
      (:data:`BINNED_CELLS`, delta = 1.5e-5) do; its relative error
      (delta/h)^2 / 4 stays below 1e-6 for bandwidths h >= 0.005.
    * Fourteen float64 arrays of C or C + 1 entries take 11.3 MB: cheap to ship between
      workers.
"""

from __future__ import annotations

import numpy as np

from locacal.data.blockwise import blocks
from locacal.data.quantile import _POSITION_SLACK
from locacal.data.sample import sort_sample

__all__ = [
    "BINNED_CELLS",
    "CELLS",
    "DIRECT_REACH",
    "EDGES",
    "CellIndex",
    "cell_index",
    "edge_index",
    "gauss_convolve_nodes",
    "gauss_sum_at_nodes",
    "linear_binning",
    "nn_bracket",
    "order_stat_cells",
    "reflected_sum_from_mass",
]

#: Number of equal right-closed cells of [0, 1] of the cell statistics (see above).
CELLS = 100_800
#: Number of cells of the in-memory binned sums (density, kernel regression, LCS selection).
BINNED_CELLS = 2**16

#: The cell edges j / C, each correctly rounded (so an edge equals the float of any decimal
#: or fraction with the same value, such as 0.35 = 35280 / C).
EDGES = np.arange(CELLS + 1) / CELLS


#: Rows per chunk of :class:`CellIndex`'s counting pass (a chunk's temporaries stay in cache).
_CHUNK = 1 << 18


class CellIndex:
    """Rows, events and right-node shares per cell of the :data:`BINNED_CELLS` grid, and the
    sorted rows of chosen cells: what the LCS without sorting reads
    (:func:`locacal.localfit.fit` with a ``CellIndex``, :mod:`locacal.localfit._selection`;
    the density's binning, :func:`locacal.metrics.lcs_wmse.lcs_unsorted`).

    One pass over the validated unweighted rows, chunk by chunk: each row's cell
    j = floor(s B) (the score 1 in the last cell) is kept as a 16-bit integer, and per cell
    the rows, the events and the sum of the offsets s B - j (the share of the density's
    linear binning that goes to node j + 1, as in :func:`linear_binning`) are counted.
    ``ranks``: 0-based order statistics whose cells every :meth:`gather` includes, so that
    :meth:`order_stat` answers them afterwards.
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray,
                 ranks: np.ndarray | None = None) -> None:
        self.scores, self.labels = scores, labels
        self.ranks = ranks
        n = scores.size
        cells = BINNED_CELLS
        self.cell = np.empty(n, dtype=np.uint16)
        rows = np.zeros(cells, dtype=np.int64)
        events = np.zeros(cells)
        right_share = np.zeros(cells + 1)
        for start in range(0, n, _CHUNK):
            part = slice(start, start + _CHUNK)
            offset = scores[part] * cells
            cell = offset.astype(np.intp)
            np.minimum(cell, cells - 1, out=cell)
            offset -= cell
            self.cell[part] = cell
            rows += np.bincount(cell, minlength=cells)
            events += np.bincount(cell, weights=labels[part], minlength=cells)
            right_share += np.bincount(cell, weights=offset, minlength=cells + 1)
        self.row_counts = rows
        self.right_share = right_share
        self.rows = np.concatenate([[0], np.cumsum(rows)])
        self.events = np.concatenate([[0], np.cumsum(events.astype(np.int64))])

    def density_mass(self) -> np.ndarray:
        """The linear binning of the scores on the cells + 1 nodes (unit masses)."""
        right = self.right_share
        left = np.append(self.row_counts, 0) - right
        return left + np.concatenate([[0.0], right[:-1]])

    def count(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Rows in cells [lo, hi) (indices clipped to [0, BINNED_CELLS])."""
        return (self.rows[np.clip(hi, 0, BINNED_CELLS)]
                - self.rows[np.clip(lo, 0, BINNED_CELLS)])

    def rank_cells(self) -> list[int]:
        """The cells holding the order statistics ``ranks`` (none without them)."""
        if self.ranks is None:
            return []
        return (np.searchsorted(self.rows, self.ranks, side="right") - 1).tolist()

    def gather(self, chosen: np.ndarray) -> None:
        """Sort the rows of the ``chosen`` cells (a boolean mask over the cells) once;
        ``start`` then locates the rows of any run of chosen cells in ``sorted``."""
        picked = np.flatnonzero(chosen[self.cell])
        self.sorted = sort_sample(self.scores[picked], self.labels[picked], None)
        # position in the sorted chosen rows of the first row of each cell
        self.start = np.concatenate([[0], np.cumsum(np.where(chosen, self.row_counts, 0))])

    def order_stat(self, rank: int) -> float:
        """The ``rank``-th smallest score (0-based); its cell must have been gathered."""
        c = int(np.searchsorted(self.rows, rank, side="right")) - 1
        return float(self.sorted.scores[self.start[c] + rank - self.rows[c]])


def cell_index(scores: np.ndarray) -> np.ndarray:
    """Cell of each score: j with EDGES[j] < s <= EDGES[j + 1], and 0 for s = 0.

    ceil(s C) - 1 may be one off where s C rounds across an integer; comparing with the
    rounded edges settles it, so a score equal to an edge is always the top of the cell
    below it."""
    j = np.clip(np.ceil(scores * CELLS).astype(np.intp) - 1, 0, CELLS - 1)
    j -= (scores <= EDGES[j]) & (j > 0)
    j += (scores > EDGES[j + 1]) & (j < CELLS - 1)
    return j


def edge_index(threshold: float) -> int | None:
    """The cell edge index j with EDGES[j] == threshold, or None when the threshold is not
    a cell edge (not a multiple of 1/100800)."""
    j = round(threshold * CELLS)
    return j if abs(threshold * CELLS - j) < 1e-6 and EDGES[j] == threshold else None


def order_stat_cells(mass: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Index of the cell holding each 0-based order statistic: the first cell whose
    cumulative mass reaches position + 1 (slack as :func:`locacal.data.quantile.quantile_type7`
    allows for the rounding of the cumulative sum)."""
    cum = np.cumsum(mass)
    idx = np.searchsorted(cum, positions + 1.0 - _POSITION_SLACK * cum[-1], side="left")
    return np.minimum(idx, mass.size - 1)


def nn_bracket(t: np.ndarray, k: float, cum_count: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray],
                          tuple[np.ndarray, np.ndarray]]:
    """Bracket the nearest-neighbour radius h(t) (the distance to the k-th nearest
    score) from the cells: ``r_lo <= h <= r_hi``, and the cell ranges [a, b) lying
    inside [t - r_lo, t + r_lo] (``core``) and touching [t - r_hi, t + r_hi]
    (``outer``); see the binned fit of :func:`locacal.localfit.fit`."""

    def touching(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo = np.clip(np.ceil(CELLS * (t - r)) - 1, 0, CELLS - 1).astype(np.intp)
        hi = np.clip(np.floor(CELLS * (t + r)), 0, CELLS - 1).astype(np.intp) + 1
        return lo, hi

    def inside(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo = np.clip(np.ceil(CELLS * (t - r)), 0, CELLS).astype(np.intp)
        hi = np.clip(np.floor(CELLS * (t + r)), 0, CELLS).astype(np.intp)
        return lo, np.maximum(hi, lo)

    def rows(cells: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        return cum_count[cells[1]] - cum_count[cells[0]]

    r_lo, up = np.zeros_like(t), np.ones_like(t)   # touching(r_lo) < k or r_lo = 0
    low, r_hi = np.zeros_like(t), np.ones_like(t)  # inside(r_hi) >= k
    for _ in range(60):
        mid = 0.5 * (r_lo + up)
        enough = rows(touching(mid)) >= k
        r_lo, up = np.where(enough, r_lo, mid), np.where(enough, mid, up)
        mid = 0.5 * (low + r_hi)
        enough = rows(inside(mid)) >= k
        low, r_hi = np.where(enough, low, mid), np.where(enough, mid, r_hi)
    return r_lo, r_hi, inside(r_lo), touching(r_hi)


def linear_binning(scores: np.ndarray, weights: np.ndarray | None, cells: int,
                    is_sorted: bool = False) -> np.ndarray:
    """Masses on the ``cells + 1`` nodes k / cells of [0, 1], each score's mass shared
    linearly between its two neighbouring nodes."""
    if is_sorted:
        return linear_binning_sorted(scores, weights, cells)
    # block by block: np.add.at adds in the rows' order as np.bincount does (the same bits)
    right_mass = np.zeros(cells + 1)
    total = np.zeros(cells + 1, dtype=np.float64 if weights is not None else np.int64)
    for rows in blocks(scores.size):
        frac = scores[rows] * cells
        left = frac.astype(np.intp)
        np.minimum(left, cells - 1, out=left)
        frac -= left
        if weights is None:
            total += np.bincount(left, minlength=cells + 1)
        else:
            np.add.at(total, left, weights[rows])
            frac *= weights[rows]
        np.add.at(right_mass, left, frac)
    left_mass = total - right_mass
    # the right share of cell j lands on node j + 1
    return left_mass + np.concatenate([[0.0], right_mass[:-1]])


def linear_binning_sorted(scores: np.ndarray, weights: np.ndarray | None,
                           cells: int) -> np.ndarray:
    """:func:`linear_binning` of ascending scores by per-cell sums, without per-score work.

    In cell j (scores in [j, j + 1) / cells) the mass given to node j + 1 is
    sum w (s cells - j) = cells sum(w s) - j sum(w), the rest going to node j.
    """
    starts = np.searchsorted(scores, np.arange(cells) / cells, side="left")
    ends = np.append(starts[1:], scores.size)
    filled = ends > starts
    ws = scores if weights is None else weights * scores
    sum_ws = np.where(filled, np.add.reduceat(ws, np.minimum(starts, scores.size - 1)), 0.0)
    if weights is None:
        sum_w = (ends - starts).astype(np.float64)
    else:
        sum_w = np.where(filled, np.add.reduceat(weights, np.minimum(starts, scores.size - 1)),
                         0.0)
    right = np.clip(cells * sum_ws - np.arange(cells) * sum_w, 0.0, sum_w)
    mass = np.zeros(cells + 1)
    mass[:-1] += sum_w - right
    mass[1:] += right
    return mass


def gauss_convolve_nodes(mass: np.ndarray, bandwidth: float, cells: int,
                         power: int = 0) -> np.ndarray:
    """sum_k mass_k u_jk^power exp(-u_jk^2 / 2), u_jk = (x_k - x_j) / h, at every node x_j.

    ``mass`` sits on equally spaced nodes x_k = k / cells (any origin); the sum is a discrete
    convolution with the sampled kernel, done by FFT (O(N log N) for N nodes). The kernel is
    cut where exp(-u^2/2) u^2 underflows (|u| > 40). The FFT rounds: each output is off by up
    to about 1e-15 (sum |mass|) in absolute terms (measured in the tests), which is small
    relative to outputs that are not themselves tiny.
    """
    from scipy.signal import fftconvolve

    reach = int(min(mass.size - 1, np.ceil(40.0 * bandwidth * cells)))
    offsets = np.arange(-reach, reach + 1) / (cells * bandwidth)
    kernel = np.exp(-0.5 * offsets * offsets)
    if power:
        kernel = kernel * offsets**power
    # fftconvolve's kernel is flipped: u^power picks up (-1)^power, undone here
    sign = -1.0 if power % 2 else 1.0
    return sign * fftconvolve(mass, kernel, mode="same")


#: Multiples of the bandwidth kept by :func:`gauss_sum_at_nodes`: beyond them the Gaussian
#: weighs less than exp(-9^2 / 2) = 2.6e-18 of its peak, below the FFT's own rounding.
DIRECT_REACH = 9.0


def gauss_sum_at_nodes(mass: np.ndarray, bandwidth: float, cells: int,
                       nodes: np.ndarray) -> np.ndarray:
    """:func:`gauss_convolve_nodes` (power 0) at a few nodes only, one dot product each.

    The kernel is cut at :data:`DIRECT_REACH` bandwidths: each output then differs from the
    full sum by less than 2.6e-18 sum |mass|, below the FFT's rounding of about 1e-15 sum
    |mass| (both measured in the tests). With m nodes and a kernel of 2 r + 1 samples this
    costs m (2 r + 1) multiply-adds instead of an FFT of all N + 2 r nodes. The products run
    on NumPy's own loops (``einsum``), not on threaded BLAS, whose threads spin for a
    second on a loaded machine.
    """
    reach = int(min(mass.size - 1, np.ceil(DIRECT_REACH * bandwidth * cells)))
    offsets = np.arange(-reach, reach + 1) / (cells * bandwidth)
    kernel = np.exp(-0.5 * offsets * offsets)
    padded = np.zeros(mass.size + 2 * reach)
    padded[reach:reach + mass.size] = mass
    # node j reads mass[j - reach .. j + reach], i.e. padded[j .. j + 2 reach]: row j of the
    # sliding windows, a view; consecutive nodes are taken as one block of rows
    windows = np.lib.stride_tricks.sliding_window_view(padded, kernel.size)
    out = np.empty(nodes.size)
    breaks = np.flatnonzero(np.diff(nodes) != 1) + 1
    for first, last in zip(np.r_[0, breaks].tolist(), np.r_[breaks, nodes.size].tolist(),
                           strict=True):
        rows = windows[nodes[first]:nodes[last - 1] + 1]
        out[first:last] = np.einsum("ij,j->i", rows, kernel)
    return out


def _direct_is_cheaper(nodes: int, bandwidth: float, cells: int, size: int) -> bool:
    """Whether :func:`gauss_sum_at_nodes` at ``nodes`` nodes costs less than an FFT
    convolution of ``size`` values (a multiply-add counted as 1/20 of an FFT's ``log2`` step
    per value: 4 ms against 40 ms for the 200 nodes of the LCS at n = 1e5, idle machine)."""
    kernel_size = 2.0 * DIRECT_REACH * bandwidth * cells + 1.0
    fft_length = size + 80.0 * bandwidth * cells
    return nodes * kernel_size <= 20.0 * fft_length * np.log2(fft_length)


def reflected_sum_from_mass(points: np.ndarray, mass: np.ndarray, bandwidth: float,
                            cells: int) -> np.ndarray:
    """The reflected kernel sum of masses on the ``cells + 1`` nodes k / cells of [0, 1] (a
    linear binning), at ``points``: the convolution step of
    :func:`locacal.density._binned_gauss_sum`, also used by the mergeable statistics of
    :mod:`locacal.localfit._cells` and the LCS without sorting
    (:func:`locacal.metrics.lcs_wmse.lcs_unsorted`).

    Only the nodes on either side of each point are needed for the interpolation; when they
    are few (the 100 grid points of the LCS), each is a dot product with the sampled kernel
    (:func:`gauss_sum_at_nodes`) instead of one FFT over all 3 cells + 1 nodes.
    """
    extended = np.zeros(3 * cells + 1)
    extended[cells:2 * cells + 1] += mass        # s on [0, 1]
    extended[:cells + 1] += mass[::-1]           # -s on [-1, 0]
    extended[2 * cells:] += mass[::-1]           # 2 - s on [1, 2]
    # np.interp between the nodes k / cells: point x reads nodes floor(x cells) and the next
    left = np.clip(np.floor(points * cells).astype(np.intp), 0, cells)
    needed = np.unique(np.concatenate([left, np.minimum(left + 1, cells)]))
    on_unit = np.zeros(cells + 1)
    if _direct_is_cheaper(needed.size, bandwidth, cells, extended.size):
        on_unit[needed] = gauss_sum_at_nodes(extended, bandwidth, cells, needed + cells)
    else:
        on_unit = gauss_convolve_nodes(extended, bandwidth, cells)[cells:2 * cells + 1]
    on_unit = np.maximum(on_unit, 0.0)
    return np.interp(points, np.linspace(0.0, 1.0, cells + 1), on_unit)
