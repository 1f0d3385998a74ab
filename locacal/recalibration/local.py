"""Recalibration by local regression: the calibration curve itself is the map."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from locacal._validation import check_choice
from locacal.curves.curve import CalibrationCurve
from locacal.curves.local import EVALUATIONS, local_curve, local_params
from locacal.recalibration._base import DISPLAY_GRID, BaseRecalibrator

__all__ = ["LocalRegressionCalibrator"]

BACKENDS = ("native", "locfit")


class LocalRegressionCalibrator(BaseRecalibrator):
    r"""Local polynomial regression of the label on the score, clipped to [0, 1].

    The recalibrated score is the calibration curve :math:`\hat g(s)`, the local fit at s of
    degree 0, 1 or 2 on the nearest-neighbour fraction ``nn`` of the calibration scores, as
    the 2024 study fits it with R's
    ``locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200)``, and clipped to
    [0, 1] as the study does. The estimator is locacal's
    (:func:`locacal.curves.local.local_curve`, which reproduces locfit without R) or, with
    ``backend="locfit"``, R's locfit itself through rpy2.

    Parameters
    ----------
    degree : {0, 1, 2}, default 0
        Local polynomial degree (the slides' study uses 0, 1 and 2).
    nn : float in (0, 1], default 0.15
        Nearest-neighbour fraction: the bandwidth at t is the distance to the
        ``floor(n nn)``-th nearest calibration score.
    kernel : {"rect", "tricube", "gauss", "epan"}, default "rect"
    evaluation : {"exact", "locfit"}, default "exact"
        How the map is read at new scores.

        ``"exact"``: the local fit, computed exactly on a fine grid of the score axis (4096
        cells over the calibration scores' range for degree 0 with the rectangular kernel)
        and interpolated linearly, which makes millions of predictions cheap. The rectangular
        degree-0 map is a step function (its window changes one score at a time), so the
        interpolant can miss the exact fit by up to about one step, 1/floor(n nn), near a
        step; ``map_.error_bound`` is a rigorous bound on that error for degree 0 with the
        rectangular kernel, ``map_.error_estimate`` the largest error at the cells'
        midpoints otherwise.

        ``"locfit"``: locfit's own evaluation, an adaptive tree of vertices with cubic
        Hermite interpolation between them, which is what R's ``predict(locfit(...),
        newdata)`` returns and therefore what the 2024 study's recalibrated scores are;
        evaluated exactly.
    backend : {"native", "locfit"}, default "native"
        ``"native"``: no R needed. ``"locfit"``: R's locfit via rpy2 (``pip install
        'locacal[r]'`` and R with the locfit package); each prediction calls R again, which
        is slower, and R's locfit crashes on heavily tied scores (locacal refuses such data
        with ``LocfitCrashError`` rather than let it kill the process).

    Attributes
    ----------
    scores_, labels_ : ndarray
        Calibration data with positive weight, sorted by score.
    weights_ : ndarray or None
        Their weights (None when all are 1).
    map_ : callable
        The fitted map (native backend): ``map_(s)`` is ``predict`` without the input checks.
    weight_sum_ : float
        Total weight of the calibration data.
    curve_ : CalibrationCurve
        The fitted map on a grid of [0, 1], with its pointwise 95 % band and the number of
        observations in each neighbourhood (callable on new scores).

    Notes
    -----
    Observations of zero weight are dropped before the fit, so they do not count among the
    ``floor(n nn)`` neighbours. locfit counts *rows* for ``nn``, not weights: an integer
    weight is therefore not the same as a duplicated row here, unlike for the other
    recalibrators.

    References
    ----------
    Loader, C. (1999). *Local Regression and Likelihood*. Springer, ch. 2-3.
    Machado, Charpentier, Flachaire, Gallic, Hu (2024), slides §4 ("Local regression").

    Examples
    --------
    >>> import numpy as np
    >>> from locacal.recalibration import LocalRegressionCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000); d = rng.uniform(size=2000) < s ** 2
    >>> local = LocalRegressionCalibrator().fit(s, d)
    >>> local.predict([0.2, 0.5, 0.8]).round(2)
    array([0.06, 0.25, 0.65])
    """

    _method = "local"

    def __init__(self, degree: int = 0, nn: float = 0.15, kernel: str = "rect",
                 evaluation: str = "exact", backend: str = "native") -> None:
        self.degree = degree
        self.nn = nn
        self.kernel = kernel
        self.evaluation = evaluation
        self.backend = backend

    def _settings(self) -> dict[str, Any]:
        return {"degree": self.degree, "nn": self.nn, "kernel": self.kernel,
                "evaluation": self.evaluation}

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        local_params(self.degree, self.nn, None, self.kernel)
        check_choice(self.evaluation, EVALUATIONS, "evaluation")
        check_choice(self.backend, BACKENDS, "backend")
        order = np.argsort(s, kind="stable")
        self.scores_, self.labels_ = s[order], y[order]
        self.weights_ = None if np.all(w == 1.0) else w[order]
        curve = self._core_curve()  # fits once: R or the native engine reports bad data here
        if self.backend == "native":
            self.map_ = curve.evaluator
            self.map_(DISPLAY_GRID[:1])  # build the prediction grid now: fit pays, pickles carry it

    def _core_curve(self) -> CalibrationCurve:
        if self.backend == "native":
            return local_curve(self.scores_, self.labels_, self.weights_, grid=DISPLAY_GRID,
                               clip=True, **self._settings())
        from locacal.curves.rlocfit import locfit_curve

        return locfit_curve(self.scores_, self.labels_, self.weights_, grid=DISPLAY_GRID,
                            clip=True, **self._settings())

    def _evaluate(self, s: np.ndarray) -> np.ndarray:
        if self.backend == "native":
            return self.map_(s)
        from locacal.curves.rlocfit import locfit_estimate

        raw = locfit_estimate(self.scores_, self.labels_, self.weights_, s, **self._settings())
        return np.clip(raw, 0.0, 1.0)

    @property
    def curve_(self) -> CalibrationCurve:
        """The fitted map as the core's local-regression :class:`CalibrationCurve` on a grid
        of [0, 1] (band and neighbourhood counts included); callable on new scores."""
        check_is_fitted(self)
        return self._core_curve()
