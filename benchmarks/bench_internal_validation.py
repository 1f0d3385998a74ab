"""Does the optimism correction of ``internal_validation`` recover external performance?

Design (issue 19, part 4). Each of ``--reps`` development sets has 500 rows of 20 standard
normal predictors, 5 with an effect (log-odds 0.6, -0.5, 0.4, -0.3, 0.2; intercept -0.4,
about 42 % events) and 15 noise predictors. An unpenalised logistic regression
(scikit-learn, ``C=inf``) is fitted on it. For each set:

* apparent: its metrics on its own 500 rows;
* corrected: ``internal_validation`` with ``method="bootstrap"`` and ``".632"`` (``--boot``
  samples each) and ``"cv"`` (10 folds);
* external: its metrics on one large external sample (``--external`` rows, the same DGP,
  shared by all sets), the estimand the corrections aim at: the model's performance in the
  population it was developed in.

Printed: for every metric (AUC, Brier, calibration-in-the-large, calibration slope, ICI,
LCS), the mean over the sets of each column with its Monte Carlo standard error
(sd / sqrt(reps)), and the mean difference corrected - external with its MC s.e. (paired).
The acceptance check of the issue: the mean bootstrap-corrected slope lies within 0.03 of
the mean external slope.

Full run (default): 50 sets, 100 bootstrap samples per method (the function's default is
200; 100 keeps the run near 12 min of one core: measured 6.7 s of CPU per set at 50 bootstrap
samples; the bootstrap noise of a corrected value is small beside its spread over development
sets). The table in docs/guide/internal_validation.md is sets 0-214 of
``--boot 50 --external 50000`` (run in three pieces with ``--first``/``--reps`` and
``--out``, read together with ``--summarise``).
``--quick``: 4 sets, 20 bootstrap samples, 20 000 external rows.

Usage: ``python benchmarks/bench_internal_validation.py [--reps 50] [--boot 100] [--quick]
[--out results.csv]``; ``--summarise results.csv`` prints the tables of a partial run.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from locacal._validation import CalibrationWarning
from locacal.studies.optimism import internal_validation, sample_metrics

N_DEV = 500
BETA = np.r_[0.6, -0.5, 0.4, -0.3, 0.2, np.zeros(15)]
INTERCEPT = -0.4
SHOWN = ["auc", "brier", "intercept", "slope", "ici", "lcs"]
COLUMNS = ["apparent", "bootstrap", ".632", "cv", "external"]


def draw(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    X = rng.normal(size=(n, BETA.size))
    p = 1.0 / (1.0 + np.exp(-(INTERCEPT + X @ BETA)))
    return X, (rng.uniform(size=n) < p).astype(int)


def one_set(child: np.random.SeedSequence, external: tuple[np.ndarray, np.ndarray],
            n_boot: int) -> dict[str, dict[str, float]]:
    data_seed, val_seed = child.spawn(2)
    X, y = draw(N_DEV, np.random.default_rng(data_seed))
    model = LogisticRegression(C=np.inf, solver="newton-cholesky")
    row: dict[str, dict[str, float]] = {}
    for method in ("bootstrap", ".632", "cv"):
        res = internal_validation(model, X, y, method=method, n_boot=n_boot, seed=val_seed,
                                  progress=False)
        row[method] = res.table["corrected"].to_dict()
        row["apparent"] = res.table["apparent"].to_dict()
    fitted = model.fit(X, y)
    row["external"] = sample_metrics(fitted.predict_proba(external[0])[:, 1],
                                     external[1].astype(float))
    return row


def summarise(long: pd.DataFrame, note: str) -> None:
    """Print the tables from the long results (set, column, metric, value)."""
    values = {col: long[long["column"] == col].pivot(index="set", columns="metric",
                                                     values="value")[SHOWN]
              for col in COLUMNS}
    reps = len(values["external"])
    se = np.sqrt(reps)
    print(f"{reps} development sets of {N_DEV} rows (5 signal + 15 noise predictors); {note}")
    print("\nMean over development sets (MC s.e.)")
    table = pd.DataFrame({col: [f"{v[m].mean():.4f} ({v[m].std() / se:.4f})" for m in SHOWN]
                          for col, v in values.items()}, index=SHOWN)
    print(table.to_string())
    print("\nMean of corrected - external (paired MC s.e.)")
    diffs = {}
    for col in ("apparent", "bootstrap", ".632", "cv"):
        d = values[col] - values["external"]
        diffs[col] = [f"{d[m].mean():+.4f} ({d[m].std() / se:.4f})" for m in SHOWN]
    print(pd.DataFrame(diffs, index=SHOWN).to_string())
    gap = values["bootstrap"]["slope"].mean() - values["external"]["slope"].mean()
    print(f"\nslope: mean bootstrap-corrected - mean external = {gap:+.4f} "
          f"({'within' if abs(gap) <= 0.03 else 'NOT within'} 0.03)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--boot", type=int, default=100)
    parser.add_argument("--external", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", help="CSV file that receives each set's results as it ends")
    parser.add_argument("--first", type=int, default=0,
                        help="run sets first..reps-1 only (set i is the same in every run), "
                             "to extend a run in pieces")
    parser.add_argument("--summarise", metavar="CSV", nargs="+",
                        help="print the tables of (possibly partial) --out files and stop")
    args = parser.parse_args()
    if args.summarise:
        summarise(pd.concat([pd.read_csv(f) for f in args.summarise]),
                  f"read from {', '.join(args.summarise)}")
        return
    if args.quick:
        args.reps, args.boot, args.external = 4, 20, 20_000
    warnings.simplefilter("ignore", CalibrationWarning)
    root = np.random.SeedSequence(args.seed)
    ext_seed, *children = root.spawn(args.reps + 1)
    external = draw(args.external, np.random.default_rng(ext_seed))
    start = time.perf_counter()
    records = []
    for i, child in enumerate(children):
        if i < args.first:
            continue
        row = one_set(child, external, args.boot)
        records += [(i, col, m, v) for col, metrics in row.items() for m, v in metrics.items()]
        if args.out:
            pd.DataFrame(records, columns=["set", "column", "metric", "value"]).to_csv(
                args.out, index=False)
    elapsed = time.perf_counter() - start
    summarise(pd.DataFrame(records, columns=["set", "column", "metric", "value"]),
              f"{args.boot} bootstrap samples, 10-fold cv, external n = {args.external}; "
              f"{elapsed:.0f} s")


if __name__ == "__main__":
    main()
