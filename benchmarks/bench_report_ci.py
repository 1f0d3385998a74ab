"""Cost of ``calibration_report(ci=True)``: bootstrap intervals and null expectations.

For n in ``--sizes`` (default 1e4 and 1e5), calibrated scores from
``locacal.simulate.logistic_dgp``, measured in the same run:

* ``report``: ``calibration_report(s, y)`` (one evaluation of every metric);
* ``ci``: ``calibration_report(s, y, ci=True, n_boot=--n-boot)``: n_boot bootstrap
  evaluations of every metric plus n_boot null label draws of the calibration metrics;
* ``ci / report``: against the 2 n_boot + 1 evaluations a naive loop would cost;

then, at the largest n, the seconds of one evaluation of each metric alone (where the
bootstrap time goes). Nothing is asserted: this prints tables.

Usage: ``python benchmarks/bench_report_ci.py [--sizes 10000 100000] [--n-boot 200]``
"""

from __future__ import annotations

import argparse
import time
import warnings

from locacal import calibration_report
from locacal._validation import CalibrationWarning
from locacal.metrics.registry import evaluate
from locacal.report.table import REPORT_COLUMNS
from locacal.simulate import logistic_dgp


def timed(func, *args, **kwargs) -> float:
    start = time.perf_counter()
    func(*args, **kwargs)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--n-boot", type=int, default=200)
    args = parser.parse_args()
    warnings.simplefilter("ignore", CalibrationWarning)
    calibration_report(*[logistic_dgp(500, seed=0)[c] for c in ("score", "label")])  # imports
    print(f"calibration_report with ci=True, n_boot = {args.n_boot} (seconds)")
    print("       n    report        ci   ci / report   (2 n_boot + 1 = "
          f"{2 * args.n_boot + 1})")
    for n in args.sizes:
        d = logistic_dgp(n, seed=1)
        s, y = d["score"].to_numpy(), d["label"].to_numpy()
        plain = timed(calibration_report, s, y)
        ci = timed(calibration_report, s, y, ci=True, n_boot=args.n_boot, seed=2)
        print(f"{n:8d}  {plain:8.3f}  {ci:8.1f}   {ci / plain:11.0f}", flush=True)
    n = max(args.sizes)
    d = logistic_dgp(n, seed=1)
    s, y = d["score"].to_numpy(), d["label"].to_numpy()
    print(f"\nOne evaluation of each metric alone at n = {n:,} (seconds)")
    for name in REPORT_COLUMNS:
        if name != "true_mse":
            print(f"{name:<16s} {timed(evaluate, [name], s, y):8.4f}")


if __name__ == "__main__":
    main()
