"""Calibration metrics from local estimates of g: the Local Calibration Score and the WMSE.

Both weight the squared gap between an estimate of g(p) = E[D | s = p] and the diagonal by the
reflected kernel density of the scores (:func:`locacal.density.reflected_kde`), as the 2024 R
functions ``local_calib_score`` and ``weighted_mse`` do. Neither adds random jitter to the
scores: ties are handled by a fixed rule, so the same input always gives the same value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import check_choice, check_fraction, check_int, check_scores_labels
from locacal.curves._local_window import sort_sample
from locacal.curves.curve import SLIDES_GRID_SIZE, slides_grid
from locacal.curves.local import EVALUATIONS, estimate_sorted, local_params
from locacal.density import reflected_kde, reflected_kde_values

__all__ = ["lcs", "wmse"]


def lcs(scores: Any, labels: Any, *, weights: Any = None, nn: float = 0.15, degree: int = 0,
        kernel: str = "rect", evaluation: str = "exact",
        grid_size: int = SLIDES_GRID_SIZE) -> float:
    """Local Calibration Score: the density-weighted squared gap between a local-regression
    calibration curve and the diagonal.

    .. math::

        \\mathrm{LCS} = \\frac{\\sum_{j} w_j \\left(\\hat g(l_j) - l_j\\right)^2}{\\sum_j w_j}

    where :math:`l_j` are the points of ``linspace(0, 1, grid_size)`` that lie within the
    observed score range, :math:`\\hat g` is the local regression of the labels on the scores
    (degree 0, nearest-neighbour fraction 0.15, rectangular kernel by default) clipped to
    [0, 1], and :math:`w_j` the Gaussian density of the scores reflected at 0 and 1 with R's
    ``bw.nrd0`` bandwidth, at :math:`l_j`.

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
        Frequency weights, used in the local fit and in the density.
    nn : float, default 0.15
        Nearest-neighbour fraction of the local regression.
    degree : {0, 1, 2}, default 0
        Local polynomial degree.
    kernel : {"rect", "tricube", "gauss", "epan"}, default "rect"
    evaluation : {"exact", "locfit"}, default "exact"
    grid_size : int, default 100
        Number of points of the full grid on [0, 1] before restriction.

    Returns
    -------
    float
        If the scores span less than one grid step, the grid is the midpoint of their range
        (see :func:`locacal.curves.curve.slides_grid`).

    References
    ----------
    Machado, Charpentier, Flachaire, Gallic & Hu (2024), "Our new metric: LCS", eq. (5), and
    "Local regression: issue" (restricted grid).
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    params = local_params(degree, nn, None, kernel)
    check_choice(evaluation, EVALUATIONS, "evaluation")
    grid_size = check_int(grid_size, "grid_size", minimum=2)
    sample = sort_sample(s, y, w)  # one sort serves the fit and the density's bandwidth
    grid = slides_grid(sample.scores, grid_size)
    g = np.clip(estimate_sorted(sample, grid, params, evaluation), 0.0, 1.0)
    dens = reflected_kde_values(sample.scores, grid, sample.weights, is_sorted=True)
    return float(np.sum(dens * (g - grid) ** 2) / dens.sum())


def _knn_means(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
               points: np.ndarray, k: float) -> np.ndarray:
    """Mean label of the k nearest scores to each point, boundary ties shared fractionally.

    Let h be the smallest distance |s_i - t| such that the observations within h weigh at
    least k. Observations closer than h count fully; those at distance exactly h share the
    remaining weight k - W(closer) in proportion to their weights. Without ties at h and with
    unit weights this is the plain mean of the k nearest; with ties it is the average over
    every order of the tied rows, so it does not depend on row order; and an integer weight
    is the same as a duplicated row.
    """
    w = np.ones_like(scores) if weights is None else weights
    wy = w * labels
    out = np.empty(points.size)
    for j, t in enumerate(points):
        dist = np.abs(scores - t)
        if weights is None:
            h = np.partition(dist, int(k) - 1)[int(k) - 1]
        else:
            order = np.argsort(dist, kind="stable")
            reach = np.searchsorted(np.cumsum(w[order]), k * (1.0 - 1e-12), side="left")
            h = dist[order[min(reach, order.size - 1)]]
        inside, edge = dist < h, dist == h
        share = (k - w[inside].sum()) / w[edge].sum()
        out[j] = (wy[inside].sum() + share * wy[edge].sum()) / k
    return out


def wmse(scores: Any, labels: Any, *, weights: Any = None, nn: float = 0.15,
         grid_size: int = 101) -> float:
    """Weighted MSE of the 2024 R code: nearest-neighbour means against the diagonal,
    weighted by the reflected density of the scores.

    .. math::

        \\mathrm{WMSE} = \\frac{\\sum_j w_j (\\tau_j - \\bar d_{(k)}(\\tau_j))^2}{\\sum_j w_j}

    over :math:`\\tau_j` in ``linspace(0, 1, grid_size)`` (the whole of [0, 1], not
    restricted), where :math:`\\bar d_{(k)}(\\tau)` is the mean label of the
    k = round(n nn) scores nearest to tau and :math:`w_j` the reflected density
    (:func:`locacal.density.reflected_kde`). With weights (frequency weights), n is their sum
    and the nearest scores are taken until they weigh k.

    The R code (``local_ci_scores``) takes the k nearest by ``rank(..., ties.method =
    "first")``, so with tied distances its value depends on the order of the rows. locacal
    shares the tied places fractionally instead (see :func:`_knn_means`): identical to R
    without ties, and independent of row order with them.

    References
    ----------
    2024 R code of Machado, Charpentier, Flachaire, Gallic & Hu, functions
    ``local_ci_scores`` and ``weighted_mse``.
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    nn = check_fraction(nn, "nn")
    grid_size = check_int(grid_size, "grid_size", minimum=2)
    if w is not None:  # rows of weight zero are not neighbours
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    total = float(s.size) if w is None else float(w.sum())
    k = min(max(float(np.round(total * nn)), 1.0), total)
    grid = np.linspace(0.0, 1.0, grid_size)
    means = _knn_means(s, y, w, grid, k)
    dens = reflected_kde(s, grid, weights=w)
    return float(np.sum(dens * (grid - means) ** 2) / dens.sum())
