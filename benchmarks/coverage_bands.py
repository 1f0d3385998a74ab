"""Coverage of the 95 % bands of the local calibration curve (issue 9, item 5: measurement).

The default curve (``calibration_curve(s, d)``, ``LocalRegressionCalibrator()``: degree 1,
tricube, nn = 0.15) against the 2024 slides' degree 0 with the rectangular kernel.

Data: :func:`locacal.simulate.logistic_dgp` with gamma = 1 (calibrated), 3 (over-confident)
and 1/3 (under-confident). The score is expit(gamma eta) and D ~ B(expit(eta)), so the true
calibration map is g(p) = expit(logit(p) / gamma).

For each setting the band is computed on a grid of the population score quantiles: 19 points
equally spaced between the 5 % and 95 % quantiles ("mid", coverage averaged over them), and
the 1 % and 99 % quantiles ("q01", "q99"). Coverage = share of replications whose band holds
g at the point; its Monte Carlo standard error is sqrt(c (1 - c) / reps) (pointwise; the
"mid" average has a smaller one).

Run: ``PYTHONPATH=$PWD python benchmarks/coverage_bands.py [--reps 400] [--boot-reps 100]
[--methods local kernel lowess] [--settings default slides] [--sizes 2000 20000] [--cells]``.
``--methods``: ``local`` (the default) measures the local regression's pointwise and bootstrap
bands for each of ``--settings``; ``kernel`` (:class:`~locacal.curves.kernel.KernelCalibrator`,
``reg_type`` "lc" and "ll", default bandwidth) and ``lowess``
(:class:`~locacal.curves.lowess.LowessCalibrator`, defaults) their pointwise bands, all through
``calibration_curve(s, d, method=..., grid=..., band="pointwise")``. ``--cells``: the band of
the binned fit from cell statistics (``LocalRegressionCalibrator.from_statistics``, what Dask
input gets), pointwise only.

Measured (400 / 100 replications, 2026-11-23; mid, q01, q99):

* slides (deg0 rect), pointwise, n 2000: 0.93-0.95 mid, 0.11-0.12 at q01/q99; n 20000:
  0.81-0.92 mid, 0.00 at q01/q99 (the fixed-span bias does not shrink with n; the band does).
* slides, bootstrap, n 2000: 0.93-0.94 mid, 0.10 / 0.18-0.19 at q01/q99 (same bias).
* default (deg1 tricube), ``--settings default``:

  ========= ====== ============= ===== ===== =====
  band      n      scores        mid   q01   q99
  ========= ====== ============= ===== ===== =====
  pointwise 2000   calibrated    0.951 0.973 0.960
  pointwise 2000   over (3)      0.951 0.970 0.943
  pointwise 2000   under (1/3)   0.947 0.970 0.955
  pointwise 20000  calibrated    0.953 0.958 0.955
  pointwise 20000  over (3)      0.950 0.945 0.932
  pointwise 20000  under (1/3)   0.953 0.948 0.960
  bootstrap 2000   calibrated    0.943 0.920 0.940
  bootstrap 2000   over (3)      0.937 0.930 0.960
  bootstrap 2000   under (1/3)   0.938 0.910 0.940
  ========= ====== ============= ===== ===== =====

  (pointwise 400 samples, MC s.e. 0.011; bootstrap 100 samples of n_boot = 200, s.e. 0.022;
  the bootstrap rows were measured with the refit path, before the counts-based resampling
  of ``locacal.localfit._resample``, which draws the same distribution.)
* default from the cells (``--cells --settings default --reps 200``, 2026-11-23; the band
  Dask input gets, ``LocalRegressionCalibrator.from_statistics``; MC s.e. 0.015):

  ========= ====== ============= ===== ===== =====
  band      n      scores        mid   q01   q99
  ========= ====== ============= ===== ===== =====
  pointwise 2000   calibrated    0.948 0.975 0.960
  pointwise 2000   over (3)      0.947 0.960 0.950
  pointwise 2000   under (1/3)   0.944 0.975 0.965
  pointwise 20000  calibrated    0.954 0.970 0.945
  pointwise 20000  over (3)      0.952 0.960 0.925
  pointwise 20000  under (1/3)   0.953 0.960 0.955
  ========= ====== ============= ===== ===== =====

* kernel regression and LOWESS at their defaults, pointwise (``--methods kernel lowess
  --reps 200``, 2026-11-25; MC s.e. 0.015; about 1-2 s per row):

  ====== ====== ============= ===== ===== =====
  curve  n      scores        mid   q01   q99
  ====== ====== ============= ===== ===== =====
  kernel lc 2000  calibrated  0.944 0.950 0.965
  kernel lc 2000  over (3)    0.948 0.785 0.520
  kernel lc 2000  under (1/3) 0.943 0.950 0.960
  kernel lc 20000 calibrated  0.949 0.940 0.935
  kernel lc 20000 over (3)    0.954 0.505 0.165
  kernel lc 20000 under (1/3) 0.949 0.935 0.945
  kernel ll 2000  calibrated  0.947 0.960 0.960
  kernel ll 2000  over (3)    0.950 0.970 0.955
  kernel ll 2000  under (1/3) 0.944 0.960 0.965
  kernel ll 20000 calibrated  0.952 0.940 0.945
  kernel ll 20000 over (3)    0.951 0.940 0.950
  kernel ll 20000 under (1/3) 0.952 0.945 0.955
  lowess 2000   calibrated    0.948 0.975 0.960
  lowess 2000   over (3)      0.947 0.960 0.950
  lowess 2000   under (1/3)   0.944 0.975 0.965
  lowess 20000  calibrated    0.954 0.970 0.945
  lowess 20000  over (3)      0.952 0.960 0.925
  lowess 20000  under (1/3)   0.953 0.960 0.955
  ====== ====== ============= ===== ===== =====

  The Nadaraya-Watson band ("lc", the kernel default) falls short at the ends of
  over-confident scores: at the 1 % and 99 % quantiles (scores 0.033 and 0.975, bandwidth
  nrd0 = 0.052 at n 2000, 0.034 at 20000) the window is cut by the end of the data where g
  is steepest, and the local mean is pulled towards the interior (100 samples: mean estimate
  0.283 / 0.719 against g = 0.245 / 0.773 at n 2000, about 0.6-0.9 band half-widths; 0.270 /
  0.740 at n 20000, 1.0-1.4 half-widths). That boundary bias shrinks like the bandwidth,
  more slowly than the band, so coverage gets worse with n (0.79 / 0.52 -> 0.51 / 0.17).
  The local linear fit ("ll") has no such bias to first order and covers there. In the mid
  range every band covers (the 19 points' own rates lie in 0.90-0.985, as 200-sample noise
  around 0.95 would). LOWESS (degree 1, tricube, ``frac`` = 0.15, no iterations) is the
  default local fit with the same band (equal to the last bit on these data), so its rows are
  the default curve's at 200 samples: they equal the cell-band rows above, measured at the same
  seeds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit, logit

from locacal import LocalRegressionCalibrator, calibration_curve
from locacal.data.cells import ScoreStatistics
from locacal.simulate import logistic_dgp

GAMMAS = {"calibrated (1)": 1.0, "over (3)": 3.0, "under (1/3)": 1 / 3}
#: Local regression: "default", the calibrator's own defaults (no option passed); "slides":
#: degree 0, rect.
SETTINGS = {"default": {}, "slides": {"degree": 0, "kernel": "rect", "nn": 0.15}}
#: The other curves with a pointwise band, at their defaults (bandwidth, frac): the kernel
#: regression as Nadaraya-Watson ("lc") and local linear ("ll"), LOWESS without iterations.
OTHER_SETTINGS = {"kernel": {"lc": {"reg_type": "lc"}, "ll": {"reg_type": "ll"}},
                  "lowess": {"default": {}}}
METHOD_CHOICES = ("local", *OTHER_SETTINGS)


def quantile_grid(gamma: float) -> np.ndarray:
    """The 1 %, 5 %..95 % (19 points) and 99 % population quantiles of the score."""
    big = logistic_dgp(1_000_000, gamma=gamma, seed=12345)["score"].to_numpy()
    q05, q95, q01, q99 = np.quantile(big, [0.05, 0.95, 0.01, 0.99])
    return np.concatenate([np.linspace(q05, q95, 19), [q01, q99]])


def coverage(n: int, gamma: float, method: str, params: dict, band: str, reps: int,
             n_boot: int = 200, cells: bool = False) -> np.ndarray:
    grid = quantile_grid(gamma)
    truth = expit(logit(grid) / gamma)
    hits = np.zeros(grid.size)
    for r in range(reps):
        data = logistic_dgp(n, gamma=gamma, seed=1000 + r)
        s, d = data["score"], data["label"]
        if cells:
            stats = ScoreStatistics.from_arrays(s, d)
            curve = LocalRegressionCalibrator.from_statistics(stats, **params).curve(
                grid, band=band, n_boot=n_boot, seed=r)
        else:
            curve = calibration_curve(s, d, method=method, grid=grid, band=band,
                                      n_boot=n_boot, seed=r, **params)
        hits += (curve.lower <= truth) & (truth <= curve.upper)
    cov = hits / reps
    return np.array([cov[:19].mean(), cov[19], cov[20]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--boot-reps", type=int, default=100)
    parser.add_argument("--methods", nargs="+", choices=METHOD_CHOICES, default=["local"],
                        help="local (bands of --settings, pointwise and bootstrap); kernel, "
                             "lowess (pointwise only)")
    parser.add_argument("--settings", nargs="+", choices=tuple(SETTINGS),
                        default=list(SETTINGS), help="of the local regression")
    parser.add_argument("--sizes", nargs="+", type=int, default=[2000, 20000],
                        help="sample sizes of the pointwise runs (bootstrap: 2000)")
    parser.add_argument("--cells", action="store_true",
                        help="the binned fit from cell statistics (Dask input), pointwise")
    args = parser.parse_args()
    if args.cells and args.methods != ["local"]:
        parser.error("--cells is the local regression from cells; use --methods local")
    reps, boot_reps = args.reps, args.boot_reps
    boot = "local" in args.methods and not args.cells
    print(f"95 % band coverage of the true map g(p) = expit(logit(p)/gamma); "
          f"{reps} replications (pointwise)"
          + (f", {boot_reps} (bootstrap, n_boot = 200)" if boot else ""))
    print(f"MC s.e. at 0.95: {np.sqrt(0.95 * 0.05 / reps):.3f} (pointwise band)"
          + (f", {np.sqrt(0.95 * 0.05 / boot_reps):.3f} (bootstrap)" if boot else "") + "\n")
    header = (f"{'method':<8}{'setting':<10}{'band':<11}{'n':>7}  {'scores':<16}"
              f"{'mid':>6}{'q01':>7}{'q99':>7}")
    print(header)
    print("-" * len(header))
    pointwise = ("pointwise", reps, tuple(args.sizes))
    for method in args.methods:
        if method == "local":
            settings = {name: SETTINGS[name] for name in args.settings}
            runs = (pointwise,) if args.cells else (pointwise, ("bootstrap", boot_reps, (2000,)))
        else:
            settings, runs = OTHER_SETTINGS[method], (pointwise,)
        for name, params in settings.items():
            for band, nreps, sizes in runs:
                for n in sizes:
                    for label, gamma in GAMMAS.items():
                        start = time.perf_counter()
                        mid, lo, hi = coverage(n, gamma, method, params, band, nreps,
                                               cells=args.cells)
                        sec = time.perf_counter() - start
                        print(f"{method:<8}{name:<10}{band:<11}{n:>7}  {label:<16}{mid:6.3f}"
                              f"{lo:7.3f}{hi:7.3f}   ({sec:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
