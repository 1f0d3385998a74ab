"""What every recalibrator shares: input checks, the scikit-learn protocol, the map as a curve.

A recalibration map and a calibration curve are the same object: the estimate of
g(p) = E[D | s(X) = p] fitted on a calibration split. So each recalibrator stores only its fitted
parameters (picklable, ending in ``_``) and exposes

* ``predict(scores)``: g evaluated at new scores (1-D output),
* ``transform(scores)``: the same values, shaped like the input (1-D or one column), so that a
  recalibrator can sit at the end of a scikit-learn Pipeline,
* ``curve_``: the fitted map as a :class:`~locacal.curves.curve.CalibrationCurve` on a grid of
  [0, 1], to plot or tabulate, and callable on new scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from locacal._validation import check_labels, check_scores, check_weights
from locacal.curves.curve import CalibrationCurve

__all__ = ["DISPLAY_GRID", "BaseRecalibrator", "check_fit_data"]

#: Grid of [0, 1] on which ``curve_`` shows a fitted map (steps of 0.005).
DISPLAY_GRID = np.linspace(0.0, 1.0, 201)


def check_fit_data(
    scores: Any, labels: Any, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the data a recalibration map is fitted on.

    Returns ``(scores, labels, weights)`` as float64 arrays restricted to the observations with
    positive weight (unit weights when ``sample_weight`` is None). Raises ``ValueError`` when
    fewer than two observations carry weight or when they hold a single class: a map fitted on
    one class is a constant, which no recalibrator should return silently.
    """
    s = check_scores(scores, "scores")
    y = check_labels(labels, s.size, "labels")
    w = check_weights(sample_weight, s.size, "sample_weight")
    if w is None:
        w = np.ones_like(s)
    else:
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
    if s.size < 2:
        raise ValueError(
            f"a recalibration map needs at least 2 observations with positive weight, got {s.size}"
        )
    if y.min() == y.max():
        raise ValueError(
            f"labels hold a single class ({int(y[0])}); a recalibration map needs both classes "
            "in the calibration split"
        )
    return s, y, w


class BaseRecalibrator(TransformerMixin, BaseEstimator):
    """Shared scikit-learn protocol of the recalibrators (not for direct use).

    Subclasses implement ``_fit(s, y, w)`` (set the fitted attributes), ``_evaluate(s)`` (the map
    on validated scores) and ``_curve_params()`` (hyperparameters and fitted coefficients shown
    with the curve); isotonic regression also overrides ``_curve_grid`` and ``_curve_counts``,
    local regression ``curve_`` itself (the core's curve, with its band). They name themselves
    in ``_method``. ``fit`` records ``weight_sum_``, the total weight of the calibration data.
    """

    _method: str = ""

    def fit(self, scores: Any, labels: Any, sample_weight: Any = None) -> BaseRecalibrator:
        """Fit the recalibration map on a calibration split.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Uncalibrated scores, in [0, 1].
        labels : array-like of shape (n,)
            Observed events, 0/1 or bool.
        sample_weight : array-like of shape (n,), optional
            Non-negative observation weights; observations of zero weight are ignored.

        Returns
        -------
        self
        """
        s, y, w = check_fit_data(scores, labels, sample_weight)
        self._fit(s, y, w)
        self.weight_sum_ = float(w.sum())
        return self

    def predict(self, scores: Any) -> np.ndarray:
        """Recalibrated scores g(s), a 1-D array of values in [0, 1].

        ``scores`` may be 1-D or a single column; NaN or values outside [0, 1] raise
        ``ValueError``.
        """
        check_is_fitted(self)
        return self._evaluate(check_scores(scores, "scores"))

    def transform(self, scores: Any) -> np.ndarray:
        """Recalibrated scores shaped like the input: 1-D for 1-D input, (n, 1) for a column."""
        out = self.predict(scores)
        return out.reshape(-1, 1) if np.ndim(scores) == 2 else out

    @property
    def curve_(self) -> CalibrationCurve:
        """The fitted map as a :class:`~locacal.curves.curve.CalibrationCurve`.

        Evaluated on a grid of [0, 1] for display (``.plot()``, ``.to_frame()``); calling it on
        new scores gives the same values as :meth:`predict`.
        """
        check_is_fitted(self)
        grid = self._curve_grid()
        nan = np.full(grid.shape, np.nan)
        return CalibrationCurve(
            grid=grid,
            estimate=self._evaluate(grid),
            lower=nan,
            upper=nan,
            counts=self._curve_counts(grid),
            method=self._method,
            params=self._curve_params(),
            evaluator=self._evaluate,
        )

    def _curve_grid(self) -> np.ndarray:
        return DISPLAY_GRID

    def _curve_counts(self, grid: np.ndarray) -> np.ndarray:
        """Observations behind the map at each grid point: all of them for a global fit."""
        return np.full(grid.shape, self.weight_sum_)
