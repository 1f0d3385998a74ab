"""compare_curves: fixed columns, values against direct computation, input errors."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

import locacal
from locacal.curves import PlattCalibrator, compare_curves
from locacal.curves.compare import COLUMNS
from locacal.simulate import logistic_dgp


@pytest.fixture(scope="module")
def sample():
    df = logistic_dgp(400, gamma=1.5, seed=3)
    return df.score.to_numpy(), df.label.to_numpy(), df.true_p.to_numpy()


def test_columns_and_direct_values(sample):
    s, d, p = sample
    specs = {"deg0": {"method": "local", "degree": 0, "kernel": "rect", "nn": 0.15},
             "platt": "platt",
             "mine": PlattCalibrator(logit=True), "bins": {"method": "binning", "bins": 8}}
    cmp = compare_curves(s, d, specs, true_p=p)
    assert tuple(cmp.table.columns) == COLUMNS
    assert list(cmp.table.label) == list(specs)
    row = cmp.table.set_index("label")
    # LCS column of the slides' local spec (degree 0, rect, nn 0.15) is locacal.lcs
    assert row.loc["deg0", "lcs"] == pytest.approx(locacal.lcs(s, d), rel=1e-12)
    # degree 0, rectangular kernel, no ties: L_ii = 1 / (window size) = 1 / floor(n nn)
    assert row.loc["deg0", "df"] == pytest.approx(400 / 60, rel=1e-12)
    assert row.loc["platt", "df"] == 2.0
    assert row.loc["bins", "df"] == 8.0
    g = cmp.curves["platt"].estimator.predict(s)
    assert row.loc["platt", "ece"] == pytest.approx(np.mean(np.abs(g - s)), rel=1e-12)
    assert row.loc["platt", "ise"] == pytest.approx(np.mean((g - p) ** 2), rel=1e-12)


def test_cv_brier_by_hand():
    s = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    d = np.array([0, 1, 0, 1, 0, 1])
    cmp = compare_curves(s, d, {"iso": "isotonic", "bins": {"method": "binning", "bins": 2}},
                         folds=3, seed=0)
    from sklearn.model_selection import KFold

    pred = np.empty(6)
    for train, test in KFold(3, shuffle=True, random_state=0).split(s):
        # binning with 2 quantile bins on 4 training points: two bins of two
        st, dt = s[train], d[train]
        lo_mean, hi_mean = dt[:2].mean(), dt[2:].mean()
        pred[test] = np.where(s[test] <= st[1], lo_mean, hi_mean)
    expected = np.mean((pred - d) ** 2)
    assert cmp.table.set_index("label").loc["bins", "cv_brier"] == pytest.approx(expected)


def test_ise_of_a_constant_curve():
    # a binning curve with one bin is the constant mean label c: ISE = mean (c - p)^2
    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    p = s
    d = (rng.uniform(size=300) < p).astype(int)
    cmp = compare_curves(s, d, {"one": {"method": "binning", "bins": 1}}, true_p=p)
    c = d.mean()
    assert cmp.table.ise[0] == pytest.approx(np.mean((c - p) ** 2), rel=1e-12)


def test_plot_and_html(sample):
    import matplotlib

    matplotlib.use("Agg")
    s, d, _ = sample
    cmp = compare_curves(s, d, {"a": "platt", "b": "local"})
    ax = cmp.plot()
    assert len(ax.figure.axes) == 2
    assert {"a", "b"} <= {t.get_text() for t in ax.get_legend().get_texts()}
    assert "CurveComparison" in cmp._repr_html_()


def test_kernel_df_is_nan_with_a_warning(sample):
    s, d, _ = sample
    with pytest.warns(locacal.CalibrationWarning, match="df is NaN"):
        cmp = compare_curves(s, d, {"k": "kernel"})
    assert np.isnan(cmp.table.df[0])


def test_input_errors(sample):
    s, d, p = sample
    with pytest.raises(TypeError, match="specs"):
        compare_curves(s, d, {})
    with pytest.raises(TypeError, match="specs"):
        compare_curves(s, d, {"x": 3})
    with pytest.raises(ValueError, match="method"):
        compare_curves(s, d, {"x": {"degree": 0}})
    with pytest.raises(ValueError, match="method"):
        compare_curves(s, d, {"x": "nope"})
    with pytest.raises(TypeError, match="no option"):
        compare_curves(s, d, {"x": {"method": "platt", "nn": 0.1}})
    with pytest.raises(ValueError, match="true_p"):
        compare_curves(s, d, {"x": "platt"}, true_p=p[:-1])
    with pytest.raises(ValueError, match="folds"):
        compare_curves(s, d, {"x": "platt"}, folds=1)
    with pytest.raises(ValueError, match="scores"):
        compare_curves(np.r_[s[:-1], 1.5], d, {"x": "platt"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_curves(s, d, {"x": "platt"})


@pytest.mark.parametrize("spec", [{"method": "local"},
                                  {"method": "local", "degree": 2, "nn": 0.3},
                                  {"method": "lowess", "frac": 0.3}])
def test_df_is_the_trace_of_the_hat_matrix(sample, spec):
    """df = sum_i L_ii, with L built column by column: the fit at the data of the labels e_j
    (the curve is linear in the labels), independently of the influence computation."""
    s, d, _ = sample
    s, d = s[:150], d[:150]
    cmp = compare_curves(s, d, {"x": spec})
    estimator = cmp.curves["x"].estimator
    hat_diagonal = [clone(estimator).fit(s, np.eye(s.size)[j]).predict(s[j:j + 1])[0]
                    for j in range(s.size)]
    assert cmp.table.df[0] == pytest.approx(np.sum(hat_diagonal), rel=1e-9)


def test_df_of_a_large_local_fit_is_computed():
    big = logistic_dgp(200_000, gamma=1.5, seed=4)
    cmp = compare_curves(big.score, big.label, {"local": "local"}, seed=0)
    # a degree-1 fit with nn = 0.15 has roughly 2 / 0.15 degrees of freedom (Loader 1999, 2.3)
    assert 5.0 < cmp.table.df[0] < 30.0
