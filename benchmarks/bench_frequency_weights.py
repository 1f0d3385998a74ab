"""Frequency weights: equality with the expanded call, and memory and time against it.

Three parts, printed as tables (nothing is asserted; the seeded small version of part 1 is
``tests/test_frequency_weights.py``):

1. **Accuracy.** ``--reps`` random grouped data sets (20 to 200 rows, scores rounded to 2
   decimals so that rows tie, counts 0-30 with a 10 % share of zeros, half of the data sets
   with relative weights too): every function with ``frequency_weights=`` against the same
   call on ``np.repeat``-expanded rows. Printed per function: the largest and the median
   absolute difference over the data sets (the estimand: the expanded call's numbers).
2. **MASS::Insurance** (64 rating cells, 128 grouped rows, 23,359 policyholders; the score is
   a logistic GLM of the claim on the three rating factors fitted on the cells): peak memory
   (``tracemalloc``, the NumPy buffers included) and time of a few calls on the grouped rows
   with ``frequency_weights=`` and on the 23,359 expanded rows.
3. **Large synthetic**: ``--cells`` cells (default 10^4; two grouped rows each, claim and
   no claim) whose counts sum to ``--observations`` (default 10^7): first a tenth of that
   (10^3 cells, 10^6 observations) grouped and expanded, then the full size grouped only
   (its expanded local fit alone would need about 8 GiB; ``--expanded`` runs it anyway).

Usage: ``python benchmarks/bench_frequency_weights.py [--reps 200] [--quick]``; ``--quick``
runs 20 data sets, the insurance part, and the large part at 10^3 cells / 10^6 observations.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

import locacal

GRID = np.linspace(0.02, 0.98, 49)


def _numbers(result) -> np.ndarray:
    if isinstance(result, locacal.CalibrationCurve):
        frame = result.to_frame()
        return frame.select_dtypes("number").to_numpy(dtype=float)
    if hasattr(result, "to_frame"):
        result = result.to_frame()
    if isinstance(result, pd.Series):
        result = result.to_frame()
    if isinstance(result, pd.DataFrame):
        return result.select_dtypes("number").to_numpy(dtype=float)
    return np.atleast_1d(np.asarray(result, dtype=float))


def _fit_predict(make: Callable[[], object]) -> Callable[..., np.ndarray]:
    def call(s, y, *, weights=None, frequency_weights=None):
        fitted = make().fit(s, y, sample_weight=weights, frequency_weights=frequency_weights)
        return np.column_stack([fitted.predict(GRID), *[
            getattr(fitted.curve(GRID, band="pointwise"), a) for a in ("lower", "upper")]]
        ) if not isinstance(fitted, locacal.IsotonicCalibrator) else fitted.predict(GRID)
    return call


CALLS: dict[str, Callable[..., object]] = {
    "calibration_curve local": lambda s, y, **kw: locacal.calibration_curve(s, y, grid=GRID,
                                                                            **kw),
    "local degree 0 rect nn=0.3": _fit_predict(
        lambda: locacal.LocalRegressionCalibrator(degree=0, kernel="rect", nn=0.3)),
    "local degree 2 tricube": _fit_predict(
        lambda: locacal.LocalRegressionCalibrator(degree=2)),
    "binning quantile": _fit_predict(locacal.BinningCalibrator),
    "binning adaptive": _fit_predict(
        lambda: locacal.BinningCalibrator(strategy="adaptive")),
    "platt": _fit_predict(locacal.PlattCalibrator),
    "beta": _fit_predict(locacal.BetaCalibrator),
    "isotonic (map)": _fit_predict(locacal.IsotonicCalibrator),
    "lowess": _fit_predict(lambda: locacal.LowessCalibrator(frac=0.3)),
    "kernel": _fit_predict(locacal.KernelCalibrator),
    "brier_score": locacal.brier_score,
    "log_loss": locacal.log_loss,
    "auc": locacal.auc,
    "lcs": locacal.lcs,
    "ece": locacal.ece,
    "calib_mse_interval": locacal.calib_mse_interval,
    "corp_decomposition": locacal.corp_decomposition,
    "wmse": locacal.wmse,
    "calibration_errors (loess)": lambda s, y, **kw: locacal.calibration_errors(
        s, y, smoother="loess", **kw),
    "calibration_errors (R's lowess)": locacal.calibration_errors,
    # without cv: where a window holds one observation (L = 1, zero residual) both routes
    # give rounding noise 0/0 (or inf) there (guide page, "Span selection")
    "smoothing_table (no cv)": lambda s, y, weights=None, **kw: locacal.smoothing_table(
        s, y, weights=weights, nn=[0.1, 0.2, 0.4, 0.7, 1.0], **kw).table.drop(columns="cv"),
    "local nn='gcv'": _fit_predict(lambda: locacal.LocalRegressionCalibrator(nn="gcv")),
    "local binomial": _fit_predict(
        lambda: locacal.LocalRegressionCalibrator(family="binomial", nn=0.3)),
    "compare_curves": lambda s, y, **kw: locacal.compare_curves(
        s, y, {"local": "local", "platt": "platt", "binning": "binning"}, **kw).table[
        ["df", "cv_brier", "lcs", "ece"]],
    "calibration_intercept_slope": locacal.calibration_intercept_slope,
    "hosmer_lemeshow": locacal.hosmer_lemeshow,
    "spiegelhalter_z": locacal.spiegelhalter_z,
    "calibration_report": lambda s, y, **kw: locacal.calibration_report(s, y, clinical=True,
                                                                        **kw),
}


def _random_grouped(rng: np.random.Generator, relative: bool):
    n = int(rng.integers(20, 201))
    s = np.round(rng.beta(2.0, 3.0, n), 2)
    y = (rng.uniform(size=n) < s ** 1.2).astype(float)
    f = rng.integers(1, 31, n).astype(float)
    f[rng.uniform(size=n) < 0.1] = 0.0
    w = np.round(rng.gamma(2.0, 1.0, n), 2) + 0.01 if relative else None
    rep = f.astype(int)
    return (s, y, w, f), (np.repeat(s, rep), np.repeat(y, rep),
                          None if w is None else np.repeat(w, rep))


def accuracy(reps: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    diffs: dict[str, list[float]] = {name: [] for name in CALLS}
    for r in range(reps):
        (s, y, w, f), (S, Y, W) = _random_grouped(rng, relative=r % 2 == 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, call in CALLS.items():
                a = _numbers(call(s, y, weights=w, frequency_weights=f))
                b = _numbers(call(S, Y, weights=W))
                # NaN in the grouped report: the metrics refused with counts (NOT_WITH_COUNTS)
                both = ~np.isnan(a)
                gap = np.where(a[both] == b[both], 0.0, np.abs(a[both] - b[both]))  # inf = inf
                diffs[name].append(float(np.max(gap, initial=0.0)))
    return pd.DataFrame({"max |grouped - expanded|": {k: max(v) for k, v in diffs.items()},
                         "median": {k: float(np.median(v)) for k, v in diffs.items()}})


def _measure(call: Callable[[], object]) -> tuple[float, float]:
    """(peak MiB above the start, seconds) of one call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        tracemalloc.reset_peak()
        start = time.perf_counter()
        call()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 2**20, seconds


def _memory_table(grouped, expanded, calls) -> pd.DataFrame:
    rows = {}
    for name, call in calls.items():
        gm, gt = _measure(lambda call=call: call(*grouped))
        row = {"grouped MiB": gm, "grouped s": gt}
        if expanded is not None:
            em, et = _measure(lambda call=call: call(*expanded))
            row.update({"expanded MiB": em, "expanded s": et, "memory ratio": em / gm})
        rows[name] = row
    return pd.DataFrame(rows).T


MEMORY_CALLS = {
    "calibration_curve (local)": lambda s, y, f=None: locacal.calibration_curve(
        s, y, frequency_weights=f),
    "LocalRegressionCalibrator fit+predict": lambda s, y, f=None:
        locacal.LocalRegressionCalibrator().fit(s, y, frequency_weights=f).predict(GRID),
    "calibration_intercept_slope": lambda s, y, f=None: locacal.calibration_intercept_slope(
        s, y, frequency_weights=f),
    "calib_mse_interval": lambda s, y, f=None: locacal.calib_mse_interval(
        s, y, frequency_weights=f),
    "calibration_report": lambda s, y, f=None: locacal.calibration_report(
        s, y, frequency_weights=f),
}


def insurance() -> pd.DataFrame:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder

    path = Path(__file__).resolve().parents[1] / "vignettes" / "data" / "insurance.csv"
    cells = pd.read_csv(path, dtype={"District": str})
    factors = ["District", "Group", "Age"]
    grouped = pd.concat([cells.assign(claim=1, count=cells["Claims"]),
                         cells.assign(claim=0, count=cells["Holders"] - cells["Claims"])],
                        ignore_index=True)
    x = OneHotEncoder(drop="first").fit_transform(grouped[factors])
    glm = LogisticRegression(C=np.inf, max_iter=1000).fit(
        x, grouped["claim"], sample_weight=grouped["count"])
    s = glm.predict_proba(x)[:, 1]
    y, f = grouped["claim"].to_numpy(float), grouped["count"].to_numpy(float)
    rep = f.astype(int)
    return _memory_table((s, y, f), (np.repeat(s, rep), np.repeat(y, rep)), MEMORY_CALLS)


def large(cells: int, observations: int, expanded: bool, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2.0, 5.0, cells), 4)
    f = rng.multinomial(observations, rng.dirichlet(np.full(cells, 2.0))).astype(float)
    events = rng.binomial(f.astype(np.int64), np.clip(s * 1.1, 0, 1)).astype(float)
    scores = np.concatenate([s, s])
    labels = np.concatenate([np.ones(cells), np.zeros(cells)])
    counts = np.concatenate([events, f - events])
    full = None
    if expanded:
        rep = counts.astype(np.int64)
        full = (np.repeat(scores, rep), np.repeat(labels, rep))
    return _memory_table((scores, labels, counts), full, MEMORY_CALLS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cells", type=int, default=10_000)
    parser.add_argument("--observations", type=int, default=10_000_000)
    parser.add_argument("--expanded", action="store_true",
                        help="large part at full size: the expanded calls too")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    reps, cells, obs = args.reps, args.cells, args.observations
    if args.quick:
        reps, cells, obs = 20, 1_000, 1_000_000
        args.expanded = True
    pd.set_option("display.width", 120)
    start = time.perf_counter()
    print(f"1. Accuracy: {reps} random grouped data sets (half with relative weights)")
    print(accuracy(reps, args.seed).to_string(float_format=lambda v: f"{v:.2e}"))
    print("\n2. MASS::Insurance: 128 grouped rows (64 cells) vs 23,359 expanded rows")
    print(insurance().to_string(float_format=lambda v: f"{v:.3g}"))
    sizes = [(cells // 10, obs // 10, True), (cells, obs, args.expanded)]
    for n_cells, n_obs, expanded in sizes[1:] if args.quick else sizes:
        print(f"\n3. Large synthetic: {2 * n_cells} grouped rows ({n_cells} cells x claim), "
              f"{n_obs} observations" + ("" if expanded else ", grouped calls only"))
        print(large(n_cells, n_obs, expanded, args.seed).to_string(
            float_format=lambda v: f"{v:.3g}"))
    print(f"\n(total {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
