"""Coverage of ``calibration_report(ci=True)``'s bootstrap intervals, per metric.

Seeded simulation. For each distortion gamma of ``locacal.simulate.logistic_dgp`` (1:
calibrated scores; 1.5 and 3: over-confident), ``--reps`` samples of ``--n`` rows are drawn;
on each, the report's metrics and ``--n-boot`` bootstrap replicates
(:func:`locacal.report.intervals.bootstrap_replicates`, the report's own resampling)
are computed once, and three intervals are formed from the same replicates at levels 0.90
and 0.95:

* ``report``: what the report returns (:func:`~locacal.report.intervals.interval_bounds`:
  basic interval clipped at 0 for the calibration errors, percentile for the others);
* ``pct``: the percentile interval [q_lo, q_hi] (Efron & Tibshirani 1993, §13.3);
* ``bc``: the bias-corrected percentile interval (BC, Efron 1987, JASA 82, acceleration 0),
  levels Phi(2 z0 +- z) with z0 = Phi^{-1}(share of replicates below the value, ties
  counted half, kept within [1/(2B), 1 - 1/(2B)]).

The population value (the metric's limit as n -> infinity for its fixed settings) is taken
from a sample of ``--big`` rows: in closed form from the true probabilities p (the score s is
increasing in p, so E[D | s] = p): calib_mse = mcb = true_mse = E[(p - s)^2], calib_err its
square root, refinement = E[p (1 - p)], ECE and QMSE on the deciles of s from the bin means
of p - s, Brier = E[(s - p)^2 + p (1 - p)], log loss, AUC (Mann-Whitney with weights p and
1 - p), accuracy, sensitivity, specificity, unc = m (1 - m) with m = E[p], dsc = unc -
E[p (1 - p)]; LCS, WMSE and smooth ECE (no closed form) as the metric on two independent
big samples, averaged (their difference is printed). Spiegelhalter's z has no population
value (it grows like sqrt(n) unless the model is calibrated) and is left out, as is n.

Printed per gamma and metric: coverage of the population value and the share of intervals
holding the point value, for each interval and level; the Monte Carlo s.e. of a coverage c
over R replicates is sqrt(c (1 - c) / R) (0.021 at c = 0.9, R = 200). Nothing is asserted.

Usage: ``nice python benchmarks/coverage_report_ci.py [--gammas 1 1.5 3] [--n 2000]
[--reps 200] [--n-boot 200] [--big 2000000] [--metrics ...] [--out results.csv]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm

from locacal._validation import CalibrationWarning
from locacal.metrics.registry import evaluate
from locacal.report.intervals import bootstrap_replicates, interval_bounds
from locacal.report.table import REPORT_COLUMNS
from locacal.simulate import logistic_dgp

ALL_METRICS = tuple(m for m in REPORT_COLUMNS if m not in ("n", "spiegelhalter_z"))
LEVELS = (0.90, 0.95)
NO_CLOSED_FORM = ("lcs", "wmse", "smece")


def _data(n: int, gamma: float, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = logistic_dgp(n, gamma=gamma, seed=seed)
    return d["score"].to_numpy(), d["label"].to_numpy(), d["true_p"].to_numpy()


def _auc(s: np.ndarray, p: np.ndarray) -> float:
    order = np.argsort(s)
    pos, neg = p[order], 1.0 - p[order]
    below = np.cumsum(neg) - neg  # weight of negatives with a smaller score
    return float((pos * below).sum() / (pos.sum() * neg.sum() - (pos * neg).sum()))


def population(metrics: tuple[str, ...], gamma: float, big: int, seed: int
               ) -> tuple[dict[str, float], dict[str, float]]:
    """Population values of the metrics, and the spread of the big-sample ones."""
    s, y, p = _data(big, gamma, seed)
    gap2 = float(np.mean((p - s) ** 2))
    chunks = np.array_split(np.argsort(s), 10)
    bin_gaps = np.array([np.mean(p[c] - s[c]) for c in chunks])
    shares = np.array([c.size for c in chunks]) / big
    m = float(p.mean())
    within = float(np.mean(p * (1 - p)))
    high = s >= 0.5
    values = {
        "true_mse": gap2, "calib_mse": gap2, "calib_err": np.sqrt(gap2), "mcb": gap2,
        "brier": gap2 + within, "refinement": within,
        "ece": float(shares @ np.abs(bin_gaps)), "qmse": float(shares @ bin_gaps ** 2),
        "accuracy": float(np.mean(np.where(high, p, 1 - p))),
        "sensitivity": float(np.sum(p[high]) / np.sum(p)),
        "specificity": float(np.sum(1 - p[~high]) / np.sum(1 - p)),
        "auc": _auc(s, p),
        "log_loss": float(np.mean(-p * np.log(s) - (1 - p) * np.log1p(-s))),
        "unc": m * (1 - m), "dsc": m * (1 - m) - within,
    }
    wanted = [m for m in NO_CLOSED_FORM if m in metrics]
    spread = {}
    if wanted:
        first = evaluate(wanted, s, y)
        second = evaluate(wanted, *_data(big, gamma, seed + 1)[:2])
        for name in wanted:
            values[name] = (first[name] + second[name]) / 2
            spread[name] = abs(first[name] - second[name])
    return {k: values[k] for k in metrics}, spread


def bc_bounds(values: np.ndarray, replicates: np.ndarray, level: float
              ) -> tuple[np.ndarray, np.ndarray]:
    lower, upper = np.full(values.size, np.nan), np.full(values.size, np.nan)
    z = norm.ppf((1 + level) / 2)
    for j in range(values.size):
        r = replicates[:, j][np.isfinite(replicates[:, j])]
        if r.size == 0:
            continue
        share = (np.sum(r < values[j]) + 0.5 * np.sum(r == values[j])) / r.size
        z0 = norm.ppf(np.clip(share, 0.5 / r.size, 1 - 0.5 / r.size))
        lower[j], upper[j] = np.quantile(r, norm.cdf([2 * z0 - z, 2 * z0 + z]))
    return lower, upper


def pct_bounds(replicates: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return tuple(np.nanquantile(replicates, [alpha, 1 - alpha], axis=0))


def one_replicate(metrics: tuple[str, ...], n: int, gamma: float, n_boot: int,
                  seed: np.random.SeedSequence, truth: np.ndarray) -> list[dict]:
    data_seed, boot_seed = seed.spawn(2)
    s, y, p = _data(n, gamma, data_seed)
    value = evaluate(metrics, s, y, true_p=p)
    values = np.array([value[m] for m in metrics])
    reps = bootstrap_replicates(metrics, s, y, weights=None, true_p=p, threshold=0.5,
                                n_boot=n_boot, rng=np.random.default_rng(boot_seed),
                                tick=lambda: None)
    rows = []
    for level in LEVELS:
        for method, (lo, hi) in {
            "report": interval_bounds(metrics, values, reps, level),
            "pct": pct_bounds(reps, level),
            "bc": bc_bounds(values, reps, level),
        }.items():
            for j, name in enumerate(metrics):
                rows.append({"metric": name, "level": level, "method": method,
                             "covers": lo[j] <= truth[j] <= hi[j],
                             "holds_value": lo[j] <= values[j] <= hi[j],
                             "width": hi[j] - lo[j], "value": values[j]})
    return rows


def table(metrics: tuple[str, ...], rows: list[dict], truth: dict[str, float]
          ) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    wide = frame.pivot_table(index="metric", columns=["method", "level"],
                             values=["covers", "holds_value"], aggfunc="mean")
    wide.columns = [f"{'cov' if v == 'covers' else 'hold'}_{m}_{lv:.2f}"
                    for v, m, lv in wide.columns]
    order = [f"cov_{m}_{lv:.2f}" for lv in LEVELS for m in ("report", "pct", "bc")]
    order += [f"hold_{m}_0.95" for m in ("report", "pct", "bc")]
    wide = wide[order].reindex(list(metrics))
    wide.insert(0, "truth", pd.Series(truth))
    wide.insert(1, "mean_value", frame.groupby("metric")["value"].mean())
    return wide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gammas", type=float, nargs="*", default=[1.0, 1.5, 3.0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--big", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--metrics", nargs="*", default=list(ALL_METRICS),
                        help="report metrics to follow (default: all but n and z)")
    parser.add_argument("--out", default=None, help="CSV of every interval (optional)")
    args = parser.parse_args()
    metrics = tuple(args.metrics)
    unknown = set(metrics) - set(ALL_METRICS)
    if unknown:
        parser.error(f"--metrics: unknown or without population value: {sorted(unknown)}")
    warnings.simplefilter("ignore", CalibrationWarning)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.float_format", "{:.4g}".format)
    all_rows = []
    for k, gamma in enumerate(args.gammas):
        start = time.perf_counter()
        truth, spread = population(metrics, gamma, args.big, args.seed + 10 * k)
        print(f"\ngamma = {gamma}, n = {args.n}, reps = {args.reps}, n_boot = {args.n_boot}; "
              f"population from {args.big:,} rows; |difference| of the two big samples: "
              + ", ".join(f"{m} {v:.2g}" for m, v in spread.items()), flush=True)
        truth_array = np.array([truth[m] for m in metrics])
        rows = []
        for i, child in enumerate(np.random.SeedSequence([args.seed, k]).spawn(args.reps)):
            rows += one_replicate(metrics, args.n, gamma, args.n_boot, child, truth_array)
            if (i + 1) % 10 == 0:
                print(f"  {i + 1} replicates, {time.perf_counter() - start:.0f} s",
                      file=sys.stderr, flush=True)
        for r in rows:
            r["gamma"] = gamma
        all_rows += rows
        print(table(metrics, rows, truth).to_string(), flush=True)
        print(f"({time.perf_counter() - start:.0f} s)", flush=True)
        if args.out:
            pd.DataFrame(all_rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
