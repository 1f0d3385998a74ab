"""Coverage of the report's noise-norm intervals of the calibration errors.

Seeded simulation of the intervals ``calibration_report(ci=True)`` gives the calibration
errors of :data:`locacal.report.intervals.NORM_METRICS` (calib_mse, calib_err, QMSE, ECE,
LCS, WMSE, smooth ECE, CORP mcb, ICI) (:func:`locacal.report.intervals.norm_bounds`, the inversion
of the consistency-resampling calibration test: ``[max(0, M^(1/r) - q)^r, (M^(1/r) + q)^r]``
with q the ``level`` quantile of the metric's null values^(1/r)).

DGPs (``locacal.simulate.logistic_dgp``): ``g1`` gamma = 1 (calibrated, population value 0
for the ECE, mcb and ICI, the calibrated smoothing bias for the LCS/WMSE/smooth ECE),
``g1.25`` and ``g3`` (over-confident), ``a1.2`` alpha = 1.2 (scores pushed down), ``g0.8``
(under-confident). For each, ``--reps`` samples of n rows; on each, the metrics and
``--n-boot`` null label draws D* ~ Bernoulli(s) (the report's own
:func:`~locacal.report.intervals.null_values`), the interval at ``--level``.

Population values (limit as n -> infinity at each metric's fixed settings), from ``--big``
rows: the ECE and QMSE on the deciles of s from the bin means of p - s (E[D | s] = p, s
increasing in p), mcb = calib_mse = E[(p - s)^2] (the isotonic recalibration of s is p;
calib_mse's bins of sqrt(n) rows shrink), calib_err its square root; the LCS, WMSE, smooth ECE
and ICI (no closed form: window, kernel and lowess smoothing at fixed span) as the metric
on two independent big samples, averaged (their difference is printed).

Printed per DGP and metric: population value, mean estimate, coverage with its Monte Carlo
s.e. sqrt(c (1 - c) / R), mean width. Nothing is asserted.

Usage: ``nice python benchmarks/coverage_calibration_bounds.py [--n 2000] [--reps 100]
[--n-boot 100] [--dgps g1 g1.25 g3 a1.2 g0.8] [--big 1000000] [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from locacal._validation import CalibrationWarning
from locacal.metrics.registry import evaluate
from locacal.report.intervals import norm_bounds, null_values
from locacal.simulate import logistic_dgp

METRICS = ("calib_mse", "calib_err", "qmse", "ece", "lcs", "wmse", "smece", "mcb", "ici")
NO_CLOSED_FORM = ("lcs", "wmse", "smece", "ici")
DGPS = {"g1": {"gamma": 1.0}, "g1.25": {"gamma": 1.25}, "g3": {"gamma": 3.0},
        "a1.2": {"alpha": 1.2}, "g0.8": {"gamma": 0.8}}


def data(n: int, dgp: str, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = logistic_dgp(n, seed=seed, **DGPS[dgp])
    return d["score"].to_numpy(), d["label"].to_numpy(), d["true_p"].to_numpy()


def population(metrics: tuple[str, ...], dgp: str, big: int, seed: int
               ) -> tuple[dict[str, float], dict[str, float]]:
    s, y, p = data(big, dgp, seed)
    chunks = np.array_split(np.argsort(s), 10)
    gaps = np.array([np.mean(p[c] - s[c]) for c in chunks])
    shares = np.array([c.size for c in chunks]) / big
    gap2 = float(np.mean((p - s) ** 2))
    values = {"ece": float(shares @ np.abs(gaps)), "qmse": float(shares @ gaps**2),
              "mcb": gap2, "calib_mse": gap2, "calib_err": np.sqrt(gap2)}
    wanted = [m for m in NO_CLOSED_FORM if m in metrics]
    spread = {}
    if wanted:
        first = evaluate(wanted, s, y)
        second = evaluate(wanted, *data(big, dgp, seed + 1)[:2])
        for m in wanted:
            values[m] = (first[m] + second[m]) / 2
            spread[m] = abs(first[m] - second[m])
    return {m: values[m] for m in metrics}, spread


def one_replicate(metrics: tuple[str, ...], n: int, dgp: str, n_boot: int, level: float,
                  seed: np.random.SeedSequence, truth: np.ndarray) -> list[dict]:
    data_seed, null_seed = seed.spawn(2)
    s, y, _ = data(n, dgp, data_seed)
    row = evaluate(metrics, s, y)
    values = np.array([row[m] for m in metrics])
    null = null_values(metrics, s, weights=None, threshold=0.5, n_draws=n_boot,
                       rng=np.random.default_rng(null_seed), tick=lambda: None)
    lower, upper = norm_bounds(metrics, values, null, level)
    return [{"metric": m, "covers": lower[j] <= truth[j] <= upper[j], "value": values[j],
             "width": upper[j] - lower[j], "lower0": lower[j] == 0.0}
            for j, m in enumerate(metrics)]


def summary(metrics: tuple[str, ...], rows: list[dict], truth: dict[str, float]
            ) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    g = frame.groupby("metric")
    out = pd.DataFrame({"truth": pd.Series(truth), "mean_value": g["value"].mean(),
                        "coverage": g["covers"].mean(), "width": g["width"].mean(),
                        "lower_is_0": g["lower0"].mean()})
    reps = g.size()
    out.insert(3, "mc_se", np.sqrt(out["coverage"] * (1 - out["coverage"]) / reps))
    return out.reindex(list(metrics))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[2000])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--dgps", nargs="*", default=list(DGPS))
    parser.add_argument("--metrics", nargs="*", default=list(METRICS))
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true",
                        help="n = 500, 20 replicates, 50 null draws, big = 200000")
    args = parser.parse_args()
    if args.quick:
        args.n, args.reps, args.n_boot, args.big = [500], 20, 50, 200_000
    metrics = tuple(args.metrics)
    warnings.simplefilter("ignore", CalibrationWarning)
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", "{:.4g}".format)
    for k, dgp in enumerate(args.dgps):
        truth, spread = population(metrics, dgp, args.big, args.seed + 10 * k)
        truth_array = np.array([truth[m] for m in metrics])
        for n in args.n:
            start = time.perf_counter()
            rows = []
            children = np.random.SeedSequence([args.seed, k, n]).spawn(args.reps)
            for i, child in enumerate(children):
                rows += one_replicate(metrics, n, dgp, args.n_boot, args.level, child,
                                      truth_array)
                if (i + 1) % 20 == 0:
                    print(f"  {dgp} n={n}: {i + 1} replicates, "
                          f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            print(f"\n{dgp} ({DGPS[dgp]}), n = {n}, reps = {args.reps}, null draws = "
                  f"{args.n_boot}, level {args.level}; population from {args.big:,} rows, "
                  "|difference| of two big samples: "
                  + ", ".join(f"{m} {v:.2g}" for m, v in spread.items()), flush=True)
            print(summary(metrics, rows, truth).to_string(), flush=True)
            print(f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
