"""Calibration curve by LOWESS (Cleveland 1979): :class:`LowessCalibrator`."""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import check_fraction, check_int, check_positive, plain
from locacal.curves._base import BaseCalibrator
from locacal.curves._robust_lowess import grouped_robust_lowess
from locacal.curves.local import tabulate_local_fit
from locacal.curves.simultaneous import SupTNull, linear_smoother_null, local_fit_rows
from locacal.data.sample import sort_sample
from locacal.localfit import LocalParams, fit, warn_if_widened, warn_undefined

__all__ = ["LowessCalibrator"]

#: Most robustness iterations: each one is a full refit (O(n^2 frac) in statsmodels), and
#: Cleveland (1979, §3) found two enough; R's lowess does three.
MAX_ITERATIONS = 100


class LowessCalibrator(BaseCalibrator):
    """LOWESS: local linear regression with tricube weights on the ``frac`` nearest scores.

    Without robustness iterations this is the local fit of degree 1 with the tricube kernel
    and ``nn = frac`` (Cleveland 1979, eq. 2.1-2.2, the same estimator as
    :class:`~locacal.curves.local.LocalRegressionCalibrator` with those settings), computed
    by locacal's exact engine: it equals statsmodels' ``lowess(y, s, frac, it=0,
    xvals=...)`` to 1e-12 (tested), takes case weights, and is defined on degenerate input
    (all scores tied: the mean label). Robustness iterations (``it > 0``) or ``delta > 0``
    are statsmodels' algorithm and are computed by statsmodels (no case weights then).
    With ``frequency_weights`` and ``it > 0`` (``delta = 0``) statsmodels' algorithm runs on
    the grouped rows (:mod:`locacal.curves._robust_lowess`): a row's copies share its fit,
    residual and robustness weight, the window holds the copies among the k nearest
    observations, and the 6 MAD scale is the median absolute residual weighted by the
    counts; the map equals statsmodels' on the expanded rows (tested to 1e-10, measured
    2e-13). Where over half the observations sit in windows of one label (small ``frac``,
    separated classes) that median is rounding noise, and so are the robustness weights of
    statsmodels' own call. ``delta > 0`` with counts is refused: statsmodels' interpolation
    skips and copies the expanded observations one by one.

    Parameters
    ----------
    frac : float in (0, 1], default 0.15
        Share of the data in each local fit (the LCS's neighbourhood size; statsmodels' own
        default is 2/3).
    it : int, default 0
        Robustness iterations, from 0 to 100. **Off by default**: they down-weight large
        residuals, and with 0/1 outcomes those are the minority class's, so robust iterations
        pull the curve towards the majority class and bias g. statsmodels' default (3) is
        meant for continuous outcomes with outliers.
    delta : float >= 0, default 0
        statsmodels' speed-up (Cleveland 1979, §4): local fits only at scores at least
        ``delta`` apart, linear interpolation in between; 0 is exact. statsmodels computes
        this only at the data, so with ``delta > 0`` the map is that fit at the fitted
        scores, interpolated linearly between them and constant beyond the smallest and
        the largest.
    clip : bool, default True
        Clip the map to [0, 1].

    Notes
    -----
    The pointwise band of :meth:`curve` is that of the local fit (see
    :class:`~locacal.curves.local.LocalRegressionCalibrator`); with ``it > 0`` (not a
    linear smoother) it is the bootstrap band.

    References
    ----------
    Cleveland, W. S. (1979). Robust locally weighted regression and smoothing scatterplots.
    JASA 74, 829-836.
    """

    method = "lowess"

    def __init__(self, frac: float = 0.15, it: int = 0, delta: float = 0.0,
                 clip: bool = True) -> None:
        self.frac = frac
        self.it = it
        self.delta = delta
        self.clip = clip

    _takes_frequency_weights = True

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        frac = check_fraction(self.frac, "frac")
        it = check_int(self.it, "it", minimum=0, maximum=MAX_ITERATIONS,
                       why="each iteration refits the whole curve; Cleveland (1979) uses 2")
        delta = 0.0 if self.delta == 0 else check_positive(self.delta, "delta")
        self.statsmodels_ = it > 0 or delta > 0
        counts = self.frequency_weights_
        if delta > 0 and counts is not None:
            raise ValueError("delta: delta > 0 is statsmodels' interpolation between fits "
                             "at the sorted expanded scores, which skips and copies tied "
                             "observations one by one; with frequency_weights use delta=0 "
                             f"(got delta={plain(self.delta)!r})")
        if it > 0 and counts is not None and w is not None and not np.array_equal(w, counts):
            raise ValueError("it: robustness iterations are statsmodels' lowess, which takes "
                             "no case weights; with frequency_weights give no sample_weight, "
                             "or use it=0")
        if self.statsmodels_ and counts is None and w is not None:
            raise ValueError("it: robustness iterations (and delta > 0) are statsmodels' "
                             "lowess, which takes no weights; use it=0, delta=0 with weights")
        self.sample_ = sort_sample(s, y, w, counts)
        if not self.statsmodels_:  # the native engine's neighbourhood, raised to 1 if empty
            warn_if_widened(self.sample_.observations, frac, None, "frac")
        self.params_ = LocalParams(degree=1, nn=frac, h=None, kernel="tricube")
        self.structures_: dict = {}  # what localfit.fit prepares for many new scores
        self.knots_ = _fit_at_scores(self.sample_.scores, self.sample_.labels, frac, it,
                                     delta) if delta > 0 else None

    def _raw(self, s: np.ndarray) -> np.ndarray:
        if not self.statsmodels_:
            return fit(self.sample_, s, self.params_, many_points=True,
                       cache=self.structures_).value
        sample = self.sample_
        if self.knots_ is not None:
            raw = np.interp(s, *self.knots_)
        elif sample.counts is not None:  # statsmodels' algorithm on the grouped rows
            raw = grouped_robust_lowess(sample.scores, sample.labels, sample.counts,
                                        self.frac, self.it, s)
        else:  # statsmodels slides its window rightwards only: give it sorted points
            order = np.argsort(s, kind="stable")
            raw = np.empty(s.shape)
            raw[order] = _statsmodels_lowess(sample.scores, sample.labels, self.frac,
                                             self.it, xvals=s[order])
        # statsmodels gives NaN where every neighbour's (robustness x tricube) weight is 0
        warn_undefined(raw, "statsmodels' lowess is NaN there", "widen frac")
        return raw

    def _predict(self, s: np.ndarray) -> np.ndarray:
        raw = self._raw(s)
        return np.clip(raw, 0.0, 1.0) if self.clip else raw

    def _has_pointwise_band(self) -> bool:
        return not self.statsmodels_

    def _tabulate(self, grid: np.ndarray, band: str | None, level: float,
                  interval: str) -> tuple[np.ndarray, ...]:
        if self.statsmodels_:
            return super()._tabulate(grid, None, level, interval)
        fits = fit(self.sample_, grid, self.params_, outputs=("value", "var_factor", "count"))
        return tabulate_local_fit(fits, grid, band, level, clip=self.clip, interval=interval)

    def _sup_null(self, grid: np.ndarray, critical: str, seed: Any) -> SupTNull:
        """The sup-t law of the simultaneous band: the local fit's smoother weights."""
        if self.statsmodels_:
            return super()._sup_null(grid, critical, seed)
        sample = self.sample_
        return linear_smoother_null(local_fit_rows(sample, self.params_), sample.scores,
                                    lambda: self._predict(sample.scores), self._predict(grid),
                                    grid, critical, seed)

    def _no_simultaneous_reason(self) -> str:
        return (" with robustness iterations or delta > 0 (not a linear smoother); use it=0, "
                "delta=0")

    def _curve_params(self) -> dict[str, Any]:
        return {"frac": self.frac, "it": self.it, "delta": self.delta}


def _statsmodels_lowess(scores: np.ndarray, labels: np.ndarray, frac: float, it: int, *,
                        delta: float = 0.0, xvals: np.ndarray | None = None) -> np.ndarray:
    """statsmodels' lowess of ``labels`` on sorted ``scores``: at ``xvals``, or at the scores
    (in their order) without."""
    import statsmodels.api as sm

    # statsmodels divides 0 / 0 where a window's weights all vanish; the caller reports NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        return sm.nonparametric.lowess(labels.astype(np.float64), scores, frac=frac, it=it,
                                       delta=delta, xvals=xvals, is_sorted=True,
                                       return_sorted=False)


def _fit_at_scores(scores: np.ndarray, labels: np.ndarray, frac: float, it: int,
                   delta: float) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' lowess with ``delta`` at the sorted ``scores``, as (distinct scores, fitted
    value at each): the knots of the linear interpolation that evaluates it elsewhere
    (statsmodels refuses ``delta`` together with ``xvals``)."""
    fitted = _statsmodels_lowess(scores, labels, frac, it, delta=delta)
    knots, first = np.unique(scores, return_index=True)
    return knots, fitted[first]
