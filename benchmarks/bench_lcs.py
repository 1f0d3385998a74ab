"""LCS and the local calibration curve: locacal next to R's locfit and np.sort, same run.

For n = 1e4 ... 1e7 scores (Beta(2, 3), events Bernoulli(s^1.3)) this prints, in seconds:

* ``np.sort``: sorting the scores once, the floor any exact method pays;
* ``lcs exact`` / ``lcs locfit-ev``: ``locacal.lcs`` with exact evaluation and with locfit's
  evaluation structure reproduced in Python;
* ``curve deg0/1/2``: ``calibration_curve(method="local")`` (rect kernel), and ``tricube``;
* ``R lcs``: the 2024 R formula (``local_calib_score`` without jitter: locfit + predict +
  density), timed inside R around the computation only (data loading excluded);

then the ratios the targets speak of, and the peak memory of ``lcs`` at the largest n
(tracemalloc, which sees NumPy's allocations). Nothing is asserted: this prints a table.

Usage: ``python benchmarks/bench_lcs.py [--max-exp 7] [--no-r]``
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

import locacal

R_LCS = """
suppressPackageStartupMessages(library(locfit))
n <- {n}
s <- readBin("{s}", "double", n); d <- readBin("{d}", "double", n)
t <- system.time({{
  fit <- locfit(d ~ lp(s, nn = 0.15, deg = 0), kern = "rect", maxk = 200,
                data = data.frame(d = d, s = s))
  lin <- seq(0, 1, length.out = 100)
  keep <- which(lin >= min(s) & lin <= max(s))
  g <- predict(fit, newdata = lin[keep]); g <- pmin(pmax(g, 0), 1)
  dens <- density(c(-s, s, 2 - s), from = 0, to = 1, n = 100)
  lcs <- weighted.mean((lin[keep] - g)^2, dens$y[keep])
}})[["elapsed"]]
cat(t, lcs, "\\n")
"""


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def r_lcs(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        sp, dp = Path(tmp) / "s.bin", Path(tmp) / "d.bin"
        scores.astype("<f8").tofile(sp)
        labels.astype("<f8").tofile(dp)
        script = R_LCS.format(n=scores.size, s=sp, d=dp)
        out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                             check=True)
    elapsed, value = out.stdout.split()
    return float(elapsed), float(value)


def peak_memory_mib(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-exp", type=int, default=7)
    parser.add_argument("--no-r", action="store_true")
    args = parser.parse_args()
    use_r = not args.no_r and shutil.which("Rscript") is not None
    rng = np.random.default_rng(2024)
    header = (f"{'n':>9} {'np.sort':>8} {'lcs exact':>9} {'lcs lf-ev':>9} {'deg0':>7} "
              f"{'deg1':>7} {'deg2':>7} {'tricube':>7} {'R lcs':>7} | {'lcs/sort':>8} "
              f"{'R/lcs':>7} {'deg2/deg0':>9} | {'|lcs-R|':>8}")
    print(header)
    print("-" * len(header))
    for exp in range(4, args.max_exp + 1):
        n = 10**exp
        s = rng.beta(2, 3, size=n)
        y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
        repeat = 3 if n <= 10**6 else 1
        t_sort = best_of(lambda s=s: np.sort(s), repeat)
        t_lcs = best_of(lambda s=s, y=y: locacal.lcs(s, y), repeat)
        t_lcs_tree = best_of(lambda s=s, y=y: locacal.lcs(s, y, evaluation="locfit"), repeat)
        t_deg = [best_of(lambda s=s, y=y, d=d: locacal.calibration_curve(s, y, degree=d,
                                                                         kernel="rect"),
                         repeat) for d in (0, 1, 2)]
        t_tri = best_of(lambda s=s, y=y: locacal.calibration_curve(s, y, degree=0,
                                                                    kernel="tricube"),
                        repeat)
        if use_r:
            t_r, lcs_r = r_lcs(s, y)
            gap = abs(locacal.lcs(s, y, evaluation="locfit") - lcs_r)
        else:
            t_r, gap = float("nan"), float("nan")
        print(f"{n:>9} {t_sort:8.3f} {t_lcs:9.3f} {t_lcs_tree:9.3f} {t_deg[0]:7.3f} "
              f"{t_deg[1]:7.3f} {t_deg[2]:7.3f} {t_tri:7.3f} {t_r:7.2f} | "
              f"{t_lcs / t_sort:8.2f} {t_r / t_lcs:7.1f} {t_deg[2] / t_deg[0]:9.2f} | "
              f"{gap:8.1e}")
    peak = peak_memory_mib(lambda: locacal.lcs(s, y))
    inputs = (s.nbytes + y.nbytes) / 2**20
    print(f"\npeak memory of lcs at n = {n}: {peak:.0f} MiB above the inputs "
          f"({inputs:.0f} MiB)")
    print("targets: lcs/sort <= 2 at 1e7; R/lcs >= 20 at 1e6; deg2/deg0 <= 5; "
          "peak < 1024 MiB at 1e7")


if __name__ == "__main__":
    main()
