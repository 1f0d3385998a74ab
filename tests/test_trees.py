"""Tree fitting for the case studies: rpart parity, pruning, cross-validation.

R's rpart numbers are committed in tests/reference/trees/ (see tests/rreference.py);
tests/test_r_references.py re-runs R to prove them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from locacal import studies
from locacal.studies.tree_models import _n_leaves, _pruned_leaves, _pruned_predict, _tree
from tests.rreference import r_reference


@pytest.fixture(scope="module")
def data():
    return studies.tree_data(seed=2024)


@pytest.fixture(scope="module")
def small():
    return studies.tree_data(20_000, seed=5)


def xy(frame):
    return frame[["x1", "x2"]].to_numpy(), frame["label"].to_numpy()


def _rpart_inputs(data):
    x, d = xy(data["train"])
    xt = data["test"][["x1", "x2"]].to_numpy()
    return {"d": d, "x1": x[:, 0], "x2": x[:, 1], "t1": xt[:, 0], "t2": xt[:, 1]}


# The features (uniform draws, split by a random permutation) are bit-stable and re-made; the
# 100,000 labels go through exp (the logistic p) and are stored (tests/rreference.py).
R_RPART = r_reference("trees/rpart_slides_data", """
library(rpart)
fit <- rpart(d ~ x1 + x2, data = data.frame(d = d, x1 = x1, x2 = x2),
             method = "anova",
             control = rpart.control(minbucket = 10, minsplit = 30, cp = 0.01,
                                     xval = 0))
out <- list(leaves = sum(fit$frame$var == "<leaf>"),
            pred = predict(fit, newdata = data.frame(x1 = t1, x2 = t2)))
""", lambda: _rpart_inputs(studies.tree_data(seed=2024)), stable=("x1", "x2", "t1", "t2"))


def test_tree_data_split_sizes_and_columns(data):
    assert {k: len(v) for k, v in data.items()} == {
        "train": 100_000, "calibration": 50_000, "test": 50_000}
    for frame in data.values():
        assert list(frame.columns) == ["x1", "x2", "eta", "true_p", "label"]
    again = studies.tree_data(seed=2024)
    pd.testing.assert_frame_equal(data["test"], again["test"])


def test_rpart_tree_is_rs_rpart_tree():
    # R 4.2.2, rpart 4.1.19: rpart(d ~ x1 + x2, method = "anova", minbucket = 10,
    # minsplit = 30, cp = 0.01). Same leaves, same predictions to the last bit.
    arrays, out = R_RPART.inputs_and_output()
    x = np.column_stack([arrays["x1"], arrays["x2"]])
    xt = np.column_stack([arrays["t1"], arrays["t2"]])
    d = arrays["d"]
    tree = studies.rpart_tree(x, d)
    assert tree.get_n_leaves() == int(out["leaves"][0]) == 6
    np.testing.assert_allclose(tree.predict(xt), out["pred"], rtol=0, atol=1e-12)


def test_rpart_tree_defaults(data):
    x, d = xy(data["train"])
    tree = studies.rpart_tree(x, d)
    assert tree.min_samples_leaf == 10 and tree.min_samples_split == 30
    assert tree.ccp_alpha == pytest.approx(0.01 * d.var())
    # leaf scores are the mean labels of the training rows in the leaf (slides eq. 11)
    leaf = tree.apply(x)
    for node in np.unique(leaf):
        assert tree.tree_.value[node, 0, 0] == pytest.approx(d[leaf == node].mean())
    assert studies.rpart_tree(x, d, cp=0.1).get_n_leaves() == 2


def test_pruning_all_alphas_at_once_equals_scikit_learn_refits(small):
    x, d = xy(small["train"])
    xt = small["test"][["x1", "x2"]].to_numpy()
    full = _tree(2).fit(x, d)
    path = full.cost_complexity_pruning_path(x, d)
    steps = np.unique(path.ccp_alphas[path.ccp_alphas > 0])
    mids = np.sqrt(steps[:-1] * steps[1:])
    alphas = np.concatenate([mids[np.linspace(0, mids.size - 1, 8).astype(int)], [0.0]])
    holder = _pruned_leaves(full, alphas)
    leaves = _n_leaves(holder[np.flatnonzero(full.tree_.children_left < 0)])
    preds = _pruned_predict(full, holder, xt)
    for j, alpha in enumerate(alphas):
        ref = _tree(2, alpha).fit(x, d)
        assert leaves[j] == ref.get_n_leaves()
        np.testing.assert_array_equal(preds[:, j], ref.predict(xt))


def test_cv_pruning_path(small):
    x, d = xy(small["train"])
    table = studies.cv_pruning_path(x, d, n_alphas=20, seed=1)
    assert list(table.columns) == ["ccp_alpha", "cp", "n_leaves", "cv_mse", "cv_se"]
    assert table["ccp_alpha"].is_monotonic_decreasing and table["ccp_alpha"].iloc[-1] == 0
    assert table["n_leaves"].is_monotonic_increasing
    np.testing.assert_allclose(table["cp"], table["ccp_alpha"] / d.var())
    assert (table["cv_se"] > 0).all()
    tree = studies.cv_pruned_tree(x, d, n_alphas=20, seed=1)
    best = table.loc[table["cv_mse"].idxmin()]
    assert tree.ccp_alpha == best["ccp_alpha"]
    assert tree.get_n_leaves() == best["n_leaves"]
    pd.testing.assert_frame_equal(table, studies.cv_pruning_path(x, d, n_alphas=20, seed=1))


def test_cv_pruned_tree_beats_the_rpart_default_on_the_slides_data(data):
    x, d = xy(data["train"])
    test = data["test"]
    xt, p = test[["x1", "x2"]].to_numpy(), test["true_p"].to_numpy()
    rpart_mse = np.mean((studies.rpart_tree(x, d).predict(xt) - p) ** 2)
    cv_tree = studies.cv_pruned_tree(x, d, seed=0)
    cv_mse = np.mean((cv_tree.predict(xt) - p) ** 2)
    # measured: 6 leaves, MSE 0.0119 against 63 leaves, MSE 0.0016
    assert 30 <= cv_tree.get_n_leaves() <= 150
    assert cv_mse < 0.5 * rpart_mse


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cp": -0.1}, ValueError, "cp must be a finite number >= 0"),
        ({"min_leaf": 0}, ValueError, "min_leaf must be >= 1"),
    ],
)
def test_rpart_tree_validates(small, kwargs, error, match):
    x, d = xy(small["train"])
    with pytest.raises(error, match=match):
        studies.rpart_tree(x, d, **kwargs)


def test_inputs_are_validated(small):
    x, d = xy(small["train"])
    with pytest.raises(ValueError, match="X must be 2-D"):
        studies.rpart_tree(x[:, 0], d)
    with pytest.raises(ValueError, match="y must be 0/1"):
        studies.rpart_tree(x, d + 0.5)
    with pytest.raises(ValueError, match="y has length"):
        studies.cv_pruned_tree(x, d[:-1])
    with pytest.raises(ValueError, match="cv must be >= 2"):
        studies.cv_pruning_path(x, d, cv=1)
