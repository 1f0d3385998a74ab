"""Size and power of ``calibration_test`` for every statistic, and the cost of its resampling.

1. Size and power: for n in (500, 2000) and gamma in (1, 1.25), ``--reps`` samples of
   ``locacal.simulate.logistic_dgp(n, gamma=gamma)`` (gamma = 1: calibrated scores, so the
   rejection rate is the size; gamma = 1.25: over-confident scores, so it is the power), each
   tested with ``--resamples`` consistency resamples at level 0.05 (rows ``hl-asy`` and
   ``spiegelhalter-asy``: the asymptotic chi-square on G / normal test instead). Prints the
   rejection rate and its Monte Carlo standard error sqrt(r (1 - r) / reps).
2. Cost: seconds for 999 resamples at n = 1e5 with the batched evaluation, next to the
   scalar metric called once per resample (measured on ``--loop`` resamples, then scaled to
   999), in the same run.

Nothing is asserted: this prints tables.

Usage: ``python benchmarks/bench_calibration_test.py [--reps 1000] [--resamples 199]``
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from locacal import metrics
from locacal._validation import CalibrationWarning
from locacal.simulate import logistic_dgp

LEVEL = 0.05
SCALAR = {
    "lcs": metrics.lcs,
    "ece": metrics.ece,
    "brier": metrics.qmse,
    "mcb": lambda s, y: float(metrics.corp_decomposition(s, y)["mcb"]),
    "hl": lambda s, y: metrics.hosmer_lemeshow(s, y).statistic,
    "spiegelhalter": lambda s, y: abs(metrics.spiegelhalter_z(s, y).statistic),
}
#: Statistics that also have an asymptotic test, shown as "<name>-asy" rows.
ASYMPTOTIC = ("hl", "spiegelhalter")


def rejection_rate(statistic: str, n: int, gamma: float, reps: int, resamples: int,
                   seed: int, method: str = "resampling") -> float:
    children = np.random.SeedSequence(seed).spawn(reps)
    rejected = 0
    for child in children:
        data_seed, test_seed = child.spawn(2)
        d = logistic_dgp(n, gamma=gamma, seed=data_seed)
        res = metrics.calibration_test(d["score"], d["label"], statistic=statistic,
                                       n_resamples=resamples, seed=test_seed,
                                       method=method)
        rejected += res.pvalue <= LEVEL
    return rejected / reps


def size_power_table(reps: int, resamples: int) -> None:
    print(f"Rejection rate at level {LEVEL} ({reps} samples, {resamples} resamples each; "
          "MC s.e. in brackets)")
    cells = [(n, g) for n in (500, 2000) for g in (1.0, 1.25)]
    header = "statistic         " + "".join(f"  n={n:<5d} gamma={g:<4g}  " for n, g in cells)
    print(header)
    rows = [(s, "resampling") for s in SCALAR] + [(s, "asymptotic") for s in ASYMPTOTIC]
    for statistic, method in rows:
        label = statistic if method == "resampling" else f"{statistic}-asy"
        row = f"{label:<17s} "
        for i, (n, g) in enumerate(cells):
            start = time.perf_counter()
            r = rejection_rate(statistic, n, g, reps, resamples, seed=1000 + i, method=method)
            se = np.sqrt(r * (1 - r) / reps)
            row += f"  {r:.3f} [{se:.3f}] {time.perf_counter() - start:5.0f}s"
        print(row, flush=True)


def timing_table(loop: int) -> None:
    n, resamples = 100_000, 999
    d = logistic_dgp(n, gamma=1.0, seed=7)
    s, y = d["score"].to_numpy(), d["label"].to_numpy()
    print(f"\nSeconds for {resamples} resamples at n = {n:,}")
    print("statistic  batched  scalar-loop (x999, from "
          f"{loop} measured)  ratio")
    for statistic, scalar in SCALAR.items():
        start = time.perf_counter()
        metrics.calibration_test(s, y, statistic=statistic, n_resamples=resamples, seed=1)
        batched = time.perf_counter() - start
        rng = np.random.default_rng(2)
        start = time.perf_counter()
        for _ in range(loop):
            scalar(s, (rng.random(n) < s).astype(float))
        looped = (time.perf_counter() - start) / loop * resamples
        print(f"{statistic:<9s} {batched:8.2f}  {looped:12.1f}                 "
              f"{looped / batched:6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=199)
    parser.add_argument("--loop", type=int, default=20)
    parser.add_argument("--skip-size", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore", CalibrationWarning)
    if not args.skip_size:
        size_power_table(args.reps, args.resamples)
    timing_table(args.loop)


if __name__ == "__main__":
    main()
