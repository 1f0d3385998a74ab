"""Recalibrators: fit on 1e6 scores, predict on 1e7, next to what a user would pick instead.

In one run, on the same data (scores Beta(2, 3), events Bernoulli(s^1.3)), this prints in
seconds the best of ``--repeat`` runs of

* ``np.sort`` of the 1e7 prediction scores: the yardstick of the target (every locacal method
  predicts in at most 3x its time);
* locacal's ``PlattCalibrator``, ``IsotonicCalibrator`` (R's step function, and linear),
  ``BetaCalibrator`` and ``LocalRegressionCalibrator`` (native, degrees 0 to 2 on its fine
  prediction grid, and degree 0 read through locfit's evaluation tree);
* scikit-learn's ``IsotonicRegression`` and its sigmoid (Platt) calibration,
  ``sklearn.calibration._SigmoidCalibration`` (what ``CalibratedClassifierCV(method="sigmoid")``
  fits on each fold; private, but the only way to time it on bare scores);
* the ``betacal`` package (Kull et al.'s own beta calibration);

then the predict-time ratio to ``np.sort``. Nothing is asserted: this prints a table.

Usage: ``python benchmarks/bench_recalibration.py [--n-fit 1e6] [--n-predict 1e7]
[--repeat 3]``
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.calibration import _SigmoidCalibration
from sklearn.isotonic import IsotonicRegression

from locacal.curves import (
    BetaCalibrator,
    IsotonicCalibrator,
    LocalRegressionCalibrator,
    PlattCalibrator,
)


def best_of(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-fit", type=float, default=1e6)
    parser.add_argument("--n-predict", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n_fit, n_pred = int(args.n_fit), int(args.n_predict)

    rng = np.random.default_rng(20240101)
    s_fit = rng.beta(2, 3, size=n_fit)
    d_fit = (rng.uniform(size=n_fit) < s_fit**1.3).astype(np.int64)
    s_new = rng.beta(2, 3, size=n_pred)

    t_sort = best_of(lambda: np.sort(s_new), args.repeat)

    import betacal

    def betacal_fit():
        with warnings.catch_warnings():  # betacal turns all warnings off globally otherwise
            return betacal.BetaCalibration("abm").fit(s_fit, d_fit)

    candidates: dict[str, tuple[Callable[[], object], Callable[[object], object]]] = {
        "locacal platt": (lambda: PlattCalibrator().fit(s_fit, d_fit),
                          lambda m: m.predict(s_new)),
        "locacal isotonic (step)": (lambda: IsotonicCalibrator().fit(s_fit, d_fit),
                                    lambda m: m.predict(s_new)),
        "locacal isotonic (linear)": (
            lambda: IsotonicCalibrator(interpolation="linear").fit(s_fit, d_fit),
            lambda m: m.predict(s_new)),
        "locacal beta (abm)": (lambda: BetaCalibrator().fit(s_fit, d_fit),
                               lambda m: m.predict(s_new)),
        "locacal local deg 0": (lambda: LocalRegressionCalibrator(degree=0, kernel="rect").fit(
            s_fit, d_fit), lambda m: m.predict(s_new)),
        "locacal local deg 1": (lambda: LocalRegressionCalibrator(degree=1, kernel="rect").fit(
            s_fit, d_fit), lambda m: m.predict(s_new)),
        "locacal local deg 2": (lambda: LocalRegressionCalibrator(degree=2, kernel="rect").fit(
            s_fit, d_fit), lambda m: m.predict(s_new)),
        "locacal local deg 0 (locfit evaluation)": (
            lambda: LocalRegressionCalibrator(degree=0, kernel="rect",
                                              evaluation="locfit").fit(s_fit, d_fit),
            lambda m: m.predict(s_new)),
        "sklearn IsotonicRegression": (
            lambda: IsotonicRegression(out_of_bounds="clip").fit(s_fit, d_fit),
            lambda m: m.predict(s_new)),
        "sklearn sigmoid (_SigmoidCalibration)": (
            lambda: _SigmoidCalibration().fit(s_fit, d_fit),
            lambda m: m.predict(s_new)),
        "betacal (abm)": (betacal_fit, lambda m: m.predict(s_new)),
    }
    rows = []
    for name, (fit, predict) in candidates.items():
        start = time.perf_counter()
        model = fit()
        t_fit = time.perf_counter() - start
        t_pred = best_of(lambda predict=predict, model=model: predict(model), args.repeat)
        rows.append({"method": name, "fit_s": t_fit, "predict_s": t_pred,
                     "predict / np.sort": t_pred / t_sort})
        print(f"  {name:40s} fit {t_fit:7.3f} s   predict {t_pred:7.3f} s", flush=True)
    table = pd.DataFrame(rows).set_index("method")
    print(f"\nfit on {n_fit:.0e} scores, predict on {n_pred:.0e}; "
          f"np.sort of the {n_pred:.0e} scores: {t_sort:.3f} s (best of {args.repeat})\n")
    print(table.to_string(float_format="{:.3f}".format))
    ours = table.loc[table.index.str.startswith("locacal"), "predict / np.sort"]
    print(f"\nworst locacal predict / np.sort: {ours.max():.2f} (target <= 3)")


if __name__ == "__main__":
    main()
