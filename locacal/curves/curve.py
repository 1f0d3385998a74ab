"""The result every calibrator tabulates: :class:`CalibrationCurve`.

A calibration curve is at once a picture (plot it against the diagonal), the input of the
metrics (LCS, ECE are functionals of g - id) and a recalibration map (g(s) is the recalibrated
score). So the object holds the estimate on its grid *and* the fitted calibrator
(``estimator``), whose ``predict`` evaluates the map on new scores. Both are plain data, so a
curve pickles (to cache it, or to send it to a worker).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._validation import check_scores, plain

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["CalibrationCurve", "slides_grid"]

#: Number of points of the 2024 slides' evaluation grid, ``seq(0, 1, length.out = 100)``.
SLIDES_GRID_SIZE = 100


def slides_grid(scores: np.ndarray, size: int = SLIDES_GRID_SIZE) -> np.ndarray:
    """The 2024 slides' evaluation grid: ``linspace(0, 1, size)`` restricted to the score range.

    Machado, Charpentier et al. (2024), "Local regression: issue" slide and the R function
    ``local_calib_score``: points outside ``[min(scores), max(scores)]`` are dropped, because
    a local fit extrapolated beyond the data leaves the diagonal for no reason.

    If no grid point falls within the range (all scores within one grid step), the midpoint of
    the range is returned as a one-point grid, so that a curve and the LCS stay defined.
    """
    full = np.linspace(0.0, 1.0, size)
    lo, hi = float(scores.min()), float(scores.max())
    kept = full[(full >= lo) & (full <= hi)]
    if kept.size == 0:
        kept = np.array([0.5 * (lo + hi)])
    return kept


@dataclass(frozen=True, eq=False)
class CalibrationCurve:
    """An estimated calibration curve g(p) = E[D | s(X) = p].

    Attributes
    ----------
    grid : ndarray
        Points where g was estimated (bin centres for binning: the mean score in each bin).
    estimate : ndarray
        Estimated g at ``grid``. Outside the observed score range (``~in_range``) it is the
        fitted map *extrapolated* (what ``estimator.predict`` returns there: the local fit
        on the nearest scores, the last bin, the logistic curve...), not an estimate
        supported by data.
    lower, upper : ndarray
        Pointwise band at the requested level (:mod:`locacal.curves.bands`). NaN outside the
        observed score range and when no band was asked for (``band=None``); inside the range
        the band is always defined (the one exception: a fixed bandwidth ``h`` with no score
        within ``h`` of a grid point, where the estimate itself is NaN, with a warning).
    counts : ndarray
        Observations behind each estimate: the bin count, the number of observations in the
        local neighbourhood, or the total weight for a global fit.
    method : str
        The method's name (``"local"``, ``"binning"``, ``"lowess"``, ``"kernel"``,
        ``"locfit"``, ``"isotonic"``, ``"platt"``, ``"beta"``).
    params : Mapping
        The calibrator's parameters (and fitted coefficients where it has few), read-only.
    estimator : BaseCalibrator
        The fitted calibrator the curve was tabulated from.
    in_range : ndarray of bool
        Whether each grid point lies within the observed score range
        ``[min(scores), max(scores)]`` of the fit (rows of positive weight). Default (None):
        computed from ``estimator.score_range_``, or all True for an estimator without one.

    Calling the curve on new scores, ``curve(scores)``, is ``curve.estimator.predict(scores)``.
    """

    grid: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    counts: np.ndarray
    method: str
    params: Mapping[str, Any]
    estimator: Any = field(repr=False)
    in_range: Any = None

    def __post_init__(self) -> None:
        n = np.shape(self.grid)[0]
        if self.in_range is None:
            span = getattr(self.estimator, "score_range_", None)
            grid = np.asarray(self.grid, dtype=np.float64)
            inside = np.ones(n, dtype=bool) if span is None else (
                (grid >= span[0]) & (grid <= span[1]))
        else:
            inside = np.asarray(self.in_range, dtype=bool)
            if inside.shape != (n,):
                raise ValueError(f"in_range has shape {inside.shape}, expected ({n},)")
        inside = inside.copy()
        inside.setflags(write=False)
        object.__setattr__(self, "in_range", inside)
        for name in ("estimate", "lower", "upper", "counts"):
            arr = np.asarray(getattr(self, name), dtype=np.float64)
            if arr.shape != (n,):
                raise ValueError(f"{name} has shape {arr.shape}, expected ({n},)")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        grid = np.asarray(self.grid, dtype=np.float64)
        grid.setflags(write=False)
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __call__(self, scores: Any) -> np.ndarray:
        """Evaluate the fitted map at new scores (values in [0, 1])."""
        return self.estimator.predict(check_scores(scores, "scores"))

    def __reduce__(self) -> tuple:
        # MappingProxyType does not pickle: rebuild from a plain dict.
        return (type(self), (self.grid, self.estimate, self.lower, self.upper, self.counts,
                             self.method, dict(self.params), self.estimator, self.in_range))

    def __len__(self) -> int:
        return self.grid.shape[0]

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per grid point with columns
        ``score, estimate, lower, upper, count, in_range, method``."""
        return pd.DataFrame(
            {
                "score": self.grid,
                "estimate": self.estimate,
                "lower": self.lower,
                "upper": self.upper,
                "count": self.counts,
                "in_range": self.in_range,
                "method": self.method,
            }
        )

    def plot(self, ax: Axes | None = None, *, band: bool = True, diagonal: bool = True,
             label: str | None = None, scale: str = "linear", **line_kwargs: Any) -> Axes:
        """Draw the curve (and its band) against the diagonal; returns the Axes.

        Call again with the same ``ax`` to overlay several curves. ``scale="logit"``: both
        axes on the logit scale, for rare events (the band of ``family="binomial"``, a
        score interval, is asymmetric there).
        """
        from locacal.plotting import plot_curve

        return plot_curve(self, ax=ax, band=band, diagonal=diagonal, label=label,
                          scale=scale, **line_kwargs)

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        params = ", ".join(f"{k}={plain(v)!r}" for k, v in self.params.items())
        title = (f"CalibrationCurve &mdash; method <code>{html.escape(self.method)}</code> "
                 f"({html.escape(params)}), {len(self)} points")
        figure = figure_html(lambda ax: self.plot(ax=ax), alt="calibration curve")
        return result_html(title, frame_html(self.to_frame().drop(columns="method"),
                                             index=False), figure=figure)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={plain(v)!r}" for k, v in self.params.items())
        return f"CalibrationCurve(method={self.method!r}, {params}, points={len(self)})"
