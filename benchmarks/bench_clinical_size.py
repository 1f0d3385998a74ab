"""Size and power of the clinical calibration tests, by seeded simulation.

Data: the slides' logistic process (:func:`locacal.simulate.logistic_dgp`), the score being
the true probability (``gamma = 1``: calibrated, so every rejection is a type-I error) or its
over-confident distortion ``gamma = 1.25`` (scores pushed towards 0 and 1). For each n and
scenario, ``--reps`` data sets are drawn and each test is run at the 5 % level:

* ``hl_g-2``: :func:`locacal.metrics.hosmer_lemeshow` ``pvalue`` (hoslem.test's G - 2 df);
* ``hl_g``: its ``pvalue_external`` (G df, the reference for scores not fitted on the data);
* ``spiegelhalter``: :func:`locacal.metrics.spiegelhalter_z`;
* ``citl``: Wald test of calibration-in-the-large, intercept = 0
  (:func:`locacal.metrics.calibration_intercept_slope`);
* ``slope``: Wald test of slope = 1 (the 95 % interval misses 1).

Under ``gamma = 1`` the rates estimate the size (1 - coverage for the two intervals), under
``gamma = 1.25`` the power. The last column is the Monte Carlo standard error of a rate of 0.05.
Nothing is asserted: this prints a table.

Usage: ``python benchmarks/bench_clinical_size.py [--reps 1000] [--seed 2024]``
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from locacal.metrics import calibration_intercept_slope, hosmer_lemeshow, spiegelhalter_z
from locacal.simulate import logistic_dgp

TESTS = ["hl_g-2", "hl_g", "spiegelhalter", "citl", "slope"]


def rejections(scores: np.ndarray, labels: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Reject (1) or not (0) for each test of ``TESTS``."""
    hl = hosmer_lemeshow(scores, labels)
    table = calibration_intercept_slope(scores, labels)
    return np.array([hl.pvalue < alpha, hl.pvalue_external < alpha,
                     spiegelhalter_z(scores, labels).pvalue < alpha,
                     table.loc["intercept", "pvalue"] < alpha,
                     table.loc["slope", "pvalue"] < alpha], dtype=float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rows = []
    for gamma in (1.0, 1.25):
        for n_obs in (500, 2000):
            total = np.zeros(len(TESTS))
            for rep in range(args.reps):
                d = logistic_dgp(n_obs, gamma=gamma, seed=[args.seed, n_obs, rep])
                total += rejections(d["score"].to_numpy(), d["label"].to_numpy())
            rates = dict(zip(TESTS, total / args.reps, strict=True))
            rows.append({"gamma": gamma, "n": n_obs, **rates,
                         "mc_se_at_0.05": np.sqrt(0.05 * 0.95 / args.reps)})
    table = pd.DataFrame(rows)
    print(f"Rejection rates at the 5 % level, {args.reps} replications per row "
          "(gamma = 1: size; gamma = 1.25: power)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
