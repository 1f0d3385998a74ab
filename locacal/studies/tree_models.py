"""The slides' tree data and trees (§5): the eq. 10 process split three ways, rpart's tree
in scikit-learn, and pruning by cross-validation.

* :func:`tree_data` draws the eq. 10 process and splits it into train, calibration and test.
* :func:`rpart_tree` is the slides' tree: a regression tree with leaves of at least 1/10,000
  of the training rows, pruned at R rpart's default complexity parameter cp = 0.01.
* :func:`cv_pruned_tree` picks the pruning strength by cross-validation instead
  (:func:`cv_pruning_path`).

References
----------
Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §5, "Classification for
tree-based methods". Breiman, Friedman, Olshen & Stone (1984), *Classification and Regression
Trees*, ch. 3 (minimal cost-complexity pruning). Therneau & Atkinson, *An Introduction to
Recursive Partitioning Using the RPART Routines* (the complexity parameter cp).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeRegressor

from locacal import simulate
from locacal._validation import check_int, check_labels, check_nonnegative
from locacal.recalibration.split import SPLIT_NAMES, TREE_PROPORTIONS, split
from locacal.studies._parallel import child_seeds

__all__ = [
    "FEATURES",
    "SPLITS",
    "cv_pruned_tree",
    "cv_pruning_path",
    "rpart_tree",
    "tree_data",
]

#: The three splits of :func:`tree_data`, in order.
SPLITS = SPLIT_NAMES
#: Feature columns of :func:`tree_data`'s frames.
FEATURES = ("x1", "x2")


def tree_data(
    n_obs: int = 200_000,
    *,
    proportions: Sequence[float] = TREE_PROPORTIONS,
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
    cp = check_nonnegative(cp, "cp")
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
    cv = check_int(cv, "cv", minimum=2, maximum=labels.size, why="the number of rows")
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
