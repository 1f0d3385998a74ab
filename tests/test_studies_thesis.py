"""The thesis's synthetic experiments (Nguyen 2015, §4.3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal.metrics import calib_mse
from locacal.studies.thesis import (
    bin_size_study,
    plot_bin_size_study,
    plot_sample_size_study,
    sample_size_study,
)


def test_calibration_score_never_increases_when_the_bin_size_doubles():
    # Jensen's inequality (module docstring of locacal.studies.thesis): bins of 2b points are
    # unions of bins of b points, so the score cannot grow. Exact up to rounding.
    frame = bin_size_study(n_obs=10_000, bin_sizes=[2**j for j in range(1, 14)])
    assert set(frame["condition"]) == {"calibrated", "distorted (k = 0.1)"}
    for _, sub in frame.groupby("condition"):
        values = sub.sort_values("bin_size")["calib_mse"].to_numpy()
        assert np.all(np.diff(values) <= 1e-12 * values[:-1])
        assert values[0] > values[-1]


def test_default_bin_sizes_are_the_thesis_powers_of_two():
    frame = bin_size_study(n_obs=2_000, ks=[0.0])
    assert frame["bin_size"].tolist() == [2**j for j in range(1, 17)]
    # a bin size above n gives a single bin
    assert frame["n_bins"].iloc[-1] == 1
    assert frame["n_bins"].iloc[0] == 1_000


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=20, max_value=400),
    st.integers(min_value=1, max_value=40),
    st.integers(min_value=0, max_value=2**32 - 1),
)
def test_jensen_monotonicity_holds_for_any_sample_and_bin_size(n, b, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n).round(2)  # ties included
    y = (rng.uniform(size=n) < s**2).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small, large = calib_mse(s, y, bin_size=b), calib_mse(s, y, bin_size=2 * b)
    assert large <= small * (1 + 1e-12) + 1e-15


def test_distorted_pairs_score_higher_and_calibrated_ones_shrink_with_n():
    frame = sample_size_study(sizes=[10_000, 50_000], n_repeats=6, seed=3)
    assert list(frame.columns) == ["condition", "k", "n_obs", "repeat", "bin_size", "calib_mse"]
    assert frame.loc[frame["n_obs"] == 50_000, "bin_size"].unique().tolist() == [224]
    means = frame.groupby(["condition", "n_obs"])["calib_mse"].mean()
    # Calibrated: E[CalibMSE] is about E[p(1-p)] / sqrt(n) (noise of each bin's mean), which
    # falls by sqrt(5) from 1e4 to 5e4; observed 0.00075 -> 0.00035 with this seed.
    assert means["calibrated", 50_000] < 0.7 * means["calibrated", 10_000]
    # Distorted with k = 0.1: a bias of at most k remains, the score stays far above.
    for n in (10_000, 50_000):
        assert means["distorted (k = 0.1)", n] > 5 * means["calibrated", n]


def test_same_seed_same_tables():
    a = sample_size_study(sizes=[1_000, 2_000], seed=5)
    pd.testing.assert_frame_equal(a, sample_size_study(sizes=[1_000, 2_000], seed=5))
    pd.testing.assert_frame_equal(bin_size_study(n_obs=500, bin_sizes=[4, 8], seed=1),
                                  bin_size_study(n_obs=500, bin_sizes=[4, 8], seed=1))


@pytest.mark.parametrize(
    ("func", "kwargs", "match"),
    [
        (bin_size_study, {"ks": [0.7]}, r"ks must lie in \[0, 0.5\]"),
        (bin_size_study, {"ks": []}, "ks is empty"),
        (bin_size_study, {"bin_sizes": [0]}, "bin_sizes must be >= 1"),
        (bin_size_study, {"n_obs": 1}, "n_obs must be >= 2"),
        (sample_size_study, {"sizes": [100, 1]}, "sizes must be >= 2"),
        (sample_size_study, {"n_repeats": 0}, "n_repeats must be >= 1"),
    ],
)
def test_bad_arguments_are_named(func, kwargs, match):
    with pytest.raises(ValueError, match=match):
        func(**kwargs)


def test_plots_draw_one_line_per_condition():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2)
    out = plot_bin_size_study(bin_size_study(n_obs=1_000, bin_sizes=[2, 4, 8]), ax=ax1)
    assert out is ax1 and len(ax1.get_lines()) == 2
    assert ax1.get_xscale() == "log"
    plot_sample_size_study(sample_size_study(sizes=[500, 1_000], n_repeats=2), ax=ax2)
    assert len(ax2.get_lines()) == 2
    with pytest.raises(TypeError, match="frame must be the DataFrame"):
        plot_bin_size_study(pd.DataFrame({"x": [1]}), ax=ax1)
    plt.close(fig)
