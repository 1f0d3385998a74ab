"""The real-data case study on statsmodels' fair data."""

from __future__ import annotations

import numpy as np
import pytest

from locacal.studies import load_fair, plot_real_data_curves, real_data_study


@pytest.fixture(scope="module")
def study():
    return real_data_study(seed=1978)


def test_data():
    frame = load_fair()
    assert len(frame) == 6366
    assert frame["label"].mean() == pytest.approx(0.3225, abs=1e-4)


def test_table(study):
    t = study.table
    assert list(t.columns[:3]) == ["model", "method", "split"]
    assert set(t["model"]) == {"GLM (logit)", "tree (CV-pruned)", "random forest",
                               "gradient boosting"}
    assert len(t) == 4 * 5 * 3
    # stratified 60 / 20 / 20: sizes rounded within each class
    assert sorted(len(f) for f in study.data.values()) == [1274, 1274, 3818]
    summary = study.summary("test")
    assert summary.index.nlevels == 2
    # every model discriminates (AUC well above 1/2) and none is far off calibration
    unc = summary.xs("uncalibrated", level="method")
    assert (unc["auc"] > 0.68).all()
    assert (unc["lcs"] < 0.02).all()


def test_logistic_glm_is_calibrated_in_the_large_on_train(study):
    # the logit score equations make the mean fitted probability equal the event rate
    frame = study.recalibrations["GLM (logit)"].scores["train"]
    assert frame["uncalibrated"].mean() == pytest.approx(frame["label"].mean(), abs=1e-8)


def test_tree_has_few_distinct_scores(study):
    frame = study.recalibrations["tree (CV-pruned)"].scores["test"]
    assert np.unique(frame["uncalibrated"]).size < 60


def test_same_seed_same_table(study):
    again = real_data_study(seed=1978, methods=("platt",))
    a = study.table[study.table["method"].isin(["uncalibrated", "platt"])].reset_index(drop=True)
    np.testing.assert_allclose(a.select_dtypes("number").to_numpy(),
                               again.table.select_dtypes("number").to_numpy())


def test_figure(study):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = plot_real_data_curves(study, methods=["beta"])
    assert len(axes) == 4
    with pytest.raises(ValueError, match="unknown split"):
        plot_real_data_curves(study, split="valid")
    plt.close(axes[0].figure)
