"""Time ``calibration_report`` against ``np.sort`` of the same scores, measured in the same run.

The report validates the sample once, sorts it once (ties by label, then weight) and shares
the sorted sample's bins between ECE, QMSE, the thresholded ECE, CalibMSE / refinement and
the AUC (:mod:`locacal.metrics.registry`). The target of issue 8 is O(n log n): at n = 1e7
the report within 30x ``np.sort`` (45x with weights).

For each n and with / without weights the script prints the report's time, np.sort's, their
ratio, and a breakdown: the shared steps (validation, sort, quantile and adaptive bins), then
each metric on the prepared sample, and scikit-learn's ``roc_auc_score`` for comparison with
the Mann-Whitney AUC. Usage::

    python benchmarks/bench_report.py                      # n = 1e5, 1e6, 1e7
    python benchmarks/bench_report.py --max-n 1e6
    python benchmarks/bench_report.py --min-n 1e7 --weights yes --skip wmse
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics import roc_auc_score

from locacal import calibration_report
from locacal.metrics._prepared import prepare
from locacal.metrics.registry import METRICS
from locacal.report.table import REPORT_COLUMNS, _computed

REPEATS = 3  # best of three below n = 1e7 (the machine is shared); one run at 1e7


def timed(func, *args, repeats: int = 1, **kwargs):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        out = func(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return out, best


def data(n: int, weighted: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 5, size=n)
    y = (rng.uniform(size=n) < s).astype(np.float64)
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    return s, y, w, np.clip(s * 1.1, 0, 1)


def breakdown(s, y, w, p, repeats: int, skip: tuple[str, ...]) -> dict[str, float]:
    """Time of each step; the shared ones first, each metric then on the prepared sample."""
    times = {}
    for _ in range(repeats):  # a fresh sample each time, so that nothing is cached
        sample, t = timed(prepare, s, y, w, true_p=p)
        steps = {"validate": t}
        _, steps["sort"] = timed(lambda sample=sample: sample.sorted)
        _, steps["quantile bins"] = timed(sample.bin_statistics, "quantile", 10)
        _, steps["adaptive bins"] = timed(sample.bin_statistics, "adaptive")
        for name in _computed(REPORT_COLUMNS, p, w):  # what the report computes
            if name not in skip:
                _, steps[name] = timed(METRICS[name].compute, sample)
        for step, t in steps.items():
            times[step] = min(times.get(step, np.inf), t)
    times["(sum of the steps above)"] = sum(times.values())
    _, times["(sklearn roc_auc_score)"] = timed(roc_auc_score, y, s, sample_weight=w,
                                                repeats=repeats)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-n", type=float, default=1e5)
    parser.add_argument("--max-n", type=float, default=1e7)
    parser.add_argument("--weights", choices=("both", "no", "yes"), default="both")
    parser.add_argument("--skip", nargs="*", default=(), choices=REPORT_COLUMNS,
                        help="metrics left out of the breakdown and of the report's timing "
                             "(e.g. wmse, which another change makes O(n log n))")
    args = parser.parse_args()
    skip = tuple(args.skip)
    sizes = [n for n in (10**5, 10**6, 10**7) if args.min_n <= n <= args.max_n]
    weightings = {"both": (False, True), "no": (False,), "yes": (True,)}[args.weights]
    warnings.simplefilter("ignore")
    calibration_report(*data(1000, False)[:2])  # warm-up (imports)
    for n in sizes:
        for weighted in weightings:
            s, y, w, p = data(n, weighted)
            repeats = REPEATS if n < 10**7 else 1
            _, t_sort = timed(np.sort, s, repeats=repeats)
            label = f"n = {n:,}, {'weighted' if weighted else 'unweighted'}"
            if not skip:
                _, t_report = timed(calibration_report, s, y, weights=w, true_p=p,
                                    repeats=repeats)
                label += (f": calibration_report {t_report:.2f} s, np.sort {t_sort:.3f} s, "
                          f"ratio {t_report / t_sort:.1f}")
            else:
                label += f" (report not timed: {', '.join(skip)} skipped); np.sort {t_sort:.3f} s"
            print(label)
            for step, t in breakdown(s, y, w, p, repeats, skip).items():
                print(f"    {step:<26}{t:9.3f} s  [{t / t_sort:6.1f} x np.sort]")
            print(flush=True)


if __name__ == "__main__":
    main()
