"""recalibrate(): fit every recalibrator on the calibration split, compare them on all splits."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from locacal._validation import (
    check_aligned,
    check_fraction,
    check_frequency_weights,
    check_labels,
    check_probabilities,
    check_scores,
    plain,
    public_api,
)
from locacal.curves import METHODS, make_calibrator
from locacal.curves.local import SLIDES_LOCAL
from locacal.metrics.registry import evaluate
from locacal.recalibration.split import SPLIT_NAMES

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["METRIC_COLUMNS", "STUDY_SETTINGS", "RecalibrationResult", "check_methods",
           "recalibrate"]

#: Metric columns of :attr:`RecalibrationResult.metrics`, in order (``true_mse`` only when
#: true probabilities are given).
METRIC_COLUMNS = ("n", "true_mse", "brier", "ece", "qmse", "lcs", "accuracy", "sensitivity",
                  "specificity", "auc")

UNCALIBRATED = "uncalibrated"
TRUE_P = "true_p"
#: Column of :attr:`RecalibrationResult.scores` holding the frequency weights (count_column).
COUNT = "count"

#: Settings a method name implies in :func:`recalibrate` where they differ from the
#: calibrator's defaults: the 2024 study's local regression (degree 0, rectangular kernel,
#: nn = 0.15), which :class:`~locacal.curves.local.LocalRegressionCalibrator` no longer
#: defaults to.
STUDY_SETTINGS = {"local": dict(SLIDES_LOCAL)}

#: Grid of [0, 1] on which :attr:`RecalibrationResult.maps` tabulates every map.
MAP_GRID = np.linspace(0.0, 1.0, 101)


@dataclass(frozen=True, eq=False)
class _Split:
    scores: np.ndarray
    labels: np.ndarray
    true_p: np.ndarray | None
    counts: np.ndarray | None = None


def _as_split(data: Any, name: str, true_p: Any, columns: tuple[str, str],
              count_column: str | None = None) -> _Split:
    """Validate one split given as a DataFrame or a ``(scores, labels)`` pair; with
    ``count_column`` (DataFrames only) the split's frequency weights."""
    score_col, label_col = columns
    if count_column is not None and not isinstance(data, pd.DataFrame):
        raise TypeError(f"count_column={plain(count_column)!r} names a column, but the {name} "
                        "split is not a DataFrame")
    if count_column is not None and count_column not in data.columns:
        raise ValueError(f"the {name} DataFrame has no count column {plain(count_column)!r} "
                         f"(columns: {list(data.columns)})")
    if isinstance(data, pd.DataFrame):
        for col in (score_col, label_col):
            if col not in data.columns:
                raise ValueError(f"the {name} DataFrame has no column {plain(col)!r} (columns: "
                                 f"{list(data.columns)}); set score_column / label_column")
        scores, labels = data[score_col], data[label_col]
        if isinstance(true_p, str):
            if true_p not in data.columns:
                raise ValueError(f"the {name} DataFrame has no true_p column {plain(true_p)!r}")
            true_p = data[true_p]
    elif isinstance(data, tuple | list) and len(data) == 2:
        scores, labels = data
        if isinstance(true_p, str):
            raise TypeError(f"true_p names a column ({plain(true_p)!r}) but the {name} split is a "
                            "(scores, labels) pair; give true_p as three arrays instead")
    else:
        raise TypeError(f"{name} must be a DataFrame or a (scores, labels) pair, "
                        f"got {type(data).__name__}")
    s = check_scores(scores, f"{name} scores")
    check_aligned({f"{name} scores": scores, f"{name} labels": labels,
                   f"{name} true_p": true_p})
    y = check_labels(labels, s.size, f"{name} labels")
    p = None if true_p is None else check_probabilities(true_p, s.size, f"{name} true_p")
    counts = None if count_column is None else check_frequency_weights(
        data[count_column], s.size, f"{name} {count_column}")
    return _Split(s, y, p, counts)


def check_methods(methods: Any) -> dict[str, Any]:
    """Unfitted estimators by name, from names or a ``{name: estimator}`` mapping (the
    ``methods`` of :func:`recalibrate`; the studies check theirs with it before any work)."""
    if isinstance(methods, Mapping):
        chosen = dict(methods)
        for name, est in chosen.items():
            if not (hasattr(est, "fit") and hasattr(est, "predict")):
                raise TypeError(f"methods[{plain(name)!r}] must be an estimator with fit and "
                                f"predict, got {type(est).__name__}")
    else:
        if isinstance(methods, str) or not isinstance(methods, Sequence):
            raise TypeError("methods must be a sequence of names or a {name: estimator} "
                            f"mapping, got {plain(methods)!r}")
        chosen = {}
        for name in methods:
            if name not in METHODS:
                raise ValueError(f"methods holds the unknown method {plain(name)!r}; choose among "
                                 f"{tuple(METHODS)} or pass a {{name: estimator}} mapping")
            chosen[name] = make_calibrator(name, **STUDY_SETTINGS.get(name, {}))
    if not chosen:
        raise ValueError("methods is empty")
    for name in chosen:
        if not isinstance(name, str) or name in (UNCALIBRATED, TRUE_P, COUNT):
            raise ValueError(f"method names must be strings other than {UNCALIBRATED!r}, "
                             f"{TRUE_P!r} and {COUNT!r}, got {plain(name)!r}")
    if len(chosen) != len(list(methods)):
        raise ValueError(f"methods holds a name twice: {list(methods)}")
    return {name: clone(est) for name, est in chosen.items()}


def _metric_row(s: np.ndarray, split: _Split, threshold: float) -> dict[str, float]:
    names = [c for c in METRIC_COLUMNS if c != "true_mse" or split.true_p is not None]
    return evaluate(names, s, split.labels, true_p=split.true_p, threshold=threshold,
                    frequency_weights=split.counts)


@dataclass(frozen=True, eq=False)
class RecalibrationResult:
    """What :func:`recalibrate` returns.

    Attributes
    ----------
    metrics : DataFrame
        One row per (method, split): columns ``method, split`` then :data:`METRIC_COLUMNS`
        (``true_mse`` only with true probabilities). ``method`` is ``"uncalibrated"`` for the
        scores as given, each recalibrator's name, and ``"true_p"`` (the true probabilities
        used as scores, the floor of every metric) when they are known.
    scores : dict of DataFrame
        By split name: columns ``label``, ``count`` (frequency weights, with
        ``count_column``), ``true_p`` (if known), ``uncalibrated`` and one column of
        recalibrated scores per method.
    maps : DataFrame
        Every fitted map on ``linspace(0, 1, 101)``: columns ``score, method, recalibrated``.
    calibrators : dict
        The fitted calibrators by name (each has ``predict`` and ``curve()``).
    threshold : float
        Classification threshold of accuracy, sensitivity and specificity.
    """

    metrics: pd.DataFrame
    scores: dict[str, pd.DataFrame]
    maps: pd.DataFrame
    calibrators: dict[str, Any]
    threshold: float

    def summary(self, split: str = "test") -> pd.DataFrame:
        """The metrics of one split, one row per method (index ``method``)."""
        if split not in self.scores:
            raise ValueError(f"unknown split {plain(split)!r}; this result has {list(self.scores)}")
        table = self.metrics[self.metrics["split"] == split]
        return table.drop(columns="split").set_index("method")

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table (a copy of :attr:`metrics`): ``method, split`` then
        :data:`METRIC_COLUMNS`."""
        return self.metrics.copy()

    def plot_maps(self, ax: Axes | None = None) -> Axes:
        """The fitted maps g (recalibrated against uncalibrated score) on the diagonal,
        drawn from :attr:`maps` (no refit). Returns the Axes."""
        from locacal.plotting import new_axes, palette

        ax = new_axes(ax)
        ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1)
        for i, (name, group) in enumerate(self.maps.groupby("method", sort=False)):
            ax.plot(group["score"], group["recalibrated"], label=name, color=palette(i))
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel="uncalibrated score",
               ylabel="recalibrated score",
               title="Recalibration maps (fitted on the calibration split)")
        ax.legend(frameon=False, fontsize="small")
        return ax

    def plot(self, ax: Sequence[Axes] | None = None, *, split: str = "test") -> np.ndarray:
        """Two panels: the fitted maps g (left, :meth:`plot_maps`) and the calibration
        curves of ``split`` before and after recalibration (right, the slides' local
        regression: degree 0, rectangular kernel, nn = 0.15).

        Parameters
        ----------
        ax : pair of Axes, optional
            Where to draw the two panels (default: a new 10 x 4.5 inch figure).
        split : str, default "test"

        Returns
        -------
        ndarray of two Axes
            ``(maps, curves)``; their figure is ``axes[0].figure``. Not the Figure itself,
            which a notebook would draw a second time as the cell's value.
        """
        from locacal.curves import calibration_curve
        from locacal.plotting import palette

        if split not in self.scores:
            raise ValueError(f"unknown split {plain(split)!r}; this result has {list(self.scores)}")
        if ax is None:
            import matplotlib.pyplot as plt

            axes = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")[1]
        else:
            axes = np.asarray(ax, dtype=object).ravel()
            if axes.size != 2:
                raise ValueError(f"ax must be two Axes (maps, curves), got {axes.size}")
        ax_map, ax_curve = axes
        self.plot_maps(ax_map)
        frame = self.scores[split]
        columns = [c for c in frame.columns if c not in ("label", TRUE_P, COUNT)]
        counts = frame[COUNT] if COUNT in frame.columns else None
        for i, name in enumerate(columns):
            curve = calibration_curve(frame[name], frame["label"], method="local",
                                      band=None, frequency_weights=counts, **SLIDES_LOCAL)
            curve.plot(ax=ax_curve, band=False, diagonal=i == 0, label=name,
                       color=palette(i))
        ax_curve.set(title=f"Calibration curves on the {split} split",
                     xlabel="score", ylabel="E[D | score]")
        ax_curve.legend(frameon=False, fontsize="small")
        return axes

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        n = {k: len(v) for k, v in self.scores.items()}
        title = (f"RecalibrationResult &mdash; methods "
                 f"{html.escape(', '.join(self.calibrators))}; rows {html.escape(str(n))}; "
                 f"threshold {self.threshold}")
        tables = [f"<p><i>{html.escape(split)}</i></p>" + frame_html(self.summary(split))
                  for split in self.scores]
        figure = figure_html(lambda ax: self.plot_maps(ax), alt="recalibration maps")
        return result_html(title, *tables, figure=figure)

    def __repr__(self) -> str:
        split = "test" if "test" in self.scores else next(iter(self.scores))
        lcs = self.summary(split)["lcs"]
        text = ", ".join(f"{k}={v:.4g}" for k, v in lcs.items())
        return f"RecalibrationResult(methods={list(self.calibrators)}, {split} LCS: {text})"


@public_api
def recalibrate(
    train: Any,
    calibration: Any,
    test: Any,
    *,
    methods: Sequence[str] | Mapping[str, Any] = ("platt", "isotonic", "beta", "local"),
    true_p: Any = None,
    threshold: float = 0.5,
    score_column: str = "score",
    label_column: str = "label",
    count_column: str | None = None,
) -> RecalibrationResult:
    """Fit recalibration maps on a calibration split and compare them on every split.

    The methodology of the 2024 slides (§4): the classifier was trained on *train*; each
    recalibrator is fitted on the classifier's scores on *calibration*; performance and
    calibration are then read on *test* (and, for reference, on the other splits), next to the
    uncalibrated scores.

    Parameters
    ----------
    train, calibration, test : DataFrame or (scores, labels) pair
        The three splits. DataFrames need the columns ``score_column`` and ``label_column``
        (``score`` and ``label``, as :mod:`locacal.simulate` writes them). ``train`` may be
        None when only the calibration and test splits are at hand.
    methods : sequence of names, or mapping {name: estimator}, default the 2024 study's four
        Method names of :func:`~locacal.curves.calibration_curve` (``"platt"``,
        ``"isotonic"``, ``"beta"``, ``"local"``, ``"binning"``, ``"lowess"``, ``"kernel"``,
        ``"locfit"``; default settings, those of the 2024 study for the four defaults: Platt
        on the score, R's isotonic step function, beta "abm", local regression of degree 0
        with nn = 0.15 and the rectangular kernel, set explicitly here since
        ``LocalRegressionCalibrator()`` defaults to local-linear with the tricube kernel;
        :data:`STUDY_SETTINGS`), or named estimators, e.g.
        ``{"local_deg2": LocalRegressionCalibrator(degree=2)}``; each is cloned before fitting.
    true_p : str or sequence of three array-likes, optional
        Known probabilities (simulations), which add the true MSE and the ``"true_p"`` rows: the
        name of a column of the DataFrame splits, or one array per split (train, calibration,
        test; None for a split given as None).
    threshold : float, default 0.5
        Classification threshold: the class is 1 when the score is >= threshold.
    score_column, label_column : str
        Column names for DataFrame splits.
    count_column : str, optional
        Column of frequency weights of DataFrame splits (grouped data: a row stands for that
        many identical observations). Each map is fitted with ``frequency_weights=`` and every
        metric is that of the expanded rows (:mod:`locacal.data.frequency`).

    Returns
    -------
    RecalibrationResult
        ``.metrics`` (tidy table), ``.scores``, ``.maps``, ``.calibrators``, ``.summary()``,
        ``.plot()``, and an HTML view in Jupyter.

    Notes
    -----
    Metrics (all from :mod:`locacal.metrics`, default settings): Brier score, ECE and QMSE on
    10 quantile bins, LCS (local regression of degree 0, nn = 0.15), accuracy, sensitivity,
    specificity, AUC, and the true MSE when ``true_p`` is given.

    Examples
    --------
    >>> from locacal import simulate
    >>> from locacal.recalibration import recalibrate, split
    >>> data = simulate.logistic_dgp(2000, gamma=3, seed=1)
    >>> train, calibration, test = split(data, seed=1)
    >>> result = recalibrate(train, calibration, test, true_p="true_p")
    >>> result.summary("test").loc[["uncalibrated", "beta"], "lcs"].round(3).tolist()
    [0.031, 0.01]
    """
    threshold = check_fraction(threshold, "threshold", low_open=False)
    columns = (score_column, label_column)
    if true_p is None or isinstance(true_p, str):
        true_ps = [true_p] * 3
    else:
        true_ps = list(true_p)
        if len(true_ps) != 3:
            raise ValueError("true_p must be a column name or three array-likes (train, "
                             f"calibration, test), got {len(true_ps)} items")
    splits = {}
    for name, data, p in zip(SPLIT_NAMES, (train, calibration, test), true_ps, strict=True):
        if data is None:
            if name != "train":
                raise ValueError(f"the {name} split is required")
            continue
        splits[name] = _as_split(data, name, p, columns, count_column)
    known = [sp.true_p is not None for sp in splits.values()]
    if any(known) and not all(known):
        raise ValueError("true_p is given for some splits only; give it for every split")
    estimators = check_methods(methods)
    cal = splits["calibration"]
    for name, est in estimators.items():
        try:
            if cal.counts is None:
                est.fit(cal.scores, cal.labels)
            else:
                est.fit(cal.scores, cal.labels, frequency_weights=cal.counts)
        except (TypeError, ValueError) as err:  # say which method and which split
            raise type(err)(f"fitting {plain(name)!r} on the calibration split: {err}") from err

    rows, frames = [], {}
    for split_name, sp in splits.items():
        frame = {"label": sp.labels.astype(np.int64)}
        if sp.counts is not None:
            frame[COUNT] = sp.counts
        if sp.true_p is not None:
            frame[TRUE_P] = sp.true_p
        frame[UNCALIBRATED] = sp.scores
        for name, est in estimators.items():
            frame[name] = est.predict(sp.scores)
        frames[split_name] = pd.DataFrame(frame)
        methods_here = [UNCALIBRATED, *estimators] + ([TRUE_P] if sp.true_p is not None else [])
        for name in methods_here:
            row = _metric_row(frames[split_name][name].to_numpy(), sp, threshold)
            rows.append({"method": name, "split": split_name, **row})
    table = pd.DataFrame(rows)
    table = table[["method", "split", *[c for c in METRIC_COLUMNS if c in table.columns]]]
    maps = pd.concat(
        [pd.DataFrame({"score": MAP_GRID, "method": name, "recalibrated": est.predict(MAP_GRID)})
         for name, est in estimators.items()],
        ignore_index=True,
    )
    return RecalibrationResult(metrics=table, scores=frames, maps=maps, calibrators=estimators,
                               threshold=threshold)
