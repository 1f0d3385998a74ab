"""The native local-regression engine (locfit's rules, NumPy only): one entry point, :func:`fit`.

:func:`fit` returns the local fits of labels on scores at given points, for three kinds of
smoother (:class:`LocalParams`: locfit's local polynomials; :class:`NearestMean`: the WMSE's
nearest-weight mean; :class:`GaussianKernel`: statsmodels' kernel regression), and chooses how
to compute them: this table, in :func:`fit`'s body, is the only place a strategy is chosen.

=====================  ===============================  ===========================================
data                   params, keywords                 strategy (module)
=====================  ===============================  ===========================================
rows (tuple)           GaussianKernel                   direct or binned kernel sums (``_gauss``)
rows (tuple)           LocalParams or NearestMean       sorted once, then as below
SortedSample           NearestMean                      bisection + prefix sums (``_knn``)
SortedSample           ``copies`` and ``events``        every resample at once (``_resample``)
SortedSample           ``labels`` (B label vectors)     every vector at once: running sums for
                                                        degree 0 rect, else as one copy per
                                                        row (``_resample``)
SortedSample           ``points="data"``                value and influence at the rows
                                                        (``_influence``: ``_blocks``, ``_segment``)
SortedSample           ``backend="locfit"``             R's locfit (``rlocfit``) for the value
SortedSample           ``structure="tree"``             locfit's evaluation tree (``_tree``)
SortedSample           outputs beyond the value, or     per-window normal equations (``_direct``)
                       value only without many_points
SortedSample           value only, ``many_points``      ``_direct`` while distinct points x window
                                                        <= SEQUENTIAL_BUDGET, else in-block
                                                        prefix sums (``_many``; Gaussian or
                                                        h without nn: ``_segment``)
SortedSample           LocalParams with                 local logistic likelihood at each distinct
                       ``family="binomial"``            point (``_likelihood``; R's for the value
                                                        with ``backend="locfit"``)
ScoreStatistics        LocalParams (degree 0 or 1,      binned local fit from the cell sums, with
                       rect or tricube, a span nn)      its ``bound`` and ``var_factor``
                                                        (``_cells``)
ScoreStatistics        NearestMean                      the nearest-weight mean from the cell
                                                        masses, with its ``bound`` (``_cells``)
CellIndex              LocalParams (degree 0, rect,     the window means without sorting, by
                       a span nn), unweighted rows      cell counts (``_selection``); value None
                                                        when the scores are too concentrated
                                                        (the caller sorts)
=====================  ===============================  ===========================================

The cell sums of a sample (:class:`~locacal.data.cells.ScoreStatistics`, the Dask path) are
served by their own binned local fit, each value with the bound on its distance to the exact
fit (output ``"bound"``); only ``"value"``, ``"bound"`` and ``"var_factor"`` are available
there, with the exact native evaluation.

With the tree or R, the outputs other than the value (variance factor, counts) are the exact
fit's (``_direct``), as the band of :class:`~locacal.curves.LocalRegressionCalibrator` states.
``many_points`` keeps each caller's numbers bit for bit: the calibrators' ``predict`` sets it
(any number of new scores), the LCS and ``local_estimate`` do not (their few points are summed
in locfit's order). Prepared structures (segment trees, block sums, locfit's tree, R's fit)
are kept in the ``cache`` dictionary when one is given, keyed by what they depend on.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, ch. 2-3 and 12.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from locacal._validation import check_choice, warn
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import CellIndex
from locacal.data.sample import SortedSample, sort_sample
from locacal.localfit._cells import local_fit, local_variance_factor, nearest_mean
from locacal.localfit._direct import SEQUENTIAL_BUDGET, LocalParams, fit_points
from locacal.localfit._gauss import kernel_regression, kernel_var_factor
from locacal.localfit._influence import block_cache, fit_at_data
from locacal.localfit._knn import knn_means
from locacal.localfit._likelihood import fit_binomial
from locacal.localfit._many import fit_sorted
from locacal.localfit._params import (
    EVALUATIONS,
    FAMILIES,
    MAX_MAXK,
    check_maxk,
    local_params,
)
from locacal.localfit._resample import (
    event_prefix,
    label_fits,
    label_windows,
    resampled_fits,
    resamples,
)
from locacal.localfit._segment import ExactLocalMap
from locacal.localfit._selection import selected_means
from locacal.localfit._tree import build_tree
from locacal.localfit._window import KERNELS, effective_count, kernel_weights, warn_if_widened

__all__ = ["BACKENDS", "EVALUATIONS", "FAMILIES", "KERNELS", "MAX_MAXK", "OUTPUTS",
           "STRUCTURES", "GaussianKernel", "LocalFits", "LocalParams", "NearestMean",
           "check_maxk", "effective_count", "event_prefix", "fit", "kernel_weights",
           "label_fits", "label_windows", "local_params", "resamples", "warn_if_widened",
           "warn_undefined"]

STRUCTURES = ("exact", "tree")
BACKENDS = ("native", "locfit")
OUTPUTS = ("value", "slope", "var_factor", "count", "bandwidth", "influence", "bound", "se",
           "logit")
#: What the local logistic likelihood (``family="binomial"``) provides.
BINOMIAL_OUTPUTS = ("value", "slope", "var_factor", "count", "bandwidth", "influence", "se",
                    "logit")
#: What the binned fit from cell sums (``ScoreStatistics``) provides.
CELL_OUTPUTS = ("value", "bound", "var_factor")


@dataclass(frozen=True)
class NearestMean:
    """The WMSE's smoother: mean label of the nearest scores of (normalised) weight ``k``,
    the rows at the boundary distance sharing the remaining weight."""

    k: float


@dataclass(frozen=True)
class GaussianKernel:
    """statsmodels' ``KernelReg`` with a Gaussian kernel of standard deviation ``bw``:
    local constant (``"lc"``) or local linear (``"ll"``)."""

    bw: float
    reg_type: str = "lc"


@dataclass(frozen=True, eq=False)
class LocalFits:
    """What :func:`fit` computed (the outputs not asked for are None).

    ``value``: unclipped fit, (m,) or (B, m) for resamples, NaN where the window holds no
    weight; ``slope``; ``var_factor``: ``sum_i l_i(t)^2`` (Loader 1999, section 2.3);
    ``count``: rows with positive weight within h(t); ``bandwidth``: h(t); ``influence``:
    ``L_ii`` per sorted row (``points="data"``; with frequency weights the sum over the row's
    copies); ``unsplittable``: where R's locfit would
    split its tree forever (``structure="tree"``); ``bound``: the binned fit's bound on
    |value - exact fit| (``ScoreStatistics`` input).

    With ``family="binomial"`` (:mod:`~locacal.localfit._likelihood`): ``value`` is
    ``expit`` of the local logit (in [0, 1]); ``logit`` that logit (+-inf in windows of one
    label); ``se`` its standard error (logit scale; NaN where locfit's iteration ends at a
    boundary: one label, a nearly perfect fit, |logit| > 700); ``slope`` the logit
    slope; ``var_factor`` ``sum (K w)^2 / (sum K w)^2``, one over the window's effective
    size; ``influence`` the likelihood's ``L_ii`` at the rows.
    """

    value: np.ndarray | None = None
    slope: np.ndarray | None = None
    var_factor: np.ndarray | None = None
    count: np.ndarray | None = None
    bandwidth: np.ndarray | None = None
    influence: np.ndarray | None = None
    bound: np.ndarray | None = None
    unsplittable: tuple[float, ...] = ()
    se: np.ndarray | None = None
    logit: np.ndarray | None = None


def warn_undefined(raw: np.ndarray, consequence: str = "the estimate is NaN there",
                   remedy: str = "widen h or nn") -> None:
    """Warn about the points where a local fit is NaN: no observation with positive weight in
    the window (a fixed ``h`` narrower than the gaps between scores, or relative weights so
    small, below 1e-16 of those summed before them, that the window's weight sums to 0)."""
    missing = int(np.count_nonzero(np.isnan(raw)))
    if missing:
        warn(f"{missing} evaluation point(s) have no observation with positive weight within "
             f"the bandwidth; {consequence} ({remedy})")


#: Validated rows in their own order: (scores, labels, weights or None).
Rows = tuple[np.ndarray, np.ndarray, Any]


def fit(data: SortedSample | ScoreStatistics | CellIndex | Rows,
        points: np.ndarray | Literal["data"], params: LocalParams | NearestMean | GaussianKernel, *,
        outputs: tuple[str, ...] = ("value",), structure: str = "exact",
        backend: str = "native", maxk: int = 200, many_points: bool = False,
        copies: np.ndarray | None = None, events: np.ndarray | None = None,
        labels: np.ndarray | None = None, cache: dict | None = None) -> LocalFits:
    """Local fits of the labels on the scores at ``points`` (the module's strategy table).

    Parameters
    ----------
    data : SortedSample, ScoreStatistics, CellIndex or (scores, labels, weights)
        Validated data: sorted once by :func:`~locacal.data.sample.sort_sample`, the rows
        in their own order (Gaussian kernel sums, which also take ``(scores, labels,
        weights, counts)`` with frequency weights; the others sort them here), or the cell
        sums of a sample (binned fit: ``LocalParams`` of degree 0 or 1, rect or tricube,
        a span ``nn``, outputs among ``"value"``, ``"bound"``, ``"var_factor"``; or
        ``NearestMean``, outputs ``"value"``, ``"bound"``), or the cell index of unweighted
        rows (:class:`~locacal.data.grid.CellIndex`: ``LocalParams`` of degree 0, rect, a
        span ``nn``; the value, None when the selection does not pay).
    points : ndarray or "data"
        Validated evaluation points in [0, 1]; ``"data"``: every sorted row's own score.
    params : LocalParams, NearestMean or GaussianKernel
        Validated smoother (:func:`local_params` checks a ``LocalParams``).
    outputs : tuple of str
        Among :data:`OUTPUTS`; ``"influence"`` only with ``points="data"``.
    structure : {"exact", "tree"}
        The fit at every point, or locfit's adaptive tree and its interpolation.
    backend : {"native", "locfit"}
        This engine, or R's locfit through rpy2 (:mod:`locacal.localfit.rlocfit`).
    maxk : int
        Vertex space of R's tree (``backend="locfit"``).
    many_points : bool
        Value only at arbitrarily many points: the cheaper exact route by size.
    copies, events : ndarray, optional
        (B, n) copies of each sorted row and their events in B resamples: the (B, m) fits of
        every resample (:func:`resamples` draws them).
    cache : dict, optional
        Keeps the prepared structures between calls on the same sample.

    Returns
    -------
    LocalFits
    """
    unknown = sorted(set(outputs) - set(OUTPUTS))
    if unknown:
        raise ValueError(f"outputs: unknown {unknown}; choose among {list(OUTPUTS)}")
    check_choice(structure, STRUCTURES, "structure")
    check_choice(backend, BACKENDS, "backend")
    cache = {} if cache is None else cache
    if isinstance(data, ScoreStatistics):
        return _from_cells(data, points, params, outputs, structure, backend)
    if isinstance(data, CellIndex):
        return _by_selection(data, points, params, outputs, structure, backend)
    if "bound" in outputs:
        raise ValueError("outputs: 'bound' is the binned fit's, available from cell "
                         "statistics (ScoreStatistics) only")
    if isinstance(params, GaussianKernel):
        scores, labels, weights, *counts = data  # (..., counts): frequency weights
        return LocalFits(
            value=(kernel_regression(scores, labels, weights, points, params.bw,
                                     params.reg_type) if "value" in outputs else None),
            var_factor=(kernel_var_factor(scores, weights, points, params.bw, params.reg_type,
                                          counts[0] if counts else None)
                        if "var_factor" in outputs else None))
    if isinstance(data, tuple):
        data = sort_sample(*data)
    sample = data
    if isinstance(params, LocalParams) and params.family == "binomial":
        if sample.counts is not None and (copies is not None or (
                backend != "native" and not fixed_bandwidth(params))):
            raise ValueError("with frequency_weights the local likelihood is the native "
                             f"one, refitted per resample; got backend={backend!r}"
                             + ("" if copies is None else " and copies="))
        return _binomial(sample, points, params, outputs, structure, backend, maxk,
                         copies, cache)
    if {"se", "logit"} & set(outputs):
        raise ValueError("outputs: 'se' and 'logit' are the local likelihood's "
                         "(family='binomial')")
    if sample.counts is not None and not (
            fixed_bandwidth(params) and copies is None and not isinstance(points, str)
            and (backend == "locfit" or structure == "tree")):
        return _with_counts(sample, points, params, outputs, structure, backend, copies)
    if isinstance(params, NearestMean):
        return LocalFits(knn_means(sample, points, params.k))
    if copies is not None:
        return LocalFits(resampled_fits(sample, params, points, copies, events))
    if labels is not None:
        return LocalFits(label_fits(sample, params, points, labels))
    if isinstance(points, str):
        return _at_data(sample, params, cache)
    value, unsplittable = None, ()
    if backend == "locfit":
        value = _r_fit(sample, params, structure, maxk, cache).predict(points)
    elif structure == "tree":
        tree = _cached(cache, ("tree", params), lambda: build_tree(sample, params))
        value, unsplittable = tree(points), tree.unsplittable
    wanted = set(outputs) - {"value"}
    if wanted or (value is None and not many_points):
        direct = fit_points(sample, points, params)
        fits = {name: getattr(direct, name) for name in wanted}
        return LocalFits(value=direct.value if value is None else value,
                         unsplittable=unsplittable, **fits)
    if value is None:
        value = _many_points(sample, params, points, cache)
    return LocalFits(value, unsplittable=unsplittable)


def fixed_bandwidth(params: Any) -> bool:
    """Whether the span is a fixed ``h`` alone (no ``nn``): then locfit's ``weights=``,
    which enter every sum but not the nearest-neighbour count, reproduce the expanded rows
    (value to 1e-15 at degree 0-1 and 2e-10 at degree 2, measured against R on expanded
    rows, trees included), and so does the replay of locfit's tree (its cells split by
    ``h`` and the scores, not by how many rows share a score)."""
    return isinstance(params, LocalParams) and not params.nn


def _with_counts(sample: SortedSample, points: Any, params: Any, outputs: tuple[str, ...],
                 structure: str, backend: str, copies: Any) -> LocalFits:
    """Frequency weights: the exact per-window fit (``_direct``), whose windows and sums
    are those of the expanded rows (the other strategies count rows).

    ``points="data"``: the fit at each sorted row's score and its influence, the sum of its
    copies' influences ``f_i (w_i (a_0 + kappa)) = (w_i f_i)(a_0 + kappa)`` (the copies share
    the window and the fit; :mod:`locacal.localfit._influence`)."""
    if (isinstance(params, NearestMean) or copies is not None or structure != "exact"
            or backend != "native"):
        raise ValueError("with frequency_weights the local fit is the native exact one at "
                         "given points (structure='exact', backend='native', a fixed span), "
                         "or, with a fixed bandwidth h alone (no nn), also locfit's tree "
                         "or R's locfit: locfit's nn counts rows, not their weights, so "
                         "its window is not the expanded rows'; "
                         f"got params={params!r}, structure={structure!r}, "
                         f"backend={backend!r}")
    at_data = isinstance(points, str)
    if "influence" in outputs and not at_data:
        raise ValueError("outputs: 'influence' needs points='data'")
    unique, inverse = np.unique(sample.scores if at_data else points, return_inverse=True)
    direct = fit_points(sample, unique, params)
    fits = {name: getattr(direct, name)[inverse] for name in outputs if name != "influence"}
    if "influence" in outputs:
        fits["influence"] = direct.unit[inverse] * sample.weights
    return LocalFits(**fits)


def _from_cells(cells: ScoreStatistics, points: np.ndarray, params: Any,
                outputs: tuple[str, ...], structure: str, backend: str) -> LocalFits:
    """The binned local fit read off the cell sums (``_cells``): value and bound, and the
    variance factor of its smoother weights."""
    other = sorted(set(outputs) - set(CELL_OUTPUTS))
    if other:
        raise ValueError(f"outputs: {other} are not available from cell statistics; choose "
                         f"among {list(CELL_OUTPUTS)}")
    if isinstance(params, LocalParams) and params.family == "binomial":
        raise ValueError(
            "family='binomial' is not available from cell statistics (ScoreStatistics, the "
            "Dask path): the local likelihood is maximised by Newton steps whose weights "
            "p(1 - p) change with the fit, so it needs the rows of each window, not the "
            "cells' sums of w, wy and ws; fit it on the rows, or use the local least "
            "squares (family='gaussian') from cells")
    if isinstance(params, NearestMean) and structure == "exact" and backend == "native":
        if "var_factor" in outputs:
            raise ValueError("outputs: 'var_factor' is not available for NearestMean from "
                             "cell statistics; choose among ['value', 'bound']")
        value, bound = nearest_mean(cells, points, params.k)
        return LocalFits(value=value if "value" in outputs else None,
                         bound=bound if "bound" in outputs else None)
    if (not isinstance(params, LocalParams) or params.h is not None or params.nn is None
            or structure != "exact" or backend != "native"):
        raise ValueError("from cell statistics the local fit takes LocalParams with a span nn "
                         "(no h), structure='exact' and backend='native'; got "
                         f"params={params!r}, structure={structure!r}, backend={backend!r}")
    value = bound = var_factor = None
    if "value" in outputs or "bound" in outputs:
        value, bound = local_fit(cells, points, params.degree, params.nn, params.kernel)
    if "var_factor" in outputs:
        var_factor = local_variance_factor(cells, points, params.degree, params.nn,
                                           params.kernel)
    return LocalFits(value=value if "value" in outputs else None,
                     bound=bound if "bound" in outputs else None, var_factor=var_factor)


def _binomial(sample: SortedSample, points: np.ndarray | Literal["data"], params: LocalParams,
              outputs: tuple[str, ...], structure: str, backend: str, maxk: int,
              copies: np.ndarray | None, cache: dict) -> LocalFits:
    """The local logistic likelihood (``_likelihood``) at each distinct point; the value
    from R's locfit with ``backend="locfit"`` (the other outputs stay native, exact)."""
    if copies is not None:
        raise ValueError("family='binomial' has no all-resamples-at-once route (copies=); "
                         "refit each resample")
    if structure == "tree" and backend == "native":
        raise ValueError("family='binomial' is fitted exactly at each point "
                         "(structure='exact'); locfit's tree for it is available with "
                         "backend='locfit'")
    at_data = isinstance(points, str)
    if at_data and backend != "native":
        raise ValueError("points='data' (span selection) is native only")
    t = sample.scores if at_data else points
    unique, inverse = np.unique(t, return_inverse=True)
    wanted = set(outputs) | ({"value"} if "influence" in outputs else set())
    native = fit_binomial(sample, unique, params.degree, params.nn, params.h, params.kernel)
    fits: dict[str, Any] = {}
    for name in ("value", "slope", "var_factor", "count", "bandwidth", "se", "logit"):
        if name in wanted:
            fits[name] = getattr(native, name)[inverse]
    if "se" in fits:  # no Wald standard error where the iteration stopped at a boundary
        fits["se"] = np.where(native.status[inverse] == 0, fits["se"], np.nan)
    if "influence" in outputs:
        if not at_data:
            raise ValueError("outputs: 'influence' needs points='data'")
        # locfit's ressumm: L_ii = w_i g_i (1 - g_i) (J^-1)_00 at s_i, capped at 1 ("no
        # observation gives > 1 degree of freedom"), 0 where the window fits (nearly)
        # perfectly or holds one label (locfit skips the variance there)
        # with frequency weights: each copy's (its weight w f / f), summed over the copies
        copies = 1.0 if sample.counts is None else sample.counts
        w = np.ones(sample.n) if sample.weights is None else sample.weights / copies
        value = fits["value"]
        info = np.where(native.status == 0, native.inverse_info, 0.0)
        info[(native.status >= 3) & np.isfinite(native.inverse_info)] = native.inverse_info[
            (native.status >= 3) & np.isfinite(native.inverse_info)]
        fits["influence"] = copies * np.minimum(w * value * (1 - value) * info[inverse], 1.0)
    if backend == "locfit" and "value" in outputs:
        fits["value"] = _r_fit(sample, params, structure, maxk, cache).predict(points)
    return LocalFits(**fits)
def _by_selection(cells: CellIndex, points: np.ndarray, params: Any,
                  outputs: tuple[str, ...], structure: str, backend: str) -> LocalFits:
    """The window means of unweighted rows without sorting them (``_selection``), bit for bit
    the sorted fit's; value None when the undecided cells hold too many rows."""
    if (params != LocalParams(0, getattr(params, "nn", None), None, "rect") or params.nn is None
            or set(outputs) != {"value"} or structure != "exact" or backend != "native"):
        raise ValueError("from a CellIndex the local fit takes LocalParams of degree 0, the "
                         "rect kernel and a span nn (no h), outputs=('value',), "
                         "structure='exact' and backend='native'; got "
                         f"params={params!r}, outputs={outputs!r}, structure={structure!r}, "
                         f"backend={backend!r}")
    return LocalFits(value=selected_means(cells, points, params.nn))


def _cached(cache: dict, key: tuple, build: Any) -> Any:
    if key not in cache:
        cache[key] = build()
    return cache[key]


def _many_points(sample: SortedSample, params: LocalParams, points: np.ndarray,
                 cache: dict) -> np.ndarray:
    """The exact fit at any number of points by the cheaper exact route.

    Small problems (distinct points x window length <= ``SEQUENTIAL_BUDGET``) are summed in
    locfit's own order (``_direct``, agreeing with R to ~1e-15); larger ones, with a compact
    kernel and a span, from in-block prefix sums (``_many``: the segment trees of
    ``_segment`` for the points the blocks cannot answer), which agree with that to ~1e-12
    (degrees 0-1) and ~1e-8 (degree 2, whose solver amplifies summation-order differences);
    a fixed bandwidth alone by ``_segment``'s trees (its windows of any size would often fall
    back from the blocks), the Gaussian kernel by its direct sums. The trees and blocks are
    those of ``_at_data`` (they depend on the degree and kernel only).
    """
    unique, inverse = np.unique(points, return_inverse=True)
    window = sample.n if (params.kernel == "gauss" or params.nn is None) else (
        max(1.0, sample.n * params.nn))
    if unique.size * window <= SEQUENTIAL_BUDGET:
        return fit_points(sample, unique, params).value[inverse]
    if params.kernel == "gauss" or params.nn is None:
        exact_map = _cached(cache, ("segment", params),
                            lambda: ExactLocalMap(sample, params, clip=False))
        return exact_map(unique)[inverse]
    exact_map, blocks = _shared_sums(sample, params, cache)
    return fit_sorted(sample, unique, params, exact_map, blocks)[inverse]


def _shared_sums(sample: SortedSample, params: LocalParams,
                 cache: dict) -> tuple[ExactLocalMap, Any]:
    """The segment trees and block sums of a compact kernel, one of each per degree and
    kernel (every bandwidth, every route)."""
    base = LocalParams(params.degree, 1.0, None, params.kernel)
    key = (params.degree, params.kernel)
    exact_map = _cached(cache, ("moments", *key),
                        lambda: ExactLocalMap(sample, base, clip=False))
    blocks = _cached(cache, ("blocks", *key), lambda: block_cache(sample, base))
    return exact_map, blocks


def _at_data(sample: SortedSample, params: LocalParams, cache: dict) -> LocalFits:
    """Value and influence at every row: the moment trees and block sums depend on the degree
    and kernel only, so one of each serves every bandwidth (span selection)."""
    exact_map = blocks = None
    if params.kernel != "gauss":  # fit_at_data refuses the Gaussian kernel, naming it
        exact_map, blocks = _shared_sums(sample, params, cache)
    data_fit = fit_at_data(sample, params, exact_map, blocks)
    return LocalFits(value=data_fit.value, influence=data_fit.influence)


def _r_fit(sample: SortedSample, params: LocalParams, structure: str, maxk: int,
           cache: dict) -> Any:
    """R's locfit fit of the sample (made once per cache; it checks the neighbourhood by the
    native rules and refuses data that would crash R's tree)."""
    from locacal.localfit.rlocfit import locfit_fit

    evaluation = "locfit" if structure == "tree" else "exact"
    return _cached(cache, ("locfit", params, maxk, evaluation), lambda: locfit_fit(
        sample.scores, sample.labels.astype(np.float64), sample.weights, degree=params.degree,
        nn=params.nn, h=params.h or 0.0, kernel=params.kernel, maxk=maxk,
        evaluation=evaluation, family=params.family))
