"""``decision_curve`` next to ``dcurves.dca`` (the Python package a user would pick instead),
in one run.

For n scores (Beta(2, 5), events Bernoulli(s)) and dcurves' 100 thresholds (here 0.01, ...,
0.99: a threshold must lie in (0, 1)), this prints, in seconds, the best of ``--repeat``
alternating runs of

* ``decision_curve(s, y, thresholds=...)`` (one sort, cumulative sums, a binary search per
  threshold), and with ``decompose=True`` (plus the PAV fit);
* ``dcurves.dca(data, outcome, modelnames=[...], thresholds=...)`` (a pass over the data per
  threshold and per model, "all" and "none" included);

and the ratio dcurves / locacal (without decomposition). The two outputs are checked equal
(1e-12) once per n. dcurves grows as n x thresholds, so the largest n is run for locacal
alone unless ``--peer-max`` allows it. Nothing is asserted.

Usage: ``python benchmarks/bench_decision.py [--sizes 1e3 1e4 1e5 1e6] [--repeat 3]
[--peer-max 1e5]``
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from locacal import decision_curve

THRESHOLDS = np.arange(1, 100) / 100.0


def best_time(fn: Callable[[], object], repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run_dcurves(data: pd.DataFrame) -> pd.DataFrame:
    from dcurves import dca

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dca(data=data, outcome="y", modelnames=["s"], thresholds=list(THRESHOLDS))


def row(s: np.ndarray, y: np.ndarray, repeat: int, peer: bool) -> str:
    """One line of the table for these scores and labels."""
    ours = best_time(lambda: decision_curve(s, y, thresholds=THRESHOLDS), repeat)
    dec = best_time(lambda: decision_curve(s, y, thresholds=THRESHOLDS, decompose=True),
                    repeat)
    if not peer:
        return f"{s.size:>9} {ours:>9.4f} {dec:>10.4f} {'-':>9} {'-':>8}"
    data = pd.DataFrame({"y": y, "s": s})
    theirs = best_time(lambda: run_dcurves(data), repeat)
    out = run_dcurves(data)
    table = decision_curve(s, y, thresholds=THRESHOLDS).table
    gap = np.max(np.abs(out.loc[out["model"] == "s", "net_benefit"].to_numpy()
                        - table["net_benefit"].to_numpy()))
    line = f"{s.size:>9} {ours:>9.4f} {dec:>10.4f} {theirs:>9.3f} {theirs / ours:>8.0f}"
    return line + (f"  (differs from dcurves by {gap:.3g})" if gap > 1e-12 else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e3, 1e4, 1e5, 1e6])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-max", type=float, default=1e5)
    args = parser.parse_args()
    rng = np.random.default_rng(19)
    print(f"{len(THRESHOLDS)} thresholds; best of {args.repeat} runs, seconds")
    print(f"{'n':>9} {'locacal':>9} {'decompose':>10} {'dcurves':>9} {'ratio':>8}")
    for size in args.sizes:
        s = rng.beta(2.0, 5.0, int(size))
        y = (rng.uniform(size=s.size) < s).astype(int)
        print(row(s, y, args.repeat, s.size <= args.peer_max))


if __name__ == "__main__":
    main()
