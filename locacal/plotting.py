"""Matplotlib drawing of calibration results: ``ax=`` in, Axes out, nothing computed here.

Compute once, plot many: every function draws objects that already hold their numbers
(:class:`~locacal.curves.curve.CalibrationCurve`, score arrays), so a user can restyle or
overlay without recomputing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["OKABE_ITO", "facet_axes", "plot_curve", "plot_curve_facets", "plot_curves",
           "plot_decision_curve", "plot_metric_bars", "plot_murphy_diagram",
           "plot_score_histogram", "reliability_diagram"]

#: The Okabe-Ito palette (Okabe & Ito 2008; Wong 2011, Nature Methods 8, 441), told apart
#: under the common colour-vision deficiencies, ordered for lines on white: blue,
#: vermillion, bluish green, reddish purple, orange, sky blue, black, yellow. Overlaid curves
#: take their colours in this order.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
             "#F0E442")


class Curve(Protocol):
    """What the drawing reads from a curve: a
    :class:`~locacal.curves.curve.CalibrationCurve` is one (typed here, so that this module,
    which the curves import, imports nothing of theirs)."""

    @property
    def grid(self) -> np.ndarray: ...
    @property
    def estimate(self) -> np.ndarray: ...
    @property
    def lower(self) -> np.ndarray: ...
    @property
    def upper(self) -> np.ndarray: ...
    @property
    def method(self) -> str: ...


def palette(i: int) -> str:
    """The ``i``-th colour of :data:`OKABE_ITO` (cycling)."""
    return OKABE_ITO[i % len(OKABE_ITO)]


def new_axes(ax: Axes | None, figsize: tuple[float, float] = (5.0, 5.0)) -> Axes:
    """``ax`` itself, or the Axes of a new pyplot figure of ``figsize``."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def _diagonal(ax: Axes) -> None:
    """The reference diagonal; it also sets the Axes' colour cycle to :data:`OKABE_ITO`, so
    that curves overlaid by successive ``plot`` calls stay colour-blind safe."""
    ax.set_prop_cycle(color=list(OKABE_ITO))
    ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1, label="_diagonal")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("score $\\hat{s}(x)$")
    ax.set_ylabel("$\\hat{g}$: observed frequency")


#: Axis scales of the calibration plots: probabilities, or their logits (rare events).
SCALES = ("linear", "logit")


def logit_limits(values: Any) -> tuple[float, float]:
    """Axis limits on a logit scale covering the values strictly inside (0, 1), padded by a
    fifth of their logit range (0.001 and 0.999 when none is)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[np.isfinite(v) & (v > 0) & (v < 1)]
    if v.size == 0:
        return 1e-3, 1 - 1e-3
    lo, hi = np.log(v.min() / (1 - v.min())), np.log(v.max() / (1 - v.max()))
    pad = max(0.2 * (hi - lo), 0.25)
    return float(1 / (1 + np.exp(-(lo - pad)))), float(1 / (1 + np.exp(-(hi + pad))))


def set_logit_axes(ax: Axes, values: Any) -> None:
    """Both axes on matplotlib's logit scale, limited to :func:`logit_limits` of
    ``values`` together with what the Axes shows already (0 and 1 are at infinity there)."""
    lo, hi = logit_limits(values)
    if ax.get_xscale() == "logit":  # overlaying: keep the union of the limits
        lo, hi = min(lo, ax.get_xlim()[0]), max(hi, ax.get_xlim()[1])
    ax.set_xscale("logit", nonpositive="clip")
    ax.set_yscale("logit", nonpositive="clip")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("auto")


def plot_curve(curve: Curve, ax: Axes | None = None, *, band: bool = True,
               diagonal: bool = True, label: str | None = None, scale: str = "linear",
               **line_kwargs: Any) -> Axes:
    """Draw one calibration curve, its 95 % band and the diagonal.

    Binning curves are drawn as points joined by lines (the thesis's reliability diagram);
    smooth curves as lines. ``scale="logit"`` puts both axes on the logit scale (the tail
    of rare events, where a 1 % vs 2 % gap is invisible on [0, 1]; estimates of exactly 0 or
    1 are clipped to the axis edge). Extra keyword arguments go to ``Axes.plot``.
    """
    from locacal._validation import check_choice

    scale = check_choice(scale, SCALES, "scale")
    ax = new_axes(ax)
    if diagonal and not any(line.get_label() == "_diagonal" for line in ax.get_lines()):
        _diagonal(ax)
    if label is None:
        label = curve.method
    marker = "o" if curve.method == "binning" else None
    (line,) = ax.plot(curve.grid, curve.estimate, marker=marker, label=label, **line_kwargs)
    if band and np.isfinite(curve.lower).any():
        ax.fill_between(curve.grid, curve.lower, curve.upper, color=line.get_color(),
                        alpha=0.2, linewidth=0)
    if scale == "logit":  # square axes over the scores (an estimate near 0 sits at the edge)
        set_logit_axes(ax, curve.grid)
    ax.legend(loc="upper left", frameon=False)
    return ax


def plot_curves(curves: Mapping[str, Curve], ax: Axes | None = None, *,
                band: bool = False, scale: str = "linear") -> Axes:
    """Overlay several named curves (e.g. smoothing choices) on one diagonal."""
    ax = new_axes(ax)
    for i, (name, curve) in enumerate(curves.items()):
        plot_curve(curve, ax=ax, band=band, label=name, color=palette(i), scale=scale)
    return ax


def plot_metric_bars(table: Any, metric: str, ax: Axes | None = None) -> Axes:
    """Grouped bars of one metric from a table indexed by ``(model, method)``: one group per
    model, one bar (an Okabe-Ito colour) per method. Returns the Axes."""
    import pandas as pd

    ax = new_axes(ax)
    wide = pd.Series(table[metric]).unstack("method")
    width = 0.8 / max(wide.shape[1], 1)
    x = np.arange(wide.shape[0])
    for j, method in enumerate(wide.columns):
        ax.bar(x + (j - (wide.shape[1] - 1) / 2) * width, wide[method], width=width,
               label=str(method), color=palette(j))
    ax.set_xticks(x, [str(m) for m in wide.index], rotation=20, ha="right")
    ax.set_ylabel(metric)
    ax.legend(frameon=False, fontsize="small")
    return ax


def plot_score_histogram(scores: Any, labels: Any, ax: Axes | None = None, *,
                         bins: int = 50, frequency_weights: Any = None) -> Axes:
    """Histogram of scores by class (events in gold, non-events in purple, as the slides);
    ``bins`` equal-width bins of [0, 1], at most the number of scores (or 50).
    ``frequency_weights``: counts of identical observations (grouped rows), the histogram of
    the expanded rows."""
    from locacal._validation import check_bins, check_frequency_weights, check_scores_labels

    s, y, _ = check_scores_labels(scores, labels, warn_one_class=False)
    f = check_frequency_weights(frequency_weights, s.size)
    n = s.size if f is None else int(f.sum())
    bins = check_bins(bins, n, default=50)
    ax = new_axes(ax)
    edges = np.linspace(0, 1, bins + 1)
    ax.hist(s[y == 1], bins=edges, weights=None if f is None else f[y == 1],
            color="#E69F00", alpha=0.6, label="d = 1")
    ax.hist(s[y == 0], bins=edges, weights=None if f is None else f[y == 0],
            color="#CC79A7", alpha=0.6, label="d = 0")
    ax.set_xlim(0, 1)
    ax.set_xlabel("score")
    ax.set_ylabel("count")
    ax.legend(frameon=False)
    return ax


def reliability_diagram(curve: Curve, scores: Any, labels: Any, *,
                        title: str | None = None) -> tuple[Axes, Axes]:
    """A two-panel figure: the curve over the diagonal, and the score histogram by class.

    Returns the two Axes ``(curve, histogram)``, not the Figure (``axes[0].figure``): a
    Figure returned as a notebook cell's value would be drawn a second time after the inline
    backend's own drawing.
    """
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5, 7), height_ratios=[3, 1],
                                      sharex=True)
    plot_curve(curve, ax=top)
    top.set_xlabel("")
    plot_score_histogram(scores, labels, ax=bottom)
    if title:
        top.set_title(title)
    fig.tight_layout()
    return top, bottom


def facet_axes(count: int, *, columns: int = 4, size: float = 3.0) -> np.ndarray:
    """A grid of ``count`` square Axes (small multiples), ``columns`` per row at most; the
    unused cells of the last row are hidden. Returns the used Axes, flattened."""
    import matplotlib.pyplot as plt

    cols = max(1, min(columns, count))
    rows = -(-count // cols)
    _, axes = plt.subplots(rows, cols, figsize=(size * cols, size * rows), squeeze=False,
                           sharex=True, sharey=True, layout="constrained")
    flat = axes.ravel()
    for ax in flat[count:]:
        ax.set_visible(False)
    return flat[:count]


def plot_curve_facets(panels: Mapping[str, Mapping[str, Curve]], *, band: bool = True,
                      columns: int = 4, highlight: Any = (),
                      scale: str = "linear") -> np.ndarray:
    """Small multiples: one panel per group (``panels``: group -> {model: curve}), the models
    overlaid in each in the same colours, every panel on the diagonal of [0, 1]^2. The
    panels named in ``highlight`` (e.g. the groups a test flags) get a red frame and title;
    ``scale`` is that of :func:`plot_curve`. Returns the Axes."""
    axes = facet_axes(len(panels), columns=columns)
    flagged = set(highlight)
    for ax, (group, curves) in zip(axes, panels.items(), strict=True):
        for i, (name, curve) in enumerate(curves.items()):
            plot_curve(curve, ax=ax, band=band, label=name, color=palette(i), scale=scale)
        ax.set_title(str(group), color="#D55E00" if group in flagged else "black",
                     fontsize="medium")
        if group in flagged:
            for spine in ax.spines.values():
                spine.set_edgecolor("#D55E00")
                spine.set_linewidth(2)
        if len(curves) == 1 and ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.label_outer()
    return axes
def plot_decision_curve(table: Any, ax: Axes | None = None, *,
                        recalibrated: bool = False) -> Axes:
    """Decision curves from a tidy table (``model, threshold, net_benefit, treat_all,
    treat_none``, :class:`locacal.metrics.decision.DecisionCurve`'s): one line per model
    (an Okabe-Ito colour), treat-all in grey and treat-none in black. With ``recalibrated``
    (the table needs ``net_benefit_recalibrated``), each model's recalibrated net benefit is
    dashed and the miscalibration loss between the two is shaded. The y-axis runs from a
    little below 0 to a little above the largest net benefit, so the treat-all line, which
    falls to minus infinity as t -> 1, does not squash the curves. Returns the Axes."""
    ax = new_axes(ax, figsize=(6.0, 4.5))
    models = list(dict.fromkeys(table["model"]))
    first = table[table["model"] == models[0]]
    ax.plot(first["threshold"], first["treat_all"], color="0.6", linewidth=1.2,
            label="treat all")
    ax.plot(first["threshold"], first["treat_none"], color="0.1", linewidth=1.0,
            label="treat none")
    top = float(np.nanmax(first["treat_all"]))
    for i, model in enumerate(models):
        rows = table[table["model"] == model]
        t, nb = rows["threshold"].to_numpy(), rows["net_benefit"].to_numpy()
        ax.plot(t, nb, color=palette(i), linewidth=1.6, label=str(model))
        top = max(top, float(np.nanmax(nb)))
        if recalibrated:
            rec = rows["net_benefit_recalibrated"].to_numpy()
            ax.plot(t, rec, color=palette(i), linewidth=1.2, linestyle="--",
                    label=f"{model}, recalibrated (PAV)")
            ax.fill_between(t, nb, rec, color=palette(i), alpha=0.2, linewidth=0)
            top = max(top, float(np.nanmax(rec)))
    top = top if top > 0 else 0.05
    ax.set_ylim(-0.15 * top, 1.1 * top)
    ax.set_xlim(float(first["threshold"].min()), float(first["threshold"].max()))
    ax.set_xlabel("threshold probability $t$")
    ax.set_ylabel("net benefit")
    ax.legend(frameon=False, fontsize="small")
    return ax


def plot_murphy_diagram(table: Any, ax: Axes | None = None) -> Axes:
    """Murphy diagrams from a tidy table (``model, threshold, elementary_score``,
    :class:`locacal.metrics.decision.MurphyDiagram`'s): the mean elementary score of each
    model against the threshold (lower is better); when the table holds ``mcb``, each
    model's miscalibration term is dotted in the same colour. Returns the Axes."""
    ax = new_axes(ax, figsize=(6.0, 4.5))
    for i, model in enumerate(dict.fromkeys(table["model"])):
        rows = table[table["model"] == model]
        ax.plot(rows["threshold"], rows["elementary_score"], color=palette(i), linewidth=1.6,
                label=str(model))
        if "mcb" in rows:
            ax.plot(rows["threshold"], rows["mcb"], color=palette(i), linewidth=1.2,
                    linestyle=":", label=f"{model}: miscalibration (MCB$_\\theta$)")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("threshold $\\theta$")
    ax.set_ylabel("mean elementary score $\\bar S_\\theta$")
    ax.legend(frameon=False, fontsize="small")
    return ax
