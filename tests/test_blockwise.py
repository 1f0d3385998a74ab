"""Block-by-block passes give the whole-array results bit for bit (locacal/data/blockwise.py
and the metrics that use it), so the report's speed-ups change no number."""

import numpy as np
import pytest

from locacal.data.blockwise import blocks, pairwise_sums
from locacal.data.quantile import sorted_linear_quantiles
from locacal.metrics import smooth_ece
from locacal.metrics._prepared import _unit_auc, prepare


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_sums_equal_np_sum_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200_000))
    # magnitudes over ten decades: the order of summation shows in the last bits
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    b = rng.uniform(size=n)
    for size in (8, 128, 1000, 4096, 65_536, 1 << 18):
        got = pairwise_sums(n, lambda rows: (a[rows], a[rows] * b[rows]), size=size)
        assert got == (float(np.sum(a)), float(np.sum(a * b)))


def test_blocks_cover_the_rows_in_order():
    assert [(r.start, r.stop) for r in blocks(10, 4)] == [(0, 4), (4, 8), (8, 10)]
    assert list(blocks(0, 4)) == []


@pytest.mark.parametrize("seed", range(4))
def test_sorted_quantiles_are_np_quantile(seed):
    rng = np.random.default_rng(seed)
    probs = np.concatenate([np.arange(11) / 10, [0.25, 0.75, 1 / 3], rng.uniform(size=20)])
    for n in (1, 2, 3, 10, 999, 5000):
        x = np.sort(np.round(rng.standard_normal(n), int(rng.integers(0, 4))))  # ties too
        np.testing.assert_array_equal(sorted_linear_quantiles(x, probs), np.quantile(x, probs))


def test_smece_node_masses_equal_bincount(monkeypatch):
    """The node masses accumulated in blocks equal the one-pass bincount (relplot's
    linear split), bit for bit, for any block size."""
    rng = np.random.default_rng(3)
    s = rng.beta(2, 5, 50_000)
    s[:50] = 1.0
    y = (rng.uniform(size=s.size) < s).astype(float)
    m = 1281
    frac = s * (m - 1)
    left = np.minimum(frac.astype(np.int64), m - 2)
    frac -= left
    r = s - y

    def split(to_left, to_right):
        right = np.bincount(left, weights=to_right, minlength=m)
        return np.bincount(left, weights=to_left, minlength=m) + np.r_[0.0, right[:-1]]

    expected = (split((1.0 - frac) * r, frac * r), split(1.0 - frac, frac))
    for size in (1000, 1 << 18):
        monkeypatch.setattr(smooth_ece, "blocks", lambda n, size=size: blocks(n, size))
        got = smooth_ece._Residuals(s, y).masses(m)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


@pytest.mark.parametrize("decimals", [None, 1, 2])
def test_unit_auc_and_confusion_are_the_summed_weights(decimals):
    """Unweighted AUC and confusion counts, counted in integers, equal the grouped float
    sums of the weighted formulas with unit weights (ties included)."""
    rng = np.random.default_rng(7)
    s = rng.uniform(size=20_000)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.uniform(size=s.size) < s).astype(float)
    sample = prepare(s, y)
    ordered = sample.sorted
    # the grouped Mann-Whitney sums (weights 1)
    starts = np.flatnonzero(np.r_[True, ordered.scores[1:] != ordered.scores[:-1]])
    pos = np.add.reduceat(ordered.labels.astype(float), starts)
    neg = np.add.reduceat(1.0 - ordered.labels, starts)
    below = np.r_[0.0, np.cumsum(neg)[:-1]]
    expected = float(np.dot(pos, below + 0.5 * neg) / (pos.sum() * neg.sum()))
    assert _unit_auc(ordered.scores, ordered.labels) == expected
    from sklearn.metrics import roc_auc_score
    assert expected == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    c = sample.confusion(0.5)
    w = np.ones_like(s)
    pred, hit = s >= 0.5, y == 1.0
    assert (c.tp, c.tn, c.fp, c.fn) == (float(w[pred & hit].sum()), float(w[~pred & ~hit].sum()),
                                        float(w[pred & ~hit].sum()), float(w[~pred & hit].sum()))


def test_label_counts_equal_the_prefix_sums():
    """Events per sorted row range counted by blocks equal the prefix-sum differences."""
    from locacal.data.sample import sort_sample

    rng = np.random.default_rng(11)
    for n in (1, 5, 65_536, 65_537, 200_000):
        s, y = rng.uniform(size=n), (rng.uniform(size=n) < 0.3).astype(float)
        lo = rng.integers(0, n + 1, 50)
        hi = np.maximum(lo, rng.integers(0, n + 1, 50))
        lo[:2], hi[:3] = 0, n
        got = sort_sample(s, y, None).label_counts(lo, hi)
        expected = sort_sample(s, y, None).range_sum("y", lo, hi)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
