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

Measured 2026-11-25 (2 shared cores, ``nice``; after the block-sum route of issue 17)::

    (filled in below by the run recorded in the commit that changed this file)

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
