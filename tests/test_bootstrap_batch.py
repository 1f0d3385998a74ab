"""The batched bootstrap of the report's metrics equals the one-resample evaluation.

:class:`locacal.metrics._bootstrap_statistics.CountBatch` evaluates metrics of resamples
from their counts over the sorted rows; here each value is compared with
:func:`locacal.metrics.registry.evaluate` on the expanded resample (rows repeated by
index), drawn by the same seeded generator, with tied scores, tied score-label pairs,
relative weights, frequency weights and a single-class resample.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from locacal._validation import CalibrationWarning
from locacal.data.frequency import bootstrap_counts
from locacal.metrics._bootstrap_statistics import BATCHED, CountBatch, sorted_order
from locacal.metrics.registry import evaluate
from locacal.report.intervals import bootstrap_replicates

NAMES = ("brier", "true_mse", "log_loss", "accuracy", "sensitivity", "specificity",
         "spiegelhalter_z", "auc", "calib_mse", "calib_err", "refinement", "mcb", "dsc",
         "unc")


def _data(n: int, seed: int, ties: bool, weighted: bool):
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 3.0, n)
    s = np.round(p * 20) / 20 if ties else np.clip(p + rng.normal(0, 0.05, n), 0, 1)
    y = (rng.random(n) < p).astype(np.float64)
    w = rng.uniform(0.2, 3.0, n) if weighted else None
    return s, y, w, p


def _distinct(n: int, seed: int):
    """Unweighted data with distinct scores (the runs of labels of CountBatch)."""
    _, y, _, p = _data(n, seed, False, False)
    return p, y, None, p  # beta draws: distinct scores (clipping ties them at 0 and 1)


def _expanded(names, s, y, w, p, idx):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        row = evaluate(names, s[idx], y[idx], weights=None if w is None else w[idx],
                       true_p=p[idx], threshold=0.4)
    return np.array([row[m] for m in names])


def test_every_name_is_batched():
    assert set(NAMES) == BATCHED


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_counts_equal_expanded_resamples(ties, weighted):
    s, y, w, p = _data(600, 1 + 2 * ties + weighted, ties, weighted)
    order = sorted_order(s, y, w)
    batch = CountBatch(s[order], y[order], None if w is None else w[order], p[order], 0.4)
    rng = np.random.default_rng(7)
    draws = [rng.integers(0, s.size, s.size) for _ in range(6)]
    counts = np.array([np.bincount(i, minlength=s.size)[order] for i in draws])
    got = batch(NAMES, counts)
    want = np.array([_expanded(NAMES, s, y, w, p, i) for i in draws])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("threshold", [0.0, 0.4, 1.0])
def test_counts_from_runs_equal_expanded_resamples(threshold):
    """Unweighted without ties: AUC, CORP, the refinement and the counts of observations,
    events and the confusion matrix from the runs of labels (every row predicted 1 at
    threshold 0, none at 1)."""
    s, y, _, p = _distinct(500, 43)
    order = sorted_order(s, y, None)
    batch = CountBatch(s[order], y[order], None, p[order], threshold)
    assert batch.by_runs
    rng = np.random.default_rng(47)
    draws = [rng.integers(0, s.size, s.size) for _ in range(6)]
    counts = np.array([np.bincount(i, minlength=s.size)[order] for i in draws])
    got = batch(NAMES, counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b, idx in enumerate(draws):
            want = evaluate(NAMES, s[idx], y[idx], true_p=p[idx], threshold=threshold)
            np.testing.assert_allclose(got[b], [want[m] for m in NAMES], rtol=1e-12,
                                       atol=1e-14)


@pytest.mark.parametrize("first_label", [0.0, 1.0])
def test_runs_of_labels_either_class_first(first_label):
    """Unweighted without ties (AUC and CORP from the counts of the runs of equal labels):
    the lowest score an event or a non-event, some resamples leave it out."""
    s, y, _, p = _distinct(400, 17)
    y[np.argmin(s)] = first_label
    order = sorted_order(s, y, None)
    batch = CountBatch(s[order], y[order], None, p[order], 0.4)
    assert batch.by_runs
    rng = np.random.default_rng(19)
    draws = [rng.integers(0, s.size, s.size) for _ in range(8)]
    counts = np.array([np.bincount(i, minlength=s.size)[order] for i in draws])
    names = ("auc", "dsc", "mcb", "refinement", "accuracy", "sensitivity", "specificity",
             "unc", "brier")
    got = batch(names, counts)
    want = np.array([_expanded(names, s, y, None, p, i) for i in draws])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_frequency_weights_split_rows_across_bins():
    """Large counts: the adaptive bins (24 observations wide here) cut rows' copies, and
    some bins lie inside one row."""
    s, y, w, p = _data(40, 5, True, True)
    f = np.random.default_rng(3).integers(1, 60, s.size).astype(np.float64)
    order = sorted_order(s, y, w)
    batch = CountBatch(s[order], y[order], w[order], p[order], 0.5)
    rng = np.random.default_rng(11)
    drawn = bootstrap_counts(rng, f, s.size, 5).astype(np.float64)
    got = batch(NAMES, drawn[:, order])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b in range(drawn.shape[0]):
            idx = np.repeat(np.arange(s.size), drawn[b].astype(np.int64))
            want = evaluate(NAMES, s[idx], y[idx], weights=w[idx], true_p=p[idx])
            np.testing.assert_allclose(got[b], [want[m] for m in NAMES], rtol=1e-12,
                                       atol=1e-14)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_refinement_without_calib_mse(ties, weighted):
    """The refinement asked without calib_mse (from the runs of labels when unweighted
    without ties, else from bins without their score sums) equals the expanded resample's
    and the value asked together with calib_mse."""
    s, y, w, p = (_distinct(500, 23) if not (ties or weighted)
                  else _data(500, 23 + 2 * ties + weighted, ties, weighted))
    order = sorted_order(s, y, w)
    batch = CountBatch(s[order], y[order], None if w is None else w[order], p[order], 0.4)
    assert batch.by_runs == (not (ties or weighted))
    rng = np.random.default_rng(29)
    draws = [rng.integers(0, s.size, s.size) for _ in range(6)]
    counts = np.array([np.bincount(i, minlength=s.size)[order] for i in draws])
    alone = batch(["refinement"], counts)[:, 0]
    with_auc = batch(["auc", "refinement"], counts)[:, 1]
    with_gaps = batch(["calib_mse", "refinement"], counts)[:, 1]
    want = np.array([_expanded(["refinement"], s, y, w, p, i)[0] for i in draws])
    for got in (alone, with_auc, with_gaps):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("first_label", [0.0, 1.0])
def test_refinement_from_runs_with_large_counts(first_label):
    """Unweighted without ties, frequency counts up to 60: the bins' edges fall inside runs
    of either label and some bins lie inside one row's copies; a resample of one class."""
    s, y, _, p = _distinct(40, 31)
    y[np.argmin(s)] = first_label
    order = sorted_order(s, y, None)
    batch = CountBatch(s[order], y[order], None, p[order], 0.5)
    assert batch.by_runs
    f = np.random.default_rng(37).integers(1, 60, s.size).astype(np.float64)
    drawn = bootstrap_counts(np.random.default_rng(41), f, s.size, 5).astype(np.float64)
    drawn[4, y[order] == 0.0] = 0.0  # events only
    got = batch(["refinement"], drawn)[:, 0]  # counts over the sorted rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b in range(drawn.shape[0]):
            idx = np.repeat(np.arange(s.size), drawn[b].astype(np.int64))
            want = evaluate(["refinement"], s[order][idx], y[order][idx])["refinement"]
            np.testing.assert_allclose(got[b], want, rtol=1e-12, atol=1e-14)


def test_single_class_resample_is_nan_where_undefined():
    s, y, _, p = _data(50, 2, False, False)
    order = sorted_order(s, y, None)
    c = np.zeros((1, s.size))
    c[0, np.flatnonzero(y[order] == 1.0)[:3]] = [10, 20, 20]
    got = dict(zip(NAMES, CountBatch(s[order], y[order], None, p[order], 0.5)(NAMES, c)[0],
                   strict=True))
    assert np.isnan(got["auc"]) and np.isnan(got["specificity"])
    idx = np.repeat(np.arange(s.size), c[0].astype(np.int64))
    want = _expanded(["brier", "dsc", "unc", "refinement"], s[order], y[order], None,
                     p[order], idx)
    np.testing.assert_allclose([got[m] for m in ("brier", "dsc", "unc", "refinement")],
                               want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("frequency", [False, True])
def test_bootstrap_replicates_equal_the_resample_loop(frequency):
    """Same generator, same draws: the batched replicates equal the registry's evaluation of
    each resample (batched and looped metrics mixed)."""
    s, y, w, p = _data(300, 9, True, True)
    f = np.random.default_rng(4).integers(1, 4, s.size).astype(np.float64) if frequency \
        else None
    names = ["brier", "auc", "ece_thresholded", "dsc", "refinement", "cal_slope",
             "sensitivity"]
    got = bootstrap_replicates(names, s, y, weights=w, true_p=p, threshold=0.5, n_boot=5,
                               rng=np.random.default_rng(2), tick=lambda: None, counts=f)
    rng = np.random.default_rng(2)
    order = sorted_order(s, y, w)  # the rows are drawn as positions in the shared sort
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b in range(5):
            if f is None:
                idx = order[rng.integers(0, s.size, s.size)]
                want = evaluate(names, s[idx], y[idx], weights=w[idx], true_p=p[idx])
            else:
                drawn = bootstrap_counts(rng, f, s.size, 1)[0].astype(np.float64)
                want = evaluate(names, s, y, weights=w, frequency_weights=drawn,
                                true_p=p)
            np.testing.assert_allclose(got[b], [want[m] for m in names], rtol=1e-12,
                                       atol=1e-14)


@pytest.mark.parametrize("case", ["plain", "ties", "weighted"])
def test_null_values_equal_the_draw_loop(case):
    """The null draws' batch statistics (smooth ECE, calib_mse, calib_err, signed
    Spiegelhalter z, and the older ones) equal the registry's evaluation of each draw."""
    from locacal.report.intervals import NULL_METRICS, _null_draws, null_values

    s, _, w, _ = _data(800, 21, case == "ties", case == "weighted")
    names = [m for m in NULL_METRICS if not (case == "weighted" and m == "smece")]
    got = null_values(names, s, weights=w, threshold=0.5, n_draws=4,
                      rng=np.random.default_rng(8), tick=lambda: None)
    order = np.argsort(s, kind="stable")
    ws = None if w is None else w[order]
    draws = np.concatenate(list(_null_draws(s[order], 4, np.random.default_rng(8))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        for b, labels in enumerate(draws):
            want = evaluate(names, s[order], labels, weights=ws)
            np.testing.assert_allclose(got[b], [want[m] for m in names], rtol=1e-12,
                                       atol=1e-14, err_msg=case)


def test_smece_batch_equals_smece_small_bandwidths():
    """Large n: bandwidths below 0.01 (more grid nodes) and scores at 0 and 1."""
    from locacal.metrics import smece
    from locacal.metrics._smooth_ece_batch import smece_batch

    rng = np.random.default_rng(5)
    s = np.sort(rng.beta(2.0, 3.0, 60_000))
    s[:4], s[-4:] = 0.0, 1.0
    labels = (rng.random((3, s.size)) < s).astype(np.float64)
    got = smece_batch(s, None)(labels)
    want = [smece(s, row) for row in labels]
    assert max(want) < 0.01  # the bisection went below sigma = 0.01
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_isotonic_binary_errors_equal_the_pav_of_the_labels():
    """Pairs of a run of events and the run of non-events after it: rows that start with
    an event or a non-event, end in a run of events, hold one class only."""
    from scipy.optimize import isotonic_regression

    from locacal.metrics._bootstrap_statistics import isotonic_binary_errors

    rng = np.random.default_rng(12)
    p = np.sort(rng.random(500))
    labels = (rng.random((6, p.size)) < p).astype(np.float64)
    labels[0, 0], labels[1, 0], labels[2, -3:] = 1.0, 0.0, 1.0
    labels[3], labels[4] = 0.0, 1.0
    want = [np.sum((row - isotonic_regression(row).x) ** 2) for row in labels]
    for dtype in (np.float64, bool):
        np.testing.assert_allclose(isotonic_binary_errors(labels.astype(dtype)), want,
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m, route", [(21, "cosine"), (22, "period"), (24, "padded"),
                                      (1001, "cosine"), (1464, "period"), (1707, "padded")])
def test_smece_batch_routes_smooth_as_the_metric(m, route):
    """The circular convolutions of length 2m - 2 (type-I DCT for odd m) and the padded
    one give the metric's smoothed node masses (np.pad reflect + fftconvolve)."""
    from locacal.metrics._smooth_ece_batch import _Nodes
    from locacal.metrics.smooth_ece import _smooth_masses

    rng = np.random.default_rng(m)
    s = np.sort(rng.beta(2.0, 3.0, 3000))
    nodes = _Nodes(s, m)
    assert nodes.route == route
    mass = rng.normal(size=(3, m))
    for sigma in (0.5, 0.05, 3.0 / m):
        got = nodes.smooth(nodes.spectra(mass), nodes.kernel_spectrum(sigma))
        want = [_smooth_masses(row, sigma, np.linspace(0.0, 1.0, m)) for row in mass]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())


@pytest.mark.parametrize("m", [21, 22, 1001])
def test_smece_batch_bound_weights_are_the_adjoint(m):
    """c_j (the bound's node weights) is the total weight of node j's mass over the
    evaluation points: the column sums of the dense map mass -> smoothed values there."""
    from locacal.metrics._smooth_ece_batch import _Interpolation, _Nodes

    s = np.sort(np.random.default_rng(3).random(500))
    nodes = _Nodes(s, m)
    for sigma, count in ((0.3, 200), (2.0 / m, 977)):
        points = np.linspace(0.0, 1.0, count)
        interpolate = _Interpolation(points, m)
        kernel = nodes.kernel_spectrum(sigma)
        dense = interpolate(nodes.smooth(nodes.spectra(np.eye(m)), kernel))
        got = nodes.node_weights(kernel, interpolate.node_weights)
        np.testing.assert_allclose(got, dense.sum(axis=1), rtol=1e-12,
                                   atol=1e-12 * dense.sum(axis=1).max())
        row = np.random.default_rng(4).normal(size=m)
        np.testing.assert_allclose(interpolate(row[None, :])[0],
                                   np.interp(points, np.linspace(0.0, 1.0, m), row),
                                   rtol=0, atol=1e-15)


def test_smece_batch_bound_holds_and_decides_large_bandwidths():
    """U(sigma) >= smECE(sigma) at every bandwidth with a bound; rows whose search ends on
    a bandwidth decided by the bound alone (one-signed residuals: U = smECE, sigma = 1 kept)
    are evaluated there, as the metric."""
    from locacal.localfit import event_prefix
    from locacal.metrics import smece
    from locacal.metrics._smooth_ece_batch import (
        ScaledScores,
        _Bandwidth,
        _Nodes,
        smece_batch,
    )
    from locacal.metrics.smooth_ece import _node_count, _Residuals

    rng = np.random.default_rng(9)
    s = np.sort(rng.beta(2.0, 3.0, 20_000))
    labels = (rng.random((3, s.size)) < s).astype(np.float64)
    labels[1] = (rng.random(s.size) < s**2).astype(np.float64)  # over-confident
    low = np.sort(rng.uniform(0.0, 0.1, 5000))
    for scores, rows in ((s, labels), (low, np.ones((2, low.size)))):
        scaled = ScaledScores(scores)(event_prefix(rows))
        for k in (1024, 256, 32, 16, 8, 5, 7):
            sigma = k / 1024
            at = _Bandwidth(_Nodes(scores, _node_count(sigma)), sigma)
            mass = at.nodes.residual_masses(scaled, event_prefix(rows))
            bound = at.bound(mass)
            exact = np.array([_Residuals(scores, y).smece(sigma) for y in rows])
            assert (bound >= exact * (1 - 1e-12)).all(), (k, bound, exact)
        got = smece_batch(scores, None)(rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CalibrationWarning)  # one class
            want = [smece(scores, y) for y in rows]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert want[0] > 0.9  # the search kept sigma = 1


def test_null_draws_in_one_array_are_the_same_draws():
    """``reuse=True`` (null_values) draws every chunk into the same array: same labels."""
    from locacal.report.intervals import _null_draws

    s = np.sort(np.random.default_rng(2).random(300_000))  # 3 rows a chunk, one of 1
    fresh = [c.copy() for c in _null_draws(s, 7, np.random.default_rng(6))]
    kept = [c.copy() for c in _null_draws(s, 7, np.random.default_rng(6), reuse=True)]
    assert [c.shape[0] for c in kept] == [3, 3, 1]
    for a, b in zip(fresh, kept, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("names", [("ece", "qmse", "calib_mse"), ("wmse", "ece", "calib_err")])
def test_null_values_with_and_without_shared_counts(names):
    """The binned null statistics sum their bins themselves, or take the running event
    counts computed for the LCS, WMSE or smooth ECE: the same values either way."""
    from locacal.report.intervals import null_values

    s, _, _, _ = _data(900, 4, False, False)
    got = null_values(names, s, weights=None, threshold=0.5, n_draws=5,
                      rng=np.random.default_rng(3), tick=lambda: None)
    alone = np.column_stack([
        null_values([m], s, weights=None, threshold=0.5, n_draws=5,
                    rng=np.random.default_rng(3), tick=lambda: None)[:, 0] for m in names])
    np.testing.assert_array_equal(got, alone)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_isotonic_binary_errors_short_rows(n):
    """Every 0/1 row of a few labels (rows of one class, runs that end a row and start
    the next) against the PAV of each row."""
    from scipy.optimize import isotonic_regression

    from locacal.metrics._bootstrap_statistics import isotonic_binary_errors

    labels = (np.arange(2**n)[:, None] >> np.arange(n)[::-1] & 1).astype(np.float64)
    labels = np.concatenate([labels, labels[::-1]])  # all orders of neighbouring rows
    want = [np.sum((row - isotonic_regression(row).x) ** 2) for row in labels]
    np.testing.assert_allclose(isotonic_binary_errors(labels), want, rtol=1e-12,
                               atol=1e-12)


def test_pooling_decreasing_groups_keeps_the_pav_errors():
    """Pooling runs of non-increasing means before the PAV (integer groups, rows with no
    group, one group, equal means) leaves each row's squared error as it is."""
    from locacal.metrics._bootstrap_statistics import _pav_errors, _pool_decreasing

    rng = np.random.default_rng(53)
    sizes = [0, 1, 2, 5, 40, 0, 300, 3]
    weight = rng.integers(1, 6, sum(sizes))
    events = rng.binomial(weight, rng.random(weight.size))
    events[:4] = weight[:4]  # equal means (1) at the start
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    want = _pav_errors(weight.astype(np.float64), events / weight, bounds)
    w2, e2, b2 = _pool_decreasing(weight, events, bounds)
    assert w2.size < weight.size and w2.sum() == weight.sum()
    np.testing.assert_array_equal(np.diff(b2) > 0, np.diff(bounds) > 0)
    np.testing.assert_allclose(_pav_errors(w2.astype(np.float64), e2 / w2, b2), want,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("scale", [1.0, 2.0**31])
def test_isotonic_squared_errors_of_counts(scale):
    """Counts per group (some empty, runs of equal and of decreasing means): the pooled
    PAV of isotonic_squared_errors equals the PAV of each row's groups, whole or not, and
    with rows too large to pool in integers (scale 2^31)."""
    from scipy.optimize import isotonic_regression

    from locacal.metrics._bootstrap_statistics import isotonic_squared_errors

    rng = np.random.default_rng(59)
    weight = rng.integers(0, 5, (5, 80)).astype(np.float64)
    label = rng.binomial(weight.astype(np.int64), rng.random(weight.shape)).astype(float)
    weight[1], label[1] = 0.0, 0.0  # a row with no group
    label[2, :10] = weight[2, :10]  # equal means (1)
    weight, label = weight * scale, label * scale
    want = []
    for w, lab in zip(weight, label, strict=True):
        held = w > 0
        f = isotonic_regression(lab[held] / w[held], weights=w[held]).x if held.any() else []
        want.append(np.sum(lab[held] * (1 - 2 * np.asarray(f)) + w[held] * np.square(f)))
    for whole in (True, False):
        np.testing.assert_allclose(isotonic_squared_errors(weight, label, whole=whole),
                                   want, rtol=1e-12, atol=1e-12 * scale)


def test_null_label_thresholds_give_the_exact_law():
    """D* = 1{U < ceil(s 2^32)} for U uniform on 32 bits, drawn a byte at a time: on the
    dyadic grid k / 2^32 the threshold is s 2^32 itself (P(D* = 1) = s exactly); s = 0
    never draws an event, s = 1 (and any s above 1 - 2^-32) always does. Two scores whose
    rate comes from the labels whose top byte equals the threshold's (2^-9: top byte 0;
    255.5 / 256: 255, half of the rest) check the draws of the other 24 bits."""
    from locacal.report.intervals import _label_thresholds, _null_draws

    grid = np.array([0.0, 2.0**-32, 2.0**-9, 0.25, 0.5, 255.5 / 256, 1.0 - 2.0**-32, 1.0])
    high, low, always = _label_thresholds(grid)
    assert high.dtype == np.uint8 and low.dtype == np.uint32
    t = high.astype(np.float64) * 2.0**24 + low
    np.testing.assert_array_equal(t[:-1], grid[:-1] * 2.0**32)
    np.testing.assert_array_equal(always, [7])
    inside = np.array([1e-300, 0.1, 1.0 - 2.0**-33])
    high, low, always = _label_thresholds(inside)
    t = high.astype(np.float64) * 2.0**24 + low
    np.testing.assert_array_equal(t[:2], [1, np.ceil(0.1 * 2.0**32)])
    np.testing.assert_array_equal(always, [2])  # ceil((1 - 2^-33) 2^32) = 2^32
    # the empirical rates, for the two sources of random bytes (raw 64-bit outputs; integers)
    for bits in (np.random.PCG64(3), np.random.MT19937(3)):
        draws = np.concatenate(list(_null_draws(grid, 200_000, np.random.Generator(bits))))
        assert draws.dtype == np.float64 and set(np.unique(draws)) <= {0.0, 1.0}
        rate = draws.mean(axis=0)
        assert rate[0] == 0.0 and rate[-1] == 1.0
        assert rate[1] < 1e-4 and rate[-2] > 1.0 - 1e-4  # 2^-32 and 1 - 2^-32
        # 2^-9 and 255.5 / 256 differ from the rates without the 24 bits (0 or 2^-8 above,
        # 1 or 2^-9 below) by 20 standard errors
        se = np.sqrt(grid * (1.0 - grid) / draws.shape[0])
        assert np.all(np.abs(rate[2:6] - grid[2:6]) < 4.0 * se[2:6]), (bits, rate)


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.SFC64, np.random.MT19937])
def test_uniform_bytes_use_all_bits_independently(bits):
    """Each of the 8 bits of the bytes is a fair coin, and adjacent bytes (of one raw
    output) are not related: their bits agree half of the time."""
    from locacal.report.intervals import _uniform_bytes

    u = _uniform_bytes(np.random.Generator(bits(5)), (3, 40_001))
    assert u.dtype == np.uint8 and u.shape == (3, 40_001)
    flat = u.ravel()
    bit = (flat[:, None] >> np.arange(8, dtype=np.uint8)) & 1
    se = 0.5 / np.sqrt(flat.size)
    assert np.all(np.abs(bit.mean(axis=0) - 0.5) < 5.0 * se)
    for lag in range(1, 8):
        agree = (bit[:-lag] == bit[lag:]).mean(axis=0)
        assert np.all(np.abs(agree - 0.5) < 5.0 * se), lag


def test_sorted_order_sorts_by_score_label_and_weight():
    """A permutation whose rows are sorted by score, ties by label, then by weight (the
    order of sort_sample up to rows equal in all three), with many ties and -0.0 == 0.0."""
    rng = np.random.default_rng(14)
    s = rng.integers(0, 30, 5000) / 29.0
    s[:3] = -0.0
    y = (rng.random(s.size) < 0.4).astype(np.float64)
    w = rng.integers(1, 4, s.size).astype(np.float64)
    for weights in (None, w):
        order = sorted_order(s, y, weights)
        np.testing.assert_array_equal(np.sort(order), np.arange(s.size))
        key = np.lexsort((np.zeros(s.size) if weights is None else weights, y, s))
        rows = np.column_stack([s, y, np.zeros(s.size) if weights is None else weights])
        np.testing.assert_array_equal(rows[order], rows[key])


def _adversarial_scores(m: int, rng: np.random.Generator) -> np.ndarray:
    """Scores on and next to the nodes k / (m - 1), at 0 and 1, tiny ones, and long runs
    of tied scores (longer than the pieces of ``_Nodes.right_shares``)."""
    nodes = np.arange(m) / (m - 1)
    parts = [nodes, np.nextafter(nodes, 0.0), np.nextafter(nodes, 1.0),
             np.zeros(700), np.ones(600), np.full(1300, nodes[m // 3]),
             np.full(900, 0.5 * (nodes[5] + nodes[6])), rng.uniform(0.0, 1e-9, 50),
             rng.uniform(0.0, 1.0, 3000), 1.0 - rng.uniform(0.0, 1e-12, 50)]
    return np.sort(np.clip(np.concatenate(parts), 0.0, 1.0))


@pytest.mark.parametrize("m", [1001, 1025, 2049, 5121, 10001])
def test_smece_batch_label_shares_from_integer_sums(m):
    """The labels' shares of each run, sum_run frac_i y_i from the 64-bit integer running
    sums of v_i y_i, and the run totals equal the sums of the metric's own frac_i y_i
    (scores on and next to the nodes, at 0 and 1, tiny, and tied in runs longer than a
    piece), to the rounding of s_i (m - 1)."""
    from locacal.localfit import event_prefix
    from locacal.metrics._smooth_ece_batch import _PIECE, ScaledScores, _Nodes
    from locacal.metrics.smooth_ece import _node_positions

    rng = np.random.default_rng(m)
    s = _adversarial_scores(m, rng)
    labels = (rng.random((4, s.size)) < 0.5).astype(np.float64)
    labels[0] = 1.0  # every row an event
    nodes = _Nodes(s, m)
    assert nodes.run_pieces is not None  # runs longer than a piece
    # the pieces split the runs into at most _PIECE rows each
    lengths = np.diff(nodes.piece_bounds)
    assert 0 < lengths.min() and lengths.max() <= _PIECE
    prefix = event_prefix(labels)
    shares, totals = nodes.right_shares(ScaledScores(s)(prefix), prefix)
    left, frac = _node_positions(s, m)
    runs = np.flatnonzero(np.r_[True, left[1:] != left[:-1]])
    np.testing.assert_array_equal(nodes.piece_bounds[nodes.run_pieces], runs)
    for b, y in enumerate(labels):
        want = np.add.reduceat(frac * y, runs)
        count = np.add.reduceat(y, runs)
        np.testing.assert_array_equal(totals[b], count)
        # per row: the metric's frac is off by up to half an ulp of s (m - 1) < m
        tolerance = np.add.reduceat(np.ones_like(s), runs) * m * 2.0**-52
        assert (np.abs(shares[b] - want) <= tolerance).all()


def test_smece_batch_equals_smece_adversarial_scores():
    """End to end on scores at and next to the nodes, at 0 and 1 and tied in long runs."""
    from locacal.metrics import smece
    from locacal.metrics._smooth_ece_batch import smece_batch

    rng = np.random.default_rng(12)
    s = _adversarial_scores(1001, rng)
    labels = (rng.random((3, s.size)) < s).astype(np.float64)
    labels[2] = (rng.random(s.size) < s**1.5).astype(np.float64)
    got = smece_batch(s, None)(labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        want = [smece(s, row) for row in labels]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
