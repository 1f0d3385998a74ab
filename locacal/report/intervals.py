"""Bootstrap intervals and calibrated-model null expectations for the report's metrics.

Two resampling schemes, both over a fixed list of registry metrics:

* :func:`bootstrap_intervals`: the nonparametric bootstrap (Efron & Tibshirani 1993, ch. 6
  and 13): rows drawn with replacement (with their labels, weights and true probabilities)
  and every metric recomputed on each resample. The interval estimates the metric's
  *population value* (its limit as n -> infinity under the data-generating process, for the
  metric's fixed settings: bins, nn, grid). For the calibration errors
  (:data:`BASIC_METRICS`) it is the basic bootstrap interval clipped at 0 (Davison & Hinkley
  1997, §5.2, eq. 5.6), for the other metrics the percentile interval (Efron & Tibshirani
  1993, §13.3); see :func:`interval_bounds` for why.
* :func:`norm_bounds`: for the calibration errors of :data:`NORM_METRICS`, the interval
  [max(0, M^(1/r) - q)^r, (M^(1/r) + q)^r] with q the level quantile of the metric^(1/r)
  over the null draws below (:mod:`locacal.metrics.equivalence`: the inverted calibration
  test), which holds a population value at or near 0 where the bootstrap does not.
* :func:`null_means`: the expectation of each calibration metric when the model is
  calibrated, by consistency resampling (Bröcker & Smith 2007): labels redrawn as
  D*_i ~ Bernoulli(s_i) given the scores, the metric recomputed and averaged. A calibration
  metric is never 0 in a finite sample; this mean is what a calibrated model with these very
  scores would show, the reference against which to read the observed value.

The LCS, ECE, QMSE, WMSE, CORP MCB, calib_mse, calib_err, Spiegelhalter's z (batch
statistics of :mod:`locacal.metrics._null_statistics`) and the smooth ECE
(:mod:`locacal.metrics._smooth_ece_batch`) are evaluated for a chunk of null draws at once;
the bootstrap evaluates the metrics of :mod:`locacal.metrics._bootstrap_statistics` for a
chunk of resamples at once from their counts over the rows sorted once; the other metrics
are evaluated once per draw through :func:`locacal.metrics.registry.evaluate`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

from locacal._validation import CalibrationWarning, warn
from locacal.data.frequency import bootstrap_counts, consistency_counts, split_by_label
from locacal.localfit import event_prefix
from locacal.metrics._bootstrap_statistics import BATCHED, CountBatch, sorted_order
from locacal.metrics._null_statistics import (
    adaptive_batch,
    binned_batch,
    lcs_batch,
    mcb_batch,
    spiegelhalter_batch,
    wmse_batch,
)
from locacal.metrics._smooth_ece_batch import smece_batch
from locacal.metrics.equivalence import NORM_POWER, norm_interval
from locacal.metrics.registry import evaluate

__all__ = ["BASIC_METRICS", "NORM_METRICS", "NULL_METRICS", "bootstrap_intervals",
           "bootstrap_replicates", "interval_bounds", "norm_bounds", "null_means",
           "null_values", "report_intervals"]

#: Calibration metrics that get a calibrated-model null expectation (NaN for the others:
#: accuracy or AUC say nothing about calibration, and their null would only restate the scores).
NULL_METRICS = (
    "calib_mse", "calib_err", "lcs", "ece", "ece_thresholded", "qmse", "wmse", "smece", "mcb",
    "ici", "e50", "e90", "emax", "cal_intercept", "cal_slope", "spiegelhalter_z",
)

#: Calibration errors whose interval is the noise-norm interval from the null draws
#: (:func:`locacal.metrics.equivalence.norm_interval`), not a bootstrap interval: the ECE,
#: LCS, WMSE, smooth ECE, CORP's mcb and the ICI, whose bootstrap intervals miss a
#: population value at or near 0 (see :func:`interval_bounds`), and the binned squared
#: gaps calib_mse (its square root calib_err) and qmse, whose basic interval collapses to
#: [0, 0] when the value is below its bias (small samples).
NORM_METRICS = ("calib_mse", "calib_err", "lcs", "ece", "qmse", "wmse", "smece", "mcb", "ici")

#: Metrics whose bootstrap interval is the basic interval clipped at 0: nonnegative metrics
#: of noisy bin or neighbourhood means whose plug-in value is biased by about its spread,
#: upwards for the calibration errors and CORP's dsc (a squared or absolute gap of noisy
#: means, an isotonic fit), downwards for the refinement (mean of p_b (1 - p_b) over bins of
#: sqrt(n) rows, E = p (1 - p) (1 - 1/n_b)); the bootstrap replicates lie off the value by
#: about as much, in the same direction (see :func:`interval_bounds`). The others get the
#: percentile interval.
BASIC_METRICS = (
    "calib_mse", "calib_err", "refinement", "lcs", "ece", "ece_thresholded", "qmse", "wmse",
    "smece", "mcb", "dsc", "kl", "ici", "e50", "e90", "emax",
)

#: Metrics whose interval is formed on the scale of their square: calib_err = sqrt(calib_mse)
#: gets the square root of calib_mse's interval (the basic interval is not invariant under
#: a transformation; on the squared scale the bias is additive, sigma^2 / bin size).
_SQUARED_SCALE = {"calib_err": 2.0}

#: Null draws (and bootstrap resamples) evaluated together by a batch statistic (rows x n
#: cells per chunk). 2^20 (8 MB of float64 per chunk array) was about 5 % quicker than 2^22
#: at n = 1e5 (10 rows a chunk; the same at 1e4) and 2^19 10 % slower
#: (benchmarks/bench_report_ci.py); the draws do not depend on it.
_CHUNK_CELLS = 1 << 20
#: Registry metrics with a batch statistic of the same value (checked in the tests of
#: calibration_test and tests/test_bootstrap_batch.py to 1e-12); a builder may return None
#: (the adaptive bins when tied scores straddle a bin start), and the metric is then
#: evaluated draw by draw.
_BATCHES = {
    "lcs": lcs_batch,
    "ece": lambda s, w: binned_batch(s, w, squared=False),
    "qmse": lambda s, w: binned_batch(s, w, squared=True),
    "mcb": mcb_batch,
    "wmse": wmse_batch,
    "smece": smece_batch,
    "calib_mse": adaptive_batch,
    "calib_err": lambda s, w: adaptive_batch(s, w, root=True),
    "spiegelhalter_z": lambda s, w: spiegelhalter_batch(s, w, signed=True),
}
#: Batched null statistics that are the square root of another one's: taken from its values
#: when both are wanted (the same bits as their own batch statistic).
_ROOT_OF = {"calib_err": "calib_mse"}
#: Batched null statistics that take the running event counts of a chunk (``prefix``,
#: :func:`locacal.localfit.event_prefix`) without weights: computed once per chunk for all
#: of them when one of :data:`_PREFIX_USERS` (which need them anyway) is wanted; the binned
#: ones then take their bin sums from them instead of summing the labels.
_PREFIX_USERS = ("lcs", "wmse", "smece")
_PREFIX_TAKERS = (*_PREFIX_USERS, "ece", "qmse", "calib_mse", "calib_err")


_F = TypeVar("_F", bound=Callable[..., Any])


def _one_blas_thread(func: _F) -> _F:
    """Run ``func`` with one BLAS thread. The products of the resampling (a chunk's counts
    or labels against a few vectors, the builders' dot products) are memory-bound, and idle
    BLAS threads spin between calls: measured at n = 1e5, n_boot = 200 on a shared
    two-core machine, the bootstrap's CPU time fell from 0.49 s to 0.34 s and the WMSE
    null builder's from 0.031 s to 0.015 s."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with threadpool_limits(limits=1, user_api="blas"):
            return func(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


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


@_one_blas_thread
def bootstrap_replicates(names: Sequence[str], scores: np.ndarray, labels: np.ndarray, *,
                         weights: np.ndarray | None, true_p: np.ndarray | None,
                         threshold: float, n_boot: int, rng: np.random.Generator,
                         tick: Callable[[], None],
                         counts: np.ndarray | None = None,
                         order: np.ndarray | None = None) -> np.ndarray:
    """The named metrics on ``n_boot`` resamples of the rows drawn with replacement.

    Returns an ``(n_boot, len(names))`` array; NaN where a replicate is undefined (counted
    and reported by one CalibrationWarning). With ``counts`` (frequency weights; ``weights``
    relative) the observations are resampled: multinomial counts per row
    (:func:`~locacal.data.frequency.bootstrap_counts`), the law of the expanded rows'
    bootstrap.

    Each resample is the sample with row i repeated c_i times; the metrics of
    :data:`~locacal.metrics._bootstrap_statistics.BATCHED` are evaluated for a chunk of
    resamples at once from their counts over the rows sorted once
    (:class:`~locacal.metrics._bootstrap_statistics.CountBatch`, equal to the metric on
    the expanded resample), the others one resample at a time through
    :func:`~locacal.metrics.registry.evaluate`. The draws (row indices, or multinomial
    counts) and their order are the same either way: the row indices are drawn as positions
    in that sort (uniform, so uniform rows), whose counts the batch takes as they are.
    ``order``: that sort (:func:`~locacal.metrics._bootstrap_statistics.sorted_order`) when
    the caller has it already.
    """
    n = scores.size
    replicates = np.full((n_boot, len(names)), np.nan)
    batched = [j for j, m in enumerate(names) if m in BATCHED]
    looped = [m for m in names if m not in BATCHED]
    looped_columns = [j for j, m in enumerate(names) if m not in BATCHED]
    if order is None:
        order = sorted_order(scores, labels, weights)
    batch = (CountBatch(scores[order], labels[order],
                        None if weights is None else weights[order],
                        None if true_p is None else true_p[order], threshold)
             if batched else None)
    rows = max(1, _CHUNK_CELLS // max(n, 1))
    # every chunk's counts in one array (a fresh 8 MB array per chunk costs page faults)
    buffer = np.empty((min(rows, n_boot), n if batch is not None else 0), dtype=np.int64)
    for start in range(0, n_boot, rows):
        chunk = buffer[:min(rows, n_boot - start)]
        for k in range(chunk.shape[0]):
            if counts is not None:
                drawn = bootstrap_counts(rng, counts, n, 1)[0].astype(np.float64)
                if batch is not None:
                    chunk[k] = drawn[order]
                if looped:
                    row = _quiet(lambda drawn=drawn: evaluate(
                        looped, scores, labels, weights=weights, frequency_weights=drawn,
                        true_p=true_p, threshold=threshold))
                    replicates[start + k, looped_columns] = [row[m] for m in looped]
            else:
                # positions in the sorted order: their counts are the batch's directly,
                # the rows order[positions] the looped metrics' resample
                positions = rng.integers(0, n, size=n)
                if batch is not None:
                    chunk[k] = np.bincount(positions, minlength=n)
                if looped:
                    idx = order[positions]
                    row = _quiet(lambda idx=idx: evaluate(
                        looped, scores[idx], labels[idx],
                        weights=None if weights is None else weights[idx],
                        true_p=None if true_p is None else true_p[idx], threshold=threshold))
                    replicates[start + k, looped_columns] = [row[m] for m in looped]
            tick()
        if batch is not None:
            replicates[start:start + chunk.shape[0], batched] = batch(
                [names[j] for j in batched], chunk)
    _report_dropped(replicates, names, "bootstrap")
    return replicates


def interval_bounds(names: Sequence[str], values: np.ndarray, replicates: np.ndarray,
                    level: float) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap interval of each metric's population value from its replicates.

    With q_lo, q_hi the (1 - level) / 2 and (1 + level) / 2 quantiles (type 7) of the finite
    replicates θ*_b of a metric of value θ̂:

    * metrics of :data:`BASIC_METRICS`: the basic interval clipped at the lower bound 0,
      ``[max(0, 2θ̂ - q_hi), max(0, 2θ̂ - q_lo)]`` (Davison & Hinkley 1997, §5.2, eq. 5.6).
      It estimates the law of θ̂ - θ by that of θ* - θ̂, so it takes the bias off: a
      calibration error of noisy bin or neighbourhood means is biased upwards (E θ̂ > θ:
      for a squared gap, by the variance of the bin mean), and its resamples, where that
      noise is added once more, lie above θ̂ by about as much. The percentile interval
      [q_lo, q_hi] moves the wrong way (it is centred on θ̂ + bias, Efron & Tibshirani
      1993, §13.3), and so does the BC/BCa
      interval when θ̂ lies below nearly every replicate (its bias-correction z_0 =
      Φ^{-1}(#{θ*_b < θ̂} / B) diverges, Efron 1987, JASA 82, eq. 2.3; BCa's acceleration
      would also need n jackknife evaluations of every metric). The basic interval lies
      below θ̂ when the bias dominates: it need not contain the (biased) value.
      benchmarks/coverage_report_ci.py measures the coverage of the three.
      At a calibrated model the population value 0 is on the boundary, where no bootstrap is
      consistent (Andrews 2000, Econometrica 68(2)); the clip at 0 makes the interval hold 0
      whenever 2θ̂ - q_hi <= 0. ``calib_err``, the square root of ``calib_mse``, gets the
      square root of the basic interval formed on the squared scale, where its bias is
      additive (the noise variance over the bin size);
    * the others (Brier score, log loss, AUC, accuracy, calibration intercept and slope, ...,
      smooth functions of means with little bias): the percentile interval [q_lo, q_hi]
      (Efron & Tibshirani 1993, §13.3), which respects their range (AUC and accuracy stay in
      [0, 1]).

    NaN where no replicate is finite.

    Measured coverage (benchmarks/coverage_report_ci.py; logistic_dgp, n = 2000, level 0.9,
    percentile -> this interval): calib_mse, calib_err, qmse and refinement 0-0.4 -> 0.84-1.0,
    dsc 0.38-0.49 -> 0.87, whether the scores are calibrated or over-confident (gamma 1.5, 3);
    the smooth metrics 0.86-0.92 with the percentile interval. Three kinds of metric stay
    below the level when the model is calibrated or nearly so (their population value at
    or near 0): the ECE (0 -> 0.47 calibrated, 0.54 -> 0.81 at gamma 1.5), an absolute gap,
    not differentiable at 0, where the bootstrap underestimates the bias (Andrews 2000;
    Fang & Santos 2019, Rev. Econ. Stud. 86(1)); CORP's mcb (0 -> 0.40, 0 -> 0.77), an
    isotonic fit, for which the nonparametric bootstrap is inconsistent (Sen, Banerjee &
    Woodroofe 2010, Ann. Statist. 38(4)); the density-weighted WMSE and LCS and the smooth
    ECE (WMSE 0 -> 0.04 calibrated, 0 -> 0.16 at gamma 1.5; LCS 0 -> 0.76, 0.18 -> 0.68;
    smooth ECE 0 -> 0.10, 0.72 -> 0.86), whose bias comes mostly from bandwidths that shrink
    with n (the density weights' bw.nrd0, the smooth ECE's own), a smoothing bias a resample
    does not reproduce (a kernel estimate's bootstrap mean is the estimate itself; Hall 1992,
    The Bootstrap and Edgeworth Expansion, ch. 4). With clearly miscalibrated scores
    (gamma 3) all of them cover 0.88-0.90. A larger n does not cure it at calibration: at
    n = 20000 the ECE covers 0.48 and the mcb 0.03 with calibrated scores, 0.85 and 0.66 at
    gamma 1.5 (percentile: 0 and 0; 0.82 and 0). Not measured: the ICI, E50/E90/Emax,
    ece_thresholded and kl (basic, by the same reasoning), the calibration intercept and
    slope (percentile). For that reason :func:`report_intervals` (the report) gives the
    metrics of :data:`NORM_METRICS` the noise-norm interval of :func:`norm_bounds` instead.
    """
    alpha = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        q_lo, q_hi = np.nanquantile(replicates, [alpha, 1.0 - alpha], axis=0)
    basic = np.array([m in BASIC_METRICS for m in names], dtype=bool)
    power = np.array([_SQUARED_SCALE.get(m, 1.0) for m in names])
    values = np.asarray(values, dtype=np.float64) ** power
    q_lo, q_hi = q_lo ** power, q_hi ** power
    lower = np.where(basic, np.maximum(0.0, 2.0 * values - q_hi), q_lo) ** (1.0 / power)
    upper = np.where(basic, np.maximum(0.0, 2.0 * values - q_lo), q_hi) ** (1.0 / power)
    return lower, upper


def bootstrap_intervals(names: Sequence[str], scores: np.ndarray, labels: np.ndarray, *,
                        values: np.ndarray, weights: np.ndarray | None,
                        true_p: np.ndarray | None, threshold: float, n_boot: int,
                        level: float, rng: np.random.Generator, tick: Callable[[], None]
                        ,
                        counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap intervals of the named metrics' population values.

    ``values`` holds the metrics on the data, in the order of ``names``. Returns
    ``(lower, upper)``: :func:`interval_bounds` of :func:`bootstrap_replicates`.
    """
    replicates = bootstrap_replicates(names, scores, labels, weights=weights, true_p=true_p,
                                      threshold=threshold, n_boot=n_boot, rng=rng, tick=tick,
                                      counts=counts)
    return interval_bounds(names, values, replicates, level)


#: Bit generators whose raw output is 64 random bits
#: (:meth:`numpy.random.BitGenerator.random_raw`): each gives eight random bytes to
#: :func:`_uniform_bytes`. (MT19937's raw output is 32 bits in a 64-bit integer.)
_RAW_64_BITS = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _uniform_bytes(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Independent uniforms on {0, ..., 255} of ``shape``: the bytes of the bit
    generator's raw 64-bit outputs where it has them (eight per generator call; their
    order within an output, and so the draws, follow the machine's byte order), else
    ``rng.integers``."""
    size = shape[0] * shape[1]
    if type(rng.bit_generator) in _RAW_64_BITS:
        raw = rng.bit_generator.random_raw((size + 7) // 8)
        return raw.view(np.uint8)[:size].reshape(shape)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)


def _label_thresholds(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(high, low, always)``: the integer thresholds t_i = ceil(s_i 2^32) split into their
    top byte ``high`` = t_i // 2^24 (uint8) and the rest ``low`` = t_i mod 2^24 (uint32),
    those of 2^32 lowered to 2^32 - 1; ``always`` the positions whose threshold is 2^32
    (s_i > 1 - 2^-32, s_i = 1 among them).

    For U uniform on {0, ..., 2^32 - 1}, U < ceil(s 2^32) exactly when U / 2^32 < s (U is an
    integer), so the label 1{U < t} is 1{V < s} for V uniform on the grid of 2^32 points
    k / 2^32 of [0, 1): Bernoulli(ceil(s 2^32) / 2^32), within 2^-32 above s; 0 for s = 0,
    1 for s = 1. (s 2^32 is exact in binary floating point.)"""
    scaled = np.ceil(np.asarray(scores, dtype=np.float64) * 2.0**32)
    always = np.flatnonzero(scaled >= 2.0**32)
    t = np.minimum(scaled, 2.0**32 - 1).astype(np.uint32)
    return (t >> np.uint32(24)).astype(np.uint8), t & np.uint32(2**24 - 1), always


def _null_draws(scores: np.ndarray, n_draws: int, rng: np.random.Generator, *,
                reuse: bool = False) -> Iterator[np.ndarray]:
    """Chunks of label vectors D* ~ Bernoulli(scores), (rows, n) float 0/1: D*_i = 1{U_i <
    t_i}, t_i = ceil(s_i 2^32), for uniform 32-bit integers U_i (:func:`_label_thresholds`:
    Bernoulli(s_i) on the grid of 2^-32, 0 for s_i = 0 and 1 for s_i = 1).

    U_i is drawn a byte at a time, most significant first, as far as it decides: with H_i
    its top byte and h_i that of t_i, U_i < t_i if H_i < h_i, not if H_i > h_i, and only if
    H_i = h_i (probability 1/256) do its other 24 bits L_i decide, U_i < t_i iff L_i <
    t_i mod 2^24. The label is 1 with probability h_i / 256 + (t_i mod 2^24) / 2^32 =
    t_i / 2^32: the same law as a whole 32-bit U_i, from a byte per label and 24 bits for
    one label in 256 (200 x 1e5 labels: 0.012 s, against 0.025 s for 32-bit uniforms and
    0.038 s for uniform floats compared with the scores). The comparisons are made in
    integers straight into the float labels.

    ``reuse``: every chunk in the same array (each is then valid until the next one is
    drawn; the same draws): a fresh 8 MB array per chunk costs its page faults."""
    rows = max(1, _CHUNK_CELLS // scores.size)
    high, low, always = _label_thresholds(scores)
    buffer = np.empty((min(rows, n_draws), scores.size)) if reuse else None
    for start in range(0, n_draws, rows):
        shape = (min(rows, n_draws - start), scores.size)
        labels = np.empty(shape) if buffer is None else buffer[:shape[0]]
        top = _uniform_bytes(rng, shape)
        np.less(top, high, out=labels)
        tied = np.flatnonzero(top == high)  # the top bytes equal: the other 24 bits decide
        rest = rng.integers(0, 2**24, size=tied.size, dtype=np.uint32)
        labels.reshape(-1)[tied] = rest < low[tied % scores.size]
        if always.size:
            labels[:, always] = 1.0
        yield labels


@_one_blas_thread
def null_values(names: Sequence[str], scores: np.ndarray, *, weights: np.ndarray | None,
                threshold: float, n_draws: int, rng: np.random.Generator,
                tick: Callable[[], None], counts: np.ndarray | None = None,
                order: np.ndarray | None = None) -> np.ndarray:
    """Each named metric on ``n_draws`` label vectors D* ~ Bernoulli(scores).

    Returns an ``(n_draws, len(names))`` array; columns of names outside
    :data:`NULL_METRICS` are NaN. The rows are sorted by score first (the metrics do not
    depend on the row order). With ``counts`` (frequency weights, ``weights`` relative) each
    observation draws its own label: a row of f copies holds Binomial(f, s) events, split
    into an event row and a non-event row with those counts. ``order``: a row order that
    sorts the scores ascending, when the caller has one (the bootstrap's; tied scores may
    come in any order, which moves the draws of tied rows only); by default the stable
    argsort of the scores.
    """
    if counts is not None:
        return _null_values_counts(names, scores, weights, counts, threshold, n_draws, rng,
                                   tick)
    if order is None:
        order = np.argsort(scores, kind="stable")
    s = scores[order]
    w = None if weights is None else weights[order]
    wanted = [m for m in names if m in NULL_METRICS]
    built = {m: _BATCHES[m](s, w) for m in wanted if m in _BATCHES}
    batched = {m: b for m, b in built.items() if b is not None}
    looped = [m for m in wanted if m not in batched]
    rooted = {m: _ROOT_OF[m] for m in batched if _ROOT_OF.get(m) in batched}
    for m in rooted:
        del batched[m]
    shared = ([m for m in batched if m in _PREFIX_TAKERS]
              if w is None and any(m in batched for m in _PREFIX_USERS) else [])
    # the running counts of every chunk in one array (fresh ones cost their page faults)
    counts_buffer = np.empty((min(max(1, _CHUNK_CELLS // s.size), n_draws), s.size + 1)
                             if shared else 0, dtype=np.int32)
    values = np.full((n_draws, len(wanted)), np.nan)
    column = {m: j for j, m in enumerate(wanted)}
    done = 0
    for labels in _null_draws(s, n_draws, rng, reuse=True):
        rows = slice(done, done + labels.shape[0])
        prefix = event_prefix(labels, out=counts_buffer) if shared else None
        for m, batch in batched.items():
            values[rows, column[m]] = (batch(labels, prefix=prefix) if m in shared
                                       else batch(labels))
        for m, source in rooted.items():
            values[rows, column[m]] = np.sqrt(values[rows, column[source]])
        for i, y in enumerate(labels):
            if looped:
                row = _quiet(lambda y=y: evaluate(looped, s, y, weights=w,
                                                  threshold=threshold))
                values[done + i, [column[m] for m in looped]] = [row[m] for m in looped]
            tick()
        done += labels.shape[0]
    _report_dropped(values, wanted, "null expectation")
    out = np.full((n_draws, len(names)), np.nan)
    for j, m in enumerate(names):
        if m in column:
            out[:, j] = values[:, column[m]]
    return out


def null_means(names: Sequence[str], scores: np.ndarray, *, weights: np.ndarray | None,
               threshold: float, n_draws: int, rng: np.random.Generator,
               tick: Callable[[], None], counts: np.ndarray | None = None) -> np.ndarray:
    """Mean of each named metric over ``n_draws`` label vectors D* ~ Bernoulli(scores)
    (:func:`null_values`); NaN for names outside :data:`NULL_METRICS`."""
    values = null_values(names, scores, weights=weights, threshold=threshold,
                         n_draws=n_draws, rng=rng, tick=tick, counts=counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(values, axis=0)


def _null_values_counts(names: Sequence[str], scores: np.ndarray, weights: np.ndarray | None,
                        counts: np.ndarray, threshold: float, n_draws: int,
                        rng: np.random.Generator, tick: Callable[[], None]) -> np.ndarray:
    """:func:`null_values` of grouped rows (frequency weights), one evaluation per draw."""
    wanted = [m for m in names if m in NULL_METRICS]
    values = np.full((n_draws, len(wanted)), np.nan)
    s2, y2, w2 = split_by_label(scores, weights)
    for b in range(n_draws):
        f2 = consistency_counts(rng, scores, counts)
        if wanted:
            row = _quiet(lambda f2=f2: evaluate(wanted, s2, y2, weights=w2,
                                                frequency_weights=f2, threshold=threshold))
            values[b] = [row[m] for m in wanted]
        tick()
    _report_dropped(values, wanted, "null expectation")
    column = {m: j for j, m in enumerate(wanted)}
    out = np.full((n_draws, len(names)), np.nan)
    for j, m in enumerate(names):
        if m in column:
            out[:, j] = values[:, column[m]]
    return out


def norm_bounds(names: Sequence[str], values: np.ndarray, null: np.ndarray, level: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Noise-norm intervals (:func:`locacal.metrics.equivalence.norm_interval`) of the
    :data:`NORM_METRICS` among ``names`` from their null values ``null`` (one column per
    name); NaN for the other names."""
    lower, upper = np.full(len(names), np.nan), np.full(len(names), np.nan)
    for j, m in enumerate(names):
        if m in NORM_METRICS:
            lower[j], upper[j] = norm_interval(float(values[j]), null[:, j], NORM_POWER[m],
                                               level)
    return lower, upper


def report_intervals(names: Sequence[str], scores: np.ndarray, labels: np.ndarray, *,
                     values: np.ndarray, weights: np.ndarray | None,
                     true_p: np.ndarray | None, threshold: float, n_boot: int, level: float,
                     boot_rng: np.random.Generator, null_rng: np.random.Generator,
                     tick: Callable[[], None], counts: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, upper, null_mean)`` of the report's metrics.

    The :data:`NORM_METRICS` get the noise-norm interval from ``n_boot`` null label draws
    (:func:`norm_bounds`), the other metrics :func:`interval_bounds` of ``n_boot`` bootstrap
    resamples; the null draws also give the null means of :data:`NULL_METRICS`. The
    bootstrap recomputes only the metrics whose interval it gives. ``counts``: frequency
    weights (the bootstrap draws observations, the null draws label each observation).
    """
    names = tuple(names)
    values = np.asarray(values, dtype=np.float64)
    boot = [j for j, m in enumerate(names) if m not in NORM_METRICS]
    lower, upper = np.full(len(names), np.nan), np.full(len(names), np.nan)
    boot_names = [names[j] for j in boot]
    # one sort for the bootstrap and the null draws (by score, ties by label and weight)
    order = sorted_order(scores, labels, weights)
    if boot_names:
        replicates = bootstrap_replicates(boot_names, scores, labels, weights=weights,
                                          true_p=true_p, threshold=threshold,
                                          n_boot=n_boot, rng=boot_rng, tick=tick,
                                          counts=counts, order=order)
        lower[boot], upper[boot] = interval_bounds(boot_names, values[boot], replicates,
                                                   level)
    else:
        for _ in range(n_boot):
            tick()
    null = null_values(names, scores, weights=weights, threshold=threshold, n_draws=n_boot,
                       rng=null_rng, tick=tick, counts=counts, order=order)
    norm = [j for j, m in enumerate(names) if m in NORM_METRICS]
    norm_lower, norm_upper = norm_bounds(names, values, null, level)
    lower[norm], upper[norm] = norm_lower[norm], norm_upper[norm]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return lower, upper, np.nanmean(null, axis=0)
