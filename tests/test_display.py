"""Results show themselves: ``_repr_html_`` (a table, and an inline PNG where drawn),
``to_frame`` with its documented columns, and ``plot(ax=None)`` returning Axes, under Agg.

"Draws once" is checked two ways: here, ``plt.get_fignums()`` grows by at most one per
``plot()`` and not at all per ``_repr_html_()`` (the inline figure is drawn off pyplot); and
in :func:`test_a_notebook_shows_each_figure_once`, on a real Jupyter kernel, by counting the
PNG outputs of each cell.
"""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection

import locacal
from locacal import simulate
from locacal.metrics.registry import METRICS
from locacal.plotting import OKABE_ITO
from locacal.recalibration import split
from locacal.report.table import (
    CI_COLUMNS,
    CLINICAL_COLUMNS,
    EXPLAIN_COLUMNS,
    REPORT_COLUMNS,
)
from locacal.studies.real_data import RealDataStudy

pytestmark = pytest.mark.filterwarnings("ignore::locacal.CalibrationWarning")


@pytest.fixture(autouse=True)
def _close_figures():
    plt.close("all")
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(7)
    p = rng.beta(2, 3, size=400)
    s = np.clip(p**0.7, 0.0, 1.0)  # under-confident scores: a visible curve
    return s, rng.binomial(1, p).astype(float), p


@pytest.fixture(scope="module")
def recal():
    data = simulate.logistic_dgp(900, gamma=3.0, seed=1)
    return locacal.recalibrate(*split(data, seed=1), methods=("platt", "isotonic"),
                               true_p="true_p")


def _artists(ax: Axes) -> int:
    return len(ax.lines) + len(ax.collections) + len(ax.patches) + len(ax.images)


def _png(html: str) -> bytes:
    match = re.search(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert match, "no inline PNG"
    data = base64.b64decode(match.group(1))
    assert data.startswith(b"\x89PNG")
    return data


def _check_html(obj, *, figure: bool) -> str:
    before = plt.get_fignums()
    html = obj._repr_html_()
    assert plt.get_fignums() == before, "_repr_html_ opened a pyplot figure"
    assert isinstance(html, str) and "<table" in html
    if figure:
        assert 2_000 < len(_png(html)) < 120_000
    else:
        assert "<img" not in html
    return html


def _check_plot(draw, *, min_artists: int, **kwargs) -> Axes:
    before = len(plt.get_fignums())
    ax = draw(**kwargs)
    assert isinstance(ax, Axes)
    assert len(plt.get_fignums()) == before + 1
    assert _artists(ax) >= min_artists
    # on a given Axes: no new figure, and the returned Axes is the one given
    fig, given = plt.subplots()
    assert draw(ax=given, **kwargs) is given
    assert plt.get_fignums()[-1] == fig.number and len(plt.get_fignums()) == before + 2
    return ax


# ----------------------------------------------------------------------------- curves


def test_calibration_curve(sample):
    s, y, _ = sample
    curve = locacal.calibration_curve(s, y)
    html = _check_html(curve, figure=True)
    assert "CalibrationCurve" in html and "estimate" in html
    ax = _check_plot(curve.plot, min_artists=3)  # diagonal, curve, band
    assert any(isinstance(c, PolyCollection) for c in ax.collections)  # the band
    assert list(curve.to_frame().columns) == ["score", "estimate", "lower", "upper", "count",
                                              "in_range", "method"]
    # curves overlaid by successive calls take the Okabe-Ito colours in order
    ax = curve.plot(label="first")
    locacal.calibration_curve(s, y, method="binning").plot(ax=ax, label="second")
    assert [line.get_color() for line in ax.lines[1:]] == list(OKABE_ITO[:2])


def test_smoothing_table(sample):
    s, y, _ = sample
    table = locacal.smoothing_table(s, y, nn=[0.2, 0.4, 0.8])
    _check_html(table, figure=True)
    frame = table.to_frame()
    assert list(frame.columns[:2]) == ["nn", "df"] and {"gcv", "aic", "cv"} <= set(frame)
    frame.loc[0, "gcv"] = -1.0  # a copy
    assert table.table.loc[0, "gcv"] != -1.0
    _check_plot(table.plot, min_artists=2)


def test_curve_comparison(sample):
    s, y, p = sample
    cmp = locacal.compare_curves(s, y, {"local": "local", "bins": "binning"}, true_p=p)
    _check_html(cmp, figure=True)
    assert list(cmp.to_frame().columns) == list(locacal.curves.compare.COLUMNS)
    ax = _check_plot(cmp.plot, min_artists=3)
    colours = [line.get_color() for line in ax.lines if not line.get_label().startswith("_")]
    assert colours == list(OKABE_ITO[:2])


# ---------------------------------------------------------------------------- metrics


def test_brier_decomposition(sample):
    s, y, _ = sample
    dec = locacal.brier_decomposition(s, y)
    _check_html(dec, figure=False)
    frame = dec.to_frame()
    assert list(frame.columns) == ["brier", "calibration", "refinement", "within_bin",
                                   "calib_err"]
    row = frame.iloc[0]
    assert row["brier"] == pytest.approx(row["calibration"] + row["refinement"]
                                         + row["within_bin"])
    ax = _check_plot(dec.plot, min_artists=4)
    widths = sorted(round(b.get_width(), 12) for b in ax.patches)
    assert widths == sorted(round(v, 12) for v in (dec.brier, dec.calibration,
                                                   dec.refinement, dec.within_bin))


def test_calib_mse_interval(sample):
    s, y, _ = sample
    res = locacal.calib_mse_interval(s, y)
    _check_html(res, figure=False)
    frame = res.to_frame()
    assert list(frame.columns) == ["estimate", "mean", "se", "lower", "upper", "method"]
    assert frame.iloc[0]["lower"] == res.lower
    _check_plot(res.plot, min_artists=2)


def test_calibration_test(sample):
    s, y, _ = sample
    res = locacal.calibration_test(s, y, statistic="ece", n_resamples=99, seed=1)
    _check_html(res, figure=True)
    frame = res.to_frame()
    assert list(frame.columns) == ["statistic", "pvalue", "method", "n", "resamples"]
    assert frame.iloc[0]["resamples"] == 99
    _check_plot(res.plot, min_artists=2)
    asym = locacal.calibration_test(s, y, statistic="spiegelhalter", method="asymptotic")
    _check_html(asym, figure=False)
    assert asym.to_frame().iloc[0]["resamples"] == 0


def test_clinical_results(sample):
    s, y, _ = sample
    hl = locacal.hosmer_lemeshow(s, y)
    html = _check_html(hl, figure=True)
    assert "observed_events" in html
    assert list(hl.to_frame().columns) == ["statistic", "df", "pvalue", "pvalue_external",
                                           "groups"]
    ax = _check_plot(hl.plot, min_artists=2)
    points = ax.collections[0].get_offsets()
    t = hl.table
    np.testing.assert_allclose(points[:, 0], t["expected_events"] / t["n"])
    np.testing.assert_allclose(points[:, 1], t["observed_events"] / t["n"])
    z = locacal.spiegelhalter_z(s, y)
    _check_html(z, figure=False)
    assert list(z.to_frame().columns) == ["statistic", "pvalue"]


# -------------------------------------------------------------------- recalibration


def test_recalibration_result(recal):
    _check_html(recal, figure=True)
    assert list(recal.to_frame().columns[:2]) == ["method", "split"]
    ax = _check_plot(recal.plot_maps, min_artists=3)
    assert len(ax.get_legend().get_texts()) == 2
    before = len(plt.get_fignums())
    axes = recal.plot(split="calibration")
    assert len(axes) == 2 and all(isinstance(a, Axes) for a in axes)
    assert len(plt.get_fignums()) == before + 1
    # uncalibrated and the two methods on the right (the true probabilities are not a curve)
    assert [t.get_text() for t in axes[1].get_legend().get_texts()] == [
        "uncalibrated", "platt", "isotonic"]
    with pytest.raises(ValueError, match="two Axes"):
        recal.plot(ax=[axes[0]])


# -------------------------------------------------------------------------- studies


def test_simulation_result():
    res = locacal.run_simulation(n_samples=2, n_obs=300, alphas=(0.5, 1.0), gammas=(2.0,),
                                 n_jobs=1, progress=False, seed=3)
    _check_html(res, figure=True)
    pd.testing.assert_frame_equal(res.to_frame(), res.metrics)
    ax = _check_plot(res.plot, min_artists=1, metric="brier")
    assert len(ax.get_xticklabels()) == 3  # one box per scenario
    with pytest.raises(ValueError, match="metric"):
        res.plot(metric="nope")


def test_real_data_study(recal):
    # the study's shape (model, method, split, metrics) from a cheap recalibration
    table = pd.concat([recal.metrics.assign(model=m) for m in ("GLM", "tree")])
    study = RealDataStudy(table=table[["model", *recal.metrics.columns]],
                          recalibrations={"GLM": recal, "tree": recal}, models={}, data={})
    _check_html(study, figure=True)
    assert list(study.to_frame().columns[:3]) == ["model", "method", "split"]
    ax = _check_plot(study.plot, min_artists=2 * 4, metric="brier")
    heights = sorted(b.get_height() for b in ax.patches)
    expected = table[(table["split"] == "test")]["brier"]
    np.testing.assert_allclose(heights, sorted(expected))


def test_tree_studies():
    case = locacal.tree_case_study(n_obs=3000, methods=("platt",), seed=1)
    _check_html(case, figure=True)
    assert {"model", "method", "split", "kl"} <= set(case.to_frame().columns)
    _check_plot(case.plot, min_artists=2, metric="lcs")
    grid = locacal.tree_grid_study(data=case.data, min_leaves=(20, 200), cps=(0.01, 0.001),
                                   n_jobs=1, progress=False)
    _check_html(grid, figure=True)
    assert {"model", "split", "n_leaves", "kl"} <= set(grid.to_frame().columns)
    ax = _check_plot(grid.plot, min_artists=2)
    assert len(ax.collections[0].get_offsets()) == grid.metrics["model"].nunique()


# ------------------------------------------------------------------------- display


def test_reliability_display_from_estimator(sample):
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(2)
    X = rng.normal(size=(600, 2))
    y = np.where(rng.uniform(size=600) < 1 / (1 + np.exp(-X[:, 0])), "yes", "no")
    model = LogisticRegression().fit(X, y)
    before = len(plt.get_fignums())
    disp = locacal.ReliabilityDisplay.from_estimator(model, X, y, name="logit")
    assert len(plt.get_fignums()) == before + 1
    expected = locacal.calibration_curve(model.predict_proba(X)[:, 1], y == "yes")
    np.testing.assert_allclose(disp.curves["logit"].estimate, expected.estimate)
    assert disp.ax_ is not None and disp.hist_ax_ is not None
    assert disp.figure_ is disp.ax_.figure
    html = _check_html(disp, figure=False)  # the figure is the backend's, not repeated here
    assert "logit" in html
    assert list(disp.summary().columns) == ["n", "events", "mean_score", "event_rate",
                                            "max_gap", "method"]
    with pytest.raises(ValueError, match="pos_label"):
        locacal.ReliabilityDisplay.from_estimator(model, X, y, pos_label="maybe")
    with pytest.raises(TypeError, match="predict_proba"):
        locacal.ReliabilityDisplay.from_estimator(object(), X, y)


def test_reliability_display_several_models_plot_many(sample):
    s, y, p = sample
    disp = locacal.ReliabilityDisplay.from_predictions(pd.DataFrame({"raw": s, "true": p}), y,
                                                       plot=False)
    assert plt.get_fignums() == []
    fitted = {k: c.estimator for k, c in disp.curves.items()}
    ax = _check_plot(disp.plot, min_artists=1 + 2 + 2)  # diagonal, 2 curves, 2 bands
    assert len(ax.lines) == 3 and len(ax.collections) == 2
    curves = [line for line in ax.lines if not line.get_label().startswith("_")]
    assert [line.get_color() for line in curves] == list(OKABE_ITO[:2])
    assert [line.get_label() for line in curves] == ["raw", "true"]
    assert len(disp.hist_ax_.patches) == 2  # one step histogram per model
    ax2 = disp.plot(band=False, histogram=False)
    assert disp.hist_ax_ is None and not ax2.collections
    assert {k: c.estimator for k, c in disp.curves.items()} == fitted  # nothing refitted
    frame = disp.to_frame()
    assert list(frame.columns) == ["model", "score", "estimate", "lower", "upper", "count",
                                   "in_range", "method"]
    assert len(frame) == sum(len(c) for c in disp.curves.values())
    with pytest.raises(ValueError, match="scores\\['true'\\]"):
        locacal.ReliabilityDisplay.from_predictions({"raw": s, "true": p + 1}, y, plot=False)


def test_reliability_diagram_returns_axes(sample):
    from locacal.plotting import reliability_diagram

    s, y, _ = sample
    top, bottom = reliability_diagram(locacal.calibration_curve(s, y), s, y)
    assert isinstance(top, Axes) and top.figure is bottom.figure
    assert len(plt.get_fignums()) == 1


# -------------------------------------------------------------------------- report


def test_report_default_leaves_out_the_thresholded_ece(sample):
    s, y, p = sample
    report = locacal.calibration_report(s, y)
    assert "ece_thresholded" not in report.index
    extended = locacal.calibration_report(s, y, extra=["ece_thresholded", "kl"], true_p=p)
    assert list(extended.index) == [*REPORT_COLUMNS, "ece_thresholded", "kl"]
    assert extended["ece_thresholded"] == locacal.ece_thresholded(s, y)
    # calibrated uniform scores: the ECE is near 0, the slides' thresholded "ECE" near
    # E|acc - conf| = int_0^1/2 (1 - 2s) ds = 1/4 (a bin below 1/2 has accuracy 1 - s, above
    # it s); each bin's gap has a standard error <= sqrt(1/4/400) = 0.025, their mean over the
    # 10 bins about 0.025/sqrt(10) = 0.008: the tolerance is 5 of those
    rng = np.random.default_rng(5)
    q = rng.uniform(size=4000)
    d = rng.binomial(1, q)
    assert locacal.ece(q, d) < 0.03
    assert locacal.ece_thresholded(q, d) == pytest.approx(0.25, abs=0.04)
    for bad, match in (("ece_thresholded", "string"), (["nope"], "unknown"),
                       (["ece"], "repeats"), (["kl"], "true_p")):
        with pytest.raises((TypeError, ValueError), match=match):
            locacal.calibration_report(s, y, extra=bad)


def test_report_docs_and_explanations(sample):
    doc = locacal.calibration_report.__doc__
    for name in (*REPORT_COLUMNS, *CLINICAL_COLUMNS, "ece_thresholded"):
        assert f"``{name}``" in doc
        assert " ".join(METRICS[name].meaning.split()[:4]) in " ".join(doc.split())
    s, y, _ = sample
    one = locacal.explain_report(locacal.calibration_report(s, y))
    assert list(one.columns) == ["value", *EXPLAIN_COLUMNS]
    assert one.loc["lcs", "reference"] == METRICS["lcs"].reference
    assert one.loc["auc", "better"] == "higher" and one.loc["unc", "better"] == ""
    wide = locacal.explain_report(locacal.calibration_report({"a": s, "b": s**2}, y))
    assert list(wide.columns) == ["a", "b", *EXPLAIN_COLUMNS]
    ci = locacal.explain_report(locacal.calibration_report(s, y, ci=True, n_boot=3, seed=0))
    assert list(ci.columns) == [*CI_COLUMNS, *EXPLAIN_COLUMNS]
    with pytest.raises(TypeError, match="report"):
        locacal.explain_report([1, 2])


# ------------------------------------------------------------------ a real notebook


def test_a_notebook_shows_each_figure_once(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="nbformat (Jupyter) is not installed")
    nbclient = pytest.importorskip("nbclient", reason="nbclient (Jupyter) is not installed")
    pytest.importorskip("ipykernel", reason="ipykernel (Jupyter kernel) is not installed")
    from pathlib import Path

    root = Path(locacal.__file__).resolve().parent.parent
    cells = {
        "setup": (f"import sys; sys.path.insert(0, {str(root)!r})\n%matplotlib inline\n"
                  "import numpy as np, locacal\n"
                  "rng = np.random.default_rng(0); s = rng.uniform(size=300)\n"
                  "y = rng.binomial(1, s); curve = locacal.calibration_curve(s, y)"),
        "curve.plot()": "curve.plot()",
        "curve": "curve",
        "display": "locacal.ReliabilityDisplay.from_predictions({'a': s, 'b': s**2}, y)",
        "hl": "locacal.hosmer_lemeshow(s, y)",
        "diagram": ("from locacal.plotting import reliability_diagram\n"
                    "reliability_diagram(curve, s, y)"),
    }
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells.values()]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = {}
    for name, cell in zip(cells, nb.cells, strict=True):
        outputs = [o for o in cell.outputs if o.output_type in ("display_data",
                                                                "execute_result")]
        images = sum("image/png" in o.data for o in outputs)
        images += sum("<img" in o.data.get("text/html", "") for o in outputs)
        shown[name] = images
    assert shown == {"setup": 0, "curve.plot()": 1, "curve": 1, "display": 1, "hl": 1,
                     "diagram": 1}
