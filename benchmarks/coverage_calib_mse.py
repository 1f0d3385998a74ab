"""Coverage of ``calib_mse_interval``: the debiased interval next to the thesis's procedure.

For gamma in (1, 1.5, 3), ``--reps`` samples of ``locacal.simulate.logistic_dgp(n, gamma=g)``
(gamma = 1: calibrated scores; gamma > 1: over-confident). The *true* CalibMSE of a sample is
the CalibMSE functional with each adaptive bin's mean label replaced by the mean of
``true_p`` in the bin (bins formed from the scores, as the estimate forms them):
theta = sum_b n_b / n (q_b - pi_b)^2. For a calibrated process (score = true_p) theta = 0.

Printed per gamma and method: the mean true CalibMSE, the mean plug-in and the mean centre
of the interval (bias), the coverage of theta and the share of intervals containing 0, each
rate with its Monte Carlo standard error sqrt(r (1 - r) / reps). Nothing is asserted.

Usage: ``python benchmarks/coverage_calib_mse.py [--reps 1000] [--n 2000]``
"""

from __future__ import annotations

import argparse

import numpy as np

from locacal.metrics import calib_mse_interval
from locacal.metrics._prepared import prepare
from locacal.simulate import logistic_dgp

GAMMAS = (1.0, 1.5, 3.0)
METHODS = ("debiased", "thesis")


def true_calib_mse(scores: np.ndarray, labels: np.ndarray, true_p: np.ndarray) -> float:
    """CalibMSE with each adaptive bin's mean label replaced by its mean true probability."""
    st = prepare(scores, labels).bin_statistics("adaptive")
    idx = st.assign(scores)
    pi = np.bincount(idx, weights=true_p, minlength=st.count.size) / st.count
    return float(st.weight @ (st.mean_score - pi) ** 2 / st.weight.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    seeds = np.random.SeedSequence(20261123).spawn(len(GAMMAS))
    print(f"n = {args.n}, {args.reps} samples per gamma, level 0.95")
    print(f"{'gamma':>5} {'method':>9} {'true':>9} {'plug-in':>9} {'centre':>9} "
          f"{'coverage':>14} {'contains 0':>14}")
    for gamma, ss in zip(GAMMAS, seeds, strict=True):
        truth, plug, centre = [], [], {m: [] for m in METHODS}
        cover = {m: 0 for m in METHODS}
        zero = {m: 0 for m in METHODS}
        for child in ss.spawn(args.reps):
            df = logistic_dgp(args.n, gamma=gamma, seed=child)
            s, d, p = (df[c].to_numpy(dtype=float) for c in ("score", "label", "true_p"))
            theta = true_calib_mse(s, d, p)
            truth.append(theta)
            for m in METHODS:
                ci = calib_mse_interval(s, d, method=m, seed=int(child.generate_state(1)[0]))
                centre[m].append(ci.mean)
                cover[m] += ci.lower <= theta <= ci.upper
                zero[m] += ci.lower <= 0.0
            plug.append(ci.estimate)

        def rate(k: int) -> str:
            r = k / args.reps
            return f"{r:.3f} ± {np.sqrt(r * (1 - r) / args.reps):.3f}"

        for m in METHODS:
            print(f"{gamma:5.1f} {m:>9} {np.mean(truth):9.5f} {np.mean(plug):9.5f} "
                  f"{np.mean(centre[m]):9.5f} {rate(cover[m]):>14} {rate(zero[m]):>14}")


if __name__ == "__main__":
    main()
