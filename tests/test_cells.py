"""Curves, calibrators and report columns read off cell statistics
(BaseCalibrator.from_statistics, the registry's cell versions and localfit.fit of the cells)
against the exact in-memory results, within the stated bounds."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import expit, logit

import locacal
from locacal.curves.binning import BinningCalibrator
from locacal.curves.curve import slides_grid
from locacal.curves.local import DEFAULT_LOCAL, SLIDES_LOCAL, LocalRegressionCalibrator
from locacal.data.cells import ScoreStatistics
from locacal.data.sample import sort_sample
from locacal.localfit import fit, local_params
from locacal.localfit._direct import fit_points
from locacal.metrics.binned import brier_decomposition_cells, ece_thresholded_with_bound
from locacal.metrics.classification import auc_with_bound
from locacal.metrics.clinical import spiegelhalter_z_cells
from locacal.metrics.lcs_wmse import lcs_with_bound, wmse_with_bound
from locacal.metrics.registry import evaluate_cells
from locacal.report.table import CELL_COLUMNS, CELL_EXTRAS, NOT_FROM_CELLS, REPORT_COLUMNS
from locacal.simulate import logistic_dgp


@pytest.fixture(scope="module", params=["unit", "weighted"])
def sample(request):
    """n = 2e4 miscalibrated scores of the slides' process, with and without weights."""
    df = logistic_dgp(20_000, alpha=0.8, gamma=1.3, seed=5)
    s, y = df["score"].to_numpy(), df["label"].to_numpy().astype(float)
    w = None
    if request.param == "weighted":
        w = np.random.default_rng(6).gamma(2.0, 1.0, s.size)
        w[::40] = 0.0
    return s, y, w, ScoreStatistics.from_arrays(s, y, w)


def _exact_fit(s, y, w, grid, degree, nn, kernel):
    keep = slice(None) if w is None else w > 0
    sample = sort_sample(s[keep], y[keep], None if w is None else w[keep])
    return fit(sample, grid, local_params(degree, nn, None, kernel)).value


@pytest.mark.parametrize("degree", [0, 1])
@pytest.mark.parametrize("kernel", ["rect", "tricube"])
@pytest.mark.parametrize("nn", [0.05, 0.3])
def test_binned_local_fit_within_its_bound(sample, degree, kernel, nn):
    s, y, w, stats = sample
    grid = slides_grid(s if w is None else s[w > 0], 100)
    exact = _exact_fit(s, y, w, grid, degree, nn, kernel)
    fits = fit(stats, grid, local_params(degree, nn, None, kernel), outputs=("value", "bound"))
    binned, bound = fits.value, fits.bound
    err = np.abs(binned - exact)
    # the degree-1 bound is first order in eps: allow 10 % beyond it (measured err / bound
    # at most 0.34 at n = 1e5, 0.4 here)
    assert np.all(err <= 1.1 * bound + 1e-13)
    # not vacuous: the median bound is below 1e-2 (degree 1 is loose at the ends of the score
    # range, where the local design is nearly singular: up to 8e-2 at n = 3e4, nn = 0.05);
    # the tricube error itself is second order
    assert np.median(bound) < 1e-2
    if kernel == "tricube":
        assert err.max() < 1e-4  # measured 1e-5 at nn = 0.05, n = 1e5


@pytest.mark.parametrize(("degree", "kernel"), [(0, "tricube"), (1, "rect"), (1, "tricube")])
def test_lcs_of_other_fits_within_bound(sample, degree, kernel):
    s, y, w, stats = sample
    value, bound = lcs_with_bound(stats, degree=degree, kernel=kernel)
    exact = locacal.lcs(s, y, weights=w, degree=degree, kernel=kernel)
    eta = 1e-6  # the density weights' relative error (test_sufficient.test_density_from_cells)
    assert abs(value - exact) <= bound + 2.0 * eta / (1.0 - eta) * exact
    assert bound < 1e-3


def test_local_fit_refuses_other_settings(sample):
    stats = sample[3]
    with pytest.raises(ValueError, match="degree 0 or 1"):
        fit(stats, np.array([0.5]), local_params(2, 0.15, None, "rect"))
    with pytest.raises(ValueError, match="kernel"):
        fit(stats, np.array([0.5]), local_params(0, 0.15, None, "gauss"))
    with pytest.raises(ValueError, match="degree"):
        LocalRegressionCalibrator.from_statistics(stats, degree=2)


def test_fit_of_cells_refuses_what_the_binned_fit_lacks(sample):
    """fit(ScoreStatistics, ...) names the outputs and settings the binned fit cannot give;
    the bound is refused for in-memory data, whose fit is exact."""
    s, y, _, stats = sample
    point = np.array([0.5])
    with pytest.raises(ValueError, match=r"outputs: \['count'\]"):
        fit(stats, point, local_params(1, 0.15, None, "tricube"), outputs=("value", "count"))
    with pytest.raises(ValueError, match="span nn"):
        fit(stats, point, local_params(0, 0.15, 0.1, "rect"))
    with pytest.raises(ValueError, match="backend='locfit'"):
        fit(stats, point, local_params(0, 0.15, None, "rect"), backend="locfit")
    with pytest.raises(ValueError, match="'bound'"):
        fit(sort_sample(s, y, None), point, local_params(), outputs=("bound",))


def test_from_statistics_refuses_what_the_cells_cannot_serve(sample):
    """Options the binned fits would ignore are refused, not dropped."""
    stats = sample[3]
    with pytest.raises(ValueError, match=r"h=0\.1"):
        LocalRegressionCalibrator.from_statistics(stats, h=0.1)
    with pytest.raises(ValueError, match="evaluation='locfit'"):
        LocalRegressionCalibrator.from_statistics(stats, evaluation="locfit")
    with pytest.raises(ValueError, match="strategy"):
        BinningCalibrator.from_statistics(stats, strategy="adaptive")
    with pytest.raises(ValueError, match="bin_size"):
        BinningCalibrator.from_statistics(stats, bin_size=50)
    with pytest.raises(TypeError, match="IsotonicCalibrator cannot be fitted from cell"):
        locacal.IsotonicCalibrator.from_statistics(stats)


def test_auc_within_bound(sample):
    s, y, w, stats = sample
    value, bound = auc_with_bound(stats)
    assert abs(value - locacal.auc(s, y, weights=w)) <= bound + 1e-12
    assert bound < 1e-4  # ~ 1 / (2 x cells): a cell holds a few rows of each class


def test_auc_by_hand():
    """Two cells: positives at 0.8 and 0.2, negatives at 0.3 and 0.8 (a within-cell pair).
    AUC = (pairs won + ties / 2) / 4; the cell pair (0.8, 0.8) counts one half either way."""
    s = np.array([0.8, 0.2, 0.3, 0.8])
    y = np.array([1.0, 1.0, 0.0, 0.0])
    value, bound = auc_with_bound(ScoreStatistics.from_arrays(s, y))
    assert value == pytest.approx((1.0 + 0.5) / 4.0, abs=1e-15)  # (0.8 > 0.3) + tie
    assert value == pytest.approx(locacal.auc(s, y), abs=1e-15)
    assert bound == pytest.approx(0.5 * 1.0 / 4.0)


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_confusion_rates_are_exact_at_cell_edges(sample, threshold):
    s, y, w, stats = sample
    s = s.copy()
    s[:50] = threshold  # rows exactly at the threshold are predicted positive
    stats = ScoreStatistics.from_arrays(s, y, w)
    values, bounds = evaluate_cells(CELL_COLUMNS, stats, threshold=threshold)
    for name in ("accuracy", "sensitivity", "specificity"):
        exact = getattr(locacal.metrics, name)(s, y, weights=w, threshold=threshold)
        assert values[name] == pytest.approx(exact, rel=1e-12, abs=1e-15)
        assert bounds[name] == 0.0


def test_report_from_cells_within_bounds(sample):
    s, y, w, stats = sample
    values, bounds = evaluate_cells(REPORT_COLUMNS, stats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        exact = locacal.calibration_report(s, y, weights=w)
    for name in ("n", "brier", "ece", "lcs", "auc", "accuracy", "log_loss",
                 "spiegelhalter_z", "unc", "mcb", "dsc", "wmse"):
        eta = 1e-6 * exact[name] if name in ("lcs", "wmse") else 1e-12
        assert abs(values[name] - exact[name]) <= bounds[name] + eta, name
    # QMSE has no stated bound: its bins move the rows of one cell per break (measured 1e-6)
    assert values["qmse"] == pytest.approx(exact["qmse"], rel=1e-3)
    # the report's columns are either computed or explained; the optional extra too
    assert set(CELL_COLUMNS) | set(NOT_FROM_CELLS) == set(REPORT_COLUMNS)
    assert not set(CELL_COLUMNS) & set(NOT_FROM_CELLS)
    assert CELL_EXTRAS == ("ece_thresholded",)
    assert values[[c for c in NOT_FROM_CELLS if c in REPORT_COLUMNS]].isna().all()
    assert values[list(CELL_COLUMNS)].notna().all()


def _chunked(s, y, w, parts=3):
    """The statistics of ``parts`` consecutive chunks, merged by addition."""
    cuts = np.linspace(0, s.size, parts + 1).astype(int)
    return ScoreStatistics.from_chunks((s[a:b], y[a:b], None if w is None else w[a:b])
                                       for a, b in itertools.pairwise(cuts))


def _memory_report(s, y, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        return locacal.calibration_report(s, y, weights=w)


def test_log_loss_spiegelhalter_and_unc_are_exact(sample):
    """Kept sums, merged over chunks, give the in-memory values to rounding, with scores of
    exactly 0 and 1 on the wrong side (the log loss clips them as in memory)."""
    s, y, w, _ = sample
    s = s.copy()
    s[:3], y_ = 0.0, y.copy()
    y_[:3] = 1.0
    s[3:6], y_[3:6] = 1.0, 0.0
    values, bounds = evaluate_cells(REPORT_COLUMNS, _chunked(s, y_, w, parts=4))
    exact = _memory_report(s, y_, w)
    for name in ("log_loss", "spiegelhalter_z", "unc"):
        assert values[name] == pytest.approx(exact[name], rel=1e-12), name
        assert bounds[name] == 0.0
    assert values["log_loss"] > 6 * 36.0 / s.size  # the clipped wrong-side rows count
    # the closed forms, computed here from the rows
    wv = np.ones(s.size) if w is None else w
    p = np.clip(s, 2.0**-52, 1.0 - 2.0**-52)
    log_loss = -np.sum(wv * (y_ * np.log(p) + (1 - y_) * np.log(1 - p))) / wv.sum()
    assert values["log_loss"] == pytest.approx(log_loss, rel=1e-12)
    lever = 1.0 - 2.0 * s
    z = np.sum(wv * (y_ - s) * lever) / np.sqrt(np.sum(wv**2 * lever**2 * s * (1 - s)))
    assert values["spiegelhalter_z"] == pytest.approx(z, rel=1e-12)
    rate = np.sum(wv * y_) / wv.sum()
    assert values["unc"] == pytest.approx(rate * (1.0 - rate), rel=1e-12)


def test_spiegelhalter_zero_variance_is_nan_with_warning():
    stats = ScoreStatistics.from_arrays(np.array([0.0, 0.5, 1.0, 0.5]),
                                        np.array([0.0, 1.0, 1.0, 0.0]))
    with pytest.warns(locacal.CalibrationWarning, match="zero variance"):
        assert np.isnan(spiegelhalter_z_cells(stats))


@pytest.mark.parametrize("weighted", [False, True])
def test_corp_exact_when_each_cell_holds_one_score(weighted):
    """Scores rounded to 1/100 sit on cell edges, one distinct score per cell: the PAV over
    the cells is the exact PAV, and the bound says so (0; a score of exactly 0 shares cell 0
    with (0, 1/C], which the bound counts as mixed, so the scores start at 0.01)."""
    rng = np.random.default_rng(21)
    s = np.clip(np.round(rng.beta(2.0, 3.0, 30_000), 2), 0.01, 1.0)
    y = (rng.uniform(size=s.size) < s**1.4).astype(float)
    w = rng.gamma(2.0, 1.0, s.size) if weighted else None
    values, bounds = evaluate_cells(REPORT_COLUMNS, _chunked(s, y, w))
    exact = _memory_report(s, y, w)
    for name in ("mcb", "dsc", "unc"):
        assert values[name] == pytest.approx(exact[name], rel=1e-12), name
        assert bounds[name] == 0.0
    assert exact["mcb"] > 1e-3  # miscalibrated: a real PAV fit, not a constant


@pytest.mark.parametrize("weighted", [False, True])
def test_corp_within_its_bound_on_crowded_cells(weighted):
    """Continuous scores in [0.45, 0.55], about 10 rows a cell: cells mix rows the exact PAV
    may separate, so the cell PAV is below the exact MCB and DSC by at most the heaviest
    mixed cell's weight share."""
    rng = np.random.default_rng(22)
    s = rng.uniform(0.45, 0.55, 100_000)
    y = (rng.uniform(size=s.size) < 0.5 + 3.0 * (s - 0.5)).astype(float)
    w = rng.gamma(2.0, 1.0, s.size) if weighted else None
    values, bounds = evaluate_cells(REPORT_COLUMNS, _chunked(s, y, w))
    exact = locacal.metrics.corp_decomposition(s, y, weights=w)
    for name in ("mcb", "dsc"):
        err = values[name] - exact[name]
        assert -bounds[name] - 1e-13 <= err <= 1e-13, name  # one-sided: the cells pool more
        assert bounds[name] < 1e-3  # not vacuous (about 10 rows of 1e5 in the heaviest cell)
        # measured: err -4.5e-6 (unit), -5.1e-6 (weighted) against bounds 2.3e-4, 2.8e-4
    assert values["unc"] == pytest.approx(exact["unc"], rel=1e-12)


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_thresholded_ece_within_the_quantile_bound(sample, threshold):
    """The slides' thresholded ECE from merged chunks: the per-cell correct weights are
    exact (rows on the threshold predicted positive), the quantile bins within the ECE's
    bound."""
    s, y, w, _ = sample
    s = s.copy()
    s[:50] = threshold
    stats = _chunked(s, y, w)
    value, bound = ece_thresholded_with_bound(stats, threshold)
    exact = locacal.metrics.ece_thresholded(s, y, weights=w, threshold=threshold)
    assert abs(value - exact) <= bound + 1e-12
    assert bound < 2e-3  # not vacuous (the value is 0.11): a few rows of the cut cells
    # measured at n = 2e4: 0 without weights (breaks at cell tops, bound 0); weighted
    # 2.4e-5 (0.5) and 1e-17 (0.3) against bounds 9.2e-4 and 1.1e-3
    values, bounds = evaluate_cells(("ece_thresholded",), stats, threshold=threshold)
    assert (values["ece_thresholded"], bounds["ece_thresholded"]) == (value, bound)


def test_thresholded_ece_on_cell_wide_bins_is_exact():
    """Scores rounded to 1/100 (on cell edges) fill whole cells: the quantile breaks fall
    at cell tops, the bound is 0, the value the in-memory one; 0.5 itself is a score."""
    rng = np.random.default_rng(23)
    s = np.round(rng.uniform(0.0, 1.0, 5_000), 2)
    y = (rng.uniform(size=s.size) < s).astype(float)
    value, bound = ece_thresholded_with_bound(ScoreStatistics.from_arrays(s, y), 0.5)
    exact = locacal.metrics.ece_thresholded(s, y, threshold=0.5)
    assert abs(value - exact) <= bound + 1e-12
    assert value == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("nn", [0.05, 0.3])
def test_wmse_within_its_bound(sample, nn):
    """The WMSE's nearest-neighbour means from merged chunks, with normalised weights: within
    the ring bound, plus the density's relative 1e-6 (2 eta / (1 - eta) of the value)."""
    s, y, w, _ = sample
    value, bound = wmse_with_bound(_chunked(s, y, w), nn, 51)
    exact = locacal.metrics.wmse(s, y, weights=w, nn=nn, grid_size=51)
    eta = 1e-6
    assert abs(value - exact) <= bound + 2.0 * eta / (1.0 - eta) * exact
    # not vacuous: measured at n = 2e4 errors 1e-7 to 4e-5 (unit nn = 0.05) against
    # bounds 4e-6 to 7e-5, the WMSE being 6e-3 to 1e-2
    assert bound < 0.02 * exact


def test_wmse_on_tied_scores_within_its_bound():
    """Scores rounded to 1/100: the nearest neighbours share tied places; the ring holds
    whole tied cells."""
    rng = np.random.default_rng(24)
    s = np.round(rng.beta(2.0, 3.0, 20_000), 2)
    y = (rng.uniform(size=s.size) < s).astype(float)
    value, bound = wmse_with_bound(ScoreStatistics.from_arrays(s, y))
    exact = locacal.metrics.wmse(s, y)
    assert abs(value - exact) <= bound + 2e-6 * exact
    assert bound < 1e-3  # measured error 3.4e-6 against 9e-4 (value 1.4e-3)


def test_report_threshold_off_the_cells_is_nan():
    s = np.linspace(0.01, 0.99, 200)
    y = (np.arange(200) % 2).astype(float)
    with pytest.warns(locacal.CalibrationWarning, match="threshold"):
        values, _ = evaluate_cells(CELL_COLUMNS, ScoreStatistics.from_arrays(s, y),
                                   threshold=0.123456789)
    assert np.isnan(values["accuracy"])


def test_uniform_binning_calibrator_equals_memory(sample):
    s, y, w, stats = sample
    cells = BinningCalibrator.from_statistics(stats, strategy="uniform", bins=10)
    memory = locacal.BinningCalibrator(strategy="uniform", bins=10).fit(s, y, sample_weight=w)
    new = np.random.default_rng(1).uniform(size=1000)
    np.testing.assert_allclose(cells.predict(new), memory.predict(new), rtol=1e-12)
    a, b = cells.curve(), memory.curve()
    for name in ("grid", "estimate", "lower", "upper", "counts"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12)


def test_quantile_binning_calibrator_within_bound(sample):
    s, y, w, stats = sample
    cells = BinningCalibrator.from_statistics(stats, strategy="quantile", bins=10)
    _, bound = stats.quantile_bins(10)
    exact = locacal.ece(s, y, weights=w)
    from locacal.metrics.binned import ece_from_bins

    assert abs(ece_from_bins(cells.stats_) - exact) <= bound + 1e-12
    with pytest.raises(ValueError, match="band"):
        cells.curve(band="bootstrap")


def test_cell_local_calibrator_defaults_to_the_memory_curve(sample):
    """LocalRegressionCalibrator.from_statistics(stats) is DEFAULT_LOCAL's fit (local-linear,
    tricube), within the binned fit's bound of the in-memory default curve, with the same
    pointwise band."""
    s, y, w, stats = sample
    cal = LocalRegressionCalibrator.from_statistics(stats)
    assert {k: cal.get_params()[k] for k in DEFAULT_LOCAL} == dict(DEFAULT_LOCAL)
    grid = slides_grid(s if w is None else s[w > 0], 100)
    fits = fit(stats, grid, local_params(**DEFAULT_LOCAL), outputs=("value", "bound"))
    estimate, bound = fits.value, fits.bound
    np.testing.assert_allclose(cal.predict(grid), np.clip(estimate, 0, 1), rtol=1e-12)
    curve = cal.curve()
    memory = locacal.calibration_curve(s, y, weights=w)
    np.testing.assert_array_equal(curve.grid, memory.grid)
    assert np.all(np.abs(curve.estimate - memory.estimate) <= bound + 1e-13)
    # band: Wilson at the effective size 1 / sum l_i^2 of both fits; the variance factor is
    # within 0.3 % (test below) and the estimate within its bound, so the limits move by
    # about the estimate's error (measured 6e-6 here)
    np.testing.assert_allclose(curve.lower, memory.lower, atol=1e-4)
    np.testing.assert_allclose(curve.upper, memory.upper, atol=1e-4)
    assert np.all(np.abs(curve.counts - memory.counts) <= 0.01 * memory.counts)


@pytest.mark.parametrize(("degree", "kernel"), [(0, "rect"), (0, "tricube"), (1, "rect"),
                                                (1, "tricube")])
@pytest.mark.parametrize("nn", [0.05, 0.3])
def test_variance_factor_close_to_exact(sample, degree, kernel, nn):
    """sum_i l_i(t)^2 of the binned fit against the exact fit's (locacal.localfit._direct,
    the factor of the in-memory band, whose coverage benchmarks/coverage_bands.py measures).
    Degree 0 rect without weights takes the same window and weights: equal to rounding."""
    s, y, w, stats = sample
    keep = slice(None) if w is None else w > 0
    exact_sample = sort_sample(s[keep], y[keep], None if w is None else w[keep])
    grid = slides_grid(s[keep], 100)
    exact = fit_points(exact_sample, grid, local_params(degree, nn, None, kernel)).var_factor
    got = fit(stats, grid, local_params(degree, nn, None, kernel),
              outputs=("var_factor",)).var_factor
    # measured at most 2.7e-3 (degree 1, rect, weighted, nn = 0.05), 5e-4 for tricube
    assert np.max(np.abs(got / exact - 1.0)) < 5e-3
    if (degree, kernel) == (0, "rect") and w is None:
        np.testing.assert_allclose(got, exact, rtol=1e-12)


@pytest.mark.parametrize("decimals", [None, 2, 1])
def test_cell_band_never_nan_inside_the_range(decimals):
    """lower <= estimate <= upper, finite and of positive width at every point of the score
    range (ends included), for continuous scores and scores tied at 2 or 1 decimals (one
    decimal puts whole ties at the window's edge, where the binned line is nearly
    singular)."""
    rng = np.random.default_rng(7)
    s = rng.beta(2.0, 5.0, 3_000)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.uniform(size=s.size) < s).astype(float)
    for params in (DEFAULT_LOCAL, SLIDES_LOCAL, {"degree": 1, "kernel": "rect"}):
        cal = LocalRegressionCalibrator.from_statistics(ScoreStatistics.from_arrays(s, y),
                                                        **params)
        grid = np.concatenate([np.linspace(s.min(), s.max(), 101), np.unique(s)[:20]])
        curve = cal.curve(grid)
        assert np.all(np.isfinite(curve.lower)) and np.all(np.isfinite(curve.upper))
        assert np.all(curve.lower <= curve.estimate) and np.all(curve.estimate <= curve.upper)
        assert np.all(curve.upper - curve.lower > 0)


def test_cell_band_coverage():
    """Seeded coverage of the 95 % cell band (default curve) of the true map
    g(p) = expit(logit(p) / gamma) of logistic_dgp (gamma = 3: over-confident scores) at
    the 10 %, 30 %, 50 %, 70 % and 90 % score quantiles (0.14, 0.34, 0.54, 0.72, 0.89,
    measured on 1e6 draws), n = 2000, 100 samples; the full study is
    ``benchmarks/coverage_bands.py --cells``. Measured 0.93-0.97, 0.944 on average (0.950
    over 200 samples)."""
    gamma = 3.0
    grid = np.array([0.14, 0.34, 0.54, 0.72, 0.89])
    truth = expit(logit(grid) / gamma)
    hits = np.zeros(grid.size)
    reps = 100
    for r in range(reps):
        data = logistic_dgp(2_000, gamma=gamma, seed=2000 + r)
        stats = ScoreStatistics.from_arrays(data["score"], data["label"])
        curve = LocalRegressionCalibrator.from_statistics(stats).curve(grid)
        hits += (curve.lower <= truth) & (truth <= curve.upper)
    coverage = hits / reps
    # MC s.e. at 0.95: 0.010 for the average over 5 points, 0.022 pointwise
    assert 0.92 <= coverage.mean() <= 0.98
    assert coverage.min() >= 0.86


def test_brier_decomposition_on_uniform_bins_is_exact(sample):
    """Against the decomposition computed row by row on the same uniform bins."""
    s, y, w, stats = sample
    keep = np.ones(s.size, bool) if w is None else w > 0
    sk, yk = s[keep], y[keep]
    wk = np.ones(sk.size) if w is None else w[keep]
    # row's uniform bin: [0, 0.1], (0.1, 0.2], ..., (0.9, 1]
    idx = np.clip(np.searchsorted(np.linspace(0.0, 1.0, 11), sk, side="left") - 1, 0, 9)
    total = wk.sum()
    size = np.bincount(idx, wk, minlength=10)
    filled = np.maximum(size, 1e-300)  # empty bins weigh 0 below
    p = np.bincount(idx, wk * yk, minlength=10) / filled
    q = np.bincount(idx, wk * sk, minlength=10) / filled
    brier = np.dot(wk, (yk - sk) ** 2) / total
    calibration = np.dot(size, (q - p) ** 2) / total
    refinement = np.dot(size, p * (1 - p)) / total
    within = np.dot(wk, (sk - q[idx]) ** 2 - 2 * (yk - p[idx]) * (sk - q[idx])) / total
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        got = brier_decomposition_cells(stats, 10)
    assert got.brier == pytest.approx(brier, rel=1e-12)
    assert got.calibration == pytest.approx(calibration, rel=1e-10)
    assert got.refinement == pytest.approx(refinement, rel=1e-12)
    assert got.within_bin == pytest.approx(within, abs=1e-12)
