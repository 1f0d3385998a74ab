"""The slides' grid studies (§5.2): trees and forests from underfitted to overfitted.

:func:`tree_grid_study` and :func:`forest_grid_study` sweep the hyperparameters from a
two-leaf tree to an overfitted one, with the metrics of :data:`GRID_METRICS` on each split,
among them the KL divergence between the distribution of the scores and that of the true
probabilities (:func:`locacal.metrics.divergence.kl_divergence`).

References
----------
Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §5.2. Breiman (2001), random
forests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

from locacal._validation import (
    as_1d_float,
    check_choice,
    check_int,
    check_nonnegative,
    check_seed,
)
from locacal.metrics.registry import evaluate
from locacal.studies._parallel import parallel_map
from locacal.studies.tree_models import (
    SPLITS,
    _check_data,
    _features,
    _leaf_holders,
    _n_leaves,
    _pruned_leaves,
    _pruned_predict,
    _tree,
    tree_data,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["DEFAULT_CPS", "GRID_METRICS", "GridStudy", "forest_grid_study", "tree_grid_study"]

#: Metrics of every model and split (the slides' table, plus the KL divergence of the scores'
#: distribution from the true probabilities'), all from :data:`locacal.metrics.registry.METRICS`.
GRID_METRICS = ("true_mse", "accuracy", "auc", "brier", "lcs", "kl")
#: Pruning strengths of :func:`tree_grid_study`, in rpart's cp units: from a two-leaf tree
#: (cp = 0.1 on the eq. 10 process) down to no pruning at all.
DEFAULT_CPS = (*np.geomspace(0.1, 1e-6, 21).round(12).tolist(), 0.0)
#: Bins of the score histograms kept for Figure 17 (width 0.01).
HIST_EDGES = np.linspace(0.0, 1.0, 101)


def _assess(scores: np.ndarray, labels: np.ndarray, true_p: np.ndarray,
            threshold: float = 0.5) -> dict[str, float]:
    return evaluate(GRID_METRICS, scores, labels, true_p=true_p, threshold=threshold)


@dataclass(frozen=True, eq=False)
class GridStudy:
    """Metrics of many trees or forests fitted on the same data (slides §5.2).

    Attributes
    ----------
    metrics : DataFrame
        One row per (model, split): ``model`` (an id), the hyperparameters (``min_leaf`` and
        ``cp`` for trees; ``n_estimators``, ``min_leaf`` and ``max_features`` for forests),
        ``n_leaves`` (mean leaves per tree for forests), ``split``, then ``true_mse``,
        ``accuracy``, ``auc``, ``brier``, ``lcs`` and ``kl``.
    histograms : DataFrame
        Counts of the scores in bins of width 0.01: ``model`` ("true probabilities" for the
        truth), ``split``, ``bin_left``, ``bin_right``, ``count``.
    params : Mapping
    """

    metrics: pd.DataFrame
    histograms: pd.DataFrame
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def best(self, metric: str = "kl", *, split: str = "calibration",
             maximize: bool = False) -> pd.DataFrame:
        """The rows (every split) of the model that minimises ``metric`` on ``split`` —
        by default the KL divergence on the calibration split, so that the test rows stay
        an honest estimate. ``maximize=True`` for metrics such as the AUC."""
        check_choice(metric, GRID_METRICS, "metric")
        check_choice(split, SPLITS, "split")
        on = self.metrics[self.metrics["split"] == split].set_index("model")[metric]
        model = on.idxmax() if maximize else on.idxmin()
        return self.metrics[self.metrics["model"] == model].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table (a copy of :attr:`metrics`)."""
        return self.metrics.copy()

    def plot(self, ax: Axes | None = None, *, metric: str = "kl",
             split: str = "test") -> Axes:
        """``metric`` on ``split`` against the number of leaves (log scale), one point per
        model, the model with the smallest KL on the calibration split circled. Returns the
        Axes; :func:`~locacal.studies.tree_figures.plot_metrics_vs_leaves` draws several
        metrics by hyperparameter."""
        from locacal.plotting import new_axes, palette

        check_choice(metric, GRID_METRICS, "metric")
        check_choice(split, SPLITS, "split")
        ax = new_axes(ax, (5.0, 3.5))
        sub = self.metrics[self.metrics["split"] == split]
        ax.scatter(sub["n_leaves"], sub[metric], s=12, color=palette(0), label="models")
        best = sub[sub["model"] == self.best("kl")["model"].iloc[0]]
        ax.scatter(best["n_leaves"], best[metric], s=90, facecolors="none",
                   edgecolors=palette(1), linewidths=2, label="smallest KL (calibration)")
        ax.set(xscale="log", xlabel="number of leaves", ylabel=f"{metric} ({split})")
        ax.legend(frameon=False, fontsize="small")
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        n = self.metrics["model"].nunique()
        figure = figure_html(lambda ax: self.plot(ax=ax), alt="KL against leaves",
                             figsize=(4.4, 3.2))
        return result_html(f"GridStudy &mdash; {n} models; the KL-best on the calibration "
                           "split:", frame_html(self.best("kl"), index=False),
                           figure=figure)


def _histogram_rows(model: str, split: str, scores: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"model": model, "split": split, "bin_left": HIST_EDGES[:-1],
                         "bin_right": HIST_EDGES[1:],
                         "count": np.histogram(scores, HIST_EDGES)[0]})


def _assess_model(model_id: str, keys: dict[str, Any], scores: dict[str, np.ndarray],
                  data: dict[str, pd.DataFrame]) -> tuple[list[dict], list[pd.DataFrame]]:
    rows, hists = [], []
    for split in SPLITS:
        frame, s = data[split], scores[split]
        rows.append({"model": model_id, **keys, "split": split,
                     **_assess(s, frame["label"].to_numpy(), frame["true_p"].to_numpy())})
        hists.append(_histogram_rows(model_id, split, s))
    return rows, hists


def _grid_result(results: list, data: dict[str, pd.DataFrame],
                 params: dict[str, Any]) -> GridStudy:
    truth = [_histogram_rows("true probabilities", s, data[s]["true_p"].to_numpy())
             for s in SPLITS]
    metrics = pd.DataFrame([row for rows, _ in results for row in rows])
    hist = pd.concat([*truth, *(h for _, hs in results for h in hs)], ignore_index=True)
    return GridStudy(metrics=metrics, histograms=hist, params=params)


def _grid_data(data: Any, seed: int) -> dict[str, pd.DataFrame]:
    return tree_data(seed=seed) if data is None else _check_data(data)


def tree_grid_study(
    *,
    data: Mapping[str, pd.DataFrame] | None = None,
    min_leaves: Sequence[int] = (10, 100, 1000),
    cps: Sequence[float] = DEFAULT_CPS,
    seed: int = 2024,
    n_jobs: int | None = -1,
    progress: bool = True,
) -> GridStudy:
    """Regression trees over a grid of pruning strength and minimum leaf size (slides §5.2).

    Every pair (``min_leaf``, ``cp``) gives the tree :func:`rpart_tree` fits with those
    settings on *train*: cp = 0.1 leaves two leaves on the eq. 10 process, cp = 0 prunes
    nothing (thousands of leaves at ``min_leaf = 10``). The full tree is grown once per
    ``min_leaf`` and pruned at every cp. Each tree is assessed on the three splits, with
    the KL divergence (20 bins, nats) of its scores' distribution from the true
    probabilities' (:func:`locacal.metrics.divergence.kl_divergence`); ``best()`` returns the tree
    of smallest KL on the calibration split.

    Parameters
    ----------
    data : mapping, optional
        Train, calibration and test frames (default :func:`tree_data` with ``seed``).
    min_leaves : sequence of int, default (10, 100, 1000)
        1/10,000, 1/1,000 and 1/100 of 100,000 training rows.
    cps : sequence of float, default :data:`DEFAULT_CPS`
        Pruning strengths in rpart's units (``ccp_alpha = cp · Var(label)``).
    seed : int, default 2024
        Data (when ``data`` is not given) and the trees' ``random_state``.
    n_jobs : int, default -1
    progress : bool, default True

    Returns
    -------
    GridStudy
        ``metrics`` has the hyperparameter columns ``min_leaf`` and ``cp``.
    """
    seed = check_seed(seed, kind="int")
    leaves = [check_int(v, "min_leaves", minimum=1) for v in as_1d_float(min_leaves,
                                                                          "min_leaves")]
    cp_values = np.array([check_nonnegative(cp, "cps") for cp in as_1d_float(cps, "cps")])
    data = _grid_data(data, seed)
    train = data["train"]
    labels = train["label"].to_numpy()
    alphas = cp_values * float(labels.var())
    tasks = []
    for m in leaves:
        full = _tree(m, random_state=seed).fit(_features(train), labels)
        holder = _pruned_leaves(full, alphas)
        n_leaves = _n_leaves(_leaf_holders(full, holder))
        preds = {s: _pruned_predict(full, holder, _features(data[s])) for s in SPLITS}
        for j, cp in enumerate(cp_values):
            keys = {"min_leaf": m, "cp": float(cp), "n_leaves": float(n_leaves[j])}
            tasks.append((f"tree[min_leaf={m}, cp={cp:g}]", keys,
                          {s: preds[s][:, j] for s in SPLITS}, data))
    results = parallel_map(_assess_model, tasks, n_jobs=n_jobs, progress=progress,
                           desc="trees")
    params = {"min_leaves": tuple(leaves), "cps": tuple(cp_values.tolist()), "seed": seed}
    return _grid_result(results, data, params)


def _forest_task(b_values: list[int], min_leaf: int, max_features: int, seed: int,
                 data: dict[str, pd.DataFrame]) -> tuple[list[dict], list[pd.DataFrame]]:
    forest = RandomForestRegressor(n_estimators=b_values[0], min_samples_leaf=min_leaf,
                                   min_samples_split=3 * min_leaf, max_features=max_features,
                                   random_state=seed, warm_start=True)
    rows, hists = [], []
    train = data["train"]
    for b in b_values:
        forest.set_params(n_estimators=b)
        forest.fit(_features(train), train["label"].to_numpy())
        keys = {"n_estimators": b, "min_leaf": min_leaf, "max_features": max_features,
                "n_leaves": float(np.mean([t.get_n_leaves() for t in forest.estimators_]))}
        scores = {s: forest.predict(_features(data[s])) for s in SPLITS}
        r, h = _assess_model(f"forest[n_estimators={b}, min_leaf={min_leaf}, "
                             f"max_features={max_features}]", keys, scores, data)
        rows += r
        hists += h
    return rows, hists


def forest_grid_study(
    *,
    data: Mapping[str, pd.DataFrame] | None = None,
    n_estimators: Sequence[int] = (10, 50, 100),
    min_leaves: Sequence[int] = (10, 100, 1000),
    max_features: Sequence[int] = (1, 2),
    seed: int = 2024,
    n_jobs: int | None = -1,
    progress: bool = True,
) -> GridStudy:
    """Random forests (regression, scikit-learn) over a grid of number of trees, minimum
    leaf size and number of features tried at each split (slides §5.2 and their plan to
    study ensembles).

    For each (``min_leaf``, ``max_features``) one forest grows by warm start through the
    sizes in ``n_estimators``, so the forest of 50 trees holds the forest of 10 and the
    comparison isolates the number of trees. Assessed like :func:`tree_grid_study`;
    ``n_leaves`` is the mean number of leaves per tree. With two features,
    ``max_features = 2`` is bagging and ``max_features = 1`` draws the splitting feature.
    The default sizes (up to 100 trees) keep the 18 forests to about two minutes on two
    cores, fitting dominating; R's ``randomForest`` grows 500 trees by default, which
    ``n_estimators=(10, 50, 500)`` adds at five times the cost.

    Returns
    -------
    GridStudy
        ``metrics`` has the hyperparameter columns ``n_estimators``, ``min_leaf`` and
        ``max_features``.
    """
    seed = check_seed(seed, kind="int")
    sizes = sorted({check_int(v, "n_estimators", minimum=1)
                    for v in as_1d_float(n_estimators, "n_estimators")})
    leaves = [check_int(v, "min_leaves", minimum=1) for v in as_1d_float(min_leaves,
                                                                          "min_leaves")]
    feats = [check_int(v, "max_features", allowed=(1, 2))
             for v in as_1d_float(max_features, "max_features")]
    data = _grid_data(data, seed)
    tasks = [(sizes, m, f, seed, data) for m in leaves for f in feats]
    results = parallel_map(_forest_task, tasks, n_jobs=n_jobs, progress=progress,
                           desc="forests")
    params = {"n_estimators": tuple(sizes), "min_leaves": tuple(leaves),
              "max_features": tuple(feats), "seed": seed}
    return _grid_result(results, data, params)
