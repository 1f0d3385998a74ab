"""Larger than memory: locacal on lazily generated Dask arrays, time and peak memory.

Two tables.

1. ``--check N`` (default 2e7): the same scores in memory (NumPy) and as a Dask array in
   chunks; Brier, uniform ECE (exact), quantile ECE and LCS (within their stated bounds,
   printed) through both paths.
2. ``--exps 8 9``: n = 10^exp scores generated lazily (``dask.array.random``, Beta(2, 3)
   scores, events Bernoulli(s^1.3), chunks of ``--chunk`` rows) and reduced by
   ``locacal.calibration_report`` (cell statistics per partition, tree merge: one pass gives
   the 15 report columns the cells determine, :data:`locacal.report.table.NOT_FROM_CELLS` lists
   the others). Beside it, in the same
   run, the peer a Dask user would write for one number: ``((y - s) ** 2).mean()`` on the
   same lazy arrays (the cost of generating the data and one plain reduction). Each row runs
   in a fresh process, so the peak resident memory (``resource.getrusage`` maxrss) is that
   row's own; with ``--distributed`` the rows run on a ``LocalCluster`` of 2 worker processes
   (1 thread each) and the peak is the sum of the workers' and the client's.

Nothing is asserted: this prints tables. Usage::

    nice python benchmarks/bench_dask.py --check 2e7 --exps 8 9 [--distributed]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

GIB = 2.0**30


def _peak_rss() -> float:
    """This process's peak resident memory in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def _lazy_sample(n: int, chunk: int, seed: int):
    import dask.array as da

    rng = da.random.default_rng(seed)
    s = rng.beta(2.0, 3.0, size=n, chunks=chunk)
    y = (rng.random(size=n, chunks=chunk) < s**1.3).astype(np.float64)
    return s, y


def _row(n: int, chunk: int, distributed: bool) -> dict:
    """One row of table 2, run in its own process."""
    import locacal

    client = cluster = None
    if distributed:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None, memory_limit="3GiB")
        client = Client(cluster)
    else:
        import dask

        dask.config.set(scheduler="threads", num_workers=2)
    s, y = _lazy_sample(n, chunk, 2026)
    start = time.perf_counter()
    peer = float(((y - s) ** 2).mean().compute())
    t_peer = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = locacal.calibration_report(s, y)
    t_report = time.perf_counter() - start
    peak = _peak_rss()
    if client is not None:
        workers = client.run(lambda: __import__("resource").getrusage(
            __import__("resource").RUSAGE_SELF).ru_maxrss * 1024.0)
        peak += sum(workers.values())
        client.close()
        cluster.close()
    return {"n": n, "t_report": t_report, "t_peer": t_peer, "peak": peak,
            "brier": float(report["brier"]), "peer_brier": peer, "lcs": float(report["lcs"]),
            "ece": float(report["ece"])}


def _check(n: int, chunk: int) -> None:
    """Table 1: in memory vs Dask on the same scores."""
    import dask.array as da

    import locacal
    from locacal.data.cells import ScoreStatistics
    from locacal.metrics.lcs_wmse import lcs_with_bound

    rng = np.random.default_rng(7)
    s = rng.beta(2.0, 3.0, n)
    y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
    ds, dy = da.from_array(s, chunks=chunk), da.from_array(y, chunks=chunk)
    stats = ScoreStatistics.from_arrays(s, y)
    _, ece_bound = stats.quantile_bins(10)
    _, lcs_bound = lcs_with_bound(stats)
    rows = [
        ("brier", locacal.brier_score, {}, 0.0),
        ("ece uniform", locacal.ece, {"strategy": "uniform"}, 0.0),
        ("ece quantile", locacal.ece, {}, ece_bound),
        ("lcs", locacal.lcs, {}, lcs_bound),
    ]
    print(f"in memory vs Dask (chunks of {chunk:.0e}), n = {n:.0e}")
    print(f"{'metric':<13} {'memory':>12} {'dask':>12} {'|diff|':>9} {'bound':>9} "
          f"{'t memory':>9} {'t dask':>7}")
    for name, func, kw, bound in rows:
        start = time.perf_counter()
        a = func(s, y, **kw)
        t_mem = time.perf_counter() - start
        start = time.perf_counter()
        b = func(ds, dy, **kw)
        t_dask = time.perf_counter() - start
        print(f"{name:<13} {a:>12.9f} {b:>12.9f} {abs(a - b):>9.1e} {bound:>9.1e} "
              f"{t_mem:>9.2f} {t_dask:>7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", type=float, default=2e7, help="n of table 1 (0: skip)")
    parser.add_argument("--exps", type=int, nargs="*", default=[8])
    parser.add_argument("--chunk", type=float, default=5e6, help="rows per partition")
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--row", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    chunk = int(args.chunk)
    if args.row:
        print(json.dumps(_row(int(args.row), chunk, args.distributed)))
        return
    if args.check:
        _check(int(args.check), chunk)
    if not args.exps:
        return
    where = "LocalCluster, 2 workers x 1 thread" if args.distributed else "threads, 2 workers"
    print(f"\nlazily generated scores, chunks of {chunk:.0e}, {where}")
    print(f"{'n':>7} {'report s':>9} {'peer s':>7} {'ratio':>6} {'peak GiB':>9} "
          f"{'brier':>10} {'peer brier':>10} {'lcs':>10} {'ece':>8}")
    for exp in args.exps:
        cmd = [sys.executable, __file__, "--row", f"1e{exp}", "--chunk", str(chunk)]
        if args.distributed:
            cmd.append("--distributed")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{'1e' + str(exp):>7} {r['t_report']:>9.1f} {r['t_peer']:>7.1f} "
              f"{r['t_report'] / r['t_peer']:>6.1f} {r['peak'] / GIB:>9.2f} "
              f"{r['brier']:>10.7f} {r['peer_brier']:>10.7f} {r['lcs']:>10.7f} "
              f"{r['ece']:>8.5f}", flush=True)


if __name__ == "__main__":
    main()
