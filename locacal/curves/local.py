"""Native local polynomial regression of labels on scores: the embedded calibration curve.

The calibration curve g(p) = E[D | s(X) = p] is estimated, as in the 2024 slides (Machado,
Charpentier et al., "Local regression" and "LCS" slides), by R's
``locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200)``. This module
reproduces locfit without R:

* **local fit** (Loader 1999, ch. 2): at a point t, weighted least squares of the labels on
  ``(1, s - t, (s - t)^2 / 2)`` truncated to ``degree + 1`` terms, with weights
  ``W(|s_i - t| / h(t)) * w_i`` (kernel x prior weight); ``g(t)`` is the intercept;
* **bandwidth**: ``h(t)`` = distance to the ``k = floor(n nn)``-th nearest score (rows are
  counted, prior weights are not: zero-weight rows count too, so integer weights are *not*
  the same as repeated rows for ``nn``), or ``max`` of that and a fixed ``h``; every score
  within ``h(t)`` is used (ties at the boundary all count); ``h(t) = 0`` keeps only the
  scores equal to t;
* **solution**: locfit's (one Newton step from the local mean, eigen-solver with its
  tolerance), which defines the answer in windows with fewer distinct scores than
  ``degree + 1``: one distinct score gives its mean at every degree; two distinct scores at
  degree 2 give locfit's scaled minimum-norm answer (see :mod:`._local_solve`);
* ``evaluation="exact"`` fits at each requested point; ``evaluation="locfit"`` reproduces
  locfit's adaptive evaluation tree and its interpolation (:mod:`._locfit_tree`), i.e. the
  numbers ``predict(locfit(...), newdata = grid)`` prints, without its crash on heavily tied
  scores.

Measured agreement with R locfit 1.5-9.7 (``tests/test_local_parity_r.py``,
``tests/test_local_tree.py``; locfit given the data sorted by score): exact evaluation within
2.2e-15 for degrees 0-2, the four kernels, with and without weights, on continuous scores,
decision-tree-like tied scores and scores with exact 0s and 1s; tree evaluation equal bit for
bit except degree 0 with the rectangular kernel (within 2e-15, locfit adds a rounding-level
Newton correction to the window mean). Beyond 1e6 rows read per call, sums switch from
locfit's order to faster pairwise sums and degree-2 answers move by locfit's own solver
error (~1e-10, see :mod:`._local_fit`).

References
----------
C. Loader (1999), *Local Regression and Likelihood*, Springer (ch. 2-3 local regression,
section 2.3 variance of linear smoothers, ch. 12 computational methods).
A. F. Machado, A. Charpentier, E. Gallic et al. (2024), slides "Calibration curves and the
Local Calibration Score" (``seeds/machado-charpentier-2024-lcs-slides.md``).
"""

from __future__ import annotations

import numpy as np

from locacal._validation import (
    check_choice,
    check_fraction,
    check_int,
    check_positive,
    warn,
)
from locacal.curves._local_fit import LocalParams, PointFits, fit_points
from locacal.curves._local_map import GridMap, TreeMap
from locacal.curves._local_window import KERNELS, SortedSample, nn_count, sort_sample
from locacal.curves._locfit_tree import build_tree
from locacal.curves.curve import CalibrationCurve, slides_grid

__all__ = ["EVALUATIONS", "local_curve", "local_estimate", "local_params"]

EVALUATIONS = ("exact", "locfit")
#: Normal quantile of the pointwise 95 % band.
Z95 = 1.959963984540054


def local_params(degree: int = 0, nn: float | None = 0.15, h: float | None = None,
                 kernel: str = "rect") -> LocalParams:
    """Validate the smoothing parameters; errors name the argument.

    ``nn`` in (0, 1] (None: no nearest-neighbour part), ``h > 0`` (None: none); at least one
    of them. Both given: ``h(t) = max(nn distance, h)``, as in ``lp(nn =, h =)``.
    """
    degree = check_int(degree, "degree", allowed=(0, 1, 2))
    nn = None if nn is None else check_fraction(nn, "nn")
    h = None if h is None else check_positive(h, "h")
    if nn is None and h is None:
        raise ValueError("give at least one of nn (nearest-neighbour fraction) and h "
                         "(fixed bandwidth); both are None")
    kernel = check_choice(kernel, tuple(KERNELS), "kernel")
    return LocalParams(degree, nn, h, kernel)


def local_estimate(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                   points: np.ndarray, *, degree: int = 0, nn: float | None = 0.15,
                   h: float | None = None, kernel: str = "rect",
                   evaluation: str = "exact") -> np.ndarray:
    """Raw (unclipped) local-regression estimate of E[D | s = t] at ``points``.

    Parameters
    ----------
    scores, labels, weights : ndarray
        Validated by :func:`locacal._validation.check_scores_labels` (``weights`` None for
        unit weights).
    points : ndarray
        Validated evaluation points in [0, 1].
    degree, nn, h, kernel
        See :func:`local_curve`.
    evaluation : {"exact", "locfit"}
        Fit at each point, or interpolate locfit's adaptive tree as ``predict`` does.

    Returns
    -------
    ndarray
        ``g(t)`` at each point; NaN where no observation with positive weight lies within the
        bandwidth (possible only with a small fixed ``h`` or all-zero weights there).
    """
    params = local_params(degree, nn, h, kernel)
    evaluation = check_choice(evaluation, EVALUATIONS, "evaluation")
    sample = sort_sample(scores, labels, weights)
    return estimate_sorted(sample, points, params, evaluation)


def estimate_sorted(sample: SortedSample, points: np.ndarray, params: LocalParams,
                    evaluation: str = "exact") -> np.ndarray:
    """:func:`local_estimate` on a sample already sorted by :func:`sort_sample` (reusable
    across calls on the same data, e.g. by the LCS)."""
    if evaluation == "locfit":
        return build_tree(sample, params)(points)
    return fit_points(sample, points, params).value


def local_curve(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, *,
                grid: np.ndarray | None = None, degree: int = 0, nn: float | None = 0.15,
                h: float | None = None, kernel: str = "rect", evaluation: str = "exact",
                clip: bool = True) -> CalibrationCurve:
    """Calibration curve by local polynomial regression (locfit's estimator, natively).

    Parameters
    ----------
    scores, labels, weights : ndarray
        Validated inputs (:func:`locacal._validation.check_scores_labels`).
    grid : ndarray, optional
        Evaluation points; default the slides' grid, ``linspace(0, 1, 100)`` within the
        score range (:func:`locacal.curves.curve.slides_grid`).
    degree : {0, 1, 2}
        Local polynomial degree (0: local mean, the LCS's choice).
    nn : float in (0, 1] or None, default 0.15
        Nearest-neighbour fraction: ``h(t)`` = distance to the ``floor(n nn)``-th nearest
        score. Pass ``nn=None`` with ``h`` for a fixed bandwidth only.
    h : float > 0, optional
        Fixed bandwidth; with ``nn`` too, ``h(t) = max(nn distance, h)``.
    kernel : {"rect", "tricube", "gauss", "epan"}
        locfit's kernels: ``rect`` 1, ``tricube`` (1 - |u|^3)^3, ``epan`` 1 - u^2 on
        ``|u| <= 1``; ``gauss`` exp(-(2.5 u)^2 / 2), not compact.
    evaluation : {"exact", "locfit"}
        ``"exact"``: fit at every grid point. ``"locfit"``: locfit's adaptive tree and
        interpolation, reproducing ``predict(locfit(...), newdata = grid)`` (it differs from
        exact evaluation by up to a few hundredths at some grid points).
    clip : bool, default True
        Clip the estimate, the band and the evaluator's output to [0, 1], as the slides do.

    Returns
    -------
    CalibrationCurve
        ``method="local"``; ``counts``: observations with positive weight within ``h(t)``;
        ``lower``/``upper``: pointwise 95 % band ``g +- 1.96 sqrt(g (1 - g) sum_i l_i(t)^2)``
        from the linear-smoother weights ``l_i(t)`` of the exact fit (Loader 1999, section
        2.3: ``Var g(t) = sum_i l_i(t)^2 Var(D_i)``, with the binomial variance plugged in at
        the clipped estimate; zero width where ``g`` is 0 or 1), clipped to [0, 1]. Calling
        the curve on new scores evaluates the fitted map: locfit's tree for
        ``evaluation="locfit"``; otherwise linear interpolation of exact fits on a fine grid,
        whose error bound (degree 0, rect) or estimate is ``curve.evaluator.error_bound`` /
        ``.error_estimate``.

    Warns
    -----
    CalibrationWarning
        When ``floor(n nn) = 0`` without ``h`` (only exact ties are averaged), or when some
        grid points have no observation within the bandwidth (NaN there).
    """
    params = local_params(degree, nn, h, kernel)
    evaluation = check_choice(evaluation, EVALUATIONS, "evaluation")
    points = slides_grid(scores) if grid is None else np.asarray(grid, dtype=np.float64)
    sample = sort_sample(scores, labels, weights)
    _warn_tiny_k(sample, params)
    fits = fit_points(sample, points, params)
    if evaluation == "locfit":
        tree = build_tree(sample, params)
        _warn_unsplittable(tree.unsplittable)
        raw = tree(points)
        evaluator = TreeMap(tree, clip=clip)
    else:
        raw = fits.value
        evaluator = GridMap(sample, params, clip=clip)
    _warn_empty(raw)
    estimate = np.clip(raw, 0.0, 1.0) if clip else raw
    lower, upper = _band(raw, fits)
    return CalibrationCurve(
        grid=points, estimate=estimate, lower=lower, upper=upper, counts=fits.count,
        method="local",
        params={"degree": params.degree, "nn": params.nn, "h": params.h,
                "kernel": params.kernel, "evaluation": evaluation},
        evaluator=evaluator,
    )


def _band(raw: np.ndarray, fits: PointFits) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise 95 % band from the smoother weights, clipped to [0, 1]."""
    centre = np.clip(raw, 0.0, 1.0)
    half = Z95 * np.sqrt(centre * (1.0 - centre) * fits.var_factor)
    return np.clip(raw - half, 0.0, 1.0), np.clip(raw + half, 0.0, 1.0)


def _warn_tiny_k(sample: SortedSample, params: LocalParams) -> None:
    if params.h is None and nn_count(sample.n, params.nn) == 0:
        warn(f"n * nn = {sample.n} * {params.nn} < 1: locfit's bandwidth would be 0 (its fit "
             "undefined away from the scores); the neighbourhood is raised to the nearest "
             "score(s). Increase nn or give h", stacklevel=4)


def _warn_unsplittable(cells: tuple[float, ...]) -> None:
    if cells:
        warn(f"R's locfit would split its evaluation tree forever near score {cells[0]!r} "
             "(a tied value holding at least floor(n nn) copies) and crash; the native tree "
             "stops at floating-point resolution there", stacklevel=4)


def _warn_empty(raw: np.ndarray) -> None:
    missing = int(np.count_nonzero(np.isnan(raw)))
    if missing:
        warn(f"{missing} evaluation point(s) have no observation with positive weight within "
             "the bandwidth; the estimate is NaN there", stacklevel=4)
