"""Exact local prediction at many new scores: LocalRegressionCalibrator.predict vs np.sort vs R.

For n_cal calibration rows (beta(2, 5) scores, Bernoulli labels) and m uniform query
scores, times (seconds, one run each, same process) of

* ``exact``: ``LocalRegressionCalibrator(degree, kernel=...).fit(...).predict(queries)``,
  the exact fit at every distinct query (locacal 0.1 interpolated a 4,096-cell grid instead,
  up to 8.6e-3 away from the exact fit);
* ``sort``: ``np.sort`` of the queries (a floor: predict sorts them too);
* ``R``: ``locfit(..., ev = queries)`` + ``predict(fit, where = "fitp")`` at m = 1e5 only
  (timed inside R, fit included), and its max |difference| from locacal.

A combination whose projected time (from the previous m, linear in m) exceeds ``LIMIT``
seconds is skipped and marked ``skip``. Usage:
``python benchmarks/bench_local_predict.py [--quick]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from locacal.curves import LocalRegressionCalibrator
from locacal.localfit._window import KERNELS
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
    print(f"{'n_cal':>7} {'m':>9} {'fit':>12} {'exact s':>8} {'sort s':>7} "
          f"{'R s':>6} {'|R-exact|':>10}")
    for n in ns:
        s = rng.beta(2, 5, size=n)
        d = (rng.uniform(size=n) < s).astype(float)
        for degree, kernel in CASES:
            fitted = LocalRegressionCalibrator(degree, 0.15, kernel=kernel, clip=False).fit(s, d)
            last = None
            for m in ms:
                q = rng.uniform(size=m)
                label = f"{n:>7} {m:>9} {f'{degree} {kernel}':>12}"
                if last is not None and last[0] * m / last[1] > LIMIT:
                    print(f"{label} {'skip':>8}  (projected > {LIMIT:.0f} s)")
                    continue
                exact, t_exact = _timed(fitted.predict, q)
                last = (t_exact, m)
                _, t_sort = _timed(np.sort, q)
                r_col, r_diff = f"{'-':>6}", f"{'-':>10}"
                if m == 100_000 and r_available():
                    ref = _run_r(s, d, q, degree, kernel)
                    r_col = f"{ref['secs'][0]:>6.2f}"
                    r_diff = f"{np.nanmax(np.abs(ref['v'] - exact)):>10.1e}"
                print(f"{label} {t_exact:>8.2f} {t_sort:>7.2f} {r_col} {r_diff}", flush=True)


def _run_r(s, d, q, degree, kernel):
    code = R_TIMED.replace("kern = kn", f'kern = "{KERNELS[kernel]}"')
    order = np.argsort(s, kind="stable")  # locfit sums in input order; sorted, as locacal
    return run_r(code, s=s[order], d=d[order], q=q, dg=np.array([float(degree)]),
                 timeout=3600)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
