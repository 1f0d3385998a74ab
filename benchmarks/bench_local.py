"""Speed of the native local regression against np.sort and R's locfit.

Run ``python benchmarks/bench_local.py`` (add ``--no-r`` without R, ``--sizes 1e4,1e5`` for a
quick look). For n = 1e4 ... 1e7 uniform scores with Bernoulli(score) labels it prints the
seconds taken by

* ``np.sort`` of the scores (the floor any exact method pays);
* the native estimate at the slides' 100-point grid (``local_estimate``: sorting included),
  exact evaluation for degrees 0-2 with the rect and tricube kernels, and locfit's tree
  (``evaluation="locfit"``);
* R's locfit (``locfit`` + ``predict``) timed inside R with ``system.time`` on the same data
  (default tree, degrees 0 and 2, and exact evaluation ``ev = grid``); skipped at 1e7 when
  the 1e6 time extrapolates beyond 60 s;

then the time to evaluate a fitted curve at 1e7 new scores (``curve(new)``, the
recalibration use) and the peak memory of a 1e7 fit above its inputs (``tracemalloc``).
Timings are the best of 3 runs below n = 1e6, single runs above.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from locacal.curves import calibration_curve
from locacal.curves.curve import slides_grid
from locacal.curves.local import local_estimate

NATIVE = [
    ("native deg 0 rect", {"degree": 0, "kernel": "rect"}),
    ("native deg 1 rect", {"degree": 1, "kernel": "rect"}),
    ("native deg 2 rect", {"degree": 2, "kernel": "rect"}),
    ("native deg 0 tricube", {"degree": 0, "kernel": "tricube"}),
    ("native deg 1 tricube", {"degree": 1, "kernel": "tricube"}),
    ("native deg 2 tricube", {"degree": 2, "kernel": "tricube"}),
    ("native tree deg 0 rect", {"degree": 0, "kernel": "rect", "evaluation": "locfit"}),
    ("native tree deg 2 rect", {"degree": 2, "kernel": "rect", "evaluation": "locfit"}),
]
R_ROWS = ["R locfit tree deg 0 rect", "R locfit tree deg 2 rect", "R locfit exact deg 0 rect"]

R_SCRIPT = """
suppressMessages(library(locfit))
n <- {n}
s <- readBin("{s}", "double", n); d <- readBin("{d}", "double", n)
grid <- readBin("{g}", "double", {m})
t0 <- system.time({{fit <- locfit(d ~ lp(s, nn = 0.15, deg = 0), kern = "rect", maxk = 200);
                   p <- predict(fit, newdata = grid)}})[["elapsed"]]
t2 <- if ({deg2}) system.time({{fit <- locfit(d ~ lp(s, nn = 0.15, deg = 2), kern = "rect",
                   maxk = 200); p <- predict(fit, newdata = grid)}})[["elapsed"]] else NA
te <- if ({exact}) system.time({{fit <- locfit(d ~ lp(s, nn = 0.15, deg = 0), kern = "rect",
                   ev = grid); p <- predict(fit, where = "fitp")}})[["elapsed"]] else NA
cat(t0, t2, te, "\\n")
"""


def best_time(fn, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s).astype(float)


def r_times(s: np.ndarray, d: np.ndarray, grid: np.ndarray, *, deg2: bool,
            exact: bool) -> list[float]:
    """locfit + predict timed inside R on the same data (binary transfer)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {k: Path(tmp) / f"{k}.bin" for k in "sdg"}
        for key, arr in zip("sdg", (s, d, grid), strict=True):
            arr.astype("<f8").tofile(paths[key])
        script = R_SCRIPT.format(n=s.size, m=grid.size, s=paths["s"], d=paths["d"],
                                 g=paths["g"], deg2="TRUE" if deg2 else "FALSE",
                                 exact="TRUE" if exact else "FALSE")
        (Path(tmp) / "b.R").write_text(script)
        out = subprocess.run(["Rscript", "--vanilla", str(Path(tmp) / "b.R")],
                             capture_output=True, text=True, timeout=600, check=True)
    return [float(v) if v != "NA" else np.nan for v in out.stdout.split()]


def run_sizes(sizes: list[int], with_r: bool) -> dict[str, dict[int, float]]:
    table: dict[str, dict[int, float]] = {}
    r_at_1e6 = None
    for n in sizes:
        s, d = make_data(n)
        grid = slides_grid(s)
        repeats = 3 if n < 1_000_000 else 1
        table.setdefault("np.sort", {})[n] = best_time(lambda s=s: np.sort(s), repeats)
        for name, kw in NATIVE:
            table.setdefault(name, {})[n] = best_time(
                lambda s=s, d=d, grid=grid, kw=kw: local_estimate(s, d, None, grid, **kw),
                repeats)
        if with_r:
            skip = n > 1_000_000 and (r_at_1e6 is None or 10 * r_at_1e6 > 60)
            small = n <= 1_000_000
            times = [np.nan] * 3 if skip else r_times(s, d, grid, deg2=small, exact=small)
            if n == 1_000_000:
                r_at_1e6 = times[0]
            for name, value in zip(R_ROWS, times, strict=True):
                table.setdefault(name, {})[n] = value
        print(f"  n = {n:.0e} done", flush=True)
    return table


def print_table(table: dict[str, dict[int, float]], sizes: list[int]) -> None:
    head = f"{'seconds':<28}" + "".join(f"{f'n = {n:.0e}':>12}" for n in sizes)
    print(head)
    print("-" * len(head))
    for name, row in table.items():
        cells = "".join(f"{row.get(n, np.nan):>12.3f}" if np.isfinite(row.get(n, np.nan))
                        else f"{'skipped':>12}" for n in sizes)
        print(f"{name:<28}{cells}")


def evaluator_table(n: int = 1_000_000, m: int = 10_000_000) -> None:
    """Fitted curve evaluated at m new scores (first call builds the fine grid)."""
    s, d = make_data(n, seed=1)
    new = np.random.default_rng(2).uniform(size=m)
    print(f"\nEvaluating a fitted curve (n = {n:.0e}) at {m:.0e} new scores, seconds")
    print(f"{'np.sort of the new scores':<40}{best_time(lambda: np.sort(new), 1):>10.3f}")
    rect0 = {"degree": 0, "kernel": "rect"}
    for label, kw in [("exact deg 0 rect (grid map)", rect0),
                      ("exact deg 2 tricube (grid map)", {"degree": 2, "kernel": "tricube"}),
                      ("tree deg 0 rect (locfit's map)", {**rect0, "evaluation": "locfit"}),
                      ("tree deg 2 rect (locfit's map)",
                       {"degree": 2, "kernel": "rect", "evaluation": "locfit"})]:
        curve = calibration_curve(s, d, method="local", **kw)
        first = best_time(lambda curve=curve: curve(new), 1)
        again = best_time(lambda curve=curve: curve(new), 1)
        bound = getattr(curve.evaluator, "error_bound", None)
        note = "" if bound is None else f"   error bound {bound:.1e}"
        print(f"{label:<40}{first:>10.3f} first, {again:.3f} next{note}")


def memory_table(n: int = 10_000_000) -> None:
    s, d = make_data(n, seed=3)
    grid = slides_grid(s)
    inputs = s.nbytes + d.nbytes
    print(f"\nPeak memory above the inputs ({inputs / 2**20:.0f} MiB) at n = {n:.0e}, MiB")
    for name, kw in [("deg 0 rect", {"degree": 0, "kernel": "rect"}),
                     ("deg 2 tricube", {"degree": 2, "kernel": "tricube"}),
                     ("tree deg 2 rect", {"degree": 2, "kernel": "rect", "evaluation": "locfit"})]:
        tracemalloc.start()
        local_estimate(s, d, None, grid, **kw)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{name:<40}{peak / 2**20:>10.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e4,1e5,1e6,1e7")
    parser.add_argument("--no-r", action="store_true")
    args = parser.parse_args()
    sizes = [int(float(v)) for v in args.sizes.split(",")]
    with_r = not args.no_r and shutil.which("Rscript") is not None
    print("Local regression at the slides' 100-point grid (nn = 0.15), seconds")
    table = run_sizes(sizes, with_r)
    print_table(table, sizes)
    evaluator_table(n=min(max(sizes), 1_000_000))
    if max(sizes) >= 10_000_000:
        memory_table()


if __name__ == "__main__":
    main()
