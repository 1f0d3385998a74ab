"""Size at the margin and power of ``calibration_equivalence_test``.

Seeded simulation. For each measure (ICI, ECE, LCS, sup) and each miscalibrated DGP of
``locacal.simulate.logistic_dgp`` (``g1.25``: gamma = 1.25, ``g3``: gamma = 3, ``a1.2``:
alpha = 1.2), the margin is set to the DGP's *population* value of the measure, so that H0
"measure >= margin" holds with equality: the rejection rate over ``--reps`` samples of n rows
is the size at the margin (target <= 1 - level = 0.05, up to the Monte Carlo s.e.
sqrt(r (1 - r) / R)). The same margin is then tested on calibrated scores (gamma = 1,
``power`` column): the share of samples declared equivalent when the measure is in fact
(almost) 0.

Population values from ``--big`` rows: the ECE in closed form on the deciles of s (bin means
of p - s, E[D | s] = p); the ICI, LCS and sup as the measure on two independent big samples,
averaged (their difference is printed). Also printed: the mean upper bound at the margin.
Nothing is asserted.

Usage: ``nice python benchmarks/size_equivalence.py [--n 500 2000] [--reps 200]
[--n-resamples 199] [--measures ici ece lcs sup] [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from locacal._validation import CalibrationWarning
from locacal.metrics.equivalence import _BATCHES, calibration_equivalence_test
from locacal.simulate import logistic_dgp

DGPS = {"g1.25": {"gamma": 1.25}, "g3": {"gamma": 3.0}, "a1.2": {"alpha": 1.2}}


def data(n: int, seed, **dgp) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = logistic_dgp(n, seed=seed, **dgp)
    return d["score"].to_numpy(), d["label"].to_numpy(), d["true_p"].to_numpy()


def measure_on(measure: str, s: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(s, kind="stable")
    return float(_BATCHES[measure](s[order], None)(y[order][None, :].astype(float))[0])


def population(measure: str, dgp: dict, big: int, seed: int) -> tuple[float, float]:
    s, y, p = data(big, seed, **dgp)
    if measure == "ece":
        chunks = np.array_split(np.argsort(s), 10)
        return float(np.mean([np.abs(np.mean(p[c] - s[c])) for c in chunks])), 0.0
    first = measure_on(measure, s, y)
    second = measure_on(measure, *data(big, seed + 1, **dgp)[:2])
    return (first + second) / 2, abs(first - second)


def rejections(measure: str, margin: float, n: int, reps: int, n_resamples: int,
               seed: list[int], dgp: dict) -> tuple[float, float]:
    hits, uppers = 0, []
    for child in np.random.SeedSequence(seed).spawn(reps):
        data_seed, test_seed = child.spawn(2)
        s, y, _ = data(n, data_seed, **dgp)
        r = calibration_equivalence_test(s, y, margin=margin, measure=measure,
                                         n_resamples=n_resamples, seed=test_seed)
        hits += r.equivalent
        uppers.append(r.upper)
    return hits / reps, float(np.mean(uppers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[500, 2000])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-resamples", type=int, default=199)
    parser.add_argument("--measures", nargs="*", default=["ici", "ece", "lcs", "sup"])
    parser.add_argument("--dgps", nargs="*", default=list(DGPS))
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="n = 500, 20 replicates, 99 resamples, big = 200000")
    args = parser.parse_args()
    if args.quick:
        args.n, args.reps, args.n_resamples, args.big = [500], 20, 99, 200_000
    warnings.simplefilter("ignore", CalibrationWarning)
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", "{:.4g}".format)
    rows = []
    for i, measure in enumerate(args.measures):
        for j, name in enumerate(args.dgps):
            margin, spread = population(measure, DGPS[name], args.big, args.seed + 100 * j)
            for n in args.n:
                start = time.perf_counter()
                size, upper = rejections(measure, margin, n, args.reps, args.n_resamples,
                                         [args.seed, i, j, n], DGPS[name])
                power, upper0 = rejections(measure, margin, n, args.reps, args.n_resamples,
                                           [args.seed, i, j, n, 1], {"gamma": 1.0})
                rows.append({"measure": measure, "dgp": name, "n": n, "margin": margin,
                             "big_diff": spread, "size": size,
                             "size_se": np.sqrt(max(size, 1 / args.reps) * (1 - size)
                                                / args.reps),
                             "mean_upper": upper, "power_g1": power,
                             "mean_upper_g1": upper0})
                print(f"  {measure} {name} n={n}: {time.perf_counter() - start:.0f} s",
                      file=sys.stderr, flush=True)
        print(pd.DataFrame([r for r in rows if r["measure"] == measure]).to_string(
            index=False), flush=True)
    print(f"\nreps = {args.reps}, resamples = {args.n_resamples}, level 0.95; size_se uses "
          f"max(size, 1/reps)")


if __name__ == "__main__":
    main()
