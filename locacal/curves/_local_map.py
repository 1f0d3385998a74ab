"""Fast evaluation of a fitted local-regression map at millions of new scores.

An exact local fit costs a few binary searches (degree 0, rectangular kernel) or a pass over
the window (otherwise) per point: too much for 1e7 new scores. :class:`GridMap` fits once on
a fine grid and interpolates linearly:

* nodes: equally spaced points on ``[min s, max s]`` (where the data are): 4097 for degree 0
  with the rectangular kernel; otherwise 129, doubled while the largest gap between the
  exact fit and the interpolant at the cells' midpoints exceeds 1e-6 (up to 4097, and
  within a work budget of 1e8 rows read); plus 32 points on each of ``[0, min s]`` and
  ``[max s, 1]``;
* evaluation: direct index arithmetic on the uniform middle part (no search), ``np.interp``
  for the few scores outside the data's range: about ten passes over the input;
* error: for degree 0 with the rectangular kernel a **rigorous bound**. Along the sorted
  scores the window ``[L(t), R(t))`` has both ends non-decreasing in t (t -+ h(t) are
  non-decreasing because the nearest-neighbour distance h(t) is 1-Lipschitz), so for t
  between two nodes the window lies between the nodes' inner and outer windows and
  ``g(t) in [S_y(inner) / S_w(outer), S_y(outer) / S_w(inner)]``; both node values lie in
  that interval too, hence ``|interpolant - g| <= upper - lower`` on the cell (up to
  floating-point ties at the window boundary). For other kernels and degrees, an
  a-posteriori **estimate**: the largest difference between the exact fit and the
  interpolant at the cells' midpoints.

For ``evaluation="locfit"`` the map is locfit's own interpolant (:class:`TreeMap`), evaluated
exactly: a ``searchsorted`` over the tree's cell boundaries and the Hermite formula.
"""

from __future__ import annotations

import numpy as np

from locacal.curves._local_fit import LocalParams, fit_points
from locacal.curves._local_window import (
    SortedSample,
    effective_count,
    fixed_or_nn_bandwidth,
    window_bounds,
)
from locacal.curves._locfit_tree import LocfitTree

__all__ = ["GridMap", "TreeMap"]

#: Outside the data's range: nodes per side.
OUTER_NODES = 32
#: Grid cells for degree 0 with the rectangular kernel (O(log n) per node).
MAX_GRID = 4096
#: Other fits: start with this many cells and double while the midpoint check exceeds
#: ``GRID_TOL`` and the work (nodes x window length) stays within ``GRID_WORK_BUDGET``.
START_GRID = 128
GRID_TOL = 1e-6
GRID_WORK_BUDGET = 1e8


def _window_length(sample: SortedSample, params: LocalParams) -> float:
    """Rows one exact fit reads (the Gaussian kernel reaches 16 bandwidths: all of them)."""
    if params.kernel == "gauss" or params.nn is None:
        return float(sample.n)
    return max(1.0, sample.n * params.nn)


class GridMap:
    """Linear interpolation of exact local fits on a fine grid (see the module docstring).

    The grid is fitted on first use (a curve that is only plotted never pays for it).

    Attributes
    ----------
    nodes, values : ndarray
        The grid and the exact (unclipped) fits there.
    error_bound : float or None
        Rigorous bound on ``|map - exact fit|`` (degree 0, rectangular kernel), else None.
    error_estimate : float
        Largest ``|map - exact fit|`` at the midpoints of a grid half as fine as the one used
        (measured while doubling; for degree 0 rect, at the final grid's midpoints).
    """

    def __init__(self, sample: SortedSample, params: LocalParams, *, clip: bool):
        self._sample = sample
        self._params = params
        self._clip = clip
        self._lo, self._hi = float(sample.scores[0]), float(sample.scores[-1])
        self._size = 0
        self._built: dict = {}

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Interpolated fit at ``x`` (clipped to [0, 1] when the curve is)."""
        x = np.asarray(x, dtype=np.float64)
        if self._hi == self._lo:
            out = np.interp(x, self.nodes, self.values)
        else:
            out = self._uniform_part(x)
            outside = np.flatnonzero((x < self._lo) | (x > self._hi))
            if outside.size:
                out[outside] = np.interp(x[outside], self.nodes, self.values)
        if self._clip:
            np.clip(out, 0.0, 1.0, out=out)
        return out

    @property
    def nodes(self) -> np.ndarray:
        return self._grid()["nodes"]

    @property
    def values(self) -> np.ndarray:
        return self._grid()["values"]

    @property
    def error_bound(self) -> float | None:
        if self._params.degree != 0 or self._params.kernel != "rect":
            return None
        if "bound" not in self._built:
            self._built["bound"] = _rect_mean_bound(self._sample, self._params,
                                                    self._grid()["middle"])
        return self._built["bound"]

    @property
    def error_estimate(self) -> float:
        grid = self._grid()
        if "estimate" not in grid:
            mids = (grid["middle"][1:] + grid["middle"][:-1]) / 2
            grid["estimate"] = _midpoint_gap(fit_points(self._sample, mids, self._params).value,
                                             grid["inner"])
        return grid["estimate"]

    def _grid(self) -> dict:
        if "nodes" not in self._built:
            lo, hi = self._lo, self._hi
            left = np.linspace(0.0, lo, OUTER_NODES + 1)[:-1] if lo > 0 else np.empty(0)
            right = np.linspace(hi, 1.0, OUTER_NODES + 1)[1:] if hi < 1 else np.empty(0)
            middle, inner = self._middle(lo, hi)
            outer = fit_points(self._sample, np.concatenate([left, right]), self._params).value
            nodes = np.concatenate([left, middle, right])
            values = np.concatenate([outer[:left.shape[0]], inner, outer[left.shape[0]:]])
            self._size = middle.shape[0] - 1
            self._built.update(nodes=nodes, values=values, middle=middle, inner=inner,
                               slopes=np.diff(inner))
        return self._built

    def _middle(self, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
        """Grid over the data's range and the exact fits there.

        Degree 0, rect: 4096 cells at once. Otherwise 128 cells, then doubled (the midpoints
        just fitted become nodes) while the largest midpoint gap exceeds 1e-6 and the work
        allows; the last gap measured (on the grid half as fine) is kept as the estimate.
        """
        fit = lambda t: fit_points(self._sample, t, self._params).value  # noqa: E731
        if hi == lo:
            return np.array([lo]), fit(np.array([lo]))
        if self._params.degree == 0 and self._params.kernel == "rect":
            middle = np.linspace(lo, hi, MAX_GRID + 1)
            return middle, fit(middle)
        size = START_GRID
        middle = np.linspace(lo, hi, size + 1)
        values = fit(middle)
        window = _window_length(self._sample, self._params)
        work = middle.shape[0] * window
        while True:
            mids = (middle[1:] + middle[:-1]) / 2
            at_mids = fit(mids)
            work += mids.shape[0] * window
            self._built["estimate"] = _midpoint_gap(at_mids, values)
            middle, values = _interleave(middle, mids), _interleave(values, at_mids)
            size *= 2
            if (self._built["estimate"] <= GRID_TOL or size >= MAX_GRID
                    or work + size * window > GRID_WORK_BUDGET):
                return middle, values

    def _uniform_part(self, x: np.ndarray) -> np.ndarray:
        grid = self._grid()
        u = x - self._lo
        u *= self._size / (self._hi - self._lo)
        np.clip(u, 0.0, float(self._size), out=u)
        j = u.astype(np.intp)
        np.minimum(j, self._size - 1, out=j)
        u -= j
        u *= grid["slopes"][j]
        u += grid["inner"][j]
        return u


def _midpoint_gap(at_mids: np.ndarray, values: np.ndarray) -> float:
    """Largest ``|fit(midpoint) - linear interpolant there|``."""
    diff = np.abs(at_mids - (values[1:] + values[:-1]) / 2)
    return float(np.nanmax(diff)) if np.isfinite(diff).any() else 0.0


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[0], b[0], a[1], b[1], ..., a[-1]`` (``b`` one shorter than ``a``)."""
    out = np.empty(a.shape[0] + b.shape[0])
    out[0::2], out[1::2] = a, b
    return out


def _rect_mean_bound(sample: SortedSample, params: LocalParams, nodes: np.ndarray) -> float:
    """Rigorous interpolation error bound for the degree-0 rectangular-kernel map on
    ``[nodes[0], nodes[-1]]`` (monotone windows; see the module docstring)."""
    if nodes.shape[0] < 2:
        return 0.0
    s = sample.scores
    k = effective_count(sample.n, params.nn, params.h)
    lo, hi = window_bounds(s, nodes, fixed_or_nn_bandwidth(s, nodes, k, params.h))
    outer_lo, outer_hi = lo[:-1], hi[1:]
    inner_lo, inner_hi = lo[1:], np.maximum(hi[:-1], lo[1:])
    name_w, name_y = ("w", "wy") if sample.weights is not None else (None, "y")
    sw_out = (outer_hi - outer_lo).astype(float) if name_w is None else sample.range_sum(
        name_w, outer_lo, outer_hi)
    sw_in = (inner_hi - inner_lo).astype(float) if name_w is None else sample.range_sum(
        name_w, inner_lo, inner_hi)
    sy_out = sample.range_sum(name_y, outer_lo, outer_hi)
    sy_in = sample.range_sum(name_y, inner_lo, inner_hi)
    low = np.where(sw_out > 0, sy_in / np.where(sw_out > 0, sw_out, 1.0), 0.0)
    high = np.where(sw_in > 0, np.minimum(1.0, sy_out / np.where(sw_in > 0, sw_in, 1.0)), 1.0)
    return float(np.max(high - low))


class TreeMap:
    """locfit's tree interpolant as a map on new scores (clipped when the curve is)."""

    def __init__(self, tree: LocfitTree, *, clip: bool):
        self.tree = tree
        self._clip = clip
        self.error_bound = 0.0
        self.error_estimate = 0.0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        out = self.tree(x)
        if self._clip:
            np.clip(out, 0.0, 1.0, out=out)
        return out
