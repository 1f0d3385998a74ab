"""The data-generating processes: formulas, seeds, validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal import simulate


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class TestLogisticDGP:
    def test_columns_and_types(self):
        df = simulate.logistic_dgp(50, seed=0)
        assert list(df.columns) == ["x1", "x2", "x3", "x4", "eta", "true_p", "score", "label"]
        assert len(df) == 50
        assert df["label"].dtype == np.int64
        assert set(df["label"].unique()) <= {0, 1}

    def test_default_a_follows_eq7_and_the_r_code(self):
        assert simulate.LOGISTIC_A == (-0.1, 0.05, 0.2, -0.05)

    @pytest.mark.parametrize(("alpha", "gamma"), [(1, 1), (1 / 3, 1), (3, 1), (1, 1 / 3), (1, 3)])
    def test_score_is_eq6_and_eq7(self, alpha, gamma):
        df = simulate.logistic_dgp(200, alpha=alpha, gamma=gamma, seed=1)
        np.testing.assert_allclose(df["true_p"], sigmoid(df["eta"]), rtol=1e-14)
        np.testing.assert_allclose(df["score"], sigmoid(gamma * df["eta"]) ** alpha, rtol=1e-13)

    def test_calibrated_scenario_scores_are_the_true_probabilities(self):
        df = simulate.logistic_dgp(100, seed=2)
        np.testing.assert_array_equal(df["score"], df["true_p"])

    def test_the_distortion_does_not_change_features_probabilities_or_labels(self):
        base = simulate.logistic_dgp(300, seed=3)
        other = simulate.logistic_dgp(300, alpha=3, gamma=1 / 3, seed=3)
        cols = ["x1", "x2", "x3", "x4", "eta", "true_p", "label"]
        pd.testing.assert_frame_equal(base[cols], other[cols])

    def test_noise_and_labels_have_the_stated_distributions(self):
        n = 100_000
        df = simulate.logistic_dgp(n, seed=4)
        a = np.array(simulate.LOGISTIC_A)
        eps = df["eta"] - df[["x1", "x2", "x3", "x4"]].to_numpy() @ a
        # sd of a sample sd of N(0, 0.25) with n = 1e5 is 0.5 / sqrt(2n) = 0.0011
        assert eps.std() == pytest.approx(0.5, abs=0.005)
        assert abs(eps.mean()) < 0.01
        # labels: mean(label) - mean(p) has sd at most 0.5 / sqrt(n) = 0.0016
        assert abs(df["label"].mean() - df["true_p"].mean()) < 0.008
        assert df[["x1", "x2", "x3", "x4"]].min().min() >= 0.0
        assert df[["x1", "x2", "x3", "x4"]].max().max() < 1.0

    def test_a_sets_the_number_of_features(self):
        df = simulate.logistic_dgp(10, a=[0.1, 0.2], seed=0)
        assert [c for c in df.columns if c.startswith("x")] == ["x1", "x2"]

    def test_seed_reproduces_and_accepts_seed_sequences_and_generators(self):
        a = simulate.logistic_dgp(20, seed=7)
        pd.testing.assert_frame_equal(a, simulate.logistic_dgp(20, seed=7))
        pd.testing.assert_frame_equal(
            simulate.logistic_dgp(20, seed=np.random.SeedSequence(7)),
            simulate.logistic_dgp(20, seed=np.random.default_rng(7)),
        )
        assert not a.equals(simulate.logistic_dgp(20, seed=8))

    @pytest.mark.parametrize(
        ("kwargs", "error", "match"),
        [
            ({"n_obs": 0}, ValueError, "n_obs must be >= 1"),
            ({"n_obs": 2.5}, TypeError, "n_obs must be an integer"),
            ({"alpha": 0}, ValueError, "alpha must be a finite positive"),
            ({"gamma": -1}, ValueError, "gamma must be a finite positive"),
            ({"noise_sd": 0}, ValueError, "noise_sd"),
            ({"a": []}, ValueError, "a is empty"),
            ({"a": [0.1, np.nan]}, ValueError, "a contains NaN"),
        ],
    )
    def test_bad_parameters_name_the_argument(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            simulate.logistic_dgp(**{"n_obs": 10, **kwargs})


class TestTreeDGP:
    def test_eq10(self):
        df = simulate.tree_dgp(1000, seed=0)
        assert list(df.columns) == ["x1", "x2", "eta", "true_p", "label"]
        np.testing.assert_allclose(df["eta"], 4 * df["x1"] + 3 * df["x2"] - 3.5, rtol=0, atol=1e-14)
        np.testing.assert_allclose(df["true_p"], sigmoid(df["eta"]), rtol=1e-14)
        assert df["true_p"].between(sigmoid(-3.5), sigmoid(3.5)).all()

    def test_probabilities_are_centred(self):
        df = simulate.tree_dgp(200_000, seed=1)
        # E[eta] = 0 and the law of eta is symmetric: E[p] = 1/2; sd of the mean < 0.001
        assert df["true_p"].mean() == pytest.approx(0.5, abs=0.003)
        assert df["label"].mean() == pytest.approx(0.5, abs=0.005)

    def test_a_needs_two_coefficients(self):
        with pytest.raises(ValueError, match="a must hold 2 coefficients"):
            simulate.tree_dgp(10, a=[1, 2, 3])


class TestThesisPairs:
    def test_distort_reading_of_the_thesis_formula(self):
        p = np.array([0.0, 0.05, 0.3, 0.5, 0.51, 0.95, 1.0])
        expected = np.array([0.0, 0.0, 0.2, 0.4, 0.61, 1.0, 1.0])
        np.testing.assert_allclose(simulate.distort(p, 0.1), expected, atol=1e-15)
        np.testing.assert_array_equal(simulate.distort(p, 0.0), p)

    @settings(max_examples=80, deadline=None)
    @given(
        st.lists(st.floats(0, 1), min_size=2, max_size=50),
        st.floats(0, 0.5),
    )
    def test_distort_is_monotone_within_k_and_a_probability(self, values, k):
        p = np.sort(np.array(values))
        t = simulate.distort(p, k)
        assert np.all(np.diff(t) >= 0)
        assert np.all(np.abs(t - p) <= k + 1e-15)
        assert np.all((t >= 0) & (t <= 1))

    @pytest.mark.parametrize(
        ("p", "k", "match"),
        [([0.5], 0.6, r"k must lie in \[0, 0.5\]"), ([0.5], -0.1, "k must lie"),
         ([1.5], 0.1, r"p must lie in \[0, 1\]")],
    )
    def test_distort_validates(self, p, k, match):
        with pytest.raises(ValueError, match=match):
            simulate.distort(p, k)

    def test_pairs(self):
        cal = simulate.synthetic_pairs(1000, seed=0)
        assert list(cal.columns) == ["score", "true_p", "label"]
        np.testing.assert_array_equal(cal["score"], cal["true_p"])
        dis = simulate.synthetic_pairs(1000, k=0.1, seed=0)
        np.testing.assert_array_equal(dis["score"], cal["score"])
        np.testing.assert_array_equal(dis["true_p"], simulate.distort(dis["score"], 0.1))

    def test_pairs_follow_the_beta_law(self):
        df = simulate.synthetic_pairs(50_000, beta=(2, 5), seed=1)
        # Beta(2, 5) has mean 2/7 and sd 0.16: sd of the mean 0.0007
        assert df["score"].mean() == pytest.approx(2 / 7, abs=0.004)
        assert df["label"].mean() == pytest.approx(2 / 7, abs=0.01)

    def test_pairs_validate_the_beta_shape(self):
        with pytest.raises(ValueError, match="beta must be a finite positive"):
            simulate.synthetic_pairs(10, beta=(0, 1))
        with pytest.raises(ValueError, match="beta must hold 2"):
            simulate.synthetic_pairs(10, beta=(1, 1, 1))
