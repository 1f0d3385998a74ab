"""Tree-based case studies of the 2024 slides (§5): are trees calibrated, and which tree
spreads its scores like the true probabilities?

* :func:`tree_data` draws the eq. 10 process and splits it into train, calibration and test.
* :func:`rpart_tree` is the slides' tree: a regression tree with leaves of at least 1/10,000
  of the training rows, pruned at R rpart's default complexity parameter cp = 0.01.
* :func:`cv_pruned_tree` picks the pruning strength by cross-validation instead.
* :func:`tree_case_study` tabulates MSE, accuracy, AUC, Brier and LCS by split for the true
  probabilities, each tree's raw scores and each recalibration of them (the slides' table).
* :func:`tree_grid_study` and :func:`forest_grid_study` sweep the hyperparameters from a
  two-leaf tree to an overfitted one, with the KL divergence between the distribution of the
  scores and that of the true probabilities (:func:`locacal.divergence.kl_divergence`).
* :func:`plot_score_distributions` (Figure 17) and :func:`plot_metrics_vs_leaves` draw them.

Trees have few distinct scores (one per leaf). The LCS here is the package's native local
regression, which handles tied scores by a fixed rule: no jitter is added (the R code adds
uniform noise of up to 0.01 to avoid a locfit crash, which moves the scores it assesses).

References
----------
Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §5, "Classification for
tree-based methods". Breiman, Friedman, Olshen & Stone (1984), *Classification and Regression
Trees*, ch. 3 (minimal cost-complexity pruning). Therneau & Atkinson, *An Introduction to
Recursive Partitioning Using the RPART Routines* (the complexity parameter cp).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeRegressor

from locacal import simulate
from locacal._validation import (
    as_1d_float,
    check_choice,
    check_int,
    check_labels,
)
from locacal.divergence import kl_divergence
from locacal.studies._parallel import child_seeds, parallel_map

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_CPS",
    "SPLITS",
    "GridStudy",
    "TreeCaseStudy",
    "cv_pruned_tree",
    "forest_grid_study",
    "plot_metrics_vs_leaves",
    "plot_score_distributions",
    "rpart_tree",
    "tree_case_study",
    "tree_data",
    "tree_grid_study",
]

SPLITS = ("train", "calibration", "test")
#: Metrics reported for every model and split (the slides' table, plus the KL divergence
#: of the scores' distribution from the true probabilities').
METRICS = ("true_mse", "accuracy", "auc", "brier", "lcs", "kl")
_LABELS = {"true_mse": "MSE (true probabilities)", "accuracy": "Accuracy", "auc": "AUC",
           "brier": "Brier score", "lcs": "LCS", "kl": "KL(scores ‖ true p)"}
#: Pruning strengths of :func:`tree_grid_study`, in rpart's cp units: from a two-leaf tree
#: (cp = 0.1 on the eq. 10 process) down to no pruning at all.
DEFAULT_CPS = (*np.geomspace(0.1, 1e-6, 21).round(12).tolist(), 0.0)
#: Bins of the score histograms kept for Figure 17 (width 0.01).
HIST_EDGES = np.linspace(0.0, 1.0, 101)
FEATURES = ("x1", "x2")


# --------------------------------------------------------------------------- data and trees


def tree_data(
    n_obs: int = 200_000,
    *,
    proportions: Sequence[float] = (0.5, 0.25, 0.25),
    a: Sequence[float] = simulate.TREE_A,
    seed: int | np.random.SeedSequence = 2024,
) -> dict[str, pd.DataFrame]:
    """The slides' tree data: eq. 10 (:func:`locacal.simulate.tree_dgp`), split at random into
    train, calibration and test (100,000 / 50,000 / 50,000 by default).

    Returns
    -------
    dict
        ``{"train": DataFrame, "calibration": DataFrame, "test": DataFrame}``, each with
        columns ``x1, x2, eta, true_p, label``.
    """
    from locacal.recalibration import split

    data_seed, split_seed = child_seeds(seed, 2)
    frame = simulate.tree_dgp(n_obs, a=a, seed=data_seed)
    parts = split(frame, proportions, seed=np.random.default_rng(split_seed))
    return dict(zip(SPLITS, (p.reset_index(drop=True) for p in parts), strict=True))


def _xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, features), got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("X contains NaN or infinite values")
    labels = check_labels(y, x.shape[0], "y")
    return x, labels


def _min_leaf(min_leaf: int | None, n: int) -> int:
    """The slides' minimum leaf size: 1/10,000 of the training rows (at least 1)."""
    if min_leaf is None:
        return max(1, round(n / 10_000))
    return check_int(min_leaf, "min_leaf", minimum=1)


def _tree(min_leaf: int, ccp_alpha: float = 0.0, random_state: int = 0) -> DecisionTreeRegressor:
    # rpart's minsplit is 3 * minbucket when only minbucket is given. The random state fixes
    # scikit-learn's order of trying the features, which decides between equally good splits.
    return DecisionTreeRegressor(min_samples_leaf=min_leaf, min_samples_split=3 * min_leaf,
                                 ccp_alpha=ccp_alpha, random_state=random_state)


def _check_cp(cp: Any, name: str = "cp") -> float:
    value = float(cp)
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {cp!r}")
    return value


def rpart_tree(X: Any, y: Any, *, cp: float = 0.01, min_leaf: int | None = None,
               random_state: int = 0) -> DecisionTreeRegressor:
    r"""The slides' regression tree: R rpart's default pruning, in scikit-learn.

    rpart keeps a split only if it lowers the tree's squared error by at least cp times the
    root's: it grows the tree, then applies minimal cost-complexity pruning at
    α = cp · SSE(root). scikit-learn's ``ccp_alpha`` penalises the number of leaves against
    the *mean* squared error, so the same tree is ``ccp_alpha = cp · Var(y)``
    (population variance). Leaves hold at least ``min_leaf`` rows and a node is split only if
    it holds 3 · ``min_leaf`` (rpart's ``minsplit`` when only ``minbucket`` is given). The
    score of a leaf is the mean label of its training rows (slides eq. 11).

    On the eq. 10 process this is rpart's tree (same leaves and predictions, checked against
    R in the tests); with 100,000 training rows it has 6 leaves.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
        0/1 labels.
    cp : float, default 0.01
        rpart's complexity parameter.
    min_leaf : int, optional
        Minimum leaf size; default 1/10,000 of the rows (10 for 100,000), as the slides.
    random_state : int, default 0
        Order in which scikit-learn tries the features (it decides between equally good
        splits).

    Returns
    -------
    DecisionTreeRegressor
        Fitted.
    """
    x, labels = _xy(X, y)
    cp = _check_cp(cp)
    tree = _tree(_min_leaf(min_leaf, labels.size), cp * float(labels.var()), random_state)
    return tree.fit(x, labels)


def _pruned_leaves(tree: DecisionTreeRegressor, alphas: np.ndarray) -> np.ndarray:
    """For each node of a fitted tree and each α, the node that holds its rows once the tree
    is pruned at α (minimal cost-complexity pruning, Breiman et al. 1984, §3.3).

    With R(t) the share-weighted impurity of node t, the pruned subtree's cost below t is
    C(t) = min(R(t) + α, C(left) + C(right)) (a leaf costs R(t) + α); t becomes a leaf when
    its own cost is not larger, which gives the smallest optimal subtree. This is the tree
    scikit-learn returns for ``ccp_alpha=α`` (checked in the tests), computed for all α from
    one grown tree instead of one fit per α.

    Returns an (n_nodes, n_alphas) array of node ids.
    """
    t = tree.tree_
    left, right = t.children_left, t.children_right
    risk = t.impurity * t.weighted_n_node_samples / t.weighted_n_node_samples[0]
    n = t.node_count
    cost = np.empty((n, alphas.size))
    collapse = np.empty((n, alphas.size), dtype=bool)
    for node in range(n - 1, -1, -1):  # children have larger ids than their parent
        own = risk[node] + alphas
        if left[node] < 0:
            cost[node], collapse[node] = own, True
        else:
            below = cost[left[node]] + cost[right[node]]
            collapse[node] = own <= below
            cost[node] = np.minimum(own, below)
    holder = np.empty((n, alphas.size), dtype=np.int64)
    holder[0] = 0
    for node in range(n):
        if left[node] >= 0:
            kept = (holder[node] == node) & ~collapse[node]
            for child in (left[node], right[node]):
                holder[child] = np.where(kept, child, holder[node])
    return holder


def _n_leaves(holder: np.ndarray) -> np.ndarray:
    """Number of leaves of each pruned tree: the distinct holders of the original leaves."""
    return np.array([np.unique(col).size for col in holder.T])


def _leaf_holders(tree: DecisionTreeRegressor, holder: np.ndarray) -> np.ndarray:
    leaves = np.flatnonzero(tree.tree_.children_left < 0)
    return holder[leaves]


def _pruned_predict(tree: DecisionTreeRegressor, holder: np.ndarray,
                    x: np.ndarray) -> np.ndarray:
    """(n_rows, n_alphas) predictions of the pruned trees."""
    return tree.tree_.value[:, 0, 0][holder[tree.apply(x)]]


def cv_pruning_path(X: Any, y: Any, *, min_leaf: int | None = None, cv: int = 5,
                    n_alphas: int = 60, seed: int = 0) -> pd.DataFrame:
    """Cross-validated squared error along the cost-complexity pruning path.

    The candidate strengths are geometric means of consecutive values of the full tree's
    path (:meth:`~sklearn.tree.DecisionTreeRegressor.cost_complexity_pruning_path`), as
    rpart's ``xerror`` uses, thinned to ``n_alphas`` log-spaced ones, plus no pruning.
    For each of ``cv`` shuffled folds a full tree is grown on the other folds and every
    candidate is scored on the held-out fold.

    Returns
    -------
    DataFrame
        One row per candidate, by decreasing pruning: ``ccp_alpha``, ``cp``
        (= ccp_alpha / Var(y), rpart's scale), ``n_leaves`` (of the tree on all rows),
        ``cv_mse`` (mean over folds of the held-out squared error against the labels) and
        ``cv_se`` (its standard error).
    """
    x, labels = _xy(X, y)
    leaf = _min_leaf(min_leaf, labels.size)
    cv = check_int(cv, "cv", minimum=2)
    n_alphas = check_int(n_alphas, "n_alphas", minimum=2)
    full = _tree(leaf, random_state=seed).fit(x, labels)
    path = full.cost_complexity_pruning_path(x, labels)
    steps = np.unique(path.ccp_alphas[path.ccp_alphas > 0])
    mids = np.sqrt(steps[:-1] * steps[1:])
    if mids.size > n_alphas - 1:
        targets = np.geomspace(mids[0], mids[-1], n_alphas - 1)
        mids = np.unique(mids[np.abs(np.log(mids)[None, :]
                                     - np.log(targets)[:, None]).argmin(axis=1)])
    alphas = np.concatenate([mids[::-1], [0.0]])
    errors = []
    for train_idx, test_idx in KFold(cv, shuffle=True, random_state=seed).split(x):
        fold = _tree(leaf, random_state=seed).fit(x[train_idx], labels[train_idx])
        pred = _pruned_predict(fold, _pruned_leaves(fold, alphas), x[test_idx])
        errors.append(((pred - labels[test_idx, None]) ** 2).mean(axis=0))
    errors = np.array(errors)
    var = float(labels.var())
    return pd.DataFrame({
        "ccp_alpha": alphas, "cp": alphas / var if var > 0 else np.nan,
        "n_leaves": _n_leaves(_leaf_holders(full, _pruned_leaves(full, alphas))),
        "cv_mse": errors.mean(axis=0), "cv_se": errors.std(axis=0, ddof=1) / np.sqrt(cv),
    })


def cv_pruned_tree(X: Any, y: Any, *, min_leaf: int | None = None, cv: int = 5,
                   n_alphas: int = 60, seed: int = 0) -> DecisionTreeRegressor:
    """A regression tree pruned at the strength of smallest cross-validated error.

    :func:`cv_pruning_path` scores the candidates; the one of lowest ``cv_mse`` wins
    (rpart's ``which.min(xerror)``, without the one-standard-error rule), and the tree is
    refitted on all rows with that ``ccp_alpha``. The slides prune their tree "by
    cross-validation"; on the eq. 10 process this keeps far more leaves (about 50 to 90)
    than cp = 0.01 (6) and is much closer to the true probabilities.

    Returns
    -------
    DecisionTreeRegressor
        Fitted.
    """
    x, labels = _xy(X, y)
    leaf = _min_leaf(min_leaf, labels.size)
    table = cv_pruning_path(x, labels, min_leaf=leaf, cv=cv, n_alphas=n_alphas, seed=seed)
    alpha = float(table.loc[table["cv_mse"].idxmin(), "ccp_alpha"])
    return _tree(leaf, alpha, random_state=seed).fit(x, labels)


# --------------------------------------------------------------------------- assessment


def _assess(scores: np.ndarray, labels: np.ndarray, true_p: np.ndarray,
            threshold: float = 0.5) -> dict[str, float]:
    from locacal import metrics

    return {
        "true_mse": metrics.true_mse(scores, true_p),
        "accuracy": metrics.accuracy(scores, labels, threshold=threshold),
        "auc": metrics.auc(scores, labels),
        "brier": metrics.brier_score(scores, labels),
        "lcs": metrics.lcs(scores, labels),
        "kl": kl_divergence(scores, true_p),
    }


def _features(frame: pd.DataFrame) -> np.ndarray:
    return frame[list(FEATURES)].to_numpy()


def _check_data(data: Any) -> dict[str, pd.DataFrame]:
    if not isinstance(data, Mapping) or set(data) != set(SPLITS):
        raise TypeError(f"data must map {SPLITS} to DataFrames, as tree_data() returns")
    for name, frame in data.items():
        missing = {*FEATURES, "true_p", "label"} - set(frame.columns)
        if missing:
            raise ValueError(f"data[{name!r}] lacks the columns {sorted(missing)}")
    return {name: data[name] for name in SPLITS}


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


def tree_case_study(
    *,
    n_obs: int = 200_000,
    proportions: Sequence[float] = (0.5, 0.25, 0.25),
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
    from locacal.recalibration import recalibrate

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


# --------------------------------------------------------------------------- grid studies


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
        check_choice(metric, METRICS, "metric")
        check_choice(split, SPLITS, "split")
        on = self.metrics[self.metrics["split"] == split].set_index("model")[metric]
        model = on.idxmax() if maximize else on.idxmin()
        return self.metrics[self.metrics["model"] == model].reset_index(drop=True)


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
    probabilities' (:func:`locacal.divergence.kl_divergence`); ``best()`` returns the tree
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
    data = _grid_data(data, seed)
    leaves = [check_int(v, "min_leaves", minimum=1) for v in min_leaves]
    cp_values = np.array([_check_cp(cp, "cps") for cp in as_1d_float(cps, "cps")])
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
    data = _grid_data(data, seed)
    sizes = sorted({check_int(v, "n_estimators", minimum=1) for v in n_estimators})
    leaves = [check_int(v, "min_leaves", minimum=1) for v in min_leaves]
    feats = [check_int(v, "max_features", allowed=(1, 2)) for v in max_features]
    tasks = [(sizes, m, f, seed, data) for m in leaves for f in feats]
    results = parallel_map(_forest_task, tasks, n_jobs=n_jobs, progress=progress,
                           desc="forests")
    params = {"n_estimators": tuple(sizes), "min_leaves": tuple(leaves),
              "max_features": tuple(feats), "seed": seed}
    return _grid_result(results, data, params)


# --------------------------------------------------------------------------- figures


def plot_score_distributions(study: GridStudy, *, min_leaf: int | None = None,
                             split: str = "test", fig: Figure | None = None) -> Figure:
    """Figure 17 of the slides: histograms of the true probabilities (top), then of the
    scores of the smallest tree, of the tree with the smallest KL divergence (chosen on the
    calibration split) and of the largest tree, among those with ``min_leaf`` (default: the
    grid's value closest to 1/1,000 of the training rows, the slides' setting for this
    figure). Returns the Figure."""
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
    return fig


def plot_metrics_vs_leaves(study: GridStudy, *, metrics: Sequence[str] = METRICS,
                           split: str = "test", by: str = "min_leaf",
                           fig: Figure | None = None) -> Figure:
    """Each metric on ``split`` against the number of leaves (log scale), one line per
    value of ``by`` (a hyperparameter column), the KL-best model circled. Returns the
    Figure."""
    import matplotlib.pyplot as plt

    check_choice(split, SPLITS, "split")
    for metric in metrics:
        check_choice(metric, METRICS, "metrics")
    m = study.metrics
    hyper = [c for c in m.columns if c not in (*METRICS, "model", "split", "n_leaves")]
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
    return fig
