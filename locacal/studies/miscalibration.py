"""The slides' §3 study: what miscalibration does to calibration and standard metrics.

For each distortion of the logistic process (:func:`locacal.simulate.logistic_dgp`), α on the
probability (eq. 6) or γ on the linear predictor (eq. 7), in {1/3, 1, 3}, draw many samples,
and on each compute every calibration metric, the standard classification metrics at a
threshold τ, and the local-regression calibration curve. The figures of the slides follow:
metric distributions per scenario (Figure 4), curves over the samples with the histogram of the
probabilities by class (Figure 5), standard metrics per scenario (Figure 6).

Reference: Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §3, "Impact of a poor
calibration", and the R scripts of the study (``sim-calibration.R``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal import simulate
from locacal._validation import (
    as_1d_float,
    check_choice,
    check_fraction,
    check_int,
    check_positive,
    plain,
)
from locacal.studies._parallel import child_seeds, parallel_map

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "CALIBRATION_METRICS",
    "STANDARD_METRICS",
    "SimulationResult",
    "plot_simulation_curves",
    "plot_simulation_metrics",
    "plot_simulation_standard_metrics",
    "run_simulation",
]

#: Calibration metrics of Figure 4, in the slides' order.
CALIBRATION_METRICS = ("true_mse", "brier", "ece", "qmse", "wmse", "lcs")
#: Standard metrics of Figure 6 (accuracy, sensitivity and specificity at τ).
STANDARD_METRICS = ("accuracy", "sensitivity", "specificity", "auc")
_LABELS = {
    "true_mse": "True MSE", "brier": "Brier score", "ece": "ECE", "qmse": "QMSE",
    "wmse": "WMSE", "lcs": "LCS", "accuracy": "Accuracy", "sensitivity": "Sensitivity",
    "specificity": "Specificity", "auc": "AUC",
}
#: Histogram bins of Figure 5 (width 0.05, as the R code's ``get_count``).
HIST_EDGES = np.linspace(0.0, 1.0, 21)
_KEYS = ["transform", "level", "alpha", "gamma"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Everything :func:`run_simulation` computed, as tidy tables.

    Attributes
    ----------
    metrics : DataFrame
        One row per (scenario, sample): ``transform`` ("alpha" or "gamma"), ``level`` (its
        value), ``alpha``, ``gamma``, ``sample`` (0-based replication index), then the columns
        of :func:`locacal.calibration_report` (``true_mse``, ``brier``, ``lcs``,
        ``ece``, ``qmse``, ``wmse``, ``accuracy``, ``sensitivity``, ``specificity``, ``auc``
        and the other metrics it reports).
    curves : DataFrame
        Local-regression calibration curve of each sample: the scenario columns, ``sample``,
        ``score`` (grid point) and ``estimate`` (ĝ there).
    histograms : DataFrame
        Mean count per bin of width 0.05 over the samples, by class: the scenario columns,
        ``bin_left``, ``bin_right``, ``label``, ``true_p`` (count of true probabilities in the
        bin) and ``score`` (count of scores in the bin).
    params : Mapping
        The arguments of the run.
    """

    metrics: pd.DataFrame
    curves: pd.DataFrame
    histograms: pd.DataFrame
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def summary(self, statistic: str = "median") -> pd.DataFrame:
        """One row per scenario, one column per metric: the ``statistic`` ("median", "mean",
        or any pandas aggregation name) over the samples."""
        cols = [c for c in self.metrics.columns if c not in (*_KEYS, "sample")]
        return self.metrics.groupby(["transform", "level"])[cols].agg(statistic)

    def to_frame(self) -> pd.DataFrame:
        """The tidy per-sample metrics (a copy of :attr:`metrics`)."""
        return self.metrics.copy()

    def plot(self, ax: Axes | None = None, *, metric: str = "lcs") -> Axes:
        """Boxplots of ``metric`` over the samples, one box per scenario (α levels, then γ
        levels). Returns the Axes; :func:`plot_simulation_metrics` draws several metrics."""
        from locacal.plotting import new_axes

        metrics = [c for c in self.metrics.columns if c not in (*_KEYS, "sample")]
        check_choice(metric, tuple(metrics), "metric")
        ax = new_axes(ax, (6.0, 3.5))
        groups = self.metrics.groupby(["transform", "level"], sort=False)[metric]
        ax.boxplot([g.dropna().to_numpy() for _, g in groups], widths=0.6,
                   tick_labels=[rf"$\{t}$={_level_label(lv)}" for (t, lv), _ in groups],
                   flierprops={"markersize": 2})
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_ylabel(_LABELS.get(metric, metric))
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        shown = [c for c in (*CALIBRATION_METRICS, "auc") if c in self.metrics.columns]
        title = (f"SimulationResult &mdash; median over {self.metrics['sample'].nunique()} "
                 "samples per scenario")
        figure = figure_html(lambda ax: self.plot(ax=ax), alt="LCS by scenario",
                             figsize=(4.4, 3.2))
        return result_html(title, frame_html(self.summary()[shown], max_rows=30),
                           figure=figure)

    def __repr__(self) -> str:
        n = self.metrics["sample"].nunique()
        scen = self.metrics.groupby(["transform", "level"]).ngroups
        return f"SimulationResult({scen} scenarios x {n} samples, params={dict(self.params)})"


def _scenarios(alphas: Sequence[float], gammas: Sequence[float]) -> list[tuple[str, float]]:
    for name, values in (("alphas", alphas), ("gammas", gammas)):
        if isinstance(values, str) or not isinstance(values, Iterable):
            raise TypeError(f"{name} must be a sequence of numbers (possibly empty), got "
                            f"{plain(values)!r}")
    scen = [("alpha", check_positive(a, "alphas")) for a in alphas]
    scen += [("gamma", check_positive(g, "gammas")) for g in gammas]
    if not scen:
        raise ValueError("alphas and gammas are both empty: no scenario to simulate")
    return scen


def _one_sample(index: int, seed: np.random.SeedSequence, scenarios: list[tuple[str, float]],
                n_obs: int, a: tuple[float, ...], threshold: float, nn: float
                ) -> tuple[list[dict], list[pd.DataFrame], list[pd.DataFrame]]:
    from locacal.curves import calibration_curve
    from locacal.report.table import calibration_report

    rows, curves, hists = [], [], []
    for transform, level in scenarios:
        alpha = level if transform == "alpha" else 1.0
        gamma = level if transform == "gamma" else 1.0
        # The same child seed in every scenario: sample i shares its features, noise and
        # labels across scenarios (common random numbers); only the distortion differs.
        df = simulate.logistic_dgp(n_obs, alpha=alpha, gamma=gamma, a=a, seed=seed)
        s, d, p = df["score"].to_numpy(), df["label"].to_numpy(), df["true_p"].to_numpy()
        keys = {"transform": transform, "level": level, "alpha": alpha, "gamma": gamma}
        report = calibration_report(s, d, true_p=p, threshold=threshold)
        rows.append({**keys, "sample": index, **report.to_dict()})
        curve = calibration_curve(s, d, method="local", nn=nn, degree=0, kernel="rect")
        curves.append(pd.DataFrame({**keys, "sample": index, "score": curve.grid,
                                    "estimate": curve.estimate}))
        for label in (0, 1):
            hists.append(pd.DataFrame({
                **keys, "sample": index, "bin_left": HIST_EDGES[:-1],
                "bin_right": HIST_EDGES[1:], "label": label,
                "true_p": np.histogram(p[d == label], HIST_EDGES)[0],
                "score": np.histogram(s[d == label], HIST_EDGES)[0],
            }))
    return rows, curves, hists


def run_simulation(
    *,
    alphas: Sequence[float] = (1 / 3, 1.0, 3.0),
    gammas: Sequence[float] = (1 / 3, 1.0, 3.0),
    n_samples: int = 200,
    n_obs: int = 2000,
    a: Sequence[float] = simulate.LOGISTIC_A,
    threshold: float = 0.5,
    nn: float = 0.15,
    seed: int | np.random.SeedSequence = 2024,
    n_jobs: int | None = -1,
    progress: bool = True,
) -> SimulationResult:
    r"""Rerun the slides' §3 simulation study in one call.

    For each scenario — α in ``alphas`` with γ = 1, then γ in ``gammas`` with α = 1 — and each
    of ``n_samples`` samples of ``n_obs`` observations of
    :func:`locacal.simulate.logistic_dgp`, the scores p^u are assessed against the labels:

    * every metric of :func:`locacal.calibration_report`: the true MSE
      (1/n) Σ (p_i − p^u_i)², the Brier score, ECE and QMSE (10 quantile bins), WMSE, the
      LCS (local regression of degree 0 on 15 % nearest neighbours, rectangular kernel), and
      accuracy, sensitivity and specificity at threshold τ and the AUC;
    * the local-regression calibration curve ĝ on the slides' grid (100 points of [0, 1]
      within the score range), with the same settings as the LCS;
    * the counts of true probabilities and of scores by class in bins of width 0.05.

    Parameters
    ----------
    alphas, gammas : sequences of positive floats, default (1/3, 1, 3)
        Distortion levels of eq. 6 and eq. 7 (six scenarios by default; α = 1 and γ = 1 are
        the same calibrated process, kept in both rows as in the slides' figures).
    n_samples : int, default 200
    n_obs : int, default 2000
    a : sequence of float, default ``simulate.LOGISTIC_A``
    threshold : float, default 0.5
        τ for accuracy, sensitivity, specificity.
    nn : float, default 0.15
        Nearest-neighbour fraction of the curves.
    seed : int or SeedSequence, default 2024
        Sample i draws from child i of ``SeedSequence(seed)`` in every scenario (common random
        numbers: only the distortion differs between scenarios, as in the R code, which calls
        ``set.seed(i)`` for sample i of each scenario). The result does not depend on
        ``n_jobs``.
    n_jobs : int, default -1
        joblib workers (-1: all cores).
    progress : bool, default True
        Show a tqdm progress bar.

    Returns
    -------
    SimulationResult
        ``.metrics``, ``.curves``, ``.histograms`` (tidy DataFrames) and ``.summary()``.

    Notes
    -----
    The metrics use all ``n_obs`` observations of each sample. The published R code assesses
    a subset of about 1600 of them (it drops the calibration indices, drawn within the
    remaining 40 %, from the whole sample) and computes the standard metrics of its
    Figure 6 with the true probabilities as predictions (``compute_gof_simul`` swaps ``p``
    and ``p_u``); here they are computed on the scores p^u, as the slides describe. The
    curves are the package's native local regression, without the R code's jitter.

    Examples
    --------
    >>> from locacal.studies import run_simulation
    >>> res = run_simulation(n_samples=2, n_obs=500, progress=False, n_jobs=1)
    >>> res.summary()["lcs"].shape
    (6,)
    """
    scenarios = _scenarios(alphas, gammas)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_obs = check_int(n_obs, "n_obs", minimum=10)
    threshold = check_fraction(threshold, "threshold", low_open=False)
    nn = check_fraction(nn, "nn")
    coef = tuple(float(v) for v in as_1d_float(a, "a"))
    seeds = child_seeds(seed, n_samples)
    tasks = [(i, seeds[i], scenarios, n_obs, coef, threshold, nn) for i in range(n_samples)]
    results = parallel_map(_one_sample, tasks, n_jobs=n_jobs, progress=progress,
                           desc="simulation samples")
    order = {key: k for k, key in enumerate(scenarios)}

    def tidy(frame: pd.DataFrame, by: Sequence[str] = ("sample",)) -> pd.DataFrame:
        rank = [order[(t, lv)] for t, lv in zip(frame["transform"], frame["level"], strict=True)]
        frame = frame.assign(_order=rank).sort_values(["_order", *by], kind="stable")
        return frame.drop(columns="_order").reset_index(drop=True)

    metrics = tidy(pd.DataFrame([row for rows, _, _ in results for row in rows]))
    curves = tidy(pd.concat([c for _, cs, _ in results for c in cs], ignore_index=True))
    hist = pd.concat([h for _, _, hs in results for h in hs], ignore_index=True)
    hist = (hist.groupby([*_KEYS, "bin_left", "bin_right", "label"], sort=False)[
        ["true_p", "score"]].mean().reset_index())
    hist = tidy(hist, by=("label", "bin_left"))
    params = {"alphas": tuple(alphas), "gammas": tuple(gammas), "n_samples": n_samples,
              "n_obs": n_obs, "a": coef, "threshold": threshold, "nn": nn,
              "seed": seed if isinstance(seed, int) else repr(seed)}
    return SimulationResult(metrics=metrics, curves=curves, histograms=hist, params=params)


# --------------------------------------------------------------------------- figures


def _level_label(level: float) -> str:
    for num, den in ((1, 3), (1, 2), (2, 3)):
        if np.isclose(level, num / den):
            return f"{num}/{den}"
    return f"{level:g}"


def _transforms(result: SimulationResult) -> list[str]:
    return list(dict.fromkeys(result.metrics["transform"]))


def _boxplots(result: SimulationResult, metrics: Sequence[str], fig: Figure | None,
              title: str) -> np.ndarray:
    import matplotlib.pyplot as plt

    unknown = [m for m in metrics if m not in result.metrics.columns]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; available: "
                         f"{[c for c in result.metrics.columns if c not in (*_KEYS, 'sample')]}")
    transforms = _transforms(result)
    if fig is None:
        fig = plt.figure(figsize=(2.6 * len(metrics), 2.6 * len(transforms)),
                         layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(transforms), len(metrics), squeeze=False))
    for r, transform in enumerate(transforms):
        sub = result.metrics[result.metrics["transform"] == transform]
        levels = list(dict.fromkeys(sub["level"]))
        for c, metric in enumerate(metrics):
            ax = axes[r, c]
            data = [sub.loc[sub["level"] == lv, metric].dropna().to_numpy() for lv in levels]
            ax.boxplot(data, tick_labels=[_level_label(lv) for lv in levels], widths=0.6,
                       flierprops={"markersize": 2})
            ax.set_xlabel(rf"$\{transform}$")
            if r == 0:
                ax.set_title(_LABELS.get(metric, metric))
    fig.suptitle(title)
    return np.asarray(fig.axes)


def plot_simulation_metrics(result: SimulationResult, *,
                            metrics: Sequence[str] = CALIBRATION_METRICS,
                            fig: Figure | None = None) -> np.ndarray:
    """Figure 4 of the slides: the distribution of each calibration metric over the samples,
    one box per distortion level, a row for α and a row for γ. Returns the figure's Axes, an
    array (the Figure is ``axes[0].figure``; returned itself, a notebook would draw it
    twice)."""
    return _boxplots(result, metrics, fig, "Calibration metrics over the simulated samples")


def plot_simulation_standard_metrics(result: SimulationResult, *,
                                     metrics: Sequence[str] = STANDARD_METRICS,
                                     fig: Figure | None = None) -> np.ndarray:
    """Figure 6 of the slides: accuracy, sensitivity, specificity (at τ) and AUC per
    scenario. Returns the figure's Axes, an array (the Figure is ``axes[0].figure``;
    returned itself, a notebook would draw it twice)."""
    tau = result.params.get("threshold", 0.5)
    return _boxplots(result, metrics, fig, f"Standard metrics (threshold τ = {tau:g})")


def plot_simulation_curves(result: SimulationResult, *, histogram: str = "true_p",
                           band: float = 0.95, fig: Figure | None = None) -> np.ndarray:
    """Figure 5 of the slides: for each scenario, the local-regression calibration curves of
    the samples (their pointwise mean and a ``band`` quantile band) against the diagonal,
    under the mean histogram by class (purple d = 0, gold d = 1).

    Parameters
    ----------
    histogram : {"true_p", "score"}, default "true_p"
        What the histograms count: the true probabilities (the slides' caption) or the scores
        p^u (what the published R code draws, on the curve's own x axis).
    band : float, default 0.95
        Coverage of the pointwise quantile band of the curves over the samples.

    Returns
    -------
    ndarray of Axes
        The figure's Axes, an array (the Figure is ``axes[0].figure``; returned itself,
        a notebook would draw it twice).
    """
    import matplotlib.pyplot as plt

    check_choice(histogram, ("true_p", "score"), "histogram")
    band = check_fraction(band, "band")
    transforms = _transforms(result)
    scen = result.metrics[["transform", "level"]].drop_duplicates()
    ncol = int(scen.groupby("transform").size().max())
    if fig is None:
        fig = plt.figure(figsize=(3.2 * ncol, 4.4 * len(transforms)), layout="constrained")
    grid = fig.add_gridspec(2 * len(transforms), ncol, height_ratios=[1, 3] * len(transforms))
    lo_q, hi_q = (1 - band) / 2, 1 - (1 - band) / 2
    for r, transform in enumerate(transforms):
        levels = list(dict.fromkeys(scen.loc[scen["transform"] == transform, "level"]))
        for c, level in enumerate(levels):
            ax_h = fig.add_subplot(grid[2 * r, c])
            ax_c = fig.add_subplot(grid[2 * r + 1, c], sharex=ax_h)
            hist = result.histograms[(result.histograms["transform"] == transform)
                                     & (result.histograms["level"] == level)]
            bottom = np.zeros(len(HIST_EDGES) - 1)
            for label, colour in ((0, "#CC79A7"), (1, "#E69F00")):
                h = hist[hist["label"] == label]
                ax_h.bar(h["bin_left"], h[histogram], width=h["bin_right"] - h["bin_left"],
                         bottom=bottom, align="edge", color=colour, edgecolor="white",
                         label=f"d = {label}")
                bottom = bottom + h[histogram].to_numpy()
            ax_h.set_axis_off()
            ax_h.set_title(rf"$\{transform}$ = {_level_label(level)}")
            cur = result.curves[(result.curves["transform"] == transform)
                                & (result.curves["level"] == level)]
            stats = cur.groupby("score")["estimate"].agg(
                mean="mean", lower=lambda v: v.quantile(lo_q), upper=lambda v: v.quantile(hi_q))
            colour = "#D55E00" if np.isclose(level, 1.0) else "#0072B2"
            ax_c.fill_between(stats.index, stats["lower"], stats["upper"], color=colour,
                              alpha=0.4, linewidth=0)
            ax_c.plot(stats.index, stats["mean"], color=colour)
            ax_c.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=0.8)
            ax_c.set_xlim(0, 1)
            ax_c.set_ylim(0, 1)
            ax_c.set_xlabel("$p^u$")
            if c == 0:
                ax_c.set_ylabel(r"$\hat E(D \mid p^u)$")
        if r == 0:
            handles, labels = ax_h.get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside upper right", ncols=2)
    return np.asarray(fig.axes)
