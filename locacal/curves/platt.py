"""Platt scaling: a logistic regression of the label on the score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.special import expit

from locacal.curves._base import BaseCalibrator
from locacal.curves._logistic import fisher_covariance, fit_logistic, logit
from locacal.curves.bands import delta_method_band
from locacal.curves.simultaneous import scheffe_band

__all__ = ["PlattCalibrator"]


class PlattCalibrator(BaseCalibrator):
    r"""Platt scaling: logistic regression of the label on the score (or on its logit).

    .. math::

        g(s) = \frac{1}{1 + \exp\{-(a\,x + b)\}}, \qquad
        x = s \ \text{or}\ x = \log\frac{s}{1-s},

    fitted by unpenalised maximum likelihood on the calibration split, as the 2024 study does with
    R's ``glm(d ~ scores, family = binomial)``.

    Parameters
    ----------
    logit : bool, default False
        Regress on logit(s) instead of s (scores are clipped to [eps, 1 - eps] first, so 0 and
        1 are allowed). The logit form contains the identity (a = 1, b = 0); it is beta
        calibration with a = b (``BetaCalibrator(parameters="am")``).

    Attributes
    ----------
    coef_ : float
        Slope a.
    intercept_ : float
        Intercept b.
    covariance_ : ndarray of shape (2, 2)
        Inverse Fisher information of (b, a): the pointwise band of :meth:`curve` is the
        delta method on the linear predictor (:mod:`locacal.curves.bands`).
    weight_sum_ : float
        Total weight of the calibration data.

    Notes
    -----
    The slides' caveat: with ``logit=False`` the identity is not in the family, so Platt scaling
    of scores that are already calibrated makes them less calibrated; the damage is largest when
    the scores spread over [0, 1] (where a logistic curve in s is far from a line) and barely
    visible when they occupy a narrow middle range, where it is nearly linear.

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines and comparisons to
    regularized likelihood methods. *Advances in Large Margin Classifiers* 10: 61-74.
    Machado, Charpentier, Flachaire, Gallic, Hu (2024), slides §4, eq. (8).

    Examples
    --------
    >>> import numpy as np
    >>> from locacal import PlattCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=1000); d = rng.uniform(size=1000) < s ** 2
    >>> platt = PlattCalibrator().fit(s, d)
    >>> platt.predict([0.2, 0.5, 0.8]).round(2)
    array([0.05, 0.26, 0.7 ])
    """

    method = "platt"
    _needs_both_classes = True

    def __init__(self, logit: bool = False) -> None:
        self.logit = logit

    def _features(self, s: np.ndarray) -> np.ndarray:
        return logit(s) if self.logit else s

    _takes_frequency_weights = True

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        w = np.ones_like(s) if w is None else w
        intercept, slope = fit_logistic(self._features(s), y, w)
        self.intercept_ = float(intercept)
        self.coef_ = float(slope)
        self.covariance_ = fisher_covariance(self._design(s), self._predict(s), w)

    def _design(self, s: np.ndarray) -> np.ndarray:
        return np.column_stack([np.ones_like(s), self._features(s)])

    def _has_pointwise_band(self) -> bool:
        return True

    def _pointwise_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                        interval: str) -> tuple[np.ndarray, np.ndarray]:
        eta = self.intercept_ + self.coef_ * self._features(grid)
        return delta_method_band(eta, self._design(grid), self.covariance_, level)

    def _predict(self, s: np.ndarray) -> np.ndarray:
        return expit(self.intercept_ + self.coef_ * self._features(s))

    def _simultaneous_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                           interval: str, critical: str,
                           seed: Any) -> tuple[np.ndarray, np.ndarray]:
        """Scheffé's band on the linear predictor, mapped by expit
        (:func:`locacal.curves.simultaneous.scheffe_band`)."""
        eta = self.intercept_ + self.coef_ * self._features(grid)
        return scheffe_band(eta, self._design(grid), self.covariance_, level)

    def _curve_params(self) -> Mapping[str, Any]:
        return {"logit": self.logit, "a": self.coef_, "b": self.intercept_}
