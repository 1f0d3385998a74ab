"""Figures of the slides' grid studies (§5.2): score histograms (Figure 17) and metrics
against the number of leaves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from locacal._validation import check_choice
from locacal.studies.tree_grid import GRID_METRICS, GridStudy
from locacal.studies.tree_models import SPLITS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_metrics_vs_leaves", "plot_score_distributions"]

_LABELS = {"true_mse": "MSE (true probabilities)", "accuracy": "Accuracy", "auc": "AUC",
           "brier": "Brier score", "lcs": "LCS", "kl": "KL(scores ‖ true p)"}


def plot_score_distributions(study: GridStudy, *, min_leaf: int | None = None,
                             split: str = "test", fig: Figure | None = None) -> np.ndarray:
    """Figure 17 of the slides: histograms of the true probabilities (top), then of the
    scores of the smallest tree, of the tree with the smallest KL divergence (chosen on the
    calibration split) and of the largest tree, among those with ``min_leaf`` (default: the
    grid's value closest to 1/1,000 of the training rows, the slides' setting for this
    figure). Returns the figure's Axes, an array (the Figure is ``axes[0].figure``; returned
    itself, a notebook would draw it twice)."""
    import matplotlib.pyplot as plt

    check_choice(split, SPLITS, "split")
    m = study.metrics
    if min_leaf is None:
        h = study.histograms
        n_train = h.loc[(h["model"] == "true probabilities") & (h["split"] == "train"),
                        "count"].sum()
        values = np.unique(m["min_leaf"])
        min_leaf = int(values[np.abs(values - n_train / 1000).argmin()])
    pool = m[(m["min_leaf"] == min_leaf) & (m["split"] == "calibration")]
    if pool.empty:
        raise ValueError(f"no model with min_leaf={min_leaf}; the grid has "
                         f"{sorted(m['min_leaf'].unique().tolist())}")
    picks = [("true probabilities", "True probabilities"),
             (pool.loc[pool["n_leaves"].idxmin(), "model"], "Smallest"),
             (pool.loc[pool["kl"].idxmin(), "model"], "Smallest KL divergence"),
             (pool.loc[pool["n_leaves"].idxmax(), "model"], "Largest")]
    if fig is None:
        fig = plt.figure(figsize=(6, 7), layout="constrained")
    axes = fig.subplots(len(picks), 1, sharex=True)
    leaves = m.set_index("model")["n_leaves"].to_dict()
    for ax, (model, title) in zip(axes, picks, strict=True):
        h = study.histograms[(study.histograms["model"] == model)
                             & (study.histograms["split"] == split)]
        ax.bar(h["bin_left"], h["count"], width=h["bin_right"] - h["bin_left"], align="edge",
               color="#0072B2" if model != "true probabilities" else "#E69F00")
        label = title if model == "true probabilities" else (
            f"{title}: {model} ({leaves[model]:g} leaves)")
        ax.set_title(label, fontsize="small")
        ax.set_ylabel("count")
    axes[-1].set_xlabel(f"score ({split} split)")
    axes[-1].set_xlim(0, 1)
    return np.asarray(fig.axes)


def plot_metrics_vs_leaves(study: GridStudy, *, metrics: Sequence[str] = GRID_METRICS,
                           split: str = "test", by: str = "min_leaf",
                           fig: Figure | None = None) -> np.ndarray:
    """Each metric on ``split`` against the number of leaves (log scale), one line per
    value of ``by`` (a hyperparameter column), the KL-best model circled. Returns the
    figure's Axes, an array (the Figure is ``axes[0].figure``; returned itself, a notebook
    would draw it twice)."""
    import matplotlib.pyplot as plt

    check_choice(split, SPLITS, "split")
    for metric in metrics:
        check_choice(metric, GRID_METRICS, "metrics")
    m = study.metrics
    hyper = [c for c in m.columns if c not in (*GRID_METRICS, "model", "split", "n_leaves")]
    check_choice(by, tuple(hyper), "by")
    best = study.best("kl")["model"].iloc[0]
    sub = m[m["split"] == split]
    if fig is None:
        fig = plt.figure(figsize=(3.2 * len(metrics), 3.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(metrics)))
    for ax, metric in zip(axes, metrics, strict=True):
        for value, group in sub.groupby(by):
            group = group.sort_values("n_leaves")
            ax.plot(group["n_leaves"], group[metric], marker="o", markersize=3,
                    label=f"{by} = {value}")
        star = sub[sub["model"] == best]
        ax.scatter(star["n_leaves"], star[metric], s=80, facecolors="none",
                   edgecolors="black", label="smallest KL (calibration)")
        ax.set_xscale("log")
        ax.set_xlabel("number of leaves")
        ax.set_title(_LABELS[metric])
    axes[0].legend(fontsize="small")
    fig.suptitle(f"{split} split")
    return np.asarray(fig.axes)
