"""Exact local prediction at many new scores: ExactLocalMap vs GridMap vs np.sort vs R.

For n_cal calibration rows (beta(2, 5) scores, Bernoulli labels) and m uniform query
scores, times (seconds, one run each, same process) of

* ``exact``: :class:`ExactLocalMap` (exact fit at every distinct query);
* ``grid``: :class:`GridMap` (4,096-cell interpolation, fitted inside the timing);
* ``sort``: ``np.sort`` of the queries (a floor: the exact map sorts them too);
* ``R``: ``locfit(..., ev = queries)`` + ``predict(fit, where = "fitp")`` at m = 1e5 only
  (timed inside R, fit included),

and the max |difference| of the grid and of R from the exact map. A combination whose
projected time (from the previous m, linear in m) exceeds ``LIMIT`` seconds is skipped and
marked ``skip``. Usage: ``python benchmarks/bench_local_predict.py [--quick]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from locacal.curves._local_exact import ExactLocalMap
from locacal.curves._local_fit import LocalParams
from locacal.curves._local_map import GridMap
from locacal.curves._local_window import KERNELS, sort_sample
from tests.rhelpers import r_available, run_r

LIMIT = 60.0
CASES = [(0, "rect"), (1, "tricube"), (2, "rect")]
R_TIMED = """
library(locfit)
t0 <- proc.time()[["elapsed"]]
fit <- locfit(d ~ lp(s, nn = 0.15, deg = dg), kern = kn, ev = q, maxk = 1e6)
v <- predict(fit, where = "fitp")
out <- list(v = v, secs = proc.time()[["elapsed"]] - t0)
"""


def _timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main(quick: bool = False) -> None:
    ns = (2_000, 20_000) if quick else (2_000, 20_000, 200_000)
    ms = (100_000, 1_000_000) if quick else (100_000, 1_000_000, 10_000_000)
    rng = np.random.default_rng(2024)
    print(f"{'n_cal':>7} {'m':>9} {'fit':>12} {'exact s':>8} {'grid s':>7} {'sort s':>7} "
          f"{'R s':>6} {'|grid-exact|':>12} {'|R-exact|':>10}")
    for n in ns:
        s = rng.beta(2, 5, size=n)
        d = (rng.uniform(size=n) < s).astype(float)
        sample = sort_sample(s, d, None)
        for degree, kernel in CASES:
            params = LocalParams(degree, 0.15, None, kernel)
            last = None
            for m in ms:
                q = rng.uniform(size=m)
                label = f"{n:>7} {m:>9} {f'{degree} {kernel}':>12}"
                if last is not None and last[0] * m / last[1] > LIMIT:
                    print(f"{label} {'skip':>8}  (projected > {LIMIT:.0f} s)")
                    continue
                exact, t_exact = _timed(ExactLocalMap(sample, params, clip=False), q)
                last = (t_exact, m)
                grid, t_grid = _timed(GridMap(sample, params, clip=False), q)
                _, t_sort = _timed(np.sort, q)
                r_col, r_diff = f"{'-':>6}", f"{'-':>10}"
                if m == 100_000 and r_available():
                    ref = _run_r(sample, q, degree, kernel)
                    r_col = f"{ref['secs'][0]:>6.2f}"
                    r_diff = f"{np.nanmax(np.abs(ref['v'] - exact)):>10.1e}"
                print(f"{label} {t_exact:>8.2f} {t_grid:>7.2f} {t_sort:>7.2f} {r_col} "
                      f"{np.nanmax(np.abs(grid - exact)):>12.1e} {r_diff}", flush=True)


def _run_r(sample, q, degree, kernel):
    code = R_TIMED.replace("kern = kn", f'kern = "{KERNELS[kernel]}"')
    return run_r(code, s=sample.scores, d=sample.labels.astype(float), q=q,
                 dg=np.array([float(degree)]), timeout=3600)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
