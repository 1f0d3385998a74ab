"""Isotonic recalibration: pool-adjacent-violators, read off as R's step function."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.isotonic import IsotonicRegression, isotonic_regression

from locacal._validation import check_choice
from locacal.curves._base import BaseCalibrator
from locacal.curves.calibrated_monotone import calibrated_monotone_band
from locacal.curves.monotone import monotone_band
from locacal.curves.simultaneous import band_range
from locacal.data.sample import SortedSample, sort_sample

__all__ = ["IsotonicCalibrator"]

INTERPOLATIONS = ("step", "linear")
#: The simultaneous bands: the calibrated-level band (default) and the honest band.
SIMULTANEOUS = ("calibrated", "honest")
#: scikit-learn's ``_make_unique`` pools sorted scores closer than this to the first of
#: their group (``np.finfo(np.float64).resolution``).
_SKLEARN_TIE = 1e-15


class IsotonicCalibrator(BaseCalibrator):
    r"""Isotonic regression of the label on the score (pool-adjacent-violators, with weights).

    The fit solves

    .. math:: \min_{g \text{ non-decreasing}} \sum_i w_i \{d_i - g(s_i)\}^2,

    whose solution is constant on blocks of consecutive sorted scores; tied scores always fall in
    one block (their labels are pooled first). The pool-adjacent-violators pass is
    scikit-learn's :func:`sklearn.isotonic.isotonic_regression`.

    Parameters
    ----------
    interpolation : {"step", "linear"}, default "step"
        How the map is read between fitted scores.

        ``"step"`` (the 2024 study's ``as.stepfun(isoreg(scores, d))`` in R): the map is
        right-continuous-from-the-left, i.e. its intervals are closed on the right. Writing
        :math:`t_1 < \dots < t_K` for the largest score of each block and :math:`v_k` for the
        block values, :math:`g(s) = v_k` for :math:`t_{k-1} < s \le t_k`, :math:`g(s) = v_1`
        for :math:`s \le t_1` and :math:`g(s) = v_K` for :math:`s > t_K`: a score between two
        blocks takes the value of the higher block.

        ``"linear"`` (scikit-learn's ``IsotonicRegression``): linear interpolation between the
        first and last fitted score of each block.

        Both are constant outside the range of the calibration scores.
    simultaneous : {"calibrated", "honest"}, default "calibrated"
        Which band ``curve(band="simultaneous")`` draws (both assume a non-decreasing g,
        both are reported on the grid points between the 5 % and 95 % score quantiles):

        ``"calibrated"``: the monotone window band at a per-window level calibrated by a
        parametric bootstrap so that it holds g jointly in about ``level`` of samples
        (:mod:`locacal.curves.calibrated_monotone`; seeded by the curve's ``seed``, 0 when
        None). Measured joint coverage at 95 % on six monotone DGPs: 0.95-0.98 at
        n = 2000 and 0.93-0.99 at n = 20000 (100 samples each; pooled 0.965 and 0.958),
        widths 0.24-0.27 and 0.12-0.14 (``benchmarks/coverage_simultaneous.py``).

        ``"honest"``: the band of Dimitriadis, Dümbgen, Henzi, Puke & Ziegel (2023), with a
        finite-sample guarantee of at least ``level`` for every n, conservative (it covered
        in every sample of the coverage study, about a third wider at 95 %;
        :mod:`locacal.curves.monotone`).

    Attributes
    ----------
    thresholds_ : ndarray
        Fitted scores that carry the map: the first and last distinct score of each block,
        increasing.
    values_ : ndarray
        Map value at each threshold (non-decreasing).
    knots_ : ndarray
        Largest score of each block (R's ``knots(as.stepfun(isoreg(...)))`` up to blocks of
        equal value, which R keeps apart and which give the same function).
    block_values_ : ndarray
        Value of each block.
    block_weights_ : ndarray
        Total weight of each block.
    weight_sum_ : float
        Total weight of the calibration data.

    Notes
    -----
    Isotonic regression has no analytic pointwise band (the estimator converges at rate
    n^(1/3) to Chernoff's distribution): ``curve(band="pointwise")`` gives the bootstrap
    band, a rough guide since the bootstrap is not consistent here (Kosorok 2008;
    :mod:`locacal.curves.bands`); ``band="consistency"`` is the reliability diagram's
    consistency band (Dimitriadis, Gneiting & Jordan 2021). ``band="simultaneous"`` is built
    from one-sided Clopper-Pearson bounds over windows of consecutive scores, carried by
    monotonicity beyond each window (Dimitriadis, Dümbgen, Henzi, Puke & Ziegel 2023): by
    default at a per-window level calibrated by a parametric bootstrap, so that it holds g
    jointly in about ``level`` of samples (``simultaneous="calibrated"``,
    :mod:`locacal.curves.calibrated_monotone`), or at the union-bound level of the paper,
    which guarantees at least ``level`` for every n and is conservative
    (``simultaneous="honest"``, :mod:`locacal.curves.monotone`). As for the other methods'
    simultaneous bands, it is reported on the grid points between the 5 % and 95 % score
    quantiles (NaN elsewhere; :func:`locacal.curves.monotone.monotone_band` gives the
    honest band on [0, 1]) and widened where needed to hold the estimate. It takes
    frequency weights (counts) but not relative weights.

    References
    ----------
    Zadrozny, B. and Elkan, C. (2002). Transforming classifier scores into accurate multiclass
    probability estimates. *KDD 2002*. Barlow, Bartholomew, Bremner and Brunk (1972),
    *Statistical inference under order restrictions*. Machado, Charpentier, Flachaire, Gallic,
    Hu (2024), slides §4 (isotonic regression).

    Examples
    --------
    >>> from locacal import IsotonicCalibrator
    >>> iso = IsotonicCalibrator().fit([0.1, 0.3, 0.3, 0.5, 0.7, 0.7, 0.9],
    ...                                [0, 1, 0, 1, 1, 1, 0])
    >>> iso.block_values_
    array([0.  , 0.5 , 0.75])
    >>> iso.predict([0.05, 0.2, 0.3, 0.31, 1.0])
    array([0.  , 0.5 , 0.5 , 0.75, 0.75])
    """

    method = "isotonic"

    def __init__(self, interpolation: str = "step", simultaneous: str = "calibrated") -> None:
        self.interpolation = interpolation
        self.simultaneous = simultaneous

    _takes_frequency_weights = True

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        check_choice(self.interpolation, INTERPOLATIONS, "interpolation")
        check_choice(self.simultaneous, SIMULTANEOUS, "simultaneous")
        sample = sort_sample(s, y, w)
        fitted = _thresholds(sample)
        if fitted is None:  # scores closer than scikit-learn's tie tolerance: its own fit
            iso = IsotonicRegression(increasing=True, out_of_bounds="clip")
            iso.fit(s, y, sample_weight=w)
            fitted = iso.X_thresholds_, iso.y_thresholds_
        x, v = fitted
        # A block ends where the next threshold has a different value (and at the last one).
        ends = np.append(v[1:] != v[:-1], True)
        self.thresholds_ = x
        self.values_ = v
        self.knots_ = x[ends]
        self.block_values_ = v[ends]
        # block b holds the scores in (knot b-1, knot b]: a run of the sorted scores
        last = np.searchsorted(sample.scores, self.knots_, side="right")
        if w is None:
            self.block_weights_ = np.diff(last, prepend=0)
        else:
            filled = np.diff(last, prepend=0) > 0
            starts = np.append(0, last[:-1])
            sums = np.add.reduceat(sample.weights, np.minimum(starts, sample.n - 1))
            self.block_weights_ = np.where(filled, sums, 0.0)

    def _block_index(self, s: np.ndarray) -> np.ndarray:
        """Index of the block whose value R's step function gives at ``s``."""
        idx = np.searchsorted(self.knots_, s, side="left")
        return np.minimum(idx, self.knots_.size - 1)

    def _predict(self, s: np.ndarray) -> np.ndarray:
        if self.interpolation == "linear":
            return np.interp(s, self.thresholds_, self.values_)
        return self.block_values_[self._block_index(s)]

    def _with_steps(self, grid: np.ndarray) -> np.ndarray:
        """``grid`` plus each knot and the next float above it (vertical steps in a plot)."""
        return np.unique(np.concatenate([grid, self.knots_,
                                         np.nextafter(self.knots_[:-1], 2.0)]))

    def _default_grid(self) -> np.ndarray:
        return self._with_steps(super()._default_grid())

    def _counts(self, grid: np.ndarray) -> np.ndarray:
        return self.block_weights_[self._block_index(grid)]

    def _simultaneous_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                           interval: str, critical: str,
                           seed: Any) -> tuple[np.ndarray, np.ndarray]:
        """The band of a non-decreasing g chosen by ``simultaneous`` (the calibrated-level
        band, :mod:`locacal.curves.calibrated_monotone`, its draws seeded by ``seed``, 0
        when None; or the honest band of Dimitriadis et al. 2023,
        :mod:`locacal.curves.monotone`, which ignores ``seed``) at the grid points within
        the 5-95 % score quantiles (:data:`locacal.curves.simultaneous.RANGE`), NaN
        elsewhere, widened to hold the estimate (``calibrationband``'s ``nc=TRUE``:
        widening keeps the honest band's guarantee). ``critical`` plays no part."""
        s, y, w = self.fit_sample_
        counts = self.frequency_weights_
        relative = w if counts is None else (None if w is None else w / counts)
        if relative is not None and np.ptp(relative) > 0:
            raise ValueError("band='simultaneous' for method='isotonic' takes no relative "
                             "weights (weights= / sample_weight=): its Clopper-Pearson "
                             "bounds count observations, and weighted labels have no "
                             "binomial law; drop the weights, give counts as "
                             "frequency_weights=, or use method='local'")
        if self.simultaneous == "honest":
            band = monotone_band(s, y, level, counts)
        else:
            band = calibrated_monotone_band(s, y, level, counts, seed=seed, points=grid)
        lower, upper = band(grid)
        lo, hi = band_range(s, counts)
        inside = (grid >= lo) & (grid <= hi)
        centre = np.clip(estimate, 0.0, 1.0)
        lower = np.where(inside, np.minimum(lower, centre), np.nan)
        upper = np.where(inside, np.maximum(upper, centre), np.nan)
        return lower, upper

    def _curve_params(self) -> Mapping[str, Any]:
        return {"interpolation": self.interpolation, "simultaneous": self.simultaneous,
                "blocks": int(self.knots_.size)}


def _thresholds(sample: SortedSample) -> tuple[np.ndarray, np.ndarray] | None:
    """``IsotonicRegression(increasing=True).fit(...)``'s ``X_thresholds_`` and
    ``y_thresholds_`` from the sorted sample, without its ``lexsort``.

    As scikit-learn does: the labels of tied scores are pooled (weighted mean, weight the
    group's total), pool-adjacent-violators runs on the distinct scores
    (:func:`sklearn.isotonic.isotonic_regression`, SciPy's PAVA), and the interior points
    whose value equals both neighbours' are dropped. scikit-learn pools scores within
    :data:`_SKLEARN_TIE` of each other, not only equal ones; when two distinct scores are
    that close this returns None (the caller runs scikit-learn itself). Unweighted, the pooled
    means are ratios of the same integers as scikit-learn's, so the result is identical;
    weighted sums are added in another order (equal to rounding).
    """
    xs = sample.scores
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    if starts.size > 1 and np.min(xs[starts[1:]] - xs[starts[:-1]]) < _SKLEARN_TIE:
        return None
    if sample.weights is None:
        events = np.concatenate([[0], np.cumsum(sample.labels, dtype=np.int64)])
        ends = np.append(starts[1:], sample.n)
        pooled_w = (ends - starts).astype(np.float64)
        pooled_y = (events[ends] - events[starts]) / pooled_w
    else:
        pooled_w = np.add.reduceat(sample.weights, starts)
        pooled_y = np.add.reduceat(np.where(sample.labels, sample.weights, 0.0),
                                   starts) / pooled_w
    x = xs[starts]
    v = isotonic_regression(pooled_y, sample_weight=pooled_w, increasing=True)
    keep = np.ones(v.size, dtype=bool)
    keep[1:-1] = (v[1:-1] != v[:-2]) | (v[1:-1] != v[2:])
    return x[keep], v[keep]
