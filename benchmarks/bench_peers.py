"""locacal next to the tool a user would pick instead, in one run (issue 12, item 4).

For n = 1e5, 1e6 and 1e7 scores (Beta(2, 3), events Bernoulli(s^1.3)) this prints, in seconds,
the best of ``--repeat`` runs (locacal and its peer timed alternately, so that a change of load
hits both) of

====================================  ==============================================  =========
locacal                               peer                                            target
====================================  ==============================================  =========
``lcs`` (exact, defaults)             ``np.sort`` of the same scores                  <= 1 at
                                                                                      1e7, < 10
                                                                                      at 1e5
``ece`` (10 quantile bins)            scikit-learn ``calibration_curve(strategy=      <= 1
                                      "quantile", n_bins=10)``
``IsotonicCalibrator`` fit + predict  scikit-learn ``IsotonicRegression`` fit +       <= 1
                                      predict (``out_of_bounds="clip"``)
``BetaCalibrator`` fit + predict      ``betacal.BetaCalibration("abm")`` fit +        <= 1
                                      predict
``calibration_report`` (default       ``np.sort`` of the same scores                  < 30
columns)
====================================  ==============================================  =========

and the ratio locacal / peer. Calibrators fit and predict on the same n scores. Nothing is
asserted: this prints a table. The machine should be otherwise idle (a shared machine
inflates both columns, the sort more than the passes over the data).

Usage: ``python benchmarks/bench_peers.py [--sizes 1e5 1e6 1e7] [--repeat 3]
[--skip report]``
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.isotonic import IsotonicRegression

import locacal

TASKS = ("lcs", "ece", "isotonic", "beta", "report")


def best_pair(ours: Callable[[], object], peer: Callable[[], object],
              repeat: int) -> tuple[float, float]:
    """Best time of each over ``repeat`` alternating runs."""
    best = [np.inf, np.inf]
    for _ in range(repeat):
        for i, fn in enumerate((ours, peer)):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best[0], best[1]


def betacal_fit_predict(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    import betacal

    with warnings.catch_warnings():  # betacal turns all warnings off globally otherwise
        return betacal.BetaCalibration("abm").fit(s, y).predict(s)


def cases(s: np.ndarray, y: np.ndarray) -> dict[str, tuple[Callable, str, Callable, str]]:
    """task -> (locacal, peer's name, peer, target of the ratio)."""
    sort = lambda: np.sort(s)  # noqa: E731
    return {
        "lcs": (lambda: locacal.lcs(s, y), "np.sort", sort, "<= 1 (1e7), < 10 (1e5)"),
        "ece": (lambda: locacal.ece(s, y), "sklearn calibration_curve",
                lambda: calibration_curve(y, s, n_bins=10, strategy="quantile"), "<= 1"),
        "isotonic": (lambda: locacal.IsotonicCalibrator().fit(s, y).predict(s),
                     "sklearn IsotonicRegression",
                     lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s),
                     "<= 1"),
        "beta": (lambda: locacal.BetaCalibrator().fit(s, y).predict(s),
                 "betacal BetaCalibration", lambda: betacal_fit_predict(s, y), "<= 1"),
        "report": (lambda: locacal.calibration_report(s, y), "np.sort", sort, "< 30"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6, 1e7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", nargs="*", default=(), choices=TASKS)
    args = parser.parse_args()
    warnings.simplefilter("ignore", locacal.CalibrationWarning)
    rng = np.random.default_rng(2024)
    s0 = rng.beta(2, 3, size=100_000)
    y0 = (rng.uniform(size=s0.size) < s0**1.3).astype(np.float64)
    for ours, _, peer, _ in cases(s0, y0).values():  # warm-up: imports, first calls
        ours()
        peer()
    header = (f"{'n':>10} {'task':<10} {'locacal (s)':>11}  {'peer':<27} {'peer (s)':>9} "
              f"{'ratio':>6}  target")
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        n = int(size)
        s = rng.beta(2, 3, size=n)
        y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
        for task, (ours, name, peer, target) in cases(s, y).items():
            if task in args.skip:
                continue
            t_ours, t_peer = best_pair(ours, peer, args.repeat)
            print(f"{n:>10} {task:<10} {t_ours:11.3f}  {name:<27} {t_peer:9.3f} "
                  f"{t_ours / t_peer:6.2f}  {target}", flush=True)

if __name__ == "__main__":
    main()
