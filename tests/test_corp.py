"""CORP decomposition: closed forms, parity with model-diagnostics, identities, invariances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal import metrics


def _sample(seed: int, n: int = 60):
    """n = 60 rows with tied scores (rounded to 0.1), scores within 1e-7 of 0 and 1, weights."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(size=n), 1)
    s[:4] = [1e-7, 1 - 1e-7, 0.0, 1.0]
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.uniform(0.2, 3.0, size=n)
    return s, y, w


def test_closed_form_pooling_ties():
    # tied scores pooled first: means 1/2 at 0.2 and 0 at 0.6 violate monotonicity, so PAV
    # pools everything to 1/4. (Sorting ties by label without pooling would fit 0 and 1/3
    # to the two rows at 0.2.)
    out = metrics.corp_decomposition([0.2, 0.2, 0.6, 0.6], [0, 1, 0, 0])
    score = (0.04 + 0.64 + 0.36 + 0.36) / 4
    assert out["score"] == pytest.approx(score, abs=1e-15)
    assert out["unc"] == pytest.approx(0.1875, abs=1e-15)
    assert out["dsc"] == pytest.approx(0.0, abs=1e-15)
    assert out["mcb"] == pytest.approx(score - 0.1875, abs=1e-15)


def test_closed_form_isotonic_already():
    # group means 0, 1/2, 1 are increasing: recalibrated = (0, .5, .5, 1), S = 0.125
    out = metrics.corp_decomposition([0.1, 0.4, 0.4, 0.9], [0, 0, 1, 1])
    assert list(out.index) == ["score", "mcb", "dsc", "unc"]
    np.testing.assert_allclose(out.to_numpy(), [0.135, 0.01, 0.125, 0.25], atol=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_parity_with_model_diagnostics(seed, weighted):
    from model_diagnostics.scoring import SquaredError, decompose

    s, y, w = _sample(seed)
    w = w if weighted else None
    ours = metrics.corp_decomposition(s, y, weights=w)
    ref = decompose(y, s, weights=w, scoring_function=SquaredError()).row(0, named=True)
    # measured differences <= 4e-16 (seeds 0-2, both cases)
    assert ours["mcb"] == pytest.approx(ref["miscalibration"], abs=1e-10)
    assert ours["dsc"] == pytest.approx(ref["discrimination"], abs=1e-10)
    assert ours["unc"] == pytest.approx(ref["uncertainty"], abs=1e-10)
    assert ours["score"] == pytest.approx(ref["score"], abs=1e-10)


def test_score_is_the_brier_score_and_terms_add_up():
    s, y, w = _sample(3)
    out = metrics.corp_decomposition(s, y, weights=w)
    assert out["score"] == pytest.approx(metrics.brier_score(s, y, weights=w), abs=1e-15)
    assert out["score"] == pytest.approx(out["mcb"] - out["dsc"] + out["unc"], abs=1e-15)


@pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")  # one class, one score
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1e-7, 0.1, 0.35, 0.5, 0.9, 1 - 1e-7, 1.0]),
                          st.booleans(), st.integers(1, 4)), min_size=2, max_size=30),
       st.randoms(use_true_random=False))
def test_invariances(rows, rnd):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    with np.errstate(all="raise"):
        base = metrics.corp_decomposition(s, y, weights=w).to_numpy()
    assert base[1] >= -1e-15 and base[2] >= -1e-15  # MCB, DSC >= 0
    perm = np.array(rnd.sample(range(s.size), s.size))
    np.testing.assert_allclose(metrics.corp_decomposition(s[perm], y[perm], weights=w[perm]),
                               base, atol=1e-14)
    np.testing.assert_allclose(metrics.corp_decomposition(s, y, weights=3.5 * w), base,
                               atol=1e-14)
    rep = np.repeat(np.arange(s.size), w.astype(int))  # integer weights = duplicated rows
    np.testing.assert_allclose(metrics.corp_decomposition(s[rep], y[rep]), base, atol=1e-14)


def test_zero_weight_rows_are_ignored():
    s, y, w = _sample(4)
    w[:10] = 0.0
    np.testing.assert_allclose(metrics.corp_decomposition(s, y, weights=w),
                               metrics.corp_decomposition(s[10:], y[10:], weights=w[10:]),
                               atol=1e-15)


def test_validation():
    with pytest.raises(ValueError, match="labels"):
        metrics.corp_decomposition([0.2, 0.3], [0, 2])
    with pytest.raises(ValueError, match="weights"):
        metrics.corp_decomposition([0.2, 0.3], [0, 1], weights=[1.0])
    with pytest.raises(ValueError, match="scores"):
        metrics.corp_decomposition([0.2, np.nan], [0, 1])
