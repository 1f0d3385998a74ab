"""Several calibration curves of the same scores side by side: :func:`compare_curves`.

The table compares *smoothing choices* for one calibration curve g(s) = E[D | s], so every
column measures the curve, not the scores alone:

``label, method, params``
    the spec's name, the calibrator's method and its parameters;
``df``
    effective degrees of freedom of the fit: tr(L), the trace of the hat matrix at the data,
    for the linear smoothers of the native local engine (``"local"`` with the native backend
    and ``"lowess"`` without robustness iterations, Loader 1999 §2.3.2 "nu_1"); 2 for Platt,
    3 for beta (``"abm"``, 2 for ``"ab"``), the number of non-empty bins for binning, the
    number of constant blocks for isotonic (Meyer & Woodroofe 2000); NaN where it is not
    defined (kernel, lowess with ``it > 0``, the R backend, the gaussian kernel);
``cv_brier``
    K-fold (seeded, shuffled) cross-validated Brier score of the recalibrated scores: the
    calibrator is cloned (:func:`sklearn.base.clone`), refitted on K - 1 folds and scored on
    the held-out fold, (1/n) sum_i w_i (g_{-k(i)}(s_i) - d_i)^2 / mean(w). The fit-quality
    column: a curve that over- or under-smooths predicts held-out labels worse. With
    frequency weights the folds split the *observations*, exactly as
    :class:`sklearn.model_selection.KFold` splits the expanded rows (row i's copies are the
    observations ``F_{i-1} .. F_i - 1``, ``F`` the cumulative counts): each fold holds
    ``c_ik`` copies of row i, the fit leaves them out through its frequency weights
    ``f_i - c_ik``, and the loss sums ``w_i c_ik (g_{-k}(s_i) - d_i)^2``. The fold
    assignment is the one array of N integers built (transiently; the rows are never
    expanded);
``lcs``
    the slides' LCS functional applied to *this* curve: sum_j f(l_j) (g(l_j) - l_j)^2 /
    sum_j f(l_j) on the slides' grid l_j within the score range, f the reflected density of
    the scores (:func:`locacal.metrics.lcs` is this column for the slides' local spec,
    ``{"method": "local", "degree": 0, "kernel": "rect"}``);
``ece``
    the curve's mean absolute gap to the diagonal at the data, (1/n) sum_i |g(s_i) - s_i|
    (the ICI of Austin & Steyerberg 2019 with this curve as the smoother; the binned ECE is
    this with the binning curve and scores replaced by their bin means);
``ise``
    only with ``true_p``: (1/n) sum_i (g(s_i) - true_p_i)^2. When the score is a monotone
    function of the true probability (the simulations of :mod:`locacal.simulate`), the true
    calibration map is g*(s_i) = E[true_p | s_i] = true_p_i and this is the integrated squared
    error of g against g* over the score distribution. Otherwise it equals that ISE plus
    E Var(true_p | s), a constant shared by every spec (g(s) is a function of s, so the
    cross term vanishes): the ranking of the specs is still the ISE's.

References
----------
C. Loader (1999), *Local Regression and Likelihood*, §2.3.2 (degrees of freedom).
P. C. Austin & E. W. Steyerberg (2019), The Integrated Calibration Index (ICI), *Stat. Med.*
Machado, Charpentier et al. (2024), slides, LCS eq. (5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.validation import check_is_fitted

from locacal._validation import (
    check_bins,
    check_int,
    check_probabilities,
    check_scores_labels,
    check_seed,
    positive_weight_rows,
    public_api,
    warn,
)
from locacal.curves._base import BaseCalibrator
from locacal.curves.curve import CalibrationCurve, slides_grid
from locacal.data.frequency import weighting
from locacal.data.sample import sort_sample
from locacal.density import reflected_kde_values
from locacal.localfit import fit

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["COLUMNS", "CurveComparison", "compare_curves"]

#: Columns of :attr:`CurveComparison.table`, in order (``ise`` is NaN without ``true_p``).
COLUMNS = ("label", "method", "params", "df", "cv_brier", "lcs", "ece", "ise")


@dataclass(frozen=True, eq=False)
class CurveComparison:
    """Result of :func:`compare_curves`: the table, the curves and the scores they share."""

    table: pd.DataFrame
    curves: Mapping[str, CalibrationCurve]
    scores: np.ndarray
    labels: np.ndarray
    #: Frequency weights of the rows (None: one observation each), weighting the histogram.
    frequency_weights: np.ndarray | None = None

    @property
    def observations(self) -> int:
        """Number of observations: the rows, or the sum of the frequency weights."""
        counts = self.frequency_weights
        return int(self.scores.size if counts is None else counts.sum())

    def plot(self, ax: Axes | None = None, *, band: bool = True, bins: int = 50) -> Axes:
        """Overlay the curves (with their bands) on the diagonal, with a histogram of the
        scores (``bins`` bins of [0, 1], at most the number of scores or 50) in a small axis
        below; returns the curves' Axes."""
        import matplotlib.pyplot as plt
        from mpl_toolkits.axes_grid1 import make_axes_locatable

        from locacal.plotting import palette, plot_curve

        bins = check_bins(bins, self.observations, default=50)

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        for i, (name, curve) in enumerate(self.curves.items()):
            plot_curve(curve, ax=ax, band=band, label=name, color=palette(i))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        hist = make_axes_locatable(ax).append_axes("bottom", size="20%", pad=0.1, sharex=ax)
        hist.hist(self.scores, bins=np.linspace(0, 1, bins + 1), color="0.6",
                  weights=self.frequency_weights)
        hist.set_xlabel("score")
        hist.set_yticks([])
        ax.set_xlabel("")
        ax.tick_params(labelbottom=False)
        return ax

    def to_frame(self) -> pd.DataFrame:
        """The comparison table: columns :data:`COLUMNS` (a copy of :attr:`table`)."""
        return self.table.copy()

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        title = f"CurveComparison &mdash; {len(self.curves)} curves of {self.observations} scores"
        figure = figure_html(lambda ax: self.plot(ax=ax, bins=30), alt="calibration curves",
                             figsize=(3.6, 4.2))
        return result_html(title, frame_html(self.table, index=False), figure=figure)


def _calibrator(label: str, spec: Any) -> BaseCalibrator:
    """An (unfitted or fitted) calibrator from one spec: a method name, a dict with
    ``"method"`` and its options, or a calibrator."""
    from locacal.curves import make_calibrator

    if isinstance(spec, BaseCalibrator):
        return spec
    if isinstance(spec, str | Mapping):
        options = {"method": spec} if isinstance(spec, str) else dict(spec)
        if "method" not in options:
            raise ValueError(f"specs[{label!r}] must name its 'method', got keys "
                             f"{sorted(options)}")
        try:
            return make_calibrator(options.pop("method"), **options)
        except (TypeError, ValueError) as err:
            raise type(err)(f"specs[{label!r}]: {err}") from None
    raise TypeError(f"specs[{label!r}] must be a method name, a dict with 'method' and its "
                    f"options, or a locacal calibrator; got {type(spec).__name__}")


def _is_fitted(estimator: BaseCalibrator) -> bool:
    try:
        check_is_fitted(estimator)
    except Exception:  # sklearn's NotFittedError
        return False
    return True


def cv_brier(estimator: BaseCalibrator, s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
             *, folds: int = 5, seed: int | None = 0,
             counts: np.ndarray | None = None) -> float:
    """K-fold cross-validated Brier score of the recalibrated scores (see the module);
    ``counts``: frequency weights (``w`` then the relative weights or None)."""
    if counts is not None:
        return _cv_brier_counts(estimator, s, y, w, counts, folds, seed)
    pred = np.empty_like(s)
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(s):
        fold = clone(estimator).fit(s[train], y[train],
                                    sample_weight=None if w is None else w[train])
        pred[test] = fold.predict(s[test])
    loss = (pred - y) ** 2
    return float(loss.mean() if w is None else np.dot(w, loss) / w.sum())


def fold_counts(counts: np.ndarray, folds: int, seed: int | None) -> np.ndarray:
    """(folds, n) copies of each row in each test fold of ``KFold(folds, shuffle=True,
    random_state=seed)`` over the expanded rows (row i's copies at the observations
    ``F_{i-1} .. F_i - 1``): sklearn's own split of N observations (an empty (N, 0) array
    stands for them), each test fold's observations mapped back to their rows."""
    cumulative = np.cumsum(counts.astype(np.int64))
    n_obs = int(cumulative[-1])
    out = np.zeros((folds, counts.size))
    split = KFold(folds, shuffle=True, random_state=seed).split(np.empty((n_obs, 0)))
    for k, (_, test) in enumerate(split):
        rows = np.searchsorted(cumulative, test, side="right")
        out[k] = np.bincount(rows, minlength=counts.size)
    return out


def _cv_brier_counts(estimator: BaseCalibrator, s: np.ndarray, y: np.ndarray,
                     w: np.ndarray | None, counts: np.ndarray, folds: int,
                     seed: int | None) -> float:
    """:func:`cv_brier` of the expanded rows from the grouped ones (module docstring)."""
    total = 0.0
    for held in fold_counts(counts, folds, seed):
        train = counts - held
        keep, test = train > 0, held > 0
        fold = clone(estimator).fit(s[keep], y[keep],
                                    sample_weight=None if w is None else w[keep],
                                    frequency_weights=train[keep])
        loss = (fold.predict(s[test]) - y[test]) ** 2
        copies = held[test] if w is None else held[test] * w[test]
        total += float(np.dot(copies, loss))
    return total / float(counts.sum() if w is None else np.dot(w, counts))


def degrees_of_freedom(estimator: BaseCalibrator) -> float:
    """Effective degrees of freedom of a fitted calibrator (see the module); NaN if none."""
    method = estimator.method
    if method == "platt":
        return 2.0
    if method == "beta":
        return 2.0 if estimator.parameters == "ab" else 3.0
    if method == "binning":
        return float(estimator.stats_.count.size)
    if method == "isotonic":
        return float(estimator.block_values_.size)
    linear = (method == "local" and estimator.backend == "native") or (
        method == "lowess" and not estimator.statsmodels_)
    if linear and estimator.params_.kernel != "gauss":
        # tr(L) = sum_i L_ii, the influence of each row at its own score (O(n log n))
        at_data = fit(estimator.sample_, "data", estimator.params_, outputs=("influence",))
        return float(np.sum(at_data.influence))
    return float("nan")


@public_api
def compare_curves(scores: Any, labels: Any, specs: Mapping[str, Any], *, weights: Any = None,
                   true_p: Any = None, grid: Any = None, folds: int = 5,
                   seed: int | None = 0, level: float = 0.95,
                   frequency_weights: Any = None) -> CurveComparison:
    """Fit several calibration curves of the same scores and compare them in one table.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Scores in [0, 1] and 0/1 events (or two class names with ``pos_label``, the
        positive class, as for every function of locacal that takes labels).
    specs : dict label -> spec
        Each spec is a method name (``"platt"``), a dict with ``"method"`` and its options
        (``{"method": "local", "degree": 0, "kernel": "rect"}``) or a locacal calibrator. An
        unfitted calibrator (or a name or dict) is fitted on ``scores, labels``; a *fitted*
        calibrator is used as given for the curve and the columns measured on the data
        (df, lcs, ece, ise), while ``cv_brier`` always refits a clone per fold.
    weights : array-like of shape (n,), optional
        Case weights, passed to every fit and used in every data average. Rows of weight
        zero are not in the sample: they are left out before the folds are drawn.
    true_p : array-like of shape (n,), optional
        True probabilities P(D = 1 | x) (simulations): adds the ``ise`` column.
    grid : array-like, optional
        Grid of the curves (default: each calibrator's own).
    folds : int, default 5
        Folds of the cross-validated Brier score, at most the number of observations with
        positive weight.
    seed : int or None, default 0
        Seed of the fold split and of the bootstrap bands (isotonic, lowess with ``it > 0``):
        the same seed gives the same table and bands.
    level : float in (0, 1), default 0.95
        Level of the curves' pointwise bands.
    frequency_weights : array-like of shape (n,), optional
        Non-negative whole counts: a row stands for that many identical observations. The
        table, curves and plot equal those of the expanded rows, which are never built:
        every fit takes the counts, the averages weight by ``w f``, the LCS density is the
        observations', ``df`` the trace over the observations, and the folds of
        ``cv_brier`` split the observations as :class:`~sklearn.model_selection.KFold`
        splits the expanded rows (module docstring). Calibrators that refuse counts raise.

    Returns
    -------
    CurveComparison
        ``.table`` (columns :data:`COLUMNS`, one row per spec in the given order),
        ``.curves`` (label -> CalibrationCurve), ``.plot(ax=None)`` and ``_repr_html_``.
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    if not isinstance(specs, Mapping) or len(specs) == 0:
        raise TypeError("specs must be a non-empty dict label -> method name, dict of "
                        "options or calibrator")
    seed = check_seed(seed, kind="int")
    p = None if true_p is None else check_probabilities(true_p, s.size, "true_p")
    counts = None
    if frequency_weights is not None:
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        w, counts = both.point, both.counts
    # rows of weight zero are not in the sample: in no fold, no average, no histogram
    s, y, w, p, counts = positive_weight_rows(s, y, w, p, counts)
    # relative weights beside the counts (the fits take both), None without weights=
    relative = w if counts is None else (None if weights is None else w / counts)
    n_obs = s.size if counts is None else int(counts.sum())
    folds = check_int(folds, "folds", minimum=2, maximum=n_obs,
                      why="the number of observations with positive weight")
    estimators = {str(k): _calibrator(str(k), v) for k, v in specs.items()}
    sample = sort_sample(s, y, w, counts)
    lcs_grid = slides_grid(sample.scores)
    density = reflected_kde_values(sample.scores, lcs_grid, sample.weights, is_sorted=True,
                                   counts=sample.counts)
    unit = np.ones_like(s) if w is None else w
    extra = {} if counts is None else {"frequency_weights": counts}
    rows, curves = [], {}
    for label, estimator in estimators.items():
        fitted = estimator if _is_fitted(estimator) else clone(estimator).fit(
            s, y, sample_weight=relative, **extra)
        curves[label] = fitted.curve(grid, level=level, seed=seed)
        g = fitted.predict(s)
        g_lcs = fitted.predict(lcs_grid)
        df = degrees_of_freedom(fitted)
        rows.append({
            "label": label,
            "method": fitted.method,
            "params": dict(curves[label].params),
            "df": df,
            "cv_brier": cv_brier(estimator, s, y, relative, folds=folds, seed=seed,
                                 counts=counts),
            "lcs": float(density @ (g_lcs - lcs_grid) ** 2 / density.sum()),
            "ece": float(unit @ np.abs(g - s) / unit.sum()),
            "ise": float("nan") if p is None else float(unit @ (g - p) ** 2 / unit.sum()),
        })
    if any(np.isnan(r["df"]) for r in rows):
        warn("df is NaN for " + ", ".join(r["label"] for r in rows if np.isnan(r["df"]))
             + ": not a linear smoother of the native engine")
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    return CurveComparison(table, curves, s, y, counts)
