"""Span selection: does it work (ISE simulation), and what does the table cost (timing).

Run ``python benchmarks/bench_selection.py`` (``--reps 50,10`` replicates at n = 2000 and
20000, ``--timing-sizes 1e4,1e5,1e6``, ``--r-max 1e4``, ``--no-r``, ``--no-ise``,
``--no-timing``, ``--memory-sizes 1e5,1e6``, ``--no-memory``, ``--holdout`` for shapes and
seeds the selection rule was not tuned on).

**Memory.** Peak memory (``tracemalloc``: every NumPy buffer allocated during the call) of
:func:`smoothing_table` with its defaults (20 spans, degree 1, tricube) on uniform scores;
issue 17's target is at most 250 MB at n = 1e6.

**ISE simulation.** Scores and labels from ``locacal.simulate.logistic_dgp(n, gamma=g)``:
the score is ``expit(gamma eta)`` and the label ~ Bernoulli(``expit(eta)``), so the true
calibration map is ``g(p) = expit(logit(p) / gamma)`` exactly (gamma = 1 calibrated, 2
over-confident, 0.5 under-confident). For each replicate the degree-1 tricube local fit is
computed at every span of the default grid (:func:`locacal.curves.selection.default_nn_grid`,
reaching nn = 1), with ISE = mean over the sample of ``(clip(g_hat(s_i)) - g(s_i))^2`` (the
squared error integrated over the score distribution). The table prints, per selector, the
median ISE of the selected fit divided by the median ISE of the best fixed span in hindsight
(the grid span with the smallest median ISE). ``gcv``, ``cv``, ``aic``: the default rule of
:meth:`~locacal.curves.selection.SmoothingTable.best` (smoothest span within half a
standard error of the minimum); ``... min``: the plain minimiser.

**Timing.** Seconds for :func:`smoothing_table` over 10 spans, next to R's
``gcvplot(d ~ s, deg = 1, kern = "tcub", alpha = spans, ev = dat())`` in the same run, at
the sizes R can do: locfit fits every observation with its whole window, O(n^2 nn) per span
(10 spans at n = 1e4 take it minutes), so it is not run beyond ``--r-max``.

Measured (``--reps 50,20``, 2 shared cores under heavy load from other jobs, 2026-11-23)::

    n = 2000, 50 replicates, grid nn = 0.01 ... 1 (20 spans)
    scores                       best nn   gcv    cv   aic  gcv min cv min aic min lcv min aicc min
    calibrated (gamma=1)           1.000  1.31  1.38  1.00     1.88   2.29    1.00    2.29     1.88
    over-confident (gamma=2)       1.000  1.24  1.25  1.00     1.50   1.50    1.00    1.50     1.50
    under-confident (gamma=0.5)    1.000  1.20  1.20  1.00     1.67   1.87    1.00    2.18     1.67

    n = 20000, 20 replicates, grid nn = 0.001 ... 1 (20 spans)
    calibrated (gamma=1)           1.000  1.09  1.09  1.00     1.30   1.30    1.00    1.30     1.30
    over-confident (gamma=2)       0.483  1.25  1.25  2.10     1.14   1.24    2.10    1.24     1.14
    under-confident (gamma=0.5)    1.000  0.99  0.99  1.00     0.99   0.99    1.00    0.99     0.99

    smoothing_table, 10 spans (0.02 ... 1), degree 1 tricube: seconds (wall clock, idle
    machine, same run)
             n    locacal  R gcvplot
         10000       0.43      57.00
        100000       2.03    not run
       1000000      21.49    not run

Peak memory (``--no-ise --no-timing --memory-sizes 1e5,1e6``, 2026-11-25; before the block
sums were recomputed on demand: 224 MB at n = 2e5, about 1.1 GB at 1e6)::

    smoothing_table (defaults: 20 spans, degree 1, tricube): peak memory (tracemalloc)
             n    peak MB    seconds
        100000       53.2      26.75
       1000000      229.4     165.59

(seconds on 2 cores shared with 8 other jobs, load average about 20.)

Held out (``--holdout --no-timing --reps 50,20``: shapes and seeds the half-standard-error
rule was not tuned on, 2026-11-23)::

    n = 2000, 50 replicates
    scores                       best nn   gcv    cv   aic  gcv min cv min aic min lcv min aicc min
    over-confident (gamma=3)       0.616  1.10  1.14  1.16     1.30   1.30    1.16    1.30     1.30
    over-confident (gamma=1.5)     1.000  1.21  1.21  1.00     1.59   1.59    1.06    1.59     1.41
    under-confident (gamma=0.33)   1.000  1.09  1.09  1.00     1.36   1.81    1.00    1.81     1.36

    n = 20000, 20 replicates
    over-confident (gamma=3)       0.234  1.19  1.19  2.30     1.24   1.24    2.02    1.24     1.24
    over-confident (gamma=1.5)     0.695  1.01  1.01  1.21     1.11   1.23    1.21    1.23     1.11
    under-confident (gamma=0.33)   0.695  1.10  1.10  1.09     1.15   1.36    1.09    1.36     1.15

(locfit's ``aic`` looks perfect at n = 2000 only because its penalty, not scaled by the
variance, always picks nn = 1 where the best span is 1; it over-smooths the curved
over-confident map at n = 20000.)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

from locacal.curves.selection import default_nn_grid, smoothing_table
from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams
from locacal.localfit._influence import block_cache, fit_at_data
from locacal.localfit._segment import ExactLocalMap
from locacal.simulate import logistic_dgp

GAMMAS = {"calibrated (gamma=1)": 1.0, "over-confident (gamma=2)": 2.0,
          "under-confident (gamma=0.5)": 0.5}
#: ``--holdout``: shapes and seeds the half-standard-error rule was not tuned on.
HOLDOUT_GAMMAS = {"over-confident (gamma=3)": 3.0, "over-confident (gamma=1.5)": 1.5,
                  "under-confident (gamma=0.33)": 1 / 3}
HOLDOUT_SEED = 1000
SPANS = np.geomspace(0.02, 1.0, 10)


#: Selectors compared: (label, criterion, rule of SmoothingTable.best).
SELECTORS = [("gcv", "gcv", "se"), ("cv", "cv", "se"), ("aic", "aic", "se"),
             ("gcv min", "gcv", "min"), ("cv min", "cv", "min"), ("aic min", "aic", "min"),
             ("lcv min", "lcv", "min"), ("aicc min", "aicc", "min")]


def ise_replicate(n: int, gamma: float, seed: int) -> tuple[np.ndarray, list[float]]:
    """ISE at every grid span, and the ISE of the span each selector chooses."""
    df = logistic_dgp(n, gamma=gamma, seed=seed)
    s, y = df["score"].to_numpy(), df["label"].to_numpy().astype(float)
    sample = sort_sample(s, y, None)
    truth = expit(logit(sample.scores) / gamma)
    grid = default_nn_grid(n, 1)
    base = LocalParams(1, 1.0, None, "tricube")
    shared, blocks = ExactLocalMap(sample, base, clip=False), block_cache(sample, base)
    ise = np.array([np.mean((np.clip(fit_at_data(sample, LocalParams(1, nn, None, "tricube"),
                                                 shared, blocks).value, 0, 1) - truth) ** 2)
                    for nn in grid])
    table = smoothing_table(s, y, degree=1, nn=grid)
    return ise, [float(ise[np.flatnonzero(grid == table.best(c, rule))[0]])
                 for _, c, rule in SELECTORS]


def ise_table(n: int, reps: int, gammas: dict[str, float], first_seed: int) -> None:
    grid = default_nn_grid(n, 1)
    print(f"\nn = {n}, {reps} replicates, grid nn = {grid[0]:.4g} ... 1 ({grid.size} spans); "
          "median ISE of the chosen span / median ISE of the best fixed span")
    print(f"{'scores':28s} {'best nn':>7s} " + " ".join(f"{lab:>8s}" for lab, _, _ in SELECTORS))
    for label, gamma in gammas.items():
        runs = [ise_replicate(n, gamma, seed) for seed in range(first_seed, first_seed + reps)]
        fixed = np.median(np.array([r[0] for r in runs]), axis=0)
        best = int(np.argmin(fixed))
        ratios = np.median(np.array([r[1] for r in runs]), axis=0) / fixed[best]
        print(f"{label:28s} {grid[best]:7.3f} " + " ".join(f"{x:8.2f}" for x in ratios),
              flush=True)


R_TIMING = """
suppressMessages(library(locfit))
s <- readBin("{s}", "double", {n}); d <- readBin("{d}", "double", {n})
cat(system.time(g <- gcvplot(d ~ s, deg = 1, kern = "tcub", alpha = c({spans}),
                             ev = dat()))[["elapsed"]], "\\n")
"""


def r_seconds(s: np.ndarray, d: np.ndarray) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        ps, pd_ = Path(tmp) / "s.bin", Path(tmp) / "d.bin"
        s.tofile(ps)
        d.tofile(pd_)
        code = R_TIMING.format(s=ps, d=pd_, n=s.size, spans=", ".join(map(repr, SPANS.tolist())))
        out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True,
                             check=True)
    return float(out.stdout.split()[-1])


def timing(sizes: list[int], use_r: bool, r_max: int) -> None:
    print(f"\nsmoothing_table, 10 spans ({SPANS[0]:.2g} ... 1), degree 1 tricube, at the "
          "data: seconds (wall clock)")
    print(f"{'n':>10s} {'locacal':>10s} {'R gcvplot':>10s}")
    rng = np.random.default_rng(0)
    for n in sizes:
        s = rng.uniform(size=n)
        d = (rng.uniform(size=n) < s ** 2).astype(np.float64)
        start = time.perf_counter()
        smoothing_table(s, d, nn=SPANS)
        ours = time.perf_counter() - start
        theirs = f"{r_seconds(s, d):10.2f}" if use_r and n <= r_max else f"{'not run':>10s}"
        print(f"{n:10d} {ours:10.2f} {theirs}", flush=True)


def memory(sizes: list[int]) -> None:
    print("\nsmoothing_table (defaults: 20 spans, degree 1, tricube): peak memory "
          "(tracemalloc)")
    print(f"{'n':>10s} {'peak MB':>10s} {'seconds':>10s}")
    rng = np.random.default_rng(0)
    for n in sizes:
        s = rng.uniform(size=n)
        d = (rng.uniform(size=n) < s ** 2).astype(np.float64)
        tracemalloc.start()
        start = time.perf_counter()
        smoothing_table(s, d)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"{n:10d} {peak:10.1f} {seconds:10.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", default="50,10")
    parser.add_argument("--timing-sizes", default="1e4,1e5,1e6")
    parser.add_argument("--r-max", type=float, default=1e4)
    parser.add_argument("--no-r", action="store_true")
    parser.add_argument("--no-ise", action="store_true")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--memory-sizes", default="1e5,1e6")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--holdout", action="store_true",
                        help="other shapes (gamma 3, 1.5, 1/3) and seeds from 1000")
    args = parser.parse_args()
    gammas, first_seed = (HOLDOUT_GAMMAS, HOLDOUT_SEED) if args.holdout else (GAMMAS, 0)
    if not args.no_ise:
        for n, reps in zip((2000, 20000), map(int, args.reps.split(",")), strict=False):
            ise_table(n, reps, gammas, first_seed)
    if not args.no_timing:
        sizes = [int(float(x)) for x in args.timing_sizes.split(",")]
        timing(sizes, not args.no_r and shutil.which("Rscript") is not None,
               int(args.r_max))
    if not args.no_memory:
        memory([int(float(x)) for x in args.memory_sizes.split(",")])


if __name__ == "__main__":
    main()
