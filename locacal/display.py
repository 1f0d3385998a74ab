"""Compute once, plot many: :class:`ReliabilityDisplay`, the calibration curves of one or
several models with their score histograms.

It plays the part of scikit-learn's ``sklearn.calibration.CalibrationDisplay`` (same
constructors ``from_estimator`` / ``from_predictions``, same ``ax_`` / ``figure_``
attributes) but holds locacal's :class:`~locacal.curves.curve.CalibrationCurve` of any method
(local regression by default, with its band) instead of a fixed binning. It is named
differently so that both can be imported in one notebook without confusion: a *reliability
diagram* is the curve over the diagonal with the distribution of the scores below it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._repr import frame_html, result_html
from locacal._validation import (
    check_bins,
    check_bool,
    check_choice,
    check_frequency_weights,
    check_scores_labels,
    plain,
    public_api,
)
from locacal.data.groups import pop_by_column, split_by
from locacal.plotting import SCALES, new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from locacal.curves.curve import CalibrationCurve

__all__ = ["ReliabilityDisplay"]

#: Columns of :meth:`ReliabilityDisplay.summary`.
SUMMARY_COLUMNS = ("n", "events", "mean_score", "event_rate", "max_gap", "method")


def _named_scores(scores: Any, name: str | None) -> dict[str, Any]:
    """``{name: scores}``: a dict or DataFrame gives one model per entry or column."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string (the model's name), got {plain(name)!r}")
    if isinstance(scores, pd.DataFrame):
        return {str(c): scores[c] for c in scores.columns}
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("scores is an empty mapping: give at least one model's scores")
        return {str(k): v for k, v in scores.items()}
    return {name if name is not None else "model": scores}


def _positive_column(estimator: Any, pos_label: Any) -> tuple[int, Any]:
    """Column of ``predict_proba`` holding the positive class, and that class."""
    from sklearn.utils.validation import check_is_fitted

    if not hasattr(estimator, "predict_proba"):
        raise TypeError(f"estimator must have predict_proba (a fitted scikit-learn "
                        f"classifier), got {type(estimator).__name__}")
    check_is_fitted(estimator)
    classes = list(getattr(estimator, "classes_", [0, 1]))
    if len(classes) != 2:
        raise ValueError(f"estimator must be a binary classifier, its classes_ are {classes}")
    if pos_label is None:
        return 1, classes[1]
    if pos_label not in classes:
        raise ValueError(f"pos_label={plain(pos_label)!r} is not among the estimator's classes_ "
                         f"{classes}")
    return classes.index(pos_label), pos_label


class ReliabilityDisplay:
    """Calibration curves of one or several models, computed once, drawn on demand.

    Build it with :meth:`from_predictions` (scores) or :meth:`from_estimator` (a fitted
    scikit-learn classifier); both compute every curve once and, unless ``plot=False``, draw
    them. :meth:`plot` draws the stored curves again, on any Axes, without refitting.

    Parameters
    ----------
    curves : mapping of str to CalibrationCurve
        One curve per model, by name.
    scores : mapping of str to ndarray
        The scores behind each curve (for the histogram).
    labels : ndarray
        The 0/1 events shared by the models.

    Attributes
    ----------
    curves, scores, labels
        As given.
    ax_ : Axes or None
        The curves' Axes of the last :meth:`plot`.
    hist_ax_ : Axes or None
        The histogram's Axes of the last :meth:`plot` (None without histogram).
    figure_ : Figure or None
        Their figure.

    Notes
    -----
    Differences from ``sklearn.calibration.CalibrationDisplay``: arguments are (scores,
    labels) in locacal's order and the keyword names are sklearn's where they mean the same
    (``name``, ``ax``, ``pos_label``); several models go into one display (a dict or
    DataFrame of scores, or a dict of estimators) and share one Axes, coloured with the
    colour-blind-safe Okabe-Ito palette (:data:`locacal.plotting.OKABE_ITO`); :meth:`plot`
    returns the Axes, as every ``plot`` of locacal, and the display's own notebook view is a
    table, never a second copy of the figure.

    Examples
    --------
    >>> disp = ReliabilityDisplay.from_estimator(model, X_test, y_test)   # doctest: +SKIP
    >>> ax = disp.plot(band=False)                                        # doctest: +SKIP
    """

    def __init__(self, curves: Mapping[str, CalibrationCurve], scores: Mapping[str, Any],
                 labels: Any, counts: Any = None) -> None:
        if set(curves) != set(scores):
            raise ValueError(f"curves and scores must name the same models, got "
                             f"{sorted(curves)} and {sorted(scores)}")
        self.curves = dict(curves)
        self.scores = {k: np.asarray(scores[k], dtype=np.float64) for k in self.curves}
        self.labels = np.asarray(labels, dtype=np.float64)
        #: frequency weights of the rows (counts of identical observations), or None
        self.counts = None if counts is None else np.asarray(counts, dtype=np.float64)
        self.ax_: Axes | None = None
        self.hist_ax_: Axes | None = None
        self.figure_: Figure | None = None
        #: With ``by=``: group -> the display of that group's rows (else None).
        self.groups: dict[Any, ReliabilityDisplay] | None = None
        #: With ``by=``: what the groups are called.
        self.by: str | None = None

    @classmethod
    @public_api
    def from_predictions(cls, scores: Any, labels: Any, *, method: str = "local",
                         band: str | None = "pointwise", weights: Any = None,
                         name: str | None = None, ax: Axes | None = None, plot: bool = True,
                         by: Any = None, scale: str = "linear",
                         frequency_weights: Any = None, **params: Any) -> ReliabilityDisplay:
        """Fit the calibration curve of each score vector and (by default) draw them.

        Parameters
        ----------
        scores : array-like, or dict / DataFrame of array-likes
            One score vector in [0, 1], or several named ones (one curve each).
        labels : array-like
            0/1 events (or two class names with ``pos_label``), shared by the models.
        method : str, default "local"
            Any method of :func:`~locacal.calibration_curve`.
        band : {"pointwise", "bootstrap", "consistency", None}, default "pointwise"
            The curves' band (:func:`~locacal.calibration_curve`).
        weights : array-like, optional
            Case weights.
        frequency_weights : array-like, optional
            Counts of identical observations (grouped rows), shared by the models: the curves,
            histograms and summary of the expanded rows.
        name : str, optional
            The model's name for a single score vector (default ``"model"``).
        ax : Axes, optional
            Where to draw (default: a new figure).
        plot : bool, default True
            Draw at once (as scikit-learn's displays do); False only computes.
        by : array-like of shape (n,) or str, optional
            A group per row (or a column name of a DataFrame ``scores``): the display then
            also holds one display per group (``groups``), each equal to this call on the
            group's rows, and :meth:`plot` draws them as small multiples (one panel per
            group, the models overlaid in each; ``ax`` is then not used).
        scale : {"linear", "logit"}, default "linear"
            Axes of the drawing (:meth:`plot`): ``"logit"`` for rare events, e.g. with
            ``family="binomial"`` (the local logistic fit of ``method="local"``).
        pos_label : optional
            The positive class when ``labels`` are class names.
        **params
            Options of the method (``nn``, ``degree``, ``bins``, ...).
        """
        from locacal.curves import calibration_curve

        check_bool(plot, "plot")
        if by is not None:
            scores, by = pop_by_column(scores, by)
        check_choice(scale, SCALES, "scale")
        models = _named_scores(scores, name)
        curves, kept, y = {}, {}, None
        for model, values in models.items():
            s, y, w = check_scores_labels(values, labels, weights,
                                          names=(f"scores[{plain(model)!r}]" if len(models) > 1
                                                 else "scores", "labels", "weights"))
            curves[model] = calibration_curve(s, y, method=method, weights=w, band=band,
                                              frequency_weights=frequency_weights, **params)
            kept[model] = s
        counts = None if frequency_weights is None else check_frequency_weights(
            frequency_weights, y.size)
        display = cls(curves, kept, y, counts)
        if by is not None:
            groups = split_by(by, y.size)
            display.by = groups.name
            display.groups = {
                group: cls.from_predictions({m: v[rows] for m, v in kept.items()}, y[rows],
                                            method=method, band=band,
                                            weights=None if weights is None
                                            else np.asarray(weights)[rows],
                                            frequency_weights=None if counts is None
                                            else counts[rows],
                                            plot=False, **params)
                for group, rows in groups}
        if plot:
            display.plot(ax=ax, scale=scale)
        return display

    @classmethod
    @public_api
    def from_estimator(cls, estimator: Any, X: Any, y: Any, *, method: str = "local",
                       band: str | None = "pointwise", weights: Any = None,
                       pos_label: Any = None, name: str | None = None,
                       ax: Axes | None = None, plot: bool = True, by: Any = None,
                       scale: str = "linear", frequency_weights: Any = None,
                       **params: Any) -> ReliabilityDisplay:
        """The calibration curves of fitted scikit-learn classifiers on ``(X, y)``.

        The score is ``estimator.predict_proba(X)[:, k]``, k the column of ``pos_label``
        (default ``estimator.classes_[1]``, as scikit-learn).

        Parameters
        ----------
        estimator : fitted classifier, or dict of them
            Binary classifiers with ``predict_proba``; a dict ``{name: estimator}`` draws
            several on one Axes.
        X : array-like or DataFrame
            Features of the evaluation sample (not the training one). ``by`` may name one of
            its columns.
        y : array-like
            Its classes.
        name : str, optional
            The model's name (default: the estimator's class name).

        The other parameters are those of :meth:`from_predictions`.
        """
        estimators = (dict(estimator) if isinstance(estimator, Mapping)
                      else {name or type(estimator).__name__: estimator})
        scores, positive = {}, None
        for model, est in estimators.items():
            column, label = _positive_column(est, pos_label)
            if positive is not None and label != positive:
                raise ValueError(f"the estimators disagree on the positive class "
                                 f"({plain(positive)!r} and {label!r}); give pos_label")
            positive = label
            scores[str(model)] = np.asarray(est.predict_proba(X))[:, column]
        if isinstance(by, str) and isinstance(X, pd.DataFrame) and by in X.columns:
            by = X[by]
        return cls.from_predictions(scores, y, method=method, band=band, weights=weights,
                                    pos_label=positive, ax=ax, plot=plot, by=by, scale=scale,
                                    frequency_weights=frequency_weights, **params)

    def plot(self, ax: Axes | None = None, *, band: bool = True, histogram: bool = True,
             bins: int = 30, scale: str = "linear") -> Axes:
        """Draw the stored curves over the diagonal, with the score histograms below.

        Parameters
        ----------
        ax : Axes, optional
            Axes of the curves (default: a new 5 x 6 inch figure). The histogram takes a
            fifth of its height underneath.
        band : bool, default True
            Shade each curve's band (where its method gives one).
        histogram : bool, default True
            Add the histogram of each model's scores (step lines in the curves' colours).
        bins : int, default 30
            Histogram bins on [0, 1], at most the number of scores of the largest model (or
            30).
        scale : {"linear", "logit"}, default "linear"
            ``"logit"``: both axes on the logit scale (rare events; the histogram's bins
            equally spaced in logit).

        Returns
        -------
        Axes
            The curves' Axes (also ``self.ax_``). A display made with ``by=`` draws one
            panel per group instead, without histograms, and returns the array of panels
            (:func:`locacal.plotting.plot_curve_facets`; ``ax`` must then be None).
        """
        from locacal.plotting import palette, plot_curve, plot_curve_facets

        scale = check_choice(scale, SCALES, "scale")
        if self.groups is not None:
            if ax is not None:
                raise ValueError("a display by group draws its own grid of panels; call "
                                 "plot() without ax")
            panels = plot_curve_facets({g: d.curves for g, d in self.groups.items()},
                                       band=band, scale=scale)
            self.ax_, self.figure_, self.hist_ax_ = panels, panels[0].figure, None
            return panels

        largest = (max(v.size for v in self.scores.values()) if self.counts is None
                   else int(self.counts.sum()))
        bins = check_bins(bins, largest, default=30)
        ax = new_axes(ax, (5.0, 6.0) if histogram else (5.0, 5.0))
        for i, (name, curve) in enumerate(self.curves.items()):
            plot_curve(curve, ax=ax, band=band, label=name, color=palette(i), scale=scale)
        self.ax_, self.figure_, self.hist_ax_ = ax, ax.figure, None
        if histogram:
            self.hist_ax_ = _histogram_below(ax, self.scores, bins, scale, self.counts)
        return ax

    def to_frame(self) -> pd.DataFrame:
        """Every curve in one tidy table: ``model`` then the columns of
        :meth:`CalibrationCurve.to_frame <locacal.curves.curve.CalibrationCurve.to_frame>`
        (``score, estimate, lower, upper, count, method``); by group, the groups' curves
        with the group column first."""
        if self.groups is not None:
            table = pd.concat([d.to_frame().assign(**{self.by: g})
                               for g, d in self.groups.items()], ignore_index=True)
            return table[[self.by, *table.columns[:-1]]]
        frames = [c.to_frame().assign(model=name) for name, c in self.curves.items()]
        table = pd.concat(frames, ignore_index=True)
        return table[["model", *table.columns[:-1]]]

    def summary(self) -> pd.DataFrame:
        """One row per model (index ``model``): ``n``, ``events``, ``mean_score``,
        ``event_rate``, ``max_gap`` (the largest ``|ĝ(p) - p|`` on the curve's grid, a quick
        reading of the picture, not a calibrated metric: see
        :func:`~locacal.calibration_report`) and ``method``; by group, one row per group and
        model (index ``(group, model)``)."""
        if self.groups is not None:
            return pd.concat({g: d.summary() for g, d in self.groups.items()},
                             names=[self.by, "model"])
        f = np.ones_like(self.labels) if self.counts is None else self.counts
        rows = {name: {"n": int(f.sum()), "events": float(f @ self.labels),
                       "mean_score": float(np.average(s, weights=f)),
                       "event_rate": float(np.average(self.labels, weights=f)),
                       "max_gap": float(np.max(np.abs(c.estimate - c.grid))),
                       "method": c.method}
                for (name, c), s in zip(self.curves.items(), self.scores.values(),
                                        strict=True)}
        return pd.DataFrame.from_dict(rows, orient="index")[list(SUMMARY_COLUMNS)] \
            .rename_axis("model")

    def _repr_html_(self) -> str:
        # a table only: the figure, if drawn, is shown by the notebook's backend; an image
        # here would show it twice when from_* is a cell's last expression
        return result_html(f"ReliabilityDisplay &mdash; {len(self.curves)} model(s)",
                           frame_html(self.summary()))

    def __repr__(self) -> str:
        n = self.labels.size if self.counts is None else int(self.counts.sum())
        return f"ReliabilityDisplay(models={list(self.curves)}, n={n})"


def _histogram_below(ax: Axes, scores: Mapping[str, np.ndarray], bins: int,
                     scale: str = "linear", counts: np.ndarray | None = None) -> Axes:
    """Step histograms of the scores in an axis appended under ``ax`` (sharing x), each row
    counted ``counts`` times when given; on the logit scale the bins are equally spaced in
    logit between the Axes' limits."""
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    from locacal.plotting import palette

    hist = make_axes_locatable(ax).append_axes("bottom", size="20%", pad=0.1, sharex=ax)
    edges = np.linspace(0.0, 1.0, bins + 1)
    if scale == "logit":
        lo, hi = ax.get_xlim()
        x = np.linspace(np.log(lo / (1 - lo)), np.log(hi / (1 - hi)), bins + 1)
        edges = 1 / (1 + np.exp(-x))
    for i, values in enumerate(scores.values()):
        hist.hist(values, bins=edges, weights=counts, histtype="step", color=palette(i))
    hist.set_xlabel(ax.get_xlabel() or "score")
    hist.set_yticks([])
    ax.set_xlabel("")
    ax.tick_params(labelbottom=False)
    return hist

