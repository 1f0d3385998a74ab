"""The tree case study (acceptance figures of the slides' table) and the grid studies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from locacal import studies
from locacal.studies.tree_models import SPLITS


@pytest.fixture(scope="module")
def case() -> studies.TreeCaseStudy:
    return studies.tree_case_study(seed=2024)


@pytest.fixture(scope="module")
def small_data():
    return studies.tree_data(20_000, seed=3)


@pytest.fixture(scope="module")
def grid(small_data) -> studies.GridStudy:
    return studies.tree_grid_study(data=small_data, min_leaves=(20, 200),
                                 cps=(0.1, 0.01, 0.001, 1e-4, 0.0), n_jobs=1, progress=False)


def row(table, model, method, split="test"):
    sel = table[(table["model"] == model) & (table["method"] == method)
                & (table["split"] == split)]
    assert len(sel) == 1
    return sel.iloc[0]


def test_truth_row_matches_the_slides(case):
    # slides' table, test sample: accuracy 0.737, AUC 0.815, Brier 0.176 (from the DGP)
    truth = row(case.table, "true probabilities", "true_p")
    assert truth["true_mse"] == 0
    assert truth["accuracy"] == pytest.approx(0.737, abs=0.01)
    assert truth["auc"] == pytest.approx(0.815, abs=0.01)
    assert truth["brier"] == pytest.approx(0.176, abs=0.005)


def test_rpart_tree_row_matches_the_slides(case):
    # slides: MSE 0.014, accuracy 0.720, AUC 0.775, Brier 0.189, LCS 0.002 (test sample).
    # Measured with seed 2024: 6 leaves, 0.0119, 0.727, 0.780, 0.188.
    tree = row(case.table, "rpart tree (cp = 0.01)", "uncalibrated")
    assert tree["n_leaves"] == 6
    assert tree["true_mse"] == pytest.approx(0.014, abs=0.004)
    assert tree["accuracy"] == pytest.approx(0.72, abs=0.012)
    assert tree["auc"] == pytest.approx(0.775, abs=0.012)
    assert tree["brier"] == pytest.approx(0.189, abs=0.004)
    assert tree["lcs"] <= 0.005


def test_cv_pruned_tree_beats_the_rpart_tree(case):
    rpart = row(case.table, "rpart tree (cp = 0.01)", "uncalibrated")
    cv = row(case.table, "CV-pruned tree", "uncalibrated")
    assert cv["n_leaves"] > rpart["n_leaves"]
    assert cv["true_mse"] < rpart["true_mse"]
    assert cv["auc"] > rpart["auc"]
    assert cv["brier"] < rpart["brier"]
    # its scores are also spread more like the true probabilities
    assert cv["kl"] < rpart["kl"]


def test_case_study_table_layout(case):
    t = case.table
    assert list(t.columns[:4]) == ["model", "method", "split", "n_leaves"]
    assert t["model"].iloc[0] == "true probabilities"
    methods = set(t.loc[t["model"] == "CV-pruned tree", "method"])
    assert methods == {"uncalibrated", "platt", "isotonic", "beta", "local"}
    assert len(t) == 3 + 2 * 5 * 3
    assert (t["kl"] >= 0).all()
    summary = case.summary("test")
    assert list(summary.columns) == ["true_mse", "accuracy", "auc", "brier", "lcs"]
    assert set(case.recalibrations) == set(case.models)


def test_grid_spans_two_leaves_to_the_full_tree(grid, small_data):
    m = grid.metrics
    assert list(m.columns[:5]) == ["model", "min_leaf", "cp", "n_leaves", "split"]
    assert len(m) == 2 * 5 * 3
    for _leaf, sub in m[m["split"] == "test"].groupby("min_leaf"):
        sub = sub.sort_values("cp", ascending=False)
        assert sub["n_leaves"].is_monotonic_increasing
        assert sub["n_leaves"].iloc[0] == 2
    # each grid tree is the tree rpart_tree fits with the same settings
    x, d = small_data["train"][["x1", "x2"]].to_numpy(), small_data["train"]["label"].to_numpy()
    for leaf, cp in ((20, 0.001), (200, 1e-4)):
        tree = studies.rpart_tree(x, d, cp=cp, min_leaf=leaf, random_state=2024)
        got = m[(m["min_leaf"] == leaf) & (m["cp"] == cp)]["n_leaves"].iloc[0]
        assert got == tree.get_n_leaves()


def test_best_tree_minimises_kl_on_the_calibration_split(grid):
    best = grid.best()
    assert list(best["split"]) == list(SPLITS)
    cal = grid.metrics[grid.metrics["split"] == "calibration"]
    assert best.loc[best["split"] == "calibration", "kl"].iloc[0] == cal["kl"].min()
    # neither the two-leaf tree nor the unpruned one is the closest in distribution
    assert 2 < best["n_leaves"].iloc[0] < cal["n_leaves"].max()
    top_auc = grid.best("auc", maximize=True)
    assert top_auc.loc[top_auc["split"] == "calibration", "auc"].iloc[0] == cal["auc"].max()


def test_histograms_count_every_score(grid, small_data):
    h = grid.histograms
    totals = h.groupby(["model", "split"])["count"].sum()
    for split in SPLITS:
        assert (totals.xs(split, level="split") == len(small_data[split])).all()


def test_grid_does_not_depend_on_the_number_of_workers(small_data, grid):
    two = studies.tree_grid_study(data=small_data, min_leaves=(20, 200),
                                cps=(0.1, 0.01, 0.001, 1e-4, 0.0), n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(grid.metrics, two.metrics)


def test_forest_grid(small_data):
    study = studies.forest_grid_study(data=small_data, n_estimators=(5, 2), min_leaves=(50,),
                                    max_features=(1, 2), n_jobs=1, progress=False)
    m = study.metrics
    assert list(m.columns[:6]) == ["model", "n_estimators", "min_leaf", "max_features",
                                   "n_leaves", "split"]
    assert sorted(m["n_estimators"].unique()) == [2, 5]
    assert len(m) == 2 * 2 * 3
    test = m[m["split"] == "test"]
    # averaging trees helps: 5 trees are closer to the truth than 2
    for _, sub in test.groupby("max_features"):
        sub = sub.set_index("n_estimators")
        assert sub.loc[5, "true_mse"] < sub.loc[2, "true_mse"]
    assert np.isfinite(m[["true_mse", "auc", "brier", "lcs", "kl"]].to_numpy()).all()


def test_figures(grid):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = studies.plot_score_distributions(grid, min_leaf=200)
    assert len(axes) == 4
    assert "Smallest KL" in axes[2].get_title()
    axes2 = studies.plot_metrics_vs_leaves(grid, metrics=("true_mse", "kl"))
    assert len(axes2) == 2
    assert axes2[0].get_xscale() == "log"
    # default: the minimum leaf size closest to 1/1,000 of the 10,000 training rows
    default = studies.plot_score_distributions(grid)
    assert "min_leaf=20" in default[1].get_title()
    with pytest.raises(ValueError, match="no model with min_leaf=7"):
        studies.plot_score_distributions(grid, min_leaf=7)
    with pytest.raises(ValueError, match="unknown by"):
        studies.plot_metrics_vs_leaves(grid, by="depth")
    plt.close("all")


@pytest.mark.parametrize(
    ("func", "kwargs", "error", "match"),
    [
        (studies.tree_grid_study, {"data": {"train": None}}, TypeError, "data must map"),
        (studies.tree_grid_study, {"cps": [-1.0]}, ValueError, "cps must be a finite number"),
        (studies.tree_grid_study, {"min_leaves": [0]}, ValueError, "min_leaves must be >= 1"),
        (studies.forest_grid_study, {"max_features": [3]}, ValueError, "max_features must be one"),
        (studies.forest_grid_study, {"n_estimators": [0]}, ValueError, "n_estimators must be"),
    ],
)
def test_grid_arguments_are_validated(small_data, func, kwargs, error, match):
    kwargs = {"data": small_data, "progress": False, **kwargs}
    with pytest.raises(error, match=match):
        func(**kwargs)
