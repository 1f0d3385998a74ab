"""Estimators of the calibration curve g(p) = E[D | s(X) = p], one module each.

:func:`calibration_curve` validates the data once and hands it to the chosen estimator; every
estimator returns a :class:`~locacal.curves.curve.CalibrationCurve`.
"""

from __future__ import annotations

from typing import Any

from locacal._validation import check_choice, check_points, check_scores_labels
from locacal.curves.curve import CalibrationCurve

__all__ = ["METHODS", "CalibrationCurve", "calibration_curve"]

METHODS = ("local", "binning", "lowess", "kernel", "locfit")


def calibration_curve(
    scores: Any,
    labels: Any,
    *,
    method: str = "local",
    weights: Any = None,
    grid: Any = None,
    **params: Any,
) -> CalibrationCurve:
    """Estimate the calibration curve g(p) = E[D | s(X) = p] of binary-classifier scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities, in [0, 1].
    labels : array-like of shape (n,)
        Observed events, 0/1 or bool.
    method : {"local", "binning", "lowess", "kernel", "locfit"}, default "local"
        ``"local"``: native local polynomial regression (the embedded default; see
        :func:`locacal.curves.local.local_curve` for ``degree``, ``nn``, ``h``, ``kernel``,
        ``evaluation``). ``"binning"``: uniform, quantile or adaptive bins
        (:func:`locacal.curves.binning.binning_curve`: ``strategy``, ``bins``, ``bin_size``).
        ``"lowess"`` and ``"kernel"``: statsmodels' lowess and KernelReg
        (:mod:`locacal.curves.smoothers`). ``"locfit"``: R's locfit through rpy2
        (:func:`locacal.curves.rlocfit.locfit_curve`).
    weights : array-like of shape (n,), optional
        Non-negative observation weights (exposure, survey weights).
    grid : array-like, optional
        Points in [0, 1] where the curve is evaluated. By default the 2024 slides' grid: 100
        equally spaced points restricted to the observed score range (bin centres for binning).
    **params
        Options of the chosen method.

    Returns
    -------
    CalibrationCurve

    Examples
    --------
    >>> import numpy as np, locacal
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000); d = rng.uniform(size=2000) < s
    >>> curve = locacal.calibration_curve(s, d)
    >>> curve.method, len(curve)  # the 100-point grid, restricted to the score range
    ('local', 98)
    """
    check_choice(method, METHODS, "method")
    s, y, w = check_scores_labels(scores, labels, weights)
    points = None if grid is None else check_points(grid, "grid")
    if method == "local":
        from locacal.curves.local import local_curve as estimator
    elif method == "binning":
        from locacal.curves.binning import binning_curve as estimator
    elif method == "lowess":
        from locacal.curves.smoothers import lowess_curve as estimator
    elif method == "kernel":
        from locacal.curves.smoothers import kernel_curve as estimator
    else:
        from locacal.curves.rlocfit import locfit_curve as estimator
    return estimator(s, y, w, grid=points, **params)
