"""What every calibrator shares: input checks, the scikit-learn protocol, the map as a curve.

A calibration curve and a recalibration map are one object: an estimate of
g(p) = E[D | s(X) = p] fitted on (scores, labels). Every method of locacal is therefore one
class deriving from :class:`BaseCalibrator`, with scikit-learn's estimator API:

* hyperparameters only in ``__init__`` (stored as given, validated in ``fit``), fitted state
  in attributes ending in ``_`` (picklable: arrays, numbers, small dataclasses; no closures);
* ``fit(X, y, sample_weight=None)`` with ``X`` the scores, 1-D or one column;
* ``predict(X)``: the fitted map g at new scores, shape (n,), values in [0, 1];
* ``predict_proba(X)``: ``[1 - g, g]``, shape (n, 2);
* ``transform(X)``: ``predict`` shaped like the input, so a calibrator ends a Pipeline;
* ``curve(grid=None, *, band="pointwise", level=0.95, interval="wilson", n_boot=200,
  seed=None)``: the map tabulated as a :class:`~locacal.curves.curve.CalibrationCurve`, which
  keeps the fitted calibrator; bands from :mod:`locacal.curves.bands`.

A subclass implements ``_fit(s, y, w)``, ``_predict(s)`` and, optionally, ``_default_grid()``,
``_pointwise_band(grid, estimate, level, interval)`` (with ``_has_pointwise_band()`` true),
``_counts(grid)`` and ``_curve_params()`` (or ``_tabulate`` to compute estimate, band and
counts together). A subclass that can be read off mergeable cell statistics (data too large
for memory, Dask input) implements ``_fit_statistics(stats)`` too, and
:meth:`BaseCalibrator.from_statistics` sets the rest of the fitted state.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from locacal._validation import (
    CalibrationWarning,
    check_aligned,
    check_bool,
    check_labels,
    check_level,
    check_scores,
    check_seed,
    has_dask,
    plain,
    positive_weight_rows,
    public_api,
    warn,
)
from locacal.curves.bands import BANDS, DEFAULT_N_BOOT, check_band, check_interval, check_n_boot
from locacal.curves.curve import CalibrationCurve, slides_grid
from locacal.curves.simultaneous import SupTNull, check_critical, sup_band
from locacal.data.cells import ScoreStatistics
from locacal.data.frequency import bootstrap_counts, weighting

__all__ = ["BANDS", "BaseCalibrator", "resampled_band"]

#: How error messages name ``X`` and ``y``: by what they hold, the package's vocabulary.
SCORES, LABELS = "scores", "labels"
#: ``n_boot * n`` beyond which resampled bands show a progress bar.
PROGRESS_THRESHOLD = 20_000_000


def _as_scores(X: Any, name: str) -> np.ndarray:
    """Scores from what a scikit-learn user passes as ``X``, with scikit-learn's wording for
    the inputs no calibrator accepts (sparse, complex, no column), then locacal's checks."""
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # SciPy sparse matrix or array
        raise TypeError(f"{name}: sparse input is not supported; pass a dense 1-D array of "
                        "scores")
    try:
        arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    except (TypeError, ValueError):  # ragged input: check_scores says what is wrong
        return check_scores(X, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 "
                         "is required.")
    return check_scores(arr, name)


class BaseCalibrator(TransformerMixin, BaseEstimator):
    """Shared protocol of locacal's calibrators (not for direct use; see the subclasses).

    Attributes
    ----------
    n_features_in_ : int
        Always 1 (the score).
    weight_sum_ : float
        Total weight of the data the map was fitted on (n without weights).
    score_range_ : tuple of float
        Smallest and largest fitted score: the default curve grid stays within it, where the
        data are.
    fit_sample_ : tuple of ndarray, or None
        The fitted (scores, labels, weights or None), positive weights only: what the
        bootstrap and consistency bands resample (None when fitted from cell statistics,
        :meth:`from_statistics`).
    """

    #: Name of the method, as ``calibration_curve(method=...)`` and ``recalibrate`` know it.
    method: ClassVar[str] = ""
    #: Whether a fit on one class is an error (logistic fits diverge) rather than a warning.
    _needs_both_classes: ClassVar[bool] = False
    #: Whether ``fit`` takes ``frequency_weights`` (its map, bands and bootstrap then equal
    #: the expanded rows'); the others refuse them rather than count rows.
    _takes_frequency_weights: ClassVar[bool] = False

    @public_api
    def fit(self, X: Any, y: Any, sample_weight: Any = None,
            frequency_weights: Any = None) -> BaseCalibrator:
        """Fit the map g on scores ``X`` and 0/1 labels ``y``.

        pandas inputs must share one index, as for every function of locacal: rows are
        paired by position (:func:`locacal._validation.check_aligned`).

        Parameters
        ----------
        X : array-like of shape (n,) or (n, 1)
            Scores in [0, 1].
        y : array-like of shape (n,)
            Observed events, 0/1 or bool.
        sample_weight : array-like of shape (n,), optional
            Non-negative relative case weights (exposure, survey weights). Rows of weight
            zero are dropped before the fit: they are not in the sample (so they do not count
            among the nearest neighbours of ``nn`` either).
        frequency_weights : array-like of shape (n,), optional
            Non-negative whole counts: a row stands for that many identical observations
            (grouped data). The fitted map, its bands and its bootstrap equal those of the
            expanded rows (:mod:`locacal.data.frequency`), which are never built.

        Returns
        -------
        self
        """
        if has_dask(X, y, sample_weight, frequency_weights):
            raise TypeError("fit takes in-memory data (it keeps the sample); for Dask input "
                            "use calibration_curve(..., method='binning' or 'local'), whose "
                            ".estimator is fitted from cell statistics, or fit on a sample")
        self._check_flags()
        s = _as_scores(X, SCORES)
        check_aligned({SCORES: X, LABELS: y, "sample_weight": sample_weight,
                       "frequency_weights": frequency_weights})
        d = check_labels(y, s.size, LABELS)
        weights = weighting(sample_weight, frequency_weights, s.size,
                            names=("sample_weight", "frequency_weights"))
        w, counts = weights.point, weights.counts
        if counts is not None and not self._takes_frequency_weights:
            raise ValueError(f"frequency_weights are not available for {type(self).__name__} "
                             "yet (its bandwidth counts rows); use LocalRegressionCalibrator, "
                             "LowessCalibrator, BinningCalibrator, PlattCalibrator, "
                             "BetaCalibrator or IsotonicCalibrator, or expand the rows")
        s, d, w, counts = positive_weight_rows(s, d, w, counts)
        present = d
        if (s.size if counts is None else counts.sum()) < 2:
            raise ValueError("a calibration map needs at least 2 observations with positive "
                             f"weight, got n_samples = {present.size}"
                             + ("" if counts is None else f" ({int(counts.sum())} "
                                "observations)"))
        if present.min() == present.max():
            message = (f"{LABELS} hold a single class ({int(present[0])}): the map can only "
                       "be the constant event rate")
            if self._needs_both_classes:
                raise ValueError(f"{message}; {type(self).__name__} needs both classes")
            warn(message)
        self.frequency_weights_ = counts
        self._fit(s, d, w)
        self.n_features_in_ = 1
        self.weight_sum_ = float(s.size if w is None else w.sum())
        self.score_range_ = (float(s.min()), float(s.max()))
        self.fit_sample_ = (s, d, w)
        return self

    @classmethod
    def from_statistics(cls, stats: ScoreStatistics, **params: Any) -> BaseCalibrator:
        """A calibrator with hyperparameters ``params`` fitted from cell statistics.

        The cells (:class:`locacal.data.cells.ScoreStatistics`, per-cell sums of a sample of
        any size, e.g. :func:`locacal.data.dask.statistics` of Dask input) replace the rows:
        the subclass's ``_fit_statistics(stats)`` sets its own fitted state, this method the
        attributes :meth:`fit` sets (``weight_sum_`` the total weight, ``score_range_`` the
        smallest and largest score of positive weight, ``fit_sample_`` None: no row is kept,
        so the bootstrap and consistency bands are unavailable). Binning (quantile or uniform
        bins) and local regression (degree 0/1, rect/tricube kernel) can be read off cells.
        """
        calibrator = cls(**params)
        calibrator._check_statistics()
        calibrator._fit_statistics(stats)
        calibrator.n_features_in_ = 1
        calibrator.weight_sum_ = stats.total_weight
        calibrator.score_range_ = (stats.min_score, stats.max_score)
        calibrator.fit_sample_ = None
        calibrator.frequency_weights_ = None
        return calibrator

    @public_api
    def predict(self, X: Any) -> np.ndarray:
        """Calibrated probabilities g(s) at the scores ``X`` (1-D or one column), shape (n,).

        A Dask array, Series or one-column DataFrame gives a lazy Dask array: the exact
        in-memory ``predict`` mapped over its blocks (each block validated), nothing computed
        until asked (:func:`locacal.data.dask.lazy_predict`)."""
        check_is_fitted(self)
        if has_dask(X):
            from locacal.data.dask import lazy_predict

            return lazy_predict(self._predict, X, SCORES)
        return self._predict(_as_scores(X, SCORES))

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[1 - g(s), g(s)]`` for each score: shape (n, 2), columns for classes 0 and 1
        (a lazy Dask array for Dask input)."""
        g = self.predict(X)
        if has_dask(g):
            from locacal.data.dask import lazy_proba

            return lazy_proba(g)
        return np.column_stack([1.0 - g, g])

    def transform(self, X: Any) -> np.ndarray:
        """``predict`` shaped like the input: 1-D for 1-D input, (n, 1) for a column."""
        out = self.predict(X)
        return out.reshape(-1, 1) if np.ndim(X) == 2 else out

    @public_api
    def curve(self, grid: Any = None, *, band: str | None = "pointwise",
              level: float = 0.95, interval: str = "wilson", n_boot: int = DEFAULT_N_BOOT,
              seed: Any = None, critical: str = "bootstrap") -> CalibrationCurve:
        """The fitted map tabulated on ``grid`` as a :class:`CalibrationCurve`.

        Parameters
        ----------
        grid : array-like of points in [0, 1], optional
            Default: the method's own grid (100 equally spaced points of [0, 1] within the
            fitted scores' range, the 2024 slides' grid; bin centres for binning).
        band : {"pointwise", "bootstrap", "consistency", "simultaneous", None}, default \
"pointwise"
            ``"pointwise"``: the method's analytic pointwise band (binomial interval at the
            smoother's effective size, or the delta method for logistic maps), the bootstrap
            band where it has none (isotonic; lowess with ``it > 0``); ``"bootstrap"``:
            percentile band of refits on resampled rows; ``"consistency"``: where the curve
            of a calibrated model with these scores would lie; ``"simultaneous"``: a band
            holding the map at all grid points jointly (sup-t band of the smoothers on the
            5-95 % score quantiles, Šidák over bins, Scheffé for Platt and beta, for
            isotonic regression the monotone window band of Dimitriadis et al. 2023 at a
            bootstrap-calibrated level (:mod:`locacal.curves.calibrated_monotone`), or
            their honest band with ``simultaneous="honest"``
            (:mod:`locacal.curves.monotone`); not available for lowess with ``it > 0``,
            :mod:`locacal.curves.simultaneous`); None: no band (NaN). Details and references
            in :mod:`locacal.curves.bands`.
        level : float in (0, 1), default 0.95
            Confidence level of the band.
        interval : {"wilson", "jeffreys", "clopper-pearson", "normal"}, default "wilson"
            Binomial interval of the linear smoothers' pointwise band (local, lowess,
            kernel, binning) and of the local likelihood's (``family="binomial"``);
            statsmodels' ``proportion_confint``.
        n_boot : int, default 200
            Resamples of the bootstrap and consistency bands, from 10 to 10^6
            (:data:`locacal._validation.MAX_RESAMPLES`).
        seed : int, Generator or None
            Seed of those resamples (anything :func:`numpy.random.default_rng` takes), of
            the multiplier draws of ``critical="bootstrap"`` and of the parametric draws of
            the isotonic simultaneous band (0 when None for those two).
        critical : {"bootstrap", "tube"}, default "bootstrap"
            Critical value of the smoothers' simultaneous band: the quantile of
            :data:`~locacal.curves.simultaneous.DRAWS` Bernoulli multiplier draws of the
            studentized sup (seeded by ``seed``, 0 when None), or the volume-of-tube formula
            (Sun & Loader 1994; Gaussian, smaller at small n).

        Returns
        -------
        CalibrationCurve
            Holds this fitted calibrator as ``estimator``; calling the curve on new scores is
            ``estimator.predict``. Grid points outside the fitted scores' range are marked
            (``in_range`` False): their estimate is the map extrapolated and their band NaN.
        """
        check_is_fitted(self)
        band = check_band(band)
        level = check_level(level)
        interval = check_interval(interval)
        n_boot = check_n_boot(n_boot)
        seed = check_seed(seed)
        critical = check_critical(critical)
        points = self._default_grid() if grid is None else check_scores(grid, "grid")
        if band == "pointwise" and not self._has_pointwise_band():
            band = "bootstrap"
        analytic = band if band == "pointwise" else None
        estimate, lower, upper, counts = self._tabulate(points, analytic, level, interval)
        if band in ("bootstrap", "consistency"):
            if self.fit_sample_ is None:
                raise ValueError(f"band={plain(band)!r} resamples rows, and this calibrator was "
                                 "fitted from cell statistics (Dask input), which keep none; "
                                 "use band='pointwise' or None")
            lower, upper = resampled_band(self, points, band, level, n_boot, seed)
        elif band == "simultaneous":
            lower, upper = self._simultaneous_band(points, estimate, level, interval,
                                                   critical, seed)
        lo, hi = self.score_range_
        in_range = (points >= lo) & (points <= hi)
        # no band where there are no data: the estimate there is the map extrapolated
        lower = np.where(in_range, lower, np.nan)
        upper = np.where(in_range, upper, np.nan)
        return CalibrationCurve(grid=points, estimate=estimate, lower=lower, upper=upper,
                                counts=counts, method=self.method,
                                params=self._curve_params(), estimator=self,
                                in_range=in_range)

    def _check_flags(self) -> None:
        """Every hyperparameter whose default is True or False (``clip``, ``logit``) must be
        True or False: a truthy "yes" or 1 is refused, not read."""
        defaults = inspect.signature(type(self).__init__).parameters
        for name, value in self.get_params(deep=False).items():
            if name in defaults and isinstance(defaults[name].default, bool):
                check_bool(value, name)

    # -- hooks -----------------------------------------------------------------------------

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        raise NotImplementedError

    def _predict(self, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _check_statistics(self) -> None:
        """Refuse, before any pass over the data, hyperparameters the cells cannot serve
        (:meth:`from_statistics` calls it, and ``calibration_curve`` before reducing Dask
        input)."""

    def _fit_statistics(self, stats: ScoreStatistics) -> None:
        """Set the subclass's fitted state from the cells (:meth:`from_statistics`); the
        calibrators whose map the cells do not determine refuse."""
        raise TypeError(f"{type(self).__name__} cannot be fitted from cell statistics; "
                        "BinningCalibrator and LocalRegressionCalibrator can")

    def _tabulate(self, grid: np.ndarray, band: str | None, level: float,
                  interval: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Estimate, band and counts at the grid (override to share work between them);
        ``band`` is "pointwise" or None (resampled bands are the base class's)."""
        estimate = self._predict(grid)
        nan = np.full(grid.shape, np.nan)
        lower, upper = nan, nan
        if band == "pointwise":
            lower, upper = self._pointwise_band(grid, estimate, level, interval)
        return estimate, lower, upper, self._counts(grid)

    def _default_grid(self) -> np.ndarray:
        lo, hi = self.score_range_
        return slides_grid(np.array([lo, hi]))

    def _resampled_draws(self, grid: np.ndarray, kind: str, n_boot: int,
                         rng: np.random.Generator) -> np.ndarray | None:
        """The resampled maps of a bootstrap/consistency band at ``grid``, (n_boot, m), when
        the calibrator computes them faster than ``n_boot`` refits; None: refit clones."""
        return None

    def _has_pointwise_band(self) -> bool:
        """Whether ``_pointwise_band`` is analytic; if not, "pointwise" means bootstrap."""
        return False

    def _pointwise_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                        interval: str) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _simultaneous_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                           interval: str, critical: str,
                           seed: Any) -> tuple[np.ndarray, np.ndarray]:
        """The simultaneous band (:mod:`locacal.curves.simultaneous`): by default the sup-t
        band of a linear smoother from :meth:`_sup_null`."""
        return sup_band(estimate, self._sup_null(grid, critical, seed), level)

    def _sup_null(self, grid: np.ndarray, critical: str, seed: Any) -> SupTNull:
        """The sup-t law of a linear smoother's band at ``grid``; the others refuse."""
        raise ValueError(f"band='simultaneous' is not available for method={self.method!r}"
                         f"{self._no_simultaneous_reason()}")

    def _no_simultaneous_reason(self) -> str:
        return ""

    def _counts(self, grid: np.ndarray) -> np.ndarray:
        """Weight behind the map at each grid point: all of it for a global fit."""
        return np.full(grid.shape, self.weight_sum_)

    def _curve_params(self) -> Mapping[str, Any]:
        return self.get_params(deep=False)


def resampled_band(calibrator: BaseCalibrator, grid: np.ndarray, kind: str, level: float,
                   n_boot: int, seed: Any) -> tuple[np.ndarray, np.ndarray]:
    """Percentile band of refitted maps at ``grid`` (``kind`` "bootstrap" or "consistency").

    See :mod:`locacal.curves.bands`. ``seed``: anything :func:`numpy.random.default_rng`
    takes.
    """
    rng = np.random.default_rng(seed)
    draws = calibrator._resampled_draws(grid, kind, n_boot, rng)
    if draws is None:
        draws = _refitted_draws(calibrator, grid, kind, n_boot, rng)
    alpha = 1.0 - level
    lower, upper = np.full((2, grid.size), np.nan)
    defined = ~np.isnan(draws).all(axis=0)
    if not defined.all():
        warn(f"no {kind} resample gives a map at {int((~defined).sum())} of the {grid.size} "
             "grid points (every refit failed or was undefined there): the band is NaN there")
    if defined.any():
        lower[defined], upper[defined] = np.nanquantile(
            draws[:, defined], [alpha / 2, 1 - alpha / 2], axis=0)
    return lower, upper


def _refitted_draws(calibrator: BaseCalibrator, grid: np.ndarray, kind: str, n_boot: int,
                    rng: np.random.Generator) -> np.ndarray:
    """The maps of ``n_boot`` clones refitted on resampled rows, at ``grid``: (n_boot, m)."""
    s, y, w = calibrator.fit_sample_
    counts = getattr(calibrator, "frequency_weights_", None)
    if counts is not None:
        return _refitted_draws_counts(calibrator, grid, kind, n_boot, rng)
    n = s.size
    draws = np.full((n_boot, grid.size), np.nan)
    failed = 0
    with warnings.catch_warnings():
        # resamples repeat the fit's own warnings (small bins, ties) n_boot times
        warnings.simplefilter("ignore", CalibrationWarning)
        for b in _progress(range(n_boot), n_boot * n, kind):
            rows = rng.integers(0, n, size=n)
            s_b = s[rows]
            y_b = (rng.uniform(size=n) < s_b).astype(np.float64) if kind == "consistency" \
                else y[rows]
            w_b = None if w is None else w[rows]
            try:
                draws[b] = clone(calibrator).fit(s_b, y_b, sample_weight=w_b).predict(grid)
            except ValueError:  # e.g. a logistic fit on a one-class resample
                failed += 1
    if failed:
        warn(f"{failed} of {n_boot} {kind} refits failed (e.g. a resample holding one class) "
             "and were left out of the band")
    return draws


def _refitted_draws_counts(calibrator: BaseCalibrator, grid: np.ndarray, kind: str,
                           n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`_refitted_draws` with frequency weights: each resample draws the observations
    (multinomial counts per row, :func:`~locacal.data.frequency.bootstrap_counts`); for the
    consistency band the copies of a row drawn m times hold Binomial(m, s) events, split into
    an event row and a non-event row with those counts."""
    s, y, w = calibrator.fit_sample_
    counts = calibrator.frequency_weights_
    relative = w / counts
    draws = np.full((n_boot, grid.size), np.nan)
    failed = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b in range(n_boot):
            drawn = bootstrap_counts(rng, counts, s.size, 1)[0].astype(np.float64)
            if kind == "consistency":
                events = rng.binomial(drawn.astype(np.int64), s).astype(np.float64)
                s_b, w_b = np.concatenate([s, s]), np.concatenate([relative, relative])
                y_b = np.concatenate([np.ones_like(s), np.zeros_like(s)])
                f_b = np.concatenate([events, drawn - events])
            else:
                s_b, y_b, w_b, f_b = s, y, relative, drawn
            try:
                draws[b] = clone(calibrator).fit(s_b, y_b, sample_weight=w_b,
                                                 frequency_weights=f_b).predict(grid)
            except ValueError:
                failed += 1
    if failed:
        warn(f"{failed} of {n_boot} {kind} refits failed (e.g. a resample holding one class) "
             "and were left out of the band")
    return draws


def _progress(iterable: Any, work: int, kind: str) -> Any:
    if work <= PROGRESS_THRESHOLD:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=f"{kind} band", unit="refit")
