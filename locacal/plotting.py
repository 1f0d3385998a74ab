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

__all__ = ["OKABE_ITO", "plot_curve", "plot_curves", "plot_metric_bars",
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


def plot_curve(curve: Curve, ax: Axes | None = None, *, band: bool = True,
               diagonal: bool = True, label: str | None = None, **line_kwargs: Any) -> Axes:
    """Draw one calibration curve, its 95 % band and the diagonal.

    Binning curves are drawn as points joined by lines (the thesis's reliability diagram);
    smooth curves as lines. Extra keyword arguments go to ``Axes.plot``.
    """
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
    ax.legend(loc="upper left", frameon=False)
    return ax


def plot_curves(curves: Mapping[str, Curve], ax: Axes | None = None, *,
                band: bool = False) -> Axes:
    """Overlay several named curves (e.g. smoothing choices) on one diagonal."""
    ax = new_axes(ax)
    for i, (name, curve) in enumerate(curves.items()):
        plot_curve(curve, ax=ax, band=band, label=name, color=palette(i))
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
