"""The slides' tree case study (§5.1): two trees, their scores recalibrated, one table.

:func:`tree_case_study` tabulates MSE, accuracy, AUC, Brier and LCS by split for the true
probabilities, each tree's raw scores and each recalibration of them (the slides' table).

Trees have few distinct scores (one per leaf). The LCS here is the package's native local
regression, which handles tied scores by a fixed rule: no jitter is added (the R code adds
uniform noise of up to 0.01 to avoid a locfit crash, which moves the scores it assesses).

References
----------
Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §5.1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._validation import check_choice, check_int, check_nonnegative, check_seed
from locacal.metrics.divergence import kl_divergence
from locacal.recalibration.split import TREE_PROPORTIONS
from locacal.recalibration.workflow import check_methods, recalibrate
from locacal.studies.tree_models import (
    SPLITS,
    _features,
    _min_leaf,
    cv_pruned_tree,
    rpart_tree,
    tree_data,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["TreeCaseStudy", "tree_case_study"]


@dataclass(frozen=True, eq=False)
class TreeCaseStudy:
    """The slides' tree case study (§5.1).

    Attributes
    ----------
    table : DataFrame
        One row per (model, method, split): ``model`` ("true probabilities" or a tree),
        ``method`` ("uncalibrated" for the tree's raw scores, "true_p" for the true
        probabilities, else the recalibration method), ``split`` (train, calibration, test),
        ``n_leaves``, then the columns of :attr:`RecalibrationResult.metrics
        <locacal.recalibration.workflow.RecalibrationResult>` (``n``, ``true_mse``,
        ``brier``, ``ece``, ``qmse``, ``lcs``, ``accuracy``, ``sensitivity``,
        ``specificity``, ``auc``) and ``kl``, the KL divergence of the scores' distribution
        from the true probabilities' (20 bins, nats).
    models : Mapping
        The fitted trees by name.
    recalibrations : Mapping
        The :func:`~locacal.recalibration.recalibrate` result of each tree (its ``plot()``
        draws the slides' Figure 13: calibration curves before and after recalibration).
    data : Mapping
        The train, calibration and test frames.
    params : Mapping
    """

    table: pd.DataFrame
    models: Mapping[str, Any]
    recalibrations: Mapping[str, Any]
    data: Mapping[str, pd.DataFrame]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("models", "recalibrations", "data", "params"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def summary(self, split: str = "test",
                columns: Sequence[str] = ("true_mse", "accuracy", "auc", "brier", "lcs")
                ) -> pd.DataFrame:
        """The slides' table for one split: MSE, accuracy, AUC, Brier score and LCS by
        (model, method)."""
        check_choice(split, SPLITS, "split")
        table = self.table[self.table["split"] == split]
        return table.set_index(["model", "method"])[list(columns)]

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table (a copy of :attr:`table`)."""
        return self.table.copy()

    def plot(self, ax: Axes | None = None, *, metric: str = "lcs",
             split: str = "test") -> Axes:
        """``metric`` on ``split`` as grouped bars: one group per model (the true
        probabilities and each tree), one bar per method. Returns the Axes; each
        ``recalibrations[name].plot()`` draws the slides' Figure 13."""
        from locacal.plotting import plot_metric_bars

        return plot_metric_bars(self.summary(split, columns=(metric,)), metric, ax=ax)

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax, metric="true_mse"),
                             alt="true MSE by model and method", figsize=(4.4, 3.4))
        return result_html("TreeCaseStudy &mdash; test split", frame_html(self.summary(),
                           max_rows=40), figure=figure)


def tree_case_study(
    *,
    n_obs: int = 200_000,
    proportions: Sequence[float] = TREE_PROPORTIONS,
    cp: float = 0.01,
    min_leaf: int | None = None,
    cv: int = 5,
    methods: Sequence[str] | Mapping[str, Any] = ("platt", "isotonic", "beta", "local"),
    seed: int = 2024,
) -> TreeCaseStudy:
    """Rerun the slides' tree case study (§5.1) in one call.

    Draws :func:`tree_data`, fits the slides' tree (:func:`rpart_tree`, pruned at ``cp``) and
    the cross-validated one (:func:`cv_pruned_tree`) on *train*, recalibrates each tree's
    scores on *calibration* with :func:`locacal.recalibration.recalibrate`, and tabulates,
    on each split, the MSE against the true probabilities, accuracy (τ = 0.5), AUC, Brier
    score, LCS and the other metrics of ``recalibrate``, plus the KL divergence of the
    scores from the true probabilities.

    Parameters
    ----------
    n_obs, proportions : see :func:`tree_data`
    cp : float, default 0.01
        Pruning of the slides' tree (rpart's default).
    min_leaf : int, optional
        Minimum leaf size of both trees (default 1/10,000 of the training rows).
    cv : int, default 5
        Folds of the cross-validated pruning.
    methods : names or {name: estimator}, default all four
        Recalibration methods, as :func:`~locacal.recalibration.recalibrate` takes them.
    seed : int, default 2024
        Data, split, cross-validation folds and the trees' ``random_state``.

    Returns
    -------
    TreeCaseStudy
        ``.table``, ``.summary(split)``, ``.models``, ``.recalibrations``, ``.data``.
    """
    seed = check_seed(seed, kind="int")
    cp = check_nonnegative(cp, "cp")
    cv = check_int(cv, "cv", minimum=2)
    check_methods(methods)  # before the data are drawn and the trees grown
    data = tree_data(n_obs, proportions=proportions, seed=seed)
    x_train, y_train = _features(data["train"]), data["train"]["label"].to_numpy()
    leaf = _min_leaf(min_leaf, y_train.size)
    models = {
        f"rpart tree (cp = {cp:g})": rpart_tree(x_train, y_train, cp=cp, min_leaf=leaf,
                                                random_state=seed),
        "CV-pruned tree": cv_pruned_tree(x_train, y_train, min_leaf=leaf, cv=cv, seed=seed),
    }
    true_p = [data[s]["true_p"].to_numpy() for s in SPLITS]
    tables, recalibrations = [], {}
    for name, tree in models.items():
        parts = [(tree.predict(_features(data[s])), data[s]["label"].to_numpy()) for s in SPLITS]
        result = recalibrate(*parts, methods=methods, true_p=true_p)
        recalibrations[name] = result
        kl = {(m, sp): kl_divergence(result.scores[sp][m], result.scores[sp]["true_p"])
              for sp in SPLITS for m in result.scores[sp].columns if m != "label"}
        table = result.metrics.assign(
            model=name, n_leaves=float(tree.get_n_leaves()),
            kl=[kl[m, sp] for m, sp in zip(result.metrics["method"], result.metrics["split"],
                                           strict=True)])
        truth = table["method"] == "true_p"
        table.loc[truth, ["model", "n_leaves"]] = ["true probabilities", np.nan]
        tables.append(table if not tables else table[~truth])
    table = pd.concat(tables, ignore_index=True)
    order = {"model": ["true probabilities", *models], "split": list(SPLITS),
             "method": list(dict.fromkeys(table["method"]))}
    table = table.sort_values(
        ["model", "split", "method"], kind="stable",
        key=lambda col: col.map({v: i for i, v in enumerate(order[col.name])}),
    ).reset_index(drop=True)
    first = ["model", "method", "split", "n_leaves"]
    table = table[[*first, *(c for c in table.columns if c not in first)]]
    params = {"n_obs": n_obs, "proportions": tuple(proportions), "cp": cp, "min_leaf": leaf,
              "cv": cv, "seed": seed}
    return TreeCaseStudy(table=table, models=models, recalibrations=recalibrations, data=data,
                         params=params)
