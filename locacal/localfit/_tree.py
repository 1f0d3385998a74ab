"""locfit's default evaluation structure, the adaptive tree (``ev = rbox()``), in Python.

``predict(locfit(d ~ lp(s, nn = 0.15, deg = 0), kern = "rect"), newdata = grid)`` does not fit
at the grid points. locfit fits at the vertices of an adaptive partition of the data's range
and interpolates (C sources ``ev_atree.c``, ``ev_interp.c``, ``ev_main.c``, ``pcomp.c``):

1. **Vertices.** Start with the cell ``[min s, max s]``; fit at both ends. A cell whose
   vertices have bandwidths ``h_0, h_1`` is split at its midpoint when
   ``cut < (ur - ll) / hmin``, ``hmin`` the smallest *positive* vertex bandwidth (if both are
   0, the score is ``2 (ur - ll) / (max s - min s)``); ``cut = 0.8``. The new vertex is a
   *pseudo-vertex* (no fit; bandwidth ``(h_0 + h_1) / 2``) when
   ``ur - ll < cut * min(h_0, h_1)``, otherwise a real fit. Cells are grown depth first,
   lower half first.
2. **Values.** A real vertex stores the local fit's value and, for degree >= 1, its slope.
   locfit first fits a global polynomial of the same degree (unit kernel weights, centred at
   the weighted mean score, its "parametric component") and stores the vertex values minus
   that polynomial; it is added back after interpolation.
3. **Interpolation.** Descend the tree to the cell containing x (left when
   ``2 (x - ll) < ur - ll``); a pseudo-vertex met on the way takes the value and slope of the
   parent cell's interpolant at the midpoint. Degree 0: linear interpolation. Degree >= 1:
   cubic Hermite interpolation of values and slopes. Outside the data's range, the extreme
   cells are extended (linearly for Hermite).

**The crash.** With ``k = floor(n nn)`` and no fixed ``h``, a score value holding at least k
copies has bandwidth 0 at its own position. Cells next to such a value always satisfy the
split rule (``hmin <= ur - ll``), so bisection closes in on the value until the midpoint of a
cell rounds to one of its ends; from then on locfit splits the same cell forever. Each level
of its recursive ``atree_grow`` holds a 128 KiB array (``Sint nce[1 << MXDIM]``, MXDIM = 15) on
the C stack, so R dies with "segfault from C stack overflow" after about 60 levels, or stops
with "newsplit: out of vertex space" if the vertex budget (``maxk``) runs out first.
:func:`locfit_tree_would_crash` runs the same tree growth and says which.

**Here**, a cell whose midpoint rounds to one of its ends is not split (it cannot be halved in
floating point), so the tree is finite, deterministic and identical to locfit's wherever
locfit finishes. Near a heavily tied value the tree refines down to the resolution of
float64 and the fit at the value itself is the tied group's mean.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, section 12.2
(evaluation structures: adaptive trees, vertex interpolation by cubic Hermite polynomials).
"""

from __future__ import annotations

import math
import resource
from dataclasses import dataclass

import numpy as np

from locacal.data.sample import SortedSample
from locacal.localfit._direct import (
    SEQUENTIAL_BUDGET,
    LocalParams,
    _chunked_moments,
    _normal_from_moments,
    _sequential_normal,
    _Window,
    fit_points,
)
from locacal.localfit._solve import newton_step
from locacal.localfit._window import effective_count, fixed_or_nn_bandwidth, nn_count

__all__ = ["LocfitTree", "build_tree", "locfit_tree_would_crash", "tree_vertex_cap"]

#: Bytes of C stack per level of locfit's recursive ``atree_grow``: its 131,072-byte ``nce``
#: array plus the rest of the frame. Measured with R 4.2.2 / locfit 1.5-9.7 on x86-64 and an
#: 8 MiB stack: trees of depth 63 finish, depth 64 dies with "segfault from C stack
#: overflow"; 8 MiB // 133,000 = 63.
ATREE_FRAME_BYTES = 133_000
_DEFAULT_STACK = 8 * 1024 * 1024

#: Fewest vertices the native tree may grow before :func:`build_tree` gives up. A fixed
#: bandwidth h alone needs about 1.6 (max s - min s) / h vertices (measured: 2,049 at
#: h = 1e-3 and 16,385 at h = 1e-4 on [0, 1]), so h >= 2e-5 fits; growth runs at about
#: 20 us per vertex, so hitting the cap takes a few seconds, not the memory of the machine.
TREE_VERTEX_FLOOR = 100_000


@dataclass(frozen=True)
class LocfitTree:
    """A grown tree with its fits, ready to interpolate.

    Attributes
    ----------
    vertices : ndarray
        Vertex positions, in creation order (locfit's numbering).
    bandwidths : ndarray
        Bandwidth at each vertex (averaged for pseudo-vertices).
    pseudo : ndarray of bool
        Pseudo-vertices (interpolated, not fitted).
    cells : ndarray (6, c)
        Terminal cells in increasing order, one row per quantity: ``ll``, ``ur - ll``,
        ``value_ll``, ``value_ur``, ``slope_ll``, ``slope_ur`` (values net of the parametric
        component).
    thresholds : ndarray (c - 1,)
        A point ``x`` falls in cell ``searchsorted(thresholds, x, side="right")``.
    parametric : ndarray
        Coefficients of the global polynomial (the parametric component).
    center : float
        Its centre (weighted mean score).
    degree : int
    unsplittable : list of float
        Left ends of cells that locfit would split forever (empty when locfit finishes).
    """

    vertices: np.ndarray
    bandwidths: np.ndarray
    pseudo: np.ndarray
    cells: np.ndarray
    thresholds: np.ndarray
    parametric: np.ndarray
    center: float
    degree: int
    unsplittable: tuple[float, ...]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Interpolate at ``x`` exactly as locfit's ``predict`` (``atree_int``) does.

        Same arithmetic, in the same order, as locfit's ``linear_interp`` / ``hermite2`` and
        ``addparcomp``, one pass per operation over the input (no per-point descent).
        """
        x = np.asarray(x, dtype=np.float64)
        j = np.searchsorted(self.thresholds, x, side="right")
        ll, width = self.cells[0][j], self.cells[1][j]
        h = x - ll
        if self.degree == 0:
            out = _linear_interp(h, width, self.cells[2][j], self.cells[3][j])
        else:
            out = _hermite_interp(h, width, *(self.cells[c][j] for c in (2, 3, 4, 5)))
        out += _poly_value(self.parametric, x - self.center)
        return out


def _linear_interp(h: np.ndarray, d: np.ndarray, f0: np.ndarray, f1: np.ndarray) -> np.ndarray:
    """``((d - h) f0 + h f1) / d`` (``f0`` where ``d == 0``), locfit's ``linear_interp``."""
    out = d - h
    out *= f0
    out += h * f1
    flat = d == 0
    if flat.any():
        out[flat] = f0[flat]
        d = np.where(flat, 1.0, d)
    out /= d
    return out


def _hermite_interp(x: np.ndarray, z: np.ndarray, f0: np.ndarray, f1: np.ndarray,
                    d0: np.ndarray, d1: np.ndarray) -> np.ndarray:
    """Cubic Hermite interpolation on ``[0, z]`` (locfit's ``hermite2``), linear outside."""
    flat = z == 0
    h = x / np.where(flat, 1.0, z) if flat.any() else x / z
    p1 = h * h
    p1 *= 3 - 2 * h
    p0 = 1 - p1
    one_minus = 1 - h
    p2 = h * one_minus
    p2 *= one_minus
    p3 = h * h
    p3 *= h - 1
    below, above = h < 0, h > 1
    for mask, (v0, v1, v2, v3) in ((below, (1.0, 0.0, h, 0.0)), (above, (0.0, 1.0, 0.0, h - 1)),
                                   (flat, (1.0, 0.0, 0.0, 0.0))):
        if mask.any():
            for phi, value in zip((p0, p1, p2, p3), (v0, v1, v2, v3), strict=True):
                phi[mask] = value[mask] if isinstance(value, np.ndarray) else value
    p2 *= z
    p3 *= z
    out = p0 * f0
    out += p1 * f1
    out += p2 * d0
    out += p3 * d1
    return out


def _poly_value(coef: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """``innerprod(coef, (1, dx, (dx dx) / 2))`` accumulated in locfit's order."""
    out = np.full(dx.shape, coef[0])
    if coef.shape[0] > 1:
        out += coef[1] * dx
    if coef.shape[0] > 2:
        out += coef[2] * ((dx * dx) / 2)
    return out


def _poly_slope(coef: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """Derivative basis ``(0, 1, dx)`` against ``coef``, in locfit's order."""
    basis = [np.zeros_like(dx), np.ones_like(dx), dx]
    out = np.zeros_like(dx)
    for c, b in zip(coef.tolist(), basis, strict=False):
        out = out + c * b
    return out


# --------------------------------------------------------------------------- growth


class _Growth:
    """Depth-first growth of locfit's adaptive tree over ``[lo, hi]``, bandwidths only.

    With ``guard=True`` (the Python tree) a cell whose midpoint equals one of its ends is left
    unsplit; with ``guard=False`` (simulating R) growth stops at the vertex budget or the
    depth limit and records which came first.
    """

    def __init__(self, scores: np.ndarray, k: int, h: float | None, cut: float,
                 *, guard: bool, max_vertices: int | None = None,
                 max_depth: int | None = None):
        self.scores = scores
        self.k = k
        self.h = h
        self.cut = cut
        self.guard = guard
        self.max_vertices = max_vertices
        self.max_depth = max_depth
        self.lo, self.hi = float(scores[0]), float(scores[-1])
        self.x: list[float] = []
        self.bw: list[float] = []
        self.pseudo: list[bool] = []
        self.pairs: dict[tuple[int, int], int] = {}
        self.nodes: list[tuple[int, int, int, int, int]] = []
        self.unsplittable: list[float] = []
        self.failure: tuple[str, int] | None = None
        self.deepest = 0

    def vertex_bandwidth(self, x: float) -> float:
        return float(fixed_or_nn_bandwidth(self.scores, np.array([x]), self.k, self.h)[0])

    def add_vertex(self, x: float, bw: float | None = None) -> int:
        self.x.append(x)
        self.pseudo.append(bw is not None)
        self.bw.append(self.vertex_bandwidth(x) if bw is None else bw)
        return len(self.x) - 1

    def wants_split(self, i0: int, i1: int, ll: float, ur: float) -> bool:
        """locfit's ``atree_split`` for one dimension (scale 1)."""
        hs = [self.bw[i0], self.bw[i1]]
        positive = [v for v in hs if v > 0]
        hmin = min(positive) if positive else 0.0
        if hmin == 0.0:
            score = 2 * (ur - ll) / (self.hi - self.lo) if self.hi > self.lo else math.nan
        else:
            score = (ur - ll) / hmin
        return self.cut < score

    def midpoint_vertex(self, i0: int, i1: int, le: float) -> int | None:
        """locfit's ``newsplit``: reuse the vertex between ``i0`` and ``i1`` or create it."""
        a, b = min(i0, i1), max(i0, i1)
        if (a, b) in self.pairs:
            return self.pairs[(a, b)]
        if self.max_vertices is not None and len(self.x) >= self.max_vertices:
            self.failure = ("vertices", len(self.x))
            return None
        xm = (self.x[a] + self.x[b]) / 2
        pv = le < self.cut * min(self.bw[i0], self.bw[i1])
        idx = self.add_vertex(xm, (self.bw[a] + self.bw[b]) / 2 if pv else None)
        self.pairs[(a, b)] = idx
        return idx

    def grow(self) -> None:
        """Grow from the root cell; ``nodes`` get ``(i0, i1, mid, left, right)``."""
        self.add_vertex(self.lo)
        self.add_vertex(self.hi)
        stack = [(0, 1, self.lo, self.hi, 1, -1, 0)]
        while stack and self.failure is None:
            i0, i1, ll, ur, depth, parent, side = stack.pop()
            node = len(self.nodes)
            self.nodes.append((i0, i1, -1, -1, -1))
            if parent >= 0:
                self._link(parent, side, node)
            self.deepest = max(self.deepest, depth)
            if self.max_depth is not None and depth > self.max_depth:
                self.failure = ("depth", depth)
                return
            if not self.wants_split(i0, i1, ll, ur):
                continue
            mid_x = (ur + ll) / 2
            if self.guard and (mid_x == ll or mid_x == ur):
                self.unsplittable.append(ll)
                continue
            mid = self.midpoint_vertex(i1, i0, ur - ll)
            if mid is None:
                return
            self.nodes[node] = (i0, i1, mid, -1, -1)
            stack.append((mid, i1, (ll + ur) / 2, ur, depth + 1, node, 1))
            stack.append((i0, mid, ll, mid_x, depth + 1, node, 0))

    def _link(self, parent: int, side: int, child: int) -> None:
        i0, i1, mid, left, right = self.nodes[parent]
        self.nodes[parent] = (i0, i1, mid, child, right) if side == 0 else (i0, i1, mid,
                                                                             left, child)


# --------------------------------------------------------------------------- fitting


def vertex_budget(nn: float | None, cut: float, maxk: int) -> int:
    """locfit's vertex budget ``nvm`` for the tree in one dimension (``atree_guessnv``)."""
    alp = 0.0 if nn is None else nn
    vc = 2
    if alp > 0:
        a0 = 1.0 if alp > 1 else 1 / alp
        cu = min(1.0, max(cut, 0.01))
        nvm = int((5 * a0 / cu + 1) * vc)
    else:
        nvm = 102 * vc
    return int(maxk / 100.0 * nvm)


def tree_vertex_cap(nn: float | None, cut: float) -> int:
    """Most vertices the native tree may have: ten times locfit's own budget at the slides'
    ``maxk = 200`` (:func:`vertex_budget`, about ``25 / nn``), and at least
    :data:`TREE_VERTEX_FLOOR`.

    locfit's budget is its guess of what a tree needs; the native tree has no ``maxk`` and
    refines further near tied scores (a few hundred vertices per tied value, at most
    ``1 / nn`` such values), hence the generous factor. Only a bandwidth tiny next to the
    score range (e.g. ``nn=None, h=1e-9``, about 1e9 vertices) goes past it.
    """
    return max(TREE_VERTEX_FLOOR, 10 * vertex_budget(nn, cut, 200))


def build_tree(sample: SortedSample, params: LocalParams, *, cut: float = 0.8) -> LocfitTree:
    """Grow locfit's tree on ``sample``, fit at its real vertices, prepare interpolation.

    Raises
    ------
    ValueError
        When the tree would need more than :func:`tree_vertex_cap` vertices: the bandwidth
        (``nn``, ``h``) is too small for the score range.
    """
    k = effective_count(sample.n, params.nn, params.h)
    cap = tree_vertex_cap(params.nn, cut)
    growth = _Growth(sample.scores, k, params.h, cut, guard=True, max_vertices=cap)
    growth.grow()
    if growth.failure is not None:
        raise ValueError(
            f"locfit's evaluation tree needs more than {cap} vertices for the bandwidth "
            f"nn={params.nn!r}, h={params.h!r} over scores in [{growth.lo!r}, {growth.hi!r}]: "
            "the bandwidth is too small for the score range. Use a larger h or nn, or "
            "evaluation='exact'."
        )
    x = np.array(growth.x)
    pseudo = np.array(growth.pseudo)
    center, coef = parametric_component(sample, params.degree)
    values = np.zeros(x.shape[0])
    slopes = np.zeros(x.shape[0])
    real = np.flatnonzero(~pseudo)
    fits = fit_points(sample, x[real], params)
    dx = x[real] - center
    values[real] = fits.value - _poly_value(coef, dx)
    if params.degree >= 1:
        slopes[real] = fits.slope - _poly_slope(coef, dx)
    cells, thresholds = _terminal_cells(growth, values, slopes, params.degree)
    return LocfitTree(x, np.array(growth.bw), pseudo, cells, thresholds, coef, center,
                      params.degree, tuple(growth.unsplittable))


def parametric_component(sample: SortedSample, degree: int) -> tuple[float, np.ndarray]:
    """locfit's global polynomial (``compparcomp``): all rows, kernel weight 1, centred at
    the prior-weighted mean score, solved by the same Newton step as the local fits."""
    s = sample.scores
    pw = np.ones_like(s) if sample.weights is None else sample.weights
    center = _sequential_total(s * pw) / _sequential_total(pw)
    if sample.n <= SEQUENTIAL_BUDGET:
        window = _Window(sample, center, 0.0, "rect", (0, -1, sample.n))
        z, rhs, c0, _ = _sequential_normal(window, degree + 1)
    else:
        moments, y_moments, _ = _chunked_moments(sample, center, 0.0, "rect", 0, sample.n,
                                                 degree + 1)
        z, rhs, c0, _ = _normal_from_moments(moments, y_moments, degree + 1)
    coef = newton_step(z[None], rhs[None], np.array([c0]))[0]
    return float(center), coef


def _sequential_total(values: np.ndarray) -> float:
    """Left-to-right sum (locfit's loops); ``np.sum`` would add pairwise."""
    return float(np.cumsum(values)[-1])


def _terminal_cells(growth: _Growth, values: np.ndarray, slopes: np.ndarray,
                    degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Walk the tree as ``atree_int`` descends it; one row per terminal cell, in order."""
    x = growth.x
    rows: list[tuple[float, ...]] = []
    thresholds: list[float] = []
    start = (values[0], slopes[0]), (values[1], slopes[1])
    stack: list[tuple[int, tuple, tuple] | float] = [(0, start[0], start[1])]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            thresholds.append(item)
            continue
        node, v0, v1 = item
        i0, i1, mid, left, right = growth.nodes[node]
        if mid < 0:
            rows.append((x[i0], x[i1] - x[i0], v0[0], v1[0], v0[1], v1[1]))
            continue
        width = x[i1] - x[i0]
        vm = _pseudo_value(v0, v1, width, degree) if growth.pseudo[mid] else (values[mid],
                                                                              slopes[mid])
        stack.append((right, vm, v1))
        stack.append(_left_threshold(x[i0], width))
        stack.append((left, v0, vm))
    return np.array(rows).T.copy(), np.array(thresholds)


def _pseudo_value(vl: tuple, vr: tuple, dl: float, degree: int) -> tuple[float, float]:
    """Value and slope of the parent cell's interpolant at its midpoint (``exvvalpv``)."""
    if degree == 0:
        return ((vl[0] + vr[0]) / 2, 0.0)
    f0 = (vl[0] + vr[0]) / 2 + dl * (vl[1] - vr[1]) / 8
    f1 = 1.5 * (vr[0] - vl[0]) / dl - (vl[1] + vr[1]) / 4
    return (f0, f1)


def _left_threshold(ll: float, width: float) -> float:
    """Smallest x that ``atree_int`` sends right: ``not (2 (x - ll) < width)``."""
    x = ll + width / 2
    while 2 * (x - ll) < width:
        x = math.nextafter(x, math.inf)
    while not 2 * (math.nextafter(x, -math.inf) - ll) < width:
        x = math.nextafter(x, -math.inf)
    return x


# --------------------------------------------------------------------------- the crash


def stack_depth_limit(stack_bytes: int | None = None) -> int | None:
    """Recursion depth of ``atree_grow`` that overflows a C stack of ``stack_bytes``.

    Defaults to this process's soft stack limit, the main thread's stack, where a standalone
    R (``Rscript``) runs; ``None`` when it is unlimited. Through rpy2, locacal runs R on its
    own thread and passes that thread's stack (:mod:`locacal.localfit._rthread`).
    """
    if stack_bytes is None:
        soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
        if soft == resource.RLIM_INFINITY:
            return None
        stack_bytes = soft if soft > 0 else _DEFAULT_STACK
    return int(stack_bytes // ATREE_FRAME_BYTES)


def locfit_tree_would_crash(scores: np.ndarray, weights: np.ndarray | None = None, *,
                            nn: float | None, h: float | None = None, degree: int = 0,
                            kernel: str = "rect", cut: float = 0.8, maxk: int = 200,
                            stack_bytes: int | None = None) -> str | None:
    """Would R's locfit fail while building its evaluation tree on these scores?

    Runs locfit's tree growth (bandwidths only; no fit) exactly as R would, with R's vertex
    budget (from ``nn``, ``cut``, ``maxk``) and the depth limit of a C stack of
    ``stack_bytes`` (:func:`stack_depth_limit`; default the main thread's, as in
    ``Rscript``). The tree depends only on the scores and the bandwidth rule:
    ``weights``, ``degree`` and ``kernel`` are accepted for a uniform call but play no part
    (locfit counts rows, not weights, for ``nn``).

    Returns
    -------
    None when locfit finishes its tree; otherwise a sentence naming the failure (C stack
    overflow, which kills the R process and any Python process hosting it through rpy2, or
    the R error "newsplit: out of vertex space") and, when a tied score causes it, the value,
    its number of copies and k.
    """
    del weights, degree, kernel
    s = np.sort(np.asarray(scores, dtype=np.float64))
    if s.size == 0:
        return None
    k = nn_count(s.size, nn)
    sim = _Growth(s, k, h, cut, guard=False, max_vertices=vertex_budget(nn, cut, maxk),
                  max_depth=stack_depth_limit(stack_bytes))
    sim.grow()
    if sim.failure is None:
        return None
    return _crash_reason(s, k, nn, h, cut, sim.failure)


def _crash_reason(s: np.ndarray, k: int, nn: float | None, h: float | None, cut: float,
                  failure: tuple[str, int]) -> str:
    kind, where = failure
    if kind == "depth":
        outcome = (f"its recursive tree growth reaches depth {where} and overflows the C stack "
                   "('segfault from C stack overflow': R, and a Python process hosting it "
                   "through rpy2, die)")
    else:
        outcome = (f"its tree exhausts the vertex budget ({where} vertices) and R stops with "
                   "'newsplit: out of vertex space'")
    guarded = _Growth(s, k, h, cut, guard=True, max_vertices=tree_vertex_cap(nn, cut))
    guarded.grow()
    if guarded.failure is not None:
        cause = (f"the bandwidth (nn={nn!r}, h={h!r}) is tiny next to the score range, so "
                 "the tree would need more vertices than any sensible maxk")
    else:
        cause = _cause(s, k, guarded)
    return f"{cause}; {outcome}"


def _cause(s: np.ndarray, k: int, guarded: _Growth) -> str:
    zero = [xv for xv, bw in zip(guarded.x, guarded.bw, strict=True) if bw == 0.0]
    if not zero:
        return ("no tied value is to blame, but scores crowded within a tiny distance of "
                "each other make locfit's adaptive tree too deep")
    value = zero[0]
    copies = int(np.searchsorted(s, value, "right") - np.searchsorted(s, value, "left"))
    return (f"the score {value!r} holds {copies} tied copies ({100 * copies / s.size:.1f} % "
            f"of n = {s.size}) >= k = floor(n * nn) = {k}, so the bandwidth there is 0 and "
            "locfit splits the cells next to it without end")
