"""The native local-regression engine's entry points: parameter checks and raw estimates.

Kept apart from the calibrator class (:mod:`locacal.curves.local`) so that the metrics built
on local fits (the LCS) import neither scikit-learn nor the calibrator machinery.
"""

from __future__ import annotations

import numpy as np

from locacal._validation import check_choice, check_fraction, check_int, check_positive, warn
from locacal.curves._local_fit import LocalParams, fit_points
from locacal.curves._local_window import KERNELS
from locacal.curves._locfit_tree import build_tree
from locacal.data.sample import SortedSample, sort_sample

__all__ = ["EVALUATIONS", "MAX_MAXK", "check_maxk", "estimate_sorted", "local_estimate",
           "local_params", "warn_undefined"]

EVALUATIONS = ("exact", "locfit")
#: Largest ``maxk``: R's locfit allocates its vertex space for ``maxk`` up front (6.3 GB at
#: 1e9); 10^6 allows 5000 times the default budget of 200.
MAX_MAXK = 10**6


def check_maxk(maxk: int) -> int:
    """Validate locfit's ``maxk``: from 2 (``maxk = 1`` aborts R, and this process) to
    :data:`MAX_MAXK`."""
    return check_int(maxk, "maxk", minimum=2, maximum=MAX_MAXK,
                     why="R allocates the vertex space for maxk up front")


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
        See :class:`~locacal.curves.local.LocalRegressionCalibrator`.
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


def warn_undefined(raw: np.ndarray, consequence: str = "the estimate is NaN there",
                   remedy: str = "widen h or nn") -> None:
    """Warn about the points where a local fit is NaN: no observation with positive weight in
    the window (a fixed ``h`` narrower than the gaps between scores, or relative weights so
    small, below 1e-16 of those summed before them, that the window's weight sums to 0)."""
    missing = int(np.count_nonzero(np.isnan(raw)))
    if missing:
        warn(f"{missing} evaluation point(s) have no observation with positive weight within "
             f"the bandwidth; {consequence} ({remedy})")
