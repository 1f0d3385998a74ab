"""Mergeable cell statistics (locacal.data.cells.ScoreStatistics) next to the exact in-memory
LCS, same run.

For n scores (Beta(2, 3), events Bernoulli(s^1.3)) this prints, in seconds:

* ``from_arrays``: building the statistics in one pass (and in chunks of 1e6 rows, merged);
* ``lcs (cells)``: the LCS from the statistics (bisection windows, binned density);
* ``lcs (exact)``: ``locacal.lcs`` in memory (sort, exact local fit, density);

with both LCS values, their difference and the stated bound on the curve's part of it.
Nothing is asserted: this prints a table.

Usage: ``python benchmarks/bench_sufficient.py [--exps 5 6 7]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import locacal
from locacal.data.cells import ScoreStatistics
from locacal.metrics.lcs_wmse import lcs_with_bound


def _timed(func):
    start = time.perf_counter()
    out = func()
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exps", type=int, nargs="+", default=[5, 6, 7])
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"{'n':>9} {'from_arrays':>11} {'chunked':>8} {'lcs cells':>9} {'lcs exact':>9} "
          f"{'LCS cells':>12} {'LCS exact':>12} {'diff':>9} {'bound':>9}")
    for exp in args.exps:
        n = 10**exp
        s = rng.beta(2.0, 3.0, n)
        y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
        stats, t_build = _timed(lambda s=s, y=y: ScoreStatistics.from_arrays(s, y))
        step = 1_000_000
        chunks = ((s[i:i + step], y[i:i + step], None) for i in range(0, n, step))
        _, t_chunks = _timed(lambda chunks=chunks: ScoreStatistics.from_chunks(chunks))
        (cells, bound), t_cells = _timed(lambda stats=stats: lcs_with_bound(stats))
        exact, t_exact = _timed(lambda s=s, y=y: locacal.lcs(s, y))
        print(f"{n:>9} {t_build:>11.3f} {t_chunks:>8.3f} {t_cells:>9.3f} {t_exact:>9.3f} "
              f"{cells:>12.8f} {exact:>12.8f} {cells - exact:>9.1e} {bound:>9.1e}")


if __name__ == "__main__":
    main()
