"""Calibration metrics from local estimates of g: the Local Calibration Score and the WMSE.

Both weight the squared gap between an estimate of g(p) = E[D | s = p] and the diagonal by the
reflected kernel density of the scores (:func:`locacal.density.reflected_kde`), as the 2024 R
functions ``local_calib_score`` and ``weighted_mse`` do. Neither adds random jitter to the
scores: ties are handled by a fixed rule, so the same input always gives the same value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from locacal._validation import (
    check_choice,
    check_fraction,
    check_grid_size,
    check_scores_labels,
    plain,
    positive_weight_rows,
    public_api,
)
from locacal.curves.curve import SLIDES_GRID_SIZE, slides_grid
from locacal.data.cells import ScoreStatistics
from locacal.data.frequency import weighting
from locacal.data.grid import BINNED_CELLS, CellIndex, reflected_sum_from_mass
from locacal.data.quantile import normalised_weights
from locacal.data.sample import SortedSample, sort_sample
from locacal.density import (
    _SQRT_2PI,
    EXACT_MAX_N,
    quartile_ranks,
    reflected_bandwidth,
    reflected_kde_cells,
    reflected_kde_values,
    reflected_quartiles_from,
    unweighted_reflected_bandwidth,
)
from locacal.localfit import (
    EVALUATIONS,
    LocalParams,
    NearestMean,
    fit,
    local_params,
    warn_undefined,
)
from locacal.metrics._dispatch import dask_input

__all__ = [
    "lcs",
    "lcs_from_sorted",
    "lcs_of_sample",
    "lcs_unsorted",
    "lcs_with_bound",
    "wmse",
    "wmse_of_sample",
    "wmse_with_bound",
]


def _check_cell_lcs(*, nn: float, degree: int, kernel: str, evaluation: str,
                    grid_size: int) -> dict[str, Any]:
    """The options of :func:`lcs_cells`, checked before the pass over Dask input."""
    if check_choice(evaluation, EVALUATIONS, "evaluation") != "exact":
        raise ValueError("evaluation='locfit' is not available for Dask input; the LCS is "
                         "computed from cell statistics (evaluation='exact')")
    return {"nn": nn, "degree": degree, "kernel": kernel, "grid_size": grid_size}


def lcs_cells(cells: ScoreStatistics, *, nn: float = 0.15, degree: int = 0,
              kernel: str = "rect", grid_size: int = SLIDES_GRID_SIZE) -> float:
    """:func:`lcs` from cell statistics, within the bound of :func:`lcs_with_bound` (degree 0
    or 1, kernel "rect" or "tricube")."""
    return lcs_with_bound(cells, nn, grid_size, degree=degree, kernel=kernel)[0]


def lcs_with_bound(cells: ScoreStatistics, nn: float = 0.15,
                   grid_size: int = SLIDES_GRID_SIZE, *, degree: int = 0,
                   kernel: str = "rect") -> tuple[float, float]:
    """:func:`lcs` (degree 0 or 1, rect or tricube kernel) from the cells, and the bound on
    the part of its error due to the curve.

    With d_j the density weights, g~_j the binned curve (clipped) and eps_j its bound
    (:func:`locacal.localfit.fit` from the cells, output ``"bound"``),
    |(g~ - l)^2 - (g - l)^2| = |g~ - g| |g~ + g - 2 l| <= eps (2 |g~ - l| + eps), so

    .. math:: |\\widetilde{\\mathrm{LCS}} - \\mathrm{LCS}_{d}| \\le
        \\frac{\\sum_j d_j \\varepsilon_j (2 |\\tilde g_j - l_j| + \\varepsilon_j)}
        {\\sum_j d_j}

    for the same density weights. The density weights themselves differ from the in-memory
    ones by a relative eta (binning and the bandwidth,
    :func:`locacal.density.reflected_kde_cells`; measured below 1e-5 in the tests), which
    moves the LCS, a weighted mean, by at most relative 2 eta / (1 - eta).
    """
    grid_size = check_grid_size(grid_size)
    grid = slides_grid(np.array([cells.min_score, cells.max_score]), grid_size)
    fits = fit(cells, grid, local_params(degree, nn, None, kernel), outputs=("value", "bound"))
    estimate, eps = fits.value, fits.bound
    g = np.clip(estimate, 0.0, 1.0)
    dens = reflected_kde_cells(cells, grid)
    gap = g - grid
    value = float(np.sum(dens * gap**2) / dens.sum())
    bound = float(np.sum(dens * eps * (2.0 * np.abs(gap) + eps)) / dens.sum())
    return value, bound


@public_api
@dask_input(lcs_cells, check=_check_cell_lcs)
def lcs(scores: Any, labels: Any, *, weights: Any = None, frequency_weights: Any = None,
        nn: float = 0.15, degree: int = 0,
        kernel: str = "rect", evaluation: str = "exact",
        grid_size: int = SLIDES_GRID_SIZE) -> float:
    """Local Calibration Score: the density-weighted squared gap between a local-regression
    calibration curve and the diagonal.

    .. math::

        \\mathrm{LCS} = \\frac{\\sum_{j} w_j \\left(\\hat g(l_j) - l_j\\right)^2}{\\sum_j w_j}

    where :math:`l_j` are the points of ``linspace(0, 1, grid_size)`` that lie within the
    observed score range, :math:`\\hat g` is the local regression of the labels on the scores
    (degree 0, nearest-neighbour fraction 0.15, rectangular kernel by default: the 2024
    slides' definition, which the LCS keeps although :func:`~locacal.calibration_curve`
    now defaults to local-linear with the tricube kernel) clipped to [0, 1], and
    :math:`w_j` the Gaussian density of the scores reflected at 0 and 1 with R's ``bw.nrd0``
    bandwidth, at :math:`l_j`.

    This is the 2024 R code's ``local_calib_score`` (``weighted.mean`` of the squared gaps)
    without its random jitter. The slides' eq. (5) writes the sum without dividing by the sum
    of the weights; the R code, which produced the published figures, normalises, and so does
    locacal. ``evaluation="exact"`` (default) evaluates ĝ exactly at the grid points;
    ``evaluation="locfit"`` reproduces locfit's default tree-and-interpolation structure,
    which gives the published numbers (they differ by up to about 7e-4).

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.
    weights : array-like, optional
        Relative case weights (only w / sum(w) matters), used in the local fit (weighted least
        squares; ``nn`` counts rows, as in locfit) and in the density.
    frequency_weights : array-like, optional
        Counts (a row stands for that many identical observations): the LCS of the expanded
        rows, without expanding them (``nn`` counts observations; :mod:`locacal.data.frequency`).
    nn : float, default 0.15
        Nearest-neighbour fraction of the local regression (the slides').
    degree : {0, 1, 2}, default 0
        Local polynomial degree (the slides': the local mean).
    kernel : {"rect", "tricube", "gauss", "epan"}, default "rect"
        The slides' rectangular kernel.
    evaluation : {"exact", "locfit"}, default "exact"
    grid_size : int, default 100
        Number of points of the full grid on [0, 1] before restriction, from 2 to 2^16
        (:data:`locacal._validation.MAX_GRID_POINTS`).

    Returns
    -------
    float
        If the scores span less than one grid step, the grid is the midpoint of their range
        (see :func:`locacal.curves.curve.slides_grid`). Rows of weight zero are dropped
        first (they are not in the sample: the grid spans the weighted scores only, and no
        grid point is left without data).

    References
    ----------
    Machado, Charpentier, Flachaire, Gallic & Hu (2024), "Our new metric: LCS", eq. (5), and
    "Local regression: issue" (restricted grid).

    Dask input (:mod:`locacal.data.dask`, :func:`lcs_cells`): computed from mergeable cell
    statistics, partition by partition, within the bound of
    :func:`lcs_with_bound` (degree 0 or 1, kernel "rect"
    or "tricube", ``evaluation="exact"``).
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    params = local_params(degree, nn, None, kernel)
    check_choice(evaluation, EVALUATIONS, "evaluation")
    grid_size = check_grid_size(grid_size)
    if frequency_weights is not None:
        if evaluation != "exact":
            raise ValueError("with frequency_weights the LCS takes evaluation='exact'; got "
                             f"evaluation={plain(evaluation)!r}")
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        s, y, point, counts = positive_weight_rows(s, y, both.point, both.counts)
        return lcs_from_sorted(sort_sample(s, y, point, counts), params, evaluation, grid_size)
    return lcs_of_sample(*positive_weight_rows(s, y, w), params, evaluation, grid_size)


def lcs_of_sample(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, params: LocalParams,
                  evaluation: str = "exact", grid_size: int = SLIDES_GRID_SIZE,
                  sorted_sample: Callable[[], SortedSample] | None = None) -> float:
    """:func:`lcs` of validated arrays (positive weights only) and parameters.

    The default fit of an unweighted sample beyond the density's exact range needs no sort
    (:func:`lcs_unsorted`); otherwise one sort serves the fit and the
    density's bandwidth: ``sorted_sample()`` when given (the metric registry's shared sort of
    the same rows), else :func:`sort_sample`.
    """
    if (w is None and evaluation == "exact" and params == LocalParams(0, params.nn, None, "rect")
            and s.size > EXACT_MAX_N):
        value = lcs_unsorted(s, y, params.nn, grid_size)  # selection by cell counts
        if value is not None:
            return value
    sample = sort_sample(s, y, w) if sorted_sample is None else sorted_sample()
    return lcs_from_sorted(sample, params, evaluation, grid_size)


def lcs_from_sorted(sample: SortedSample, params: LocalParams, evaluation: str = "exact",
                    grid_size: int = SLIDES_GRID_SIZE) -> float:
    """:func:`lcs` of a sample already validated and sorted (positive weights only), with
    validated parameters: the metric registry's shared sort serves it."""
    grid = slides_grid(sample.scores, grid_size)
    raw = fit(sample, grid, params, structure="tree" if evaluation == "locfit" else "exact").value
    warn_undefined(raw, "the LCS is NaN")
    g = np.clip(raw, 0.0, 1.0)
    dens = reflected_kde_values(sample.scores, grid, sample.weights, is_sorted=True,
                                counts=sample.counts)
    return float(np.sum(dens * (g - grid) ** 2) / dens.sum())


def lcs_unsorted(scores: np.ndarray, labels: np.ndarray, nn: float,
                 grid_size: int) -> float | None:
    """The default :func:`lcs` (degree 0, rectangular kernel, exact evaluation) of validated
    unweighted scores and 0/1 labels with more than :data:`locacal.density.EXACT_MAX_N` rows,
    without sorting them (:func:`locacal.localfit.fit` on their
    :class:`~locacal.data.grid.CellIndex`: the window means, and the cells holding the
    density's quartiles); None when the scores are too concentrated for that, and the
    caller sorts."""
    n = scores.size
    lo, hi = float(scores.min()), float(scores.max())
    grid = slides_grid(np.array([lo, hi]), grid_size)
    cells = CellIndex(scores, labels, ranks=quartile_ranks(n))
    means = fit(cells, grid, LocalParams(0, nn, None, "rect")).value
    if means is None:
        return None
    g = np.clip(means, 0.0, 1.0)
    # the reflected density of locacal.density.reflected_kde_values, binned branch
    q1, q3 = reflected_quartiles_from(cells.order_stat, n)
    h = unweighted_reflected_bandwidth(n, float(scores.sum()), float(np.dot(scores, scores)),
                                       q1, q3, float(scores[0]))
    dens = (reflected_sum_from_mass(grid, cells.density_mass(), h, BINNED_CELLS)
            / (3.0 * n * h * _SQRT_2PI))
    return float(np.sum(dens * (g - grid) ** 2) / dens.sum())


@public_api
def wmse(scores: Any, labels: Any, *, weights: Any = None, nn: float = 0.15,
         grid_size: int = 101, frequency_weights: Any = None) -> float:
    """Weighted MSE of the 2024 R code: nearest-neighbour means against the diagonal,
    weighted by the reflected density of the scores.

    .. math::

        \\mathrm{WMSE} = \\frac{\\sum_j w_j (\\tau_j - \\bar d_{(k)}(\\tau_j))^2}{\\sum_j w_j}

    over :math:`\\tau_j` in ``linspace(0, 1, grid_size)`` (the whole of [0, 1], not
    restricted; ``grid_size`` from 2 to 2^16), where :math:`\\bar d_{(k)}(\\tau)` is the
    mean label of the k = round(n nn) scores nearest to tau and :math:`w_j` the reflected
    density (:func:`locacal.density.reflected_kde`).

    With relative case weights, k is the same share nn of the total weight: the weights of the
    n+ rows with positive weight are normalised to sum to n+
    (:math:`\\tilde w_i = w_i n_+ / \\sum w`, :func:`locacal.data.quantile.normalised_weights`),
    k = round(n+ nn), and the nearest scores are taken until their normalised weights reach k;
    the mean is weighted. Unit weights give R's k = round(n nn) exactly, and multiplying the
    weights by any c > 0 changes nothing (reading them as frequencies, k = round(nn sum w),
    would make WMSE depend on the scale of the weights). The nearest neighbours are found by
    bisection on the sorted scores: O(n log n) for the sort and O(log^2 n) per grid point.

    The R code (``local_ci_scores``) takes the k nearest by ``rank(..., ties.method =
    "first")``, so with tied distances its value depends on the order of the rows. locacal
    shares the tied places fractionally instead (see
    :func:`locacal.localfit._knn.knn_means`): identical to R without ties, and independent
    of row order with them.

    References
    ----------
    2024 R code of Machado, Charpentier, Flachaire, Gallic & Hu, functions
    ``local_ci_scores`` and ``weighted_mse``.

    ``frequency_weights`` (counts of identical observations): the WMSE of the expanded rows,
    n+ the number of observations (their normalised weights sum to it) and the density's
    bandwidth that of the observations.
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    nn = check_fraction(nn, "nn")
    grid_size = check_grid_size(grid_size)
    if frequency_weights is not None:
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        s, y, point, counts = positive_weight_rows(s, y, both.point, both.counts)
        return _wmse_counts(s, y, point, counts, nn, grid_size)
    return wmse_of_sample(s, y, w, nn, grid_size)


def _wmse_counts(s: np.ndarray, y: np.ndarray, point: np.ndarray, counts: np.ndarray,
                 nn: float, grid_size: int) -> float:
    """:func:`wmse` of grouped rows (combined weights ``w f``, frequency weights ``counts``):
    the weights normalised to sum to the N observations, k = round(N nn)."""
    total = float(counts.sum())
    mass = point * (total / float(point.sum()))
    k = min(max(float(np.round(total * nn)), 1.0), total)
    grid = np.linspace(0.0, 1.0, grid_size)
    means = fit(sort_sample(s, y, mass), grid, NearestMean(k)).value
    dens = reflected_kde_values(s, grid, point, counts=counts)
    return float(np.sum(dens * (grid - means) ** 2) / dens.sum())


def wmse_of_sample(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, nn: float = 0.15,
                   grid_size: int = 101, sorted_sample: SortedSample | None = None) -> float:
    """:func:`wmse` of validated arrays and parameters. Without weights,
    ``sorted_sample`` may be ``sort_sample(s, y, None)`` already made (the metric registry's
    shared sort); the result is the same."""
    s, y, w = positive_weight_rows(s, y, w)  # rows of weight zero are not neighbours
    if w is not None:
        w, _ = normalised_weights(w)  # sum to the number of rows: k keeps its unit meaning
    k = min(max(float(np.round(s.size * nn)), 1.0), float(s.size))
    grid = np.linspace(0.0, 1.0, grid_size)
    if sorted_sample is None or w is not None:
        sorted_sample = sort_sample(s, y, w)
    means = fit(sorted_sample, grid, NearestMean(k)).value
    # the bandwidth's quartiles from the sorted sample, the kernel sum from the rows
    h = reflected_bandwidth(sorted_sample.scores, sorted_sample.weights, is_sorted=True)
    dens = reflected_kde_values(s, grid, w, bandwidth=h)
    return float(np.sum(dens * (grid - means) ** 2) / dens.sum())


def wmse_with_bound(stats: ScoreStatistics, nn: float = 0.15,
                    grid_size: int = 101) -> tuple[float, float]:
    """The WMSE (:func:`wmse`) from the cells, and the bound on the part of its distance to
    the in-memory value due to the nearest-neighbour means.

    With the weights normalised to sum to the n+ rows of positive weight (cell masses
    m_c = W_c n+ / W; the counts without weights) and k = round(n+ nn), the exact mean at t
    is over the rows nearest to t of normalised weight exactly k (boundary ties shared).
    :func:`locacal.localfit.fit` with :class:`~locacal.localfit.NearestMean` reads the
    estimate and its bound eps(t) off the cells (the radius h bracketed from the cumulative
    masses, the ring's share taken, eps the larger distance to the ends of the interval the
    exact mean lies in). Then, as in
    :func:`lcs_with_bound`, with the density d_j of
    the cells (:func:`~locacal.density.reflected_kde_cells`, relative
    error eta ~ 1e-6 on top),

    .. math:: |\\widetilde{\\mathrm{WMSE}} - \\mathrm{WMSE}_d| \\le
        \\frac{\\sum_j d_j \\varepsilon_j (2 |\\tau_j - \\tilde m_j| + \\varepsilon_j)}
        {\\sum_j d_j}

    over the grid tau_j = linspace(0, 1, grid_size) (all of [0, 1], as in memory).
    """
    rows = float(stats.count.sum())  # rows of positive weight (the cells hold no others)
    k = min(max(float(np.round(rows * nn)), 1.0), rows)
    grid = np.linspace(0.0, 1.0, grid_size)
    fits = fit(stats, grid, NearestMean(k), outputs=("value", "bound"))
    estimate, eps = fits.value, fits.bound
    dens = reflected_kde_cells(stats, grid)
    gap = np.abs(grid - estimate)
    value = float(np.sum(dens * gap**2) / dens.sum())
    return value, float(np.sum(dens * eps * (2.0 * gap + eps)) / dens.sum())
