"""The slides' §3 simulation study: tidy output, seeds independent of workers, figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from locacal.studies import (
    SimulationResult,
    plot_simulation_curves,
    plot_simulation_metrics,
    plot_simulation_standard_metrics,
    run_simulation,
)


@pytest.fixture(scope="module")
def small() -> SimulationResult:
    return run_simulation(n_samples=3, n_obs=400, n_jobs=1, progress=False, seed=11)


@pytest.fixture(scope="module")
def medium() -> SimulationResult:
    # 20 samples of the full size: enough for the ordering of the medians
    return run_simulation(n_samples=20, n_obs=2000, n_jobs=1, progress=False, seed=7)


def test_tidy_tables(small):
    m = small.metrics
    assert list(m.columns[:5]) == ["transform", "level", "alpha", "gamma", "sample"]
    for col in ("true_mse", "lcs", "brier", "ece", "qmse", "wmse", "accuracy", "sensitivity",
                "specificity", "auc"):
        assert col in m.columns
    assert len(m) == 6 * 3
    assert m[["transform", "level"]].drop_duplicates().apply(tuple, axis=1).tolist() == [
        ("alpha", 1 / 3), ("alpha", 1.0), ("alpha", 3.0),
        ("gamma", 1 / 3), ("gamma", 1.0), ("gamma", 3.0)]
    assert m["sample"].tolist() == [0, 1, 2] * 6
    assert list(small.curves.columns) == ["transform", "level", "alpha", "gamma", "sample",
                                          "score", "estimate"]
    assert small.curves["estimate"].between(0, 1).all()
    h = small.histograms
    # mean counts over samples, both classes, add up to n_obs in each scenario
    totals = h.groupby(["transform", "level"])[["true_p", "score"]].sum()
    np.testing.assert_allclose(totals.to_numpy(), 400.0)
    assert small.summary().shape[0] == 6
    assert "6 scenarios x 3 samples" in repr(small)


def test_calibrated_scenario_has_zero_true_mse_and_common_random_numbers(small):
    m = small.metrics.set_index(["transform", "level", "sample"])
    assert (m.loc[("alpha", 1.0), "true_mse"] == 0).all()
    metric_cols = [c for c in m.columns if c not in ("alpha", "gamma")]
    # alpha = 1 and gamma = 1 are the same process with the same seeds
    pd.testing.assert_frame_equal(m.loc[("alpha", 1.0), metric_cols],
                                  m.loc[("gamma", 1.0), metric_cols])
    # distortion by alpha keeps the order of the scores: same AUC as the calibrated scores
    np.testing.assert_allclose(m.loc[("alpha", 3.0), "auc"], m.loc[("alpha", 1.0), "auc"])


def test_result_does_not_depend_on_the_number_of_workers(small):
    two = run_simulation(n_samples=3, n_obs=400, n_jobs=2, progress=False, seed=11)
    pd.testing.assert_frame_equal(small.metrics, two.metrics)
    pd.testing.assert_frame_equal(small.curves, two.curves)
    pd.testing.assert_frame_equal(small.histograms, two.histograms)


def test_sample_i_is_the_same_in_a_shorter_run(small):
    one = run_simulation(n_samples=1, n_obs=400, n_jobs=1, progress=False, seed=11,
                         alphas=[3.0], gammas=[])
    full = small.metrics
    expected = full[(full["transform"] == "alpha") & (full["level"] == 3.0)
                    & (full["sample"] == 0)].reset_index(drop=True)
    pd.testing.assert_frame_equal(one.metrics, expected)


def test_median_lcs_is_smallest_when_calibrated_and_grows_with_the_distortion(medium):
    med = medium.summary("median")["lcs"]
    calibrated = med["alpha", 1.0]
    for transform in ("alpha", "gamma"):
        assert med[transform, 1.0] == calibrated
        assert med[transform, 1 / 3] > calibrated
        assert med[transform, 3.0] > calibrated
    # the same ordering for the true MSE, which the LCS is meant to track
    mse = medium.summary("median")["true_mse"]
    assert mse.idxmin() in {("alpha", 1.0), ("gamma", 1.0)}


def test_figures(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = plt.get_fignums()
    axes4 = plot_simulation_metrics(small)
    assert len(axes4) == 2 * 6
    axes5 = plot_simulation_curves(small, histogram="score", band=0.9)
    assert len(axes5) == 2 * 2 * 3
    axes6 = plot_simulation_standard_metrics(small)
    assert len(axes6) == 2 * 4
    # one new figure each, returned as its Axes (a returned Figure is drawn twice in Jupyter)
    assert len(plt.get_fignums()) == len(figures) + 3
    assert all(isinstance(a, matplotlib.axes.Axes) for a in (*axes4, *axes5, *axes6))
    with pytest.raises(ValueError, match="unknown metrics"):
        plot_simulation_metrics(small, metrics=["nope"])
    with pytest.raises(ValueError, match="unknown histogram"):
        plot_simulation_curves(small, histogram="p")
    for axes in (axes4, axes5, axes6):
        plt.close(axes[0].figure)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_samples": 0}, ValueError, "n_samples must be >= 1"),
        ({"alphas": [], "gammas": []}, ValueError, "no scenario"),
        ({"alphas": [-1.0]}, ValueError, "alphas must be a finite positive"),
        ({"threshold": 1.5}, ValueError, "threshold"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"seed": "x"}, TypeError, "seed must be"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        run_simulation(**{"n_samples": 1, "n_obs": 100, "progress": False, **kwargs})
