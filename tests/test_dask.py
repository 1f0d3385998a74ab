"""Dask input: the public functions reduce partitions to cell statistics (locacal.data.dask),
never gather a column, equal the cell statistics of the whole and the in-memory results within
the stated bounds, validate per partition, and run on dask.distributed too."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import locacal
from locacal.curves.binning import BinningCalibrator
from locacal.curves.local import DEFAULT_LOCAL, SLIDES_LOCAL, LocalRegressionCalibrator
from locacal.data.cells import ScoreStatistics
from locacal.localfit import fit, local_params
from locacal.metrics.binned import ece_from_bins
from locacal.metrics.lcs_wmse import lcs_cells, lcs_with_bound, wmse_with_bound
from locacal.metrics.registry import evaluate_cells
from locacal.simulate import logistic_dgp

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

N, CHUNK = 20_000, 6_000  # four partitions, the last one short


@pytest.fixture(scope="module")
def data():
    df = logistic_dgp(N, alpha=0.8, gamma=1.3, seed=3)
    s, y = df["score"].to_numpy(), df["label"].to_numpy().astype(float)
    w = np.random.default_rng(4).gamma(2.0, 1.0, N)
    w[6_000:12_000] = 0.0  # one whole partition of weight zero
    return s, y, w


def _as_dask(kind, *arrays):
    if kind == "array":
        return [da.from_array(a, chunks=CHUNK) for a in arrays]
    frame = dd.from_pandas(pd.DataFrame({f"c{i}": a for i, a in enumerate(arrays)}),
                           npartitions=4)
    return [frame[f"c{i}"] for i in range(len(arrays))]


@pytest.fixture(params=["array", "series"])
def kind(request):
    return request.param


@pytest.fixture
def chunk_sizes(monkeypatch):
    """The sizes of the arrays ScoreStatistics.from_arrays receives: proof that the work is
    done partition by partition and no column is gathered."""
    sizes = []
    original = ScoreStatistics.from_arrays.__func__

    def recording(cls, scores, labels, weights=None):
        sizes.append(np.size(scores))
        return original(cls, scores, labels, weights)

    monkeypatch.setattr(ScoreStatistics, "from_arrays", classmethod(recording))
    return sizes


def test_metrics_equal_the_cells_and_memory(data, kind, chunk_sizes):
    s, y, _ = data
    ds, dy = _as_dask(kind, s, y)
    brier = locacal.brier_score(ds, dy)
    lcs = locacal.lcs(ds, dy)
    ece_u = locacal.ece(ds, dy, strategy="uniform", bins=20)
    ece_q = locacal.ece(ds, dy)
    assert len(chunk_sizes) == 16 and max(chunk_sizes) <= CHUNK  # 4 metrics x 4 partitions
    stats = ScoreStatistics.from_arrays(s, y)
    # Brier: exact up to the summation order
    assert brier == pytest.approx(locacal.brier_score(s, y), rel=1e-12, abs=1e-15)
    assert ece_u == pytest.approx(locacal.ece(s, y, strategy="uniform", bins=20), rel=1e-12)
    # the merged cells equal the cells of the whole sample
    assert lcs == pytest.approx(lcs_cells(stats), rel=1e-10)
    cut, bound = stats.quantile_bins(10)
    value = ece_from_bins(cut)
    assert ece_q == pytest.approx(value, rel=1e-12)
    assert abs(ece_q - locacal.ece(s, y)) <= bound + 1e-12
    _, lcs_bound = lcs_with_bound(stats)
    assert abs(lcs - locacal.lcs(s, y)) <= lcs_bound + 2e-6 * lcs


def test_weights_and_other_fits(data):
    s, y, w = data
    ds, dy, dw = _as_dask("array", s, y, w)
    assert locacal.brier_score(ds, dy, weights=dw) == pytest.approx(
        locacal.brier_score(s, y, weights=w), rel=1e-12)
    stats = ScoreStatistics.from_arrays(s, y, w)
    got = locacal.lcs(ds, dy, weights=dw, degree=1, kernel="tricube")
    assert got == pytest.approx(lcs_cells(stats, degree=1, kernel="tricube"), rel=1e-10)
    report = locacal.calibration_report(ds, dy, weights=dw)
    assert report["n"] == N  # rows of weight zero count, as in memory
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        memory = locacal.calibration_report(s, y, weights=w)
    for name in ("brier", "log_loss", "spiegelhalter_z", "unc"):
        assert report[name] == pytest.approx(memory[name], rel=1e-12), name
    _, bounds = evaluate_cells(("mcb", "dsc"), stats)
    for name in ("mcb", "dsc"):
        assert -bounds[name] - 1e-13 <= report[name] - memory[name] <= 1e-13, name


def test_numpy_labels_beside_dask_scores(data):
    s, y, _ = data
    (ds,) = _as_dask("array", s)
    assert locacal.brier_score(ds, y) == pytest.approx(locacal.brier_score(s, y), rel=1e-12)
    frame = dd.from_pandas(pd.DataFrame({"s": s}), npartitions=3)
    assert locacal.brier_score(frame, y) == pytest.approx(locacal.brier_score(s, y),
                                                          rel=1e-12)


def test_curves(data, kind):
    s, y, _ = data
    ds, dy = _as_dask(kind, s, y)
    stats = ScoreStatistics.from_arrays(s, y)
    curve = locacal.calibration_curve(ds, dy, method="binning", strategy="uniform", bins=10)
    memory = locacal.calibration_curve(s, y, method="binning", strategy="uniform", bins=10)
    np.testing.assert_allclose(curve.estimate, memory.estimate, rtol=1e-12)
    np.testing.assert_allclose(curve.upper, memory.upper, rtol=1e-12)
    quantile = locacal.calibration_curve(ds, dy, method="binning")
    expected = BinningCalibrator.from_statistics(stats, strategy="quantile", bins=None)
    np.testing.assert_allclose(quantile.estimate, expected.curve().estimate, rtol=1e-12)
    # the default local curve: DEFAULT_LOCAL (local-linear, tricube), as in memory
    local = locacal.calibration_curve(ds, dy)
    assert {k: local.params[k] for k in DEFAULT_LOCAL} == dict(DEFAULT_LOCAL)
    expected = LocalRegressionCalibrator.from_statistics(stats).curve()
    np.testing.assert_allclose(local.estimate, expected.estimate, rtol=1e-10)
    bound = fit(stats, local.grid, local_params(**DEFAULT_LOCAL), outputs=("bound",)).bound
    exact = locacal.calibration_curve(s, y, grid=local.grid)
    assert np.all(np.abs(local.estimate - exact.estimate) <= bound + 1e-13)
    # its pointwise band: the in-memory one up to the estimate's error and the binned
    # variance factor (within 0.3 %, tests/test_cells.py); measured 1e-5
    assert np.all(np.isfinite(local.lower)) and np.all(np.isfinite(local.upper))
    np.testing.assert_allclose(local.lower, exact.lower, atol=1e-4)
    np.testing.assert_allclose(local.upper, exact.upper, atol=1e-4)
    # the slides' curve on request, against its in-memory counterpart
    slides = locacal.calibration_curve(ds, dy, **SLIDES_LOCAL)
    bound = fit(stats, slides.grid, local_params(**SLIDES_LOCAL), outputs=("bound",)).bound
    exact = locacal.calibration_curve(s, y, grid=slides.grid, **SLIDES_LOCAL)
    assert np.all(np.abs(slides.estimate - exact.estimate) <= bound + 1e-13)
    assert local.method == "local"
    # the curve's map is the binned fit, usable on new scores
    assert local(np.array([0.5]))[0] == pytest.approx(local.estimator.predict([0.5])[0])


def test_report(data, kind):
    s, y, _ = data
    ds, dy = _as_dask(kind, s, y)
    report = locacal.calibration_report(ds, dy)
    expected, _ = evaluate_cells(tuple(report.index), ScoreStatistics.from_arrays(s, y))
    pd.testing.assert_series_equal(report, expected, rtol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", locacal.CalibrationWarning)
        memory = locacal.calibration_report(s, y)
    for name in ("n", "brier", "accuracy", "sensitivity", "specificity", "log_loss",
                 "spiegelhalter_z", "unc"):
        assert report[name] == pytest.approx(memory[name], rel=1e-12), name
    _, bounds = evaluate_cells(("mcb", "dsc"), ScoreStatistics.from_arrays(s, y))
    for name in ("mcb", "dsc"):  # the PAV over the cells pools more: one-sided
        assert -bounds[name] - 1e-13 <= report[name] - memory[name] <= 1e-13, name
    _, bound = wmse_with_bound(ScoreStatistics.from_arrays(s, y))
    assert abs(report["wmse"] - memory["wmse"]) <= bound + 2e-6 * memory["wmse"]
    extra = locacal.calibration_report(ds, dy, extra=("ece_thresholded",))
    _, bounds = evaluate_cells(("ece_thresholded",), ScoreStatistics.from_arrays(s, y))
    assert abs(extra["ece_thresholded"] - locacal.metrics.ece_thresholded(s, y)) <= (
        bounds["ece_thresholded"] + 1e-12)
    two = locacal.calibration_report({"a": ds, "b": ds}, dy)
    assert list(two["model"]) == ["a", "b"]
    assert two.loc[0, "brier"] == pytest.approx(report["brier"], rel=1e-12)
    # Dask scores in a dict beside in-memory labels still take the Dask path
    mixed = locacal.calibration_report({"a": ds}, y)
    assert mixed.loc[0, "lcs"] == pytest.approx(report["lcs"], rel=1e-10)


def test_predict_is_lazy_and_exact(data, kind):
    s, y, _ = data
    (ds,) = _as_dask(kind, s)
    for cls in (locacal.IsotonicCalibrator, locacal.LocalRegressionCalibrator,
                locacal.BinningCalibrator, locacal.PlattCalibrator, locacal.BetaCalibrator):
        cal = cls().fit(s[:5_000], y[:5_000])
        lazy = cal.predict(ds)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), cal.predict(s))
        proba = cal.predict_proba(ds)
        np.testing.assert_array_equal(proba.compute(), cal.predict_proba(s))


def test_validation_names_argument_and_partition(data):
    s, y, _ = data
    bad = s.copy()
    bad[13_000] = 1.5
    ds, dy = _as_dask("array", bad, y)
    with pytest.raises(ValueError, match=r"scores must lie in \[0, 1\].*partition 2"):
        locacal.lcs(ds, dy)
    labels = y.copy()
    labels[100] = 2.0
    with pytest.raises(ValueError, match=r"labels must be 0/1.*partition 0"):
        locacal.brier_score(*_as_dask("array", s, labels))
    with pytest.raises(ValueError, match="labels has length"):
        locacal.ece(da.from_array(s, chunks=CHUNK), da.from_array(y[:-1], chunks=CHUNK))
    ds, dy = _as_dask("array", s, y)
    with pytest.raises(ValueError, match="adaptive"):
        locacal.ece(ds, dy, strategy="adaptive")
    with pytest.raises(ValueError, match="method='isotonic'"):
        locacal.calibration_curve(ds, dy, method="isotonic")
    with pytest.raises(ValueError, match="band"):
        locacal.calibration_curve(ds, dy, band="bootstrap")
    with pytest.raises(ValueError, match="degree"):
        locacal.calibration_curve(ds, dy, degree=2)
    with pytest.raises(ValueError, match="ci"):
        locacal.calibration_report(ds, dy, ci=True)
    with pytest.raises(ValueError, match="weights are all zero"):
        locacal.brier_score(ds, dy, weights=da.zeros(N, chunks=CHUNK))
    with pytest.raises(TypeError, match="fit takes in-memory data"):
        locacal.IsotonicCalibrator().fit(ds, dy)
    cal = locacal.IsotonicCalibrator().fit(s, y)
    lazy = cal.predict(da.from_array(bad, chunks=CHUNK))  # lazy: nothing checked yet
    with pytest.raises(ValueError, match=r"scores must lie in.*block 2"):
        lazy.compute()


def test_warnings_and_pos_label(data):
    s, y, _ = data
    ds = da.from_array(s, chunks=CHUNK)
    with pytest.warns(locacal.CalibrationWarning, match="single class"):
        locacal.brier_score(ds, da.zeros(N, chunks=CHUNK))
    names = da.from_array(np.where(y == 1, "yes", "no"), chunks=CHUNK)
    assert locacal.brier_score(ds, names, pos_label="yes") == pytest.approx(
        locacal.brier_score(s, y), rel=1e-12)


def test_distributed_local_cluster(data):
    distributed = pytest.importorskip("distributed")
    s, y, _ = data
    ds, dy = _as_dask("array", s, y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        assert locacal.lcs(ds, dy) == pytest.approx(lcs_cells(ScoreStatistics.from_arrays(s, y)),
                                                    rel=1e-10)
        assert locacal.brier_score(ds, dy) == pytest.approx(locacal.brier_score(s, y),
                                                            rel=1e-12)
        cal = locacal.IsotonicCalibrator().fit(s, y)
        np.testing.assert_array_equal(cal.predict(ds).compute(), cal.predict(s))


def test_in_memory_calls_never_import_dask():
    code = ("import sys, numpy as np, locacal; s = np.linspace(0.01, 0.99, 500); "
            "y = (np.arange(500) % 3 == 0).astype(float); locacal.lcs(s, y); "
            "locacal.brier_score(s, y); assert 'dask' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_report_through_dask(tmp_path, data):
    pytest.importorskip("pyarrow")
    from locacal.cli import main

    s, y, _ = data
    frame = pd.DataFrame({"score": s, "label": np.where(y == 1, "yes", "no")})
    frame.to_parquet(tmp_path / "x.parquet")
    argv = ["report", str(tmp_path / "x.parquet"), "--score", "score", "--label", "label",
            "--pos-label", "yes", "--quiet", "--n-boot", "0"]
    assert main([*argv, "--out", str(tmp_path / "dask"), "--dask"]) == 0
    assert main([*argv, "--out", str(tmp_path / "memory")]) == 0
    got = pd.read_csv(tmp_path / "dask" / "metrics.csv").set_index("metric")["value"]
    want = pd.read_csv(tmp_path / "memory" / "metrics.csv").set_index("metric")["value"]
    for name in ("n", "brier", "accuracy", "ece", "log_loss", "spiegelhalter_z", "unc"):
        assert got[name] == pytest.approx(want[name], rel=1e-9), name
    assert np.isnan(got["calib_mse"])
    assert main([*argv, "--out", str(tmp_path / "iso"), "--dask", "--method", "isotonic"]) == 2
