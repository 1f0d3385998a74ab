"""Exact local prediction at many scores, next to its floors and peers, in one table (issue 17).

One run prints, in seconds (best of ``--repeat`` runs; every row's peer timed in the same
loop, alternating, so that a change of load on a shared machine hits both):

* ``predict d=0/1/2``: ``LocalRegressionCalibrator(degree, 0.15, kernel).predict(q)`` for
  m = 1e6 and 1e7 uniform query scores (every one distinct), the calibrator fitted on
  ``--ncal`` beta(2, 5) scores (degree 0 rect, degree 1 tricube, degree 2 rect: the kernels
  of the issue's measure), next to ``np.unique(q, return_inverse=True)`` (predict needs it:
  it fits every distinct score once) and ``np.sort(q)``; target: predict <= 3x unique
  (degree 0), <= 6x (degrees 1-2);
* ``fit+predict``: ``LocalRegressionCalibrator().fit(s, d).predict(s)`` (the defaults:
  degree 1, tricube, nn 0.15) on n = 1e6 and 1e7 rows, next to scikit-learn's
  ``IsotonicRegression(out_of_bounds="clip").fit(s, d).predict(s)``; target: <= 1x;
* ``lowess 1e5`` (context, no target): statsmodels' ``lowess(d, s, frac=0.15, it=0,
  delta=0.01)`` at n = 1e5 next to the default local fit + predict on the same rows.

Every predicted value is the exact local fit at that score (nothing interpolated; see
:mod:`locacal.localfit._many`). Nothing is asserted: this prints a table.

Measured 2026-11-25 (2 cores shared with other jobs, ``nice``, ``--repeat 1``, ``--ncal``
2e5; the block-sum route of :mod:`locacal.localfit._many`)::

    row                 size   ours s peer        peer s   ratio target verdict
    predict d=0        1e+06     0.20 unique        0.03    6.85   <= 3  MISSED (sort 0.01 s: 35x)
    predict d=0        1e+07     2.35 unique        0.65    3.59   <= 3  MISSED (sort 0.07 s: 35x)
    predict d=1        1e+06     1.05 unique        0.02   43.69   <= 6  MISSED (sort 0.01 s: 207x)
    predict d=1        1e+07    10.90 unique        0.95   11.44   <= 6  MISSED (sort 0.07 s: 167x)
    predict d=2        1e+06     1.44 unique        0.02   62.67   <= 6  MISSED (sort 0.01 s: 278x)
    predict d=2        1e+07    13.51 unique        0.94   14.37   <= 6  MISSED (sort 0.07 s: 197x)
    fit+predict        1e+06     1.92 isotonic      0.29    6.73   <= 1  MISSED
    fit+predict        1e+07    31.53 isotonic      3.59    8.78   <= 1  MISSED
    fit+predict        1e+05     0.16 lowess        0.01   12.80              - (context)

Before (segment trees for every point; issue 17's measures on main): predict at 1e7 6.2 s
(degree 0) and 15-25 s (degrees 1-2), fit + predict 21 s at 1e6 and over 60 s at 1e7; on
this machine the default fit + predict at 1e6 took 13.7 s (profiled: 10 s in segment-tree
queries, 2.5 s building the trees). Where the time goes now (profiles, 1e7 points): degree 0
is np.unique (1.6 s inside predict: its argsort, cumsum and scatter) plus 0.6 s of window
searches; degrees 1-2 are the per-point binomial shifts of the one-sided moments
(``shift_moments``, O(order^2) with order 11 for tricube x degree 1) and their gathers
(``_blocks._side_batch``), 6.5 s of 11, and locfit's Jacobi solver (0.7 s in degree 1,
half the time in degree 2); fit + predict adds the block sums' build, ~740 bytes per row
(tricube, degree 1) whose page faults cost ~1 s per 10^6 rows. The targets need a compiled
sweep or a lower-order formulation of the tricube sums; NumPy's per-call and per-temporary
costs are the floor of this route. lowess uses ``delta=0.01`` (interpolation between
about 100 fitted points), so it is not an exact fit at every row.

Usage: ``python benchmarks/bench_local_predict.py [--sizes 1e6 1e7] [--ncal 200000]
[--repeat 1]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from sklearn.isotonic import IsotonicRegression
from statsmodels.nonparametric.smoothers_lowess import lowess

from locacal.curves import LocalRegressionCalibrator

CASES = [(0, "rect", 3.0), (1, "tricube", 6.0), (2, "rect", 6.0)]


def _best(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Best time of each function over ``repeat`` alternating rounds."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def _fit_predict(model, s: np.ndarray, d: np.ndarray) -> np.ndarray:
    return model.fit(s, d).predict(s)


def _row(what: str, size: int, ours: float, peer_name: str, peer: float, target: float | None,
         extra: str = "") -> None:
    ratio = ours / peer
    verdict = "-" if target is None else ("met" if ratio <= target else "MISSED")
    print(f"{what:<14} {size:>9.0e} {ours:>8.2f} {peer_name:<10} {peer:>7.2f} {ratio:>7.2f} "
          f"{'' if target is None else f'<= {target:g}':>6} {verdict:>7} {extra}", flush=True)


def main(sizes: list[int], ncal: int, repeat: int) -> None:
    rng = np.random.default_rng(2024)
    print(f"{'row':<14} {'size':>9} {'ours s':>8} {'peer':<10} {'peer s':>7} {'ratio':>7} "
          f"{'target':>6} {'verdict':>7}")
    s = rng.beta(2, 5, size=ncal)
    d = (rng.uniform(size=ncal) < s).astype(float)
    for degree, kernel, target in CASES:
        fitted = LocalRegressionCalibrator(degree, 0.15, kernel=kernel).fit(s, d)
        for m in sizes:
            q = rng.uniform(size=m)
            ours, uniq, srt = _best([partial(fitted.predict, q),
                                     partial(np.unique, q, return_inverse=True),
                                     partial(np.sort, q)], repeat)
            _row(f"predict d={degree}", m, ours, "unique", uniq, target,
                 f"(sort {srt:.2f} s: {ours / srt:.0f}x)")
    for n in sizes:
        s = rng.beta(2, 5, size=n)
        d = (rng.uniform(size=n) < s).astype(float)
        ours, iso = _best([partial(_fit_predict, LocalRegressionCalibrator(), s, d),
                           partial(_fit_predict, IsotonicRegression(out_of_bounds="clip"), s, d)],
                          repeat)
        _row("fit+predict", n, ours, "isotonic", iso, 1.0)
    n = 100_000
    s = rng.beta(2, 5, size=n)
    d = (rng.uniform(size=n) < s).astype(float)
    ours, low = _best([partial(_fit_predict, LocalRegressionCalibrator(), s, d),
                       partial(lowess, d, s, frac=0.15, it=0, delta=0.01)], repeat)
    _row("fit+predict", n, ours, "lowess", low, None, "(context)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7])
    parser.add_argument("--ncal", type=float, default=2e5)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    main([int(x) for x in args.sizes], int(args.ncal), args.repeat)
