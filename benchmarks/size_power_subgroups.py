"""Size and power of ``calibration_test(..., by=groups)``: the family-wise p-value.

Design (issue 18, part 6): G = 20 groups of m = 1000 rows (and m = 300, 3000 with
``--sizes``), scores uniform on [0.03, 0.97]; labels Bernoulli(g(s)) with g = id in every
group (size), or with one group off by ``delta`` on the logit scale, g = expit(logit(s) +
delta) (power; delta = 0.5 and 0.25). Each sample is tested with the default statistic (LCS)
and ``n_resamples=999`` consistency resamples per group, at level 0.05. Also shown: the
naive rule "reject if any group's own p < 0.05" (no adjustment), whose size is what the
adjustment fixes, and the share of samples in which the shifted group is itself flagged
(adjusted p < 0.05).

Printed: each rate with its Monte Carlo standard error sqrt(r (1 - r) / reps), and the run
time per test. Nothing is asserted (the seeded small version is tests/test_subgroups.py).

Usage: ``python benchmarks/size_power_subgroups.py [--reps 300] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from joblib import Parallel, delayed
from scipy.special import expit, logit

from locacal import calibration_test

GROUPS = 20
LEVEL = 0.05


def one(seed: int, size: int, delta: float, resamples: int) -> tuple[bool, bool, bool, float]:
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.03, 0.97, GROUPS * size)
    g = np.repeat(np.arange(GROUPS), size)
    p = np.where(g == 0, expit(logit(s) + delta), s)
    d = rng.uniform(size=s.size) < p
    start = time.perf_counter()
    result = calibration_test(s, d, by=g, n_resamples=resamples, seed=seed)
    took = time.perf_counter() - start
    naive = min(r.pvalue for r in result.results.values()) < LEVEL
    return result.pvalue < LEVEL, naive, bool(result.adjusted[0] < LEVEL), took


def rate(hits: list[bool]) -> str:
    r = float(np.mean(hits))
    return f"{r:.3f} ({np.sqrt(r * (1 - r) / len(hits)):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--deltas", type=float, nargs="+", default=[0.0, 0.25, 0.5])
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    print(f"{GROUPS} groups, LCS, {args.resamples} resamples per group, level {LEVEL}, "
          f"{args.reps} samples per row; rate (Monte Carlo s.e.)")
    print(f"{'rows/group':>10} {'delta':>6} {'family-wise':>15} {'naive any p<.05':>16} "
          f"{'group 0 flagged':>16} {'s/test':>7}")
    for size in args.sizes:
        for delta in args.deltas:
            out = Parallel(n_jobs=args.jobs)(
                delayed(one)(10_000 * k + int(100 * delta), size, delta, args.resamples)
                for k in range(args.reps))
            fw, naive, flagged, took = zip(*out, strict=True)
            print(f"{size:>10} {delta:>6.2f} {rate(list(fw)):>15} {rate(list(naive)):>16} "
                  f"{rate(list(flagged)):>16} {np.mean(took):>7.2f}", flush=True)


if __name__ == "__main__":
    main()
