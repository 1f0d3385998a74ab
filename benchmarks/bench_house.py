"""The remaining speed and memory targets of issue 17 ("the house"), side by side in one run.

Each row times a locacal call and its peer on the same machine in the same run (best of
``--repeat`` runs, wall clock and process CPU time; the ratio is locacal / peer):

==========================================  =====================  ==========================
locacal                                     peer                   target (ratio)
==========================================  =====================  ==========================
``calibration_report`` (defaults), 1e7      ``np.sort``, 1e7       <= 30
``calibration_curve(method="kernel")``, 1e6 ``np.sort``, 1e7       <= 5
``lcs`` (defaults), 1e7                     ``np.sort``, 1e7       <= 1
``calibration_curve`` binning (defaults),   ``np.argsort``, 2e7    <= 3
2e7
``calibration_curve`` local (defaults),     ``np.argsort``, 2e7    <= 3
2e7
``smoothing_table`` (defaults), 1e6         peak memory            <= 250 MB
                                            (``tracemalloc``)
==========================================  =====================  ==========================

Data: scores ``beta(2, 5)``, labels Bernoulli(score) (calibrated), seed 0, unweighted. Every
function is called once on 2000 rows first (imports are not timed).

Usage::

    python benchmarks/bench_house.py                 # the issue's sizes (minutes; a quiet machine)
    python benchmarks/bench_house.py --scale 0.01    # every size x 0.01 (1e5 for the report)
    python benchmarks/bench_house.py --only memory   # one row group: report, kernel, lcs,
                                                     # curves, memory

At a reduced ``--scale`` the ratios are indicative only (fixed costs weigh more), and the
memory verdict is given at n >= 1e6 only (its target is stated there). Sizes are at least
1000.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings
from collections.abc import Callable

import numpy as np

from locacal import calibration_curve, calibration_report, lcs, smoothing_table

GROUPS = ("report", "kernel", "lcs", "curves", "memory")


def data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 5.0, size=n)
    y = (rng.uniform(size=n) < s).astype(np.float64)
    return s, y


def timed(func: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds of ``repeat`` runs."""
    wall = cpu = np.inf
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        func()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def row(what: str, n: int, ours: tuple[float, float], peer_name: str, peer_n: int,
        peer: tuple[float, float], target: float) -> None:
    ratio, cpu_ratio = ours[0] / peer[0], ours[1] / peer[1]
    verdict = "met" if ratio <= target else "MISSED"
    print(f"{what:34s} {n:>10.0e} {ours[0]:9.2f} {peer_name:>11s} {peer_n:>9.0e} "
          f"{peer[0]:8.2f} {ratio:8.1f} {cpu_ratio:8.1f} {target:7.0f}  {verdict}", flush=True)


def sort_time(n: int, repeat: int, arg: bool = False) -> tuple[float, float]:
    s, _ = data(n)
    return timed((lambda: np.argsort(s)) if arg else (lambda: np.sort(s)), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every size (0.01: the report at 1e5)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS))
    args = parser.parse_args()
    scale, repeat = args.scale, args.repeat

    def size(n: float) -> int:
        return max(1000, round(n * scale))

    warnings.simplefilter("ignore")  # e.g. small bins at a reduced scale
    # warm-up on a small sample: the first call's imports (statsmodels, ~1-2 s) are not timed
    s, y = data(2000)
    calibration_report(s, y)
    for method in ("kernel", "binning", "local"):
        calibration_curve(s, y, method=method)
    lcs(s, y)
    print(f"issue 17 targets, --scale {scale:g}, best of {repeat} (wall s; ratio wall and CPU)")
    print(f"{'locacal':34s} {'n':>10s} {'seconds':>9s} {'peer':>11s} {'peer n':>9s} "
          f"{'seconds':>8s} {'ratio':>8s} {'cpu rat':>8s} {'target':>7s}")
    if "report" in args.only:
        n = size(1e7)
        s, y = data(n)
        row("calibration_report (defaults)", n, timed(lambda: calibration_report(s, y), repeat),
            "np.sort", n, sort_time(n, repeat), 30)
    if "kernel" in args.only:
        n, peer_n = size(1e6), size(1e7)
        s, y = data(n)
        row("calibration_curve kernel", n,
            timed(lambda: calibration_curve(s, y, method="kernel"), repeat),
            "np.sort", peer_n, sort_time(peer_n, repeat), 5)
    if "lcs" in args.only:
        n = size(1e7)
        s, y = data(n)
        row("lcs (defaults)", n, timed(lambda: lcs(s, y), repeat), "np.sort", n,
            sort_time(n, repeat), 1)
    if "curves" in args.only:
        n = size(2e7)
        s, y = data(n)
        peer = sort_time(n, repeat, arg=True)
        for method in ("binning", "local"):
            row(f"calibration_curve {method}", n,
                timed(lambda method=method: calibration_curve(s, y, method=method), repeat),
                "np.argsort", n, peer, 3)
            del method
    if "memory" in args.only:
        n = size(1e6)
        s, y = data(n)
        tracemalloc.start()
        start = time.perf_counter()
        smoothing_table(s, y)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        # the target is stated at n = 1e6; at a reduced scale it is only indicative
        verdict = ("met" if peak <= 250.0 else "MISSED") if n >= 1_000_000 else "(at 1e6)"
        print(f"{'smoothing_table peak memory':34s} {n:>10.0e} {seconds:9.2f} "
              f"{'tracemalloc':>11s} {'':>9s} {peak:7.0f}MB {'':>8s} {'':>8s} "
              f"{250:5.0f}MB  {verdict}", flush=True)


if __name__ == "__main__":
    main()
