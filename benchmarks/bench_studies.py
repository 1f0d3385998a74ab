"""Time the full studies, and the metrics against the 2024 R code, in one run.

    python benchmarks/bench_studies.py            # full sizes
    python benchmarks/bench_studies.py --quick    # 20 samples, small grids (a smoke run)

Prints one table:

* the slides' §3 simulation, 6 scenarios x 200 samples x 2000 observations, every metric of
  ``calibration_report`` and the local-regression curve of each sample, on all cores;
* the tree grid study (3 minimum leaf sizes x 22 pruning strengths on 100,000 training rows,
  each tree assessed on the three splits) and the random-forest grid;
* LCS + WMSE + ECE + QMSE on 20 samples of the scenario gamma = 3, on one core, by locacal and
  by the 2024 R code (``bench_studies_metrics.R``: the same formulas in base R, because
  Debian's R lacks the binom package the original code loads; base R is lighter than the
  original dplyr pipelines, so the R time is a lower bound). Both timed in this run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from locacal import metrics, simulate, studies
from locacal.studies import run_simulation

HERE = Path(__file__).resolve().parent


def timed(func, *args, **kwargs):
    start = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - start


def four_metrics(samples) -> None:
    for df in samples:
        s, d = df["score"].to_numpy(), df["label"].to_numpy()
        metrics.lcs(s, d)
        metrics.wmse(s, d)
        metrics.ece(s, d)
        metrics.qmse(s, d)


def r_time(n_samples: int) -> float | None:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    res = subprocess.run([rscript, "--vanilla", str(HERE / "bench_studies_metrics.R"),
                          str(n_samples), "3"], capture_output=True, text=True, check=True)
    return float(re.search(r"elapsed ([0-9.]+)", res.stdout).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    args = parser.parse_args()
    n_samples = 20 if args.quick else 200
    rows = []

    sim, t_sim = timed(run_simulation, n_samples=n_samples, n_obs=2000, progress=False)
    rows.append((f"simulation 6 x {n_samples} x 2000, all metrics + curves", t_sim, None))
    data = studies.tree_data(seed=2024)
    grid_kwargs = {"min_leaves": (10, 100, 1000)}
    if args.quick:
        grid_kwargs["cps"] = (0.1, 0.01, 0.001, 1e-4, 0.0)
    tree_grid, t_tree = timed(studies.tree_grid_study, data=data, progress=False, **grid_kwargs)
    n_trees = tree_grid.metrics["model"].nunique()
    rows.append((f"tree grid, {n_trees} trees on 100k rows, 3 splits", t_tree, None))
    forest_kwargs = {"n_estimators": (10, 50)} if args.quick else {}
    forest_grid, t_forest = timed(studies.forest_grid_study, data=data, progress=False,
                                  **forest_kwargs)
    n_forests = forest_grid.metrics["model"].nunique()
    rows.append((f"forest grid, {n_forests} forests on 100k rows, 3 splits", t_forest, None))

    samples = [simulate.logistic_dgp(2000, gamma=3, seed=i) for i in range(20)]
    four_metrics(samples[:1])  # warm-up (imports, caches)
    _, t_py = timed(four_metrics, samples)
    rows.append(("LCS+WMSE+ECE+QMSE, 20 samples (gamma = 3), 1 core", t_py, r_time(20)))

    print(f"\nlocacal benchmark on {os.cpu_count()} cores"
          f"{' (quick run)' if args.quick else ''}\n")
    print(f"| {'task':<58} | {'locacal (s)':>11} | {'R 2024 (s)':>10} | {'R / locacal':>11} |")
    print(f"|{'-' * 60}|{'-' * 13}|{'-' * 12}|{'-' * 13}|")
    for name, t, tr in rows:
        r_col = "" if tr is None else f"{tr:10.2f}"
        ratio = "" if tr is None else f"{tr / t:11.1f}"
        print(f"| {name:<58} | {t:11.2f} | {r_col:>10} | {ratio:>11} |")

    med = sim.summary("median")["lcs"]
    print("\nmedian LCS per scenario:", ", ".join(
        f"{tr}={lv:.3g}: {v:.5f}" for (tr, lv), v in med.items()))
    best = tree_grid.best()
    test = best[best["split"] == "test"].iloc[0]
    print(f"KL-best tree: {test['model']} ({test['n_leaves']:g} leaves), test KL "
          f"{test['kl']:.4f}, MSE {test['true_mse']:.5f}, AUC {test['auc']:.4f}")
    fbest = forest_grid.best()
    ftest = fbest[fbest["split"] == "test"].iloc[0]
    print(f"KL-best forest: {ftest['model']}, test KL {ftest['kl']:.4f}, "
          f"MSE {ftest['true_mse']:.5f}, AUC {ftest['auc']:.4f}")


if __name__ == "__main__":
    main()
