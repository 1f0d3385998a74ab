"""Fast evaluation of a fitted local-regression map at millions of new scores.

An exact local fit costs a few binary searches (degree 0, rectangular kernel) or a pass over
the window (otherwise) per point: too much for 1e7 new scores. :class:`GridMap` fits once on
a fine grid and interpolates linearly:

* nodes: ``grid_size + 1`` equally spaced points on ``[min s, max s]`` (where the data are),
  plus 32 equally spaced points on each of ``[0, min s]`` and ``[max s, 1]``;
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

__all__ = ["GridMap", "TreeMap", "grid_size_for"]

#: Outside the data's range: nodes per side.
OUTER_NODES = 32
#: Largest total window length spent on the fine grid (degree >= 1 or smooth kernels).
GRID_WORK_BUDGET = 300_000_000
MAX_GRID = 4096
MIN_GRID = 256


def grid_size_for(sample: SortedSample, params: LocalParams) -> int:
    """Number of grid cells: 4096, fewer when every node costs a pass over a large window.

    Degree 0 with the rectangular kernel costs O(log n) per node, so it always gets 4096;
    otherwise the count is limited so that nodes x window length <= 3e8 (at least 256).
    """
    if params.degree == 0 and params.kernel == "rect":
        return MAX_GRID
    window = max(1.0, sample.n * (params.nn or 0.0))
    if params.kernel == "gauss":
        window = float(sample.n)
    return int(np.clip(GRID_WORK_BUDGET / window, MIN_GRID, MAX_GRID))


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
        Largest ``|map - exact fit|`` at the cells' midpoints.
    """

    def __init__(self, sample: SortedSample, params: LocalParams, *, clip: bool,
                 grid_size: int | None = None):
        self._sample = sample
        self._params = params
        self._clip = clip
        self._size = grid_size_for(sample, params) if grid_size is None else grid_size
        self._lo, self._hi = float(sample.scores[0]), float(sample.scores[-1])
        self._built: dict[str, np.ndarray] = {}

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
        if "estimate" not in self._built:
            nodes, values = self.nodes, self.values
            mids = (nodes[1:] + nodes[:-1]) / 2
            exact = fit_points(self._sample, mids, self._params).value
            diff = np.abs(exact - (values[1:] + values[:-1]) / 2)
            self._built["estimate"] = float(np.nanmax(diff)) if np.isfinite(diff).any() else 0.0
        return self._built["estimate"]

    def _grid(self) -> dict:
        if "nodes" not in self._built:
            lo, hi = self._lo, self._hi
            middle = np.linspace(lo, hi, self._size + 1) if hi > lo else np.array([lo])
            left = np.linspace(0.0, lo, OUTER_NODES + 1)[:-1] if lo > 0 else np.empty(0)
            right = np.linspace(hi, 1.0, OUTER_NODES + 1)[1:] if hi < 1 else np.empty(0)
            nodes = np.concatenate([left, middle, right])
            values = fit_points(self._sample, nodes, self._params).value
            inner = values[left.shape[0]:left.shape[0] + middle.shape[0]]
            self._built.update(nodes=nodes, values=values, middle=middle, inner=inner,
                               slopes=np.diff(inner))
        return self._built

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
