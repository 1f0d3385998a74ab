r"""Optimism-corrected internal validation of a classifier, as ``rms::validate`` and
``rms::calibrate`` do for R's models, for any scikit-learn classifier or pipeline.

:func:`internal_validation` refits the estimator on resamples of the development data and
reports, for the AUC, the Brier score, the calibration intercept and slope, the ICI and the
LCS, the apparent value (the fit on all rows, assessed on the same rows), the optimism and the
corrected value, with the optimism-corrected calibration curve.

References
----------
Efron, B. & Gong, G. (1983). A leisurely look at the bootstrap, the jackknife, and
cross-validation. *The American Statistician* 37(1), 36-48.
Efron, B. & Tibshirani, R. (1997). Improvements on cross-validation: the .632+ bootstrap
method. *Journal of the American Statistical Association* 92(438), 548-560.
Harrell, F. E. (2015). *Regression Modeling Strategies*, 2nd ed., Springer, §5.3.
Steyerberg, E. W. (2019). *Clinical Prediction Models*, 2nd ed., Springer, ch. 17.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    CalibrationWarning,
    check_bool,
    check_choice,
    check_int,
    check_labels,
    check_resamples,
    check_seed,
    plain,
    public_api,
    warn,
)
from locacal.curves import METHODS, calibration_curve
from locacal.metrics.classification import auc, brier_score
from locacal.metrics.clinical import calibration_errors, calibration_intercept_slope
from locacal.metrics.lcs_wmse import lcs
from locacal.studies._parallel import child_seeds, parallel_map

__all__ = ["InternalValidation", "internal_validation"]

METHODS_VALIDATION = ("bootstrap", ".632", "cv")
#: The metrics, in the order of the table.
METRICS = ("auc", "brier", "intercept", "slope", "joint_intercept", "ici", "lcs")
#: Points of the calibration curve's grid (rms::calibrate's 50).
CURVE_POINTS = 50
#: Weight of the out-of-bag estimate in Efron's .632 estimator.
W632 = 0.632


def sample_metrics(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """The validated metrics of predictions ``scores`` of events ``labels``: AUC, Brier score,
    calibration-in-the-large, calibration slope and its intercept, ICI (rms::val.prob's
    lowess) and LCS (the slides' defaults). NaN where a metric is undefined (one class,
    separation)."""
    table = calibration_intercept_slope(scores, labels)["estimate"]
    one_class = labels.min() == labels.max()
    return {
        "auc": float("nan") if one_class else auc(scores, labels),
        "brier": brier_score(scores, labels),
        "intercept": float(table["intercept"]),
        "slope": float(table["slope"]),
        "joint_intercept": float(table["joint_intercept"]),
        "ici": float(calibration_errors(scores, labels)["ici"]),
        "lcs": lcs(scores, labels),
    }


def _take(X: Any, rows: np.ndarray) -> Any:
    from sklearn.utils import _safe_indexing

    return _safe_indexing(X, rows, axis=0)


def _positive_proba(fitted: Any, X: Any) -> np.ndarray:
    """P(class 1) by ``fitted.predict_proba``: the column of class 1 in ``classes_``."""
    proba = np.asarray(fitted.predict_proba(X), dtype=np.float64)
    classes = list(getattr(fitted, "classes_", [0, 1]))
    if 1 not in classes:  # fitted on non-events only: it never predicts an event
        return np.zeros(proba.shape[0])
    return proba[:, classes.index(1)]


def _curve_at(scores: np.ndarray, labels: np.ndarray, grid: np.ndarray,
              curve_method: str) -> np.ndarray:
    return calibration_curve(scores, labels, method=curve_method)(grid)


@dataclass(frozen=True)
class _Resample:
    train: dict[str, float]
    test: dict[str, float]
    train_curve: np.ndarray
    test_curve: np.ndarray


def _one_resample(estimator: Any, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                  grid: np.ndarray, curve_method: str) -> _Resample:
    """Fit a clone of ``estimator`` on rows ``train``; its metrics and calibration curve on
    the rows ``train`` (with their repetitions) and on the rows ``test``."""
    from sklearn.base import clone

    nan_curve = np.full(grid.size, np.nan)
    nan_metrics = dict.fromkeys(METRICS, float("nan"))
    with warnings.catch_warnings():
        # one resample's separation or one-class fold is counted (column n), not shouted
        warnings.simplefilter("ignore", CalibrationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            fitted = clone(estimator).fit(_take(X, train), y[train].astype(int))
        except ValueError:  # e.g. a resample of one class
            return _Resample(nan_metrics, nan_metrics, nan_curve, nan_curve)
        out = []
        for rows in (train, test):
            p = _positive_proba(fitted, _take(X, rows))
            try:
                metrics = sample_metrics(p, y[rows])
            except ValueError:
                metrics = nan_metrics
            try:
                curve = _curve_at(p, y[rows], grid, curve_method)
            except ValueError:
                curve = nan_curve
            out.append((metrics, curve))
    return _Resample(out[0][0], out[1][0], out[0][1], out[1][1])


@dataclass(frozen=True)
class InternalValidation:
    """Result of :func:`internal_validation`.

    ``table``: one row per metric, columns ``apparent, training, test, optimism, corrected,
    n`` (n: resamples in which the metric was defined). ``curve``: the calibration curve on
    ``grid``, columns ``predicted, apparent, optimism, corrected``. ``method``,
    ``n_resamples``, ``n_obs`` and ``curve_method`` say how it was computed.
    """

    table: pd.DataFrame
    curve: pd.DataFrame
    method: str
    n_resamples: int
    n_obs: int
    curve_method: str

    def to_frame(self) -> pd.DataFrame:
        """The table: metric, apparent, training, test, optimism, corrected, n."""
        return self.table.copy()

    def curve_frame(self) -> pd.DataFrame:
        """The calibration curve: predicted, apparent, optimism, corrected."""
        return self.curve.copy()

    def plot(self, ax: Any = None) -> Any:
        """The apparent and the optimism-corrected calibration curves, on the diagonal (as
        ``plot(calibrate(...))`` in rms). Returns the Axes."""
        from locacal.plotting import new_axes, palette

        ax = new_axes(ax)
        c = self.curve
        ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1, label="ideal")
        ax.plot(c["predicted"], c["apparent"], color=palette(0), linestyle=":",
                label="apparent")
        ax.plot(c["predicted"], c["corrected"], color=palette(1),
                label=f"optimism-corrected ({self.method})")
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel="predicted probability",
               ylabel="observed frequency")
        ax.legend(frameon=False, loc="upper left")
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax), alt="corrected calibration curve")
        title = (f"Internal validation ({self.method}, {self.n_resamples} resamples, "
                 f"n = {self.n_obs})")
        return result_html(title, frame_html(self.table), figure=figure)


def _check_estimator(estimator: Any) -> None:
    if isinstance(estimator, type):
        raise TypeError(f"estimator must be an estimator instance, not the class "
                        f"{estimator.__name__}: pass {estimator.__name__}()")
    missing = [name for name in ("fit", "predict_proba", "get_params")
               if not hasattr(estimator, name)]
    if missing:
        raise TypeError(f"estimator must be a scikit-learn classifier with fit and "
                        f"predict_proba (a pipeline too); {type(estimator).__name__} has no "
                        f"{' or '.join(missing)}")


def _n_rows(X: Any) -> int:
    shape = getattr(X, "shape", None)
    if shape is None:
        if isinstance(X, str) or not isinstance(X, Sequence):
            raise TypeError(f"X must be a 2-D array-like of predictors (rows = observations), "
                            f"got {type(X).__name__}")
        X = np.asarray(X, dtype=object)
        shape = X.shape
    if len(shape) != 2:
        raise ValueError(f"X must be 2-D (rows = observations, columns = predictors), got "
                         f"shape {tuple(shape)}")
    return int(shape[0])


def _bootstrap_splits(n: int, seeds: list[np.random.SeedSequence],
                      method: str) -> list[tuple[np.ndarray, np.ndarray]]:
    everyone = np.arange(n)
    splits = []
    for child in seeds:
        train = np.random.default_rng(child).integers(0, n, n)
        test = everyone if method == "bootstrap" else np.setdiff1d(everyone, train)
        splits.append((train, test))
    return splits


def _cv_splits(y: np.ndarray, n_folds: int, seed: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedKFold

    random_state = int(np.random.default_rng(child_seeds(seed, 1)[0]).integers(2**31 - 1))
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    return list(folds.split(np.zeros((y.size, 1)), y))


def _oob_weights(n: int, splits: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    r"""rms's weights of the .632 estimator: :math:`w_b = n^{-1} \sum_{i \notin b} 1 / m_i`,
    :math:`m_i` the number of resamples that leave row i out (rows never left out are
    dropped, with a warning; rms stops)."""
    out = np.zeros((len(splits), n), dtype=bool)
    for b, (_, test) in enumerate(splits):
        out[b, test] = True
    left_out = out.sum(axis=0)
    if (left_out == 0).any():
        warn(f"{int((left_out == 0).sum())} rows are in every bootstrap sample: the .632 "
             "estimate leaves them out (increase n_boot)")
    inv = np.divide(1.0, left_out, out=np.zeros(n), where=left_out > 0)
    return (out * inv).sum(axis=1) / max(int((left_out > 0).sum()), 1)


def _weighted_mean(values: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Column means over the resamples where a value is defined, and their counts."""
    ok = np.isfinite(values)
    w = np.ones(values.shape[0]) if weights is None else weights
    ww = np.where(ok, w[:, None], 0.0)
    total = ww.sum(axis=0)
    mean = np.divide((np.where(ok, values, 0.0) * ww).sum(axis=0), total,
                     out=np.full(values.shape[1], np.nan), where=total > 0)
    return mean, ok.sum(axis=0)


def validate_splits(estimator: Any, X: Any, y: np.ndarray,
                    splits: list[tuple[np.ndarray, np.ndarray]], method: str, *,
                    curve_method: str = "local", n_jobs: int | None = None,
                    progress: bool = False) -> InternalValidation:
    """:func:`internal_validation` on given resamples: ``splits`` lists (train, test) row
    indices (0-based; train with repetitions for the bootstrap). This is what lets the tests
    feed rms's own bootstrap indices."""
    from sklearn.base import clone

    n = y.size
    fitted = clone(estimator).fit(X, y.astype(int))
    apparent_p = _positive_proba(fitted, X)
    apparent = sample_metrics(apparent_p, y)
    ordered = np.sort(apparent_p)
    lo, hi = (ordered[4], ordered[-5]) if n > 10 else (ordered[0], ordered[-1])
    grid = np.linspace(lo, hi, CURVE_POINTS)
    apparent_curve = _curve_at(apparent_p, y, grid, curve_method)
    tasks = [(estimator, X, y, train, test, grid, curve_method) for train, test in splits]
    runs = parallel_map(_one_resample, tasks, n_jobs=n_jobs, progress=progress,
                        desc=f"internal validation ({method})")
    train = np.array([[r.train[m] for m in METRICS] for r in runs])
    test = np.array([[r.test[m] for m in METRICS] for r in runs])
    train_curves = np.array([r.train_curve for r in runs])
    test_curves = np.array([r.test_curve for r in runs])
    app = np.array([apparent[m] for m in METRICS])
    if method == "bootstrap":
        # Efron-Gong: optimism = mean over b of (metric of fit b on its sample - on all rows)
        both = np.where(np.isfinite(test), train, np.nan)
        train_mean, count = _weighted_mean(both, None)
        test_mean, _ = _weighted_mean(np.where(np.isfinite(train), test, np.nan), None)
        optimism = train_mean - test_mean
        curve_opt = np.nanmean(train_curves - test_curves, axis=0)
        corrected_curve = apparent_curve - curve_opt
    elif method == ".632":
        weights = _oob_weights(n, splits)
        train_mean, _ = _weighted_mean(train, None)
        test_mean, count = _weighted_mean(test, weights)
        optimism = W632 * (app - test_mean)
        oob_curve, _ = _weighted_mean(test_curves, weights)
        corrected_curve = (1.0 - W632) * apparent_curve + W632 * oob_curve
    else:  # k-fold cross-validation: the mean of the held-out folds' metrics
        train_mean, _ = _weighted_mean(train, None)
        test_mean, count = _weighted_mean(test, None)
        optimism = app - test_mean
        corrected_curve = np.nanmean(test_curves, axis=0)
    table = pd.DataFrame({"apparent": app, "training": train_mean, "test": test_mean,
                          "optimism": optimism, "corrected": app - optimism,
                          "n": count.astype(int)}, index=pd.Index(METRICS, name="metric"))
    if (count < len(splits)).any():
        short = ", ".join(f"{m} ({len(splits) - c})" for m, c in zip(METRICS, count,
                                                                      strict=True)
                          if c < len(splits))
        warn(f"some resamples gave no value (one class, separation or a failed fit); left "
             f"out: {short}")
    curve = pd.DataFrame({"predicted": grid, "apparent": apparent_curve,
                          "optimism": apparent_curve - corrected_curve,
                          "corrected": corrected_curve})
    return InternalValidation(table, curve, method, len(splits), n, curve_method)


@public_api
def internal_validation(estimator: Any, X: Any, y: Any, *, method: str = "bootstrap",
                        n_boot: int = 200, n_folds: int = 10, curve_method: str = "local",
                        seed: Any = None, n_jobs: int | None = None,
                        progress: bool = True) -> InternalValidation:
    r"""Optimism-corrected performance and calibration of a classifier without external data.

    The estimator (any scikit-learn classifier or pipeline with ``predict_proba``) is refitted
    (a clone; the one passed is not touched) on all rows: its predictions on those rows give
    the *apparent* value of each metric, which is optimistic. Resampling estimates by how much:

    * ``"bootstrap"`` (Efron & Gong 1983; Harrell 2015, §5.3.5; Steyerberg 2019, §17.2): fit
      :math:`f_b` on a bootstrap sample :math:`b` (n rows drawn with replacement), b = 1..B;

      .. math:: \mathrm{optimism} = \frac1B \sum_b \big[M(f_b; b) - M(f_b; \text{all
         rows})\big], \qquad \mathrm{corrected} = M(f; \text{all rows}) - \mathrm{optimism}

      for every metric M alike (columns ``training`` and ``test`` are the two means). This
      is ``rms::validate(method = "boot")``.
    * ``".632"`` (Efron 1983; Efron & Tibshirani 1997, eq. 24): with :math:`M_{oob}` the
      metric of :math:`f_b` on the rows left out of b, averaged over b with rms's weights
      :math:`w_b = n^{-1}\sum_{i \notin b} 1/m_i` (:math:`m_i`: number of samples leaving
      row i out; this makes it the leave-one-out bootstrap estimate up to the metric's
      non-linearity), for every metric alike

      .. math:: \mathrm{corrected} = 0.368\, M_{app} + 0.632\, M_{oob}, \qquad
         \mathrm{optimism} = 0.632\,(M_{app} - M_{oob}),

      as ``rms::validate(method = ".632")``. (Not the .632+ estimator, whose no-information
      rate is defined for error rates only.)
    * ``"cv"``: stratified k-fold cross-validation (``n_folds`` folds, shuffled with
      ``seed``): corrected = the mean over folds of M of the fit on the other folds, assessed
      on the fold; optimism = apparent - corrected. (rms's ``"crossvalidation"`` reports
      instead apparent - (training - test); both columns are in the table.)

    .632 and cv judge each refit on the rows it left out (about 0.368 n and n / k): there the
    slope is noisy and the ICI and LCS, positive even for a calibrated model, are inflated by
    small-sample noise, so for calibration the bootstrap, which judges every refit on all n
    rows, is the estimator to read.

    The metrics (rows of the table), each from locacal's one implementation:
    ``auc`` (:func:`~locacal.metrics.auc`), ``brier`` (:func:`~locacal.brier_score`),
    ``intercept`` (calibration-in-the-large), ``slope`` and ``joint_intercept`` (the intercept
    of the slope model, rms's "Intercept") from :func:`~locacal.calibration_intercept_slope`,
    ``ici`` (:func:`~locacal.calibration_errors`, rms::val.prob's lowess) and ``lcs``
    (:func:`~locacal.lcs`).

    The calibration curve (``rms::calibrate``'s construction, with locacal's curve instead of
    lowess): on 50 points from the 5th smallest to the 5th largest apparent prediction (as
    rms), the apparent curve :math:`g_{app}` of the labels on the predictions, by
    :func:`~locacal.calibration_curve` with ``method=curve_method`` (default: locacal's
    local-linear curve; ``"lowess"`` for statsmodels' lowess); corrected, for the bootstrap,
    :math:`g_{app} - B^{-1}\sum_b (g_{b;b} - g_{b;\text{all}})` (curve of :math:`f_b`'s
    predictions on its sample minus on all rows); for .632, :math:`0.368\, g_{app} +
    0.632\, g_{oob}`; for cv, the mean of the held-out folds' curves.

    Parameters
    ----------
    estimator : scikit-learn classifier or Pipeline
        Unfitted or fitted; cloned with :func:`sklearn.base.clone` and refitted. The
        probability of class 1 is its ``predict_proba`` column for class 1. An estimator with
        its own randomness (a forest) should get a fixed ``random_state``.
    X : array-like or DataFrame of shape (n, p)
        Predictors, as the estimator takes them (rows are taken with scikit-learn's
        ``_safe_indexing``, so DataFrames keep their columns).
    y : array-like of shape (n,)
        Events, 0/1 or bool.
    method : {"bootstrap", ".632", "cv"}, default "bootstrap"
    n_boot : int, default 200
        Bootstrap samples (``"bootstrap"`` and ``".632"``), at least 1.
    n_folds : int, default 10
        Folds of ``"cv"``, at least 2 and at most the size of the smaller class.
    curve_method : str, default "local"
        Method of :func:`~locacal.calibration_curve` for the calibration curves.
    seed : None, int or SeedSequence
        Bootstrap sample b is drawn from the b-th child of ``SeedSequence(seed)``, so the
        result does not depend on ``n_jobs``.
    n_jobs : int or None, default None
        joblib workers (None: one, unless in a ``joblib.parallel_config``; -1: all cores).
    progress : bool, default True
        Show a tqdm progress bar.

    Returns
    -------
    InternalValidation
        ``.table`` (metric; apparent, training, test, optimism, corrected, n), ``.curve``,
        ``.plot()``, ``.to_frame()``. Resamples where a metric is undefined (one class,
        separation, a failed fit) are left out of its means (column n), with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from locacal.studies import internal_validation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (rng.uniform(size=200) < 1 / (1 + np.exp(-X[:, 0]))).astype(int)
    >>> res = internal_validation(LogisticRegression(), X, y, n_boot=20, seed=1,
    ...                           progress=False)
    >>> bool(res.table.loc["slope", "corrected"] < res.table.loc["slope", "apparent"])
    True
    """
    _check_estimator(estimator)
    check_choice(method, METHODS_VALIDATION, "method")
    check_choice(curve_method, METHODS, "curve_method")
    check_bool(progress, "progress")
    n_boot = check_resamples(n_boot, "n_boot")
    n_folds = check_int(n_folds, "n_folds", minimum=2)
    seed = check_seed(seed, kind="spawn")
    n = _n_rows(X)
    n_y = np.shape(y)[0] if np.ndim(y) >= 1 else None
    if n_y is not None and n_y != n:
        raise ValueError(f"X and y must have one row per observation: X has {n} rows, y has "
                         f"{n_y} values")
    labels = check_labels(y, n, "y")
    if n < 10:
        raise ValueError(f"X: internal validation needs at least 10 rows, got {n}")
    if labels.min() == labels.max():
        raise ValueError(f"y holds one class ({plain(labels[0])}): no metric of "
                         "discrimination or calibration is defined")
    if method == "cv":
        smaller = int(min(labels.sum(), n - labels.sum()))
        if n_folds > smaller:
            raise ValueError(f"n_folds: {n_folds} folds need at least {n_folds} events and "
                             f"{n_folds} non-events in y; the smaller class has {smaller}")
        splits = _cv_splits(labels, n_folds, seed)
    else:
        splits = _bootstrap_splits(n, child_seeds(seed, n_boot), method)
    return validate_splits(estimator, X, labels, splits, method, curve_method=curve_method,
                           n_jobs=n_jobs, progress=progress)
