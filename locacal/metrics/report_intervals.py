"""Bootstrap intervals and calibrated-model null expectations for the report's metrics.

Two resampling schemes, both over a fixed list of registry metrics:

* :func:`bootstrap_intervals`: the nonparametric bootstrap (Efron & Tibshirani 1993, ch. 6
  and 13): rows drawn with replacement (with their labels, weights and true probabilities),
  every metric recomputed on each resample, and the percentile interval
  [q_{(1-level)/2}, q_{(1+level)/2}] of the replicates.
* :func:`null_means`: the expectation of each calibration metric when the model is
  calibrated, by consistency resampling (Bröcker & Smith 2007): labels redrawn as
  D*_i ~ Bernoulli(s_i) given the scores, the metric recomputed and averaged. A calibration
  metric is never 0 in a finite sample; this mean is what a calibrated model with these very
  scores would show, the reference against which to read the observed value.

The LCS, ECE, QMSE and CORP MCB are evaluated for all null draws at once by the batch
statistics of :mod:`locacal.metrics._null_statistics`; the others once per draw through
:func:`locacal.metrics.registry.evaluate`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from locacal._validation import CalibrationWarning, warn
from locacal.metrics._null_statistics import binned_batch, lcs_batch, mcb_batch
from locacal.metrics.registry import evaluate

__all__ = ["NULL_METRICS", "bootstrap_intervals", "null_means"]

#: Calibration metrics that get a calibrated-model null expectation (NaN for the others:
#: accuracy or AUC say nothing about calibration, and their null would only restate the scores).
NULL_METRICS = (
    "calib_mse", "calib_err", "lcs", "ece", "ece_thresholded", "qmse", "wmse", "smece", "mcb",
    "ici", "e50", "e90", "emax", "cal_intercept", "cal_slope", "spiegelhalter_z",
)

#: Null draws evaluated together by a batch statistic (rows x n cells per chunk).
_CHUNK_CELLS = 1 << 22
#: Registry metrics with a batch statistic of the same value (checked in the tests of
#: calibration_test to 1e-12).
_BATCHES = {
    "lcs": lcs_batch,
    "ece": lambda s, w: binned_batch(s, w, squared=False),
    "qmse": lambda s, w: binned_batch(s, w, squared=True),
    "mcb": mcb_batch,
}


def _quiet(func: Callable[[], dict[str, float]]) -> dict[str, float]:
    """A replicate's metrics with its CalibrationWarnings silenced (a resample may hold one
    class or few distinct scores); NaN values are counted and reported once afterwards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        return func()


def _report_dropped(values: np.ndarray, names: Sequence[str], what: str) -> None:
    dropped = {m: int(k) for m, k in zip(names, np.isnan(values).sum(axis=0), strict=True)
               if k}
    if dropped:
        warn(f"{what}: some replicates are undefined and were left out (count per metric: "
             f"{dropped}); the result summarises the others")


def bootstrap_intervals(names: Sequence[str], scores: np.ndarray, labels: np.ndarray, *,
                        weights: np.ndarray | None, true_p: np.ndarray | None,
                        threshold: float, n_boot: int, level: float,
                        rng: np.random.Generator, tick: Callable[[], None]
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of the named metrics.

    Returns ``(lower, upper)``, one value per name: the (1 - level) / 2 and (1 + level) / 2
    quantiles (type 7) of the finite replicates; NaN where no replicate is finite.
    """
    n = scores.size
    replicates = np.full((n_boot, len(names)), np.nan)
    for b in range(n_boot):
        idx = rng.integers(0, n, size=n)
        row = _quiet(lambda idx=idx: evaluate(
            names, scores[idx], labels[idx], weights=None if weights is None else weights[idx],
            true_p=None if true_p is None else true_p[idx], threshold=threshold))
        replicates[b] = [row[m] for m in names]
        tick()
    _report_dropped(replicates, names, "bootstrap")
    alpha = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        lower, upper = np.nanquantile(replicates, [alpha, 1.0 - alpha], axis=0)
    return lower, upper


def _null_draws(scores: np.ndarray, n_draws: int, rng: np.random.Generator
                ) -> Iterator[np.ndarray]:
    rows = max(1, _CHUNK_CELLS // scores.size)
    for start in range(0, n_draws, rows):
        yield (rng.random((min(rows, n_draws - start), scores.size)) < scores).astype(
            np.float64)


def null_means(names: Sequence[str], scores: np.ndarray, *, weights: np.ndarray | None,
               threshold: float, n_draws: int, rng: np.random.Generator,
               tick: Callable[[], None]) -> np.ndarray:
    """Mean of each named metric over ``n_draws`` label vectors D* ~ Bernoulli(scores).

    Names outside :data:`NULL_METRICS` get NaN. The rows are sorted by score first (the
    metrics do not depend on the row order).
    """
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    w = None if weights is None else weights[order]
    wanted = [m for m in names if m in NULL_METRICS]
    batched = {m: _BATCHES[m](s, w) for m in wanted if m in _BATCHES}
    looped = [m for m in wanted if m not in batched]
    values = np.full((n_draws, len(wanted)), np.nan)
    column = {m: j for j, m in enumerate(wanted)}
    done = 0
    for labels in _null_draws(s, n_draws, rng):
        rows = slice(done, done + labels.shape[0])
        for m, batch in batched.items():
            values[rows, column[m]] = batch(labels)
        for i, y in enumerate(labels):
            if looped:
                row = _quiet(lambda y=y: evaluate(looped, s, y, weights=w,
                                                  threshold=threshold))
                values[done + i, [column[m] for m in looped]] = [row[m] for m in looped]
            tick()
        done += labels.shape[0]
    _report_dropped(values, wanted, "null expectation")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        means = dict(zip(wanted, np.nanmean(values, axis=0), strict=True))
    return np.array([means.get(m, np.nan) for m in names])
