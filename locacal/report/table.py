"""All calibration and classification metrics of one or several models in one table.

The metrics come from :func:`locacal.metrics.registry.evaluate`, which validates and sorts
each score vector once; with ``ci=True`` the intervals and null expectations come from
:mod:`locacal.report.intervals`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    check_bool,
    check_level,
    check_probabilities,
    check_resamples,
    check_scores_labels,
    check_seed,
    has_dask,
    is_dask,
    plain,
    positive_weight_rows,
    public_api,
)
from locacal.data.dask import statistics
from locacal.data.frequency import weighting
from locacal.data.groups import pop_by_column, split_by
from locacal.metrics.registry import METRICS, NOT_WITH_COUNTS, evaluate, evaluate_cells
from locacal.report.intervals import report_intervals

__all__ = ["CELL_COLUMNS", "CELL_EXTRAS", "CI_COLUMNS", "CLINICAL_COLUMNS", "EXPLAIN_COLUMNS",
           "NOT_FROM_CELLS", "REPORT_COLUMNS", "calibration_report", "explain_report"]

#: Metrics of :func:`calibration_report`, in order (the last six joined in version 0.2).
#: The slides' thresholded ECE left the default in 0.2: a calibrated model scores far from 0
#: on it (0.45 for calibrated logistic scores, n = 20000, where the ECE is 0.008), so as a
#: default column it misread as a calibration error; ``extra=("ece_thresholded",)`` adds it.
REPORT_COLUMNS = (
    "n", "true_mse", "brier", "calib_mse", "calib_err", "refinement", "lcs", "ece",
    "qmse", "wmse", "accuracy", "sensitivity", "specificity", "auc",
    "log_loss", "smece", "mcb", "dsc", "unc", "spiegelhalter_z",
)
#: Added by ``calibration_report(..., clinical=True)``: they fit a lowess and two logistic
#: models, about 50x np.sort each at n = 1e6 (benchmarks/bench_report.py), so the default
#: report, which stays O(n log n) and within 30x np.sort at 1e7, leaves them out.
CLINICAL_COLUMNS = ("ici", "cal_intercept", "cal_slope")
#: Report columns read off the cells of Dask input (:func:`locacal.metrics.registry.
#: evaluate_cells`, each metric's ``cells``).
CELL_COLUMNS = tuple(c for c in REPORT_COLUMNS if METRICS[c].cells is not None)
#: The report's optional extras read off the cells when asked for (``extra=``).
CELL_EXTRAS = tuple(m for m in METRICS if m not in REPORT_COLUMNS + CLINICAL_COLUMNS
                    and METRICS[m].cells is not None)
#: Report columns the cells do not determine, NaN for Dask input, and why (each metric's
#: ``not_from_cells``).
NOT_FROM_CELLS = MappingProxyType({c: METRICS[c].not_from_cells for c in REPORT_COLUMNS
                                   if METRICS[c].cells is None})
#: Columns of :func:`calibration_report` with ``ci=True``.
CI_COLUMNS = ("value", "lower", "upper", "null_mean")
#: A progress bar is shown when n_boot x n reaches this (about ten seconds of work).
_PROGRESS_CELLS = 20_000_000


#: Columns :func:`explain_report` adds to a report.
EXPLAIN_COLUMNS = ("better", "meaning", "reference")


def _columns(clinical: bool, extra: Sequence[str], true_p: Any) -> tuple[str, ...]:
    check_bool(clinical, "clinical")
    if isinstance(extra, str):
        raise TypeError(f"extra must be a sequence of metric names, got the string "
                        f"{plain(extra)!r}")
    columns = REPORT_COLUMNS + CLINICAL_COLUMNS if clinical else REPORT_COLUMNS
    if not isinstance(extra, Iterable):
        raise TypeError(f"extra must be a sequence of metric names, got {plain(extra)!r}")
    added = tuple(extra)
    for name in added:
        if name not in METRICS:
            raise ValueError(f"extra holds the unknown metric {name!r}; choose among "
                             f"{tuple(m for m in METRICS if m not in columns)}")
        if name in columns or added.count(name) > 1:
            raise ValueError(f"extra repeats the metric {name!r}, already in the report")
        if "true_p" in METRICS[name].needs and true_p is None:
            raise ValueError(f"extra metric {name!r} needs true_p")
    return columns + added


def _computed(columns: tuple[str, ...], true_p: Any, weights: Any,
              frequency_weights: Any = None) -> tuple[str, ...]:
    """The report's metrics that these inputs define: no true MSE without true_p, no smooth
    ECE with weights (it has no weighted version), none of ``NOT_WITH_COUNTS`` with
    frequency weights; those are NaN in the report."""
    return tuple(c for c in columns
                 if not (c == "true_mse" and true_p is None)
                 and not (c == "smece" and weights is not None)
                 and not (frequency_weights is not None and c in NOT_WITH_COUNTS))


def _one_report(scores: Any, labels: Any, true_p: Any, weights: Any, threshold: float,
                columns: tuple[str, ...] = REPORT_COLUMNS, *,
                frequency_weights: Any = None) -> pd.Series:
    row = evaluate(_computed(columns, true_p, weights, frequency_weights), scores, labels,
                   weights=weights, true_p=true_p, threshold=threshold,
                   frequency_weights=frequency_weights)
    return pd.Series({c: row.get(c, np.nan) for c in columns}, name="value")


def _one_ci_report(scores: Any, labels: Any, true_p: Any, weights: Any, threshold: float,
                   n_boot: int, level: float, entropy: int, tick: Callable[[], None],
                   columns: tuple[str, ...], *,
                   frequency_weights: Any = None) -> pd.DataFrame:
    value = _one_report(scores, labels, true_p, weights, threshold, columns,
                        frequency_weights=frequency_weights)  # validates first
    s, y, w = check_scores_labels(scores, labels, weights)
    p = None if true_p is None else check_probabilities(true_p, s.size)
    counts = None
    # rows of weight zero are not in the sample: no resample or null draw holds them
    if frequency_weights is not None:  # relative weights and counts, resampled apart
        both = weighting(w, frequency_weights, s.size)
        s, y, point, p, counts = positive_weight_rows(s, y, both.point, p, both.counts)
        w = point / counts
    else:
        s, y, w, p = positive_weight_rows(s, y, w, p)
    names = tuple(m for m in _computed(columns, true_p, weights, frequency_weights)
                  if m != "n")
    # one entropy for every model: the same bootstrap rows and null draws (paired comparison)
    boot_seed, null_seed = np.random.SeedSequence(entropy).spawn(2)
    lower, upper, null = report_intervals(
        names, s, y, values=value[list(names)].to_numpy(), weights=w, true_p=p,
        threshold=threshold, n_boot=n_boot, level=level,
        boot_rng=np.random.default_rng(boot_seed), null_rng=np.random.default_rng(null_seed),
        tick=tick, counts=counts)
    table = pd.DataFrame(np.nan, index=pd.Index(columns, name="metric"),
                         columns=list(CI_COLUMNS))
    table["value"] = value
    table.loc[list(names), ["lower", "upper", "null_mean"]] = np.column_stack(
        [lower, upper, null])
    if "n" in columns:
        table.loc["n", ["lower", "upper"]] = value["n"]
    return table


def _progress(total: int, show: bool) -> tuple[Callable[[], None], Callable[[], None]]:
    """``(tick, close)`` of a tqdm.auto bar over ``total`` steps, or no-ops."""
    if not show:
        return (lambda: None), (lambda: None)
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc="calibration_report resamples", unit="resample")
    return (lambda: bar.update(1)), bar.close


def _dask_report(scores: Any, labels: Any, weights: Any, true_p: Any, threshold: float,
                 ci: bool, columns: tuple[str, ...],
                 frequency_weights: Any = None) -> pd.Series | pd.DataFrame:
    """The report of Dask input (:mod:`locacal.data.dask`): the columns that cell statistics
    determine (:data:`CELL_COLUMNS`), NaN for the others (:data:`NOT_FROM_CELLS` says
    why); ``frequency_weights`` multiply into the cell sums (the expanded rows' report)."""
    def one(model: Any) -> pd.Series:
        cells = statistics(model, labels, weights, frequency_weights=frequency_weights)
        return evaluate_cells(columns, cells, threshold=threshold)[0]

    if ci:
        raise ValueError("ci=True resamples rows, which Dask input does not keep; use "
                         "ci=False")
    if true_p is not None:
        raise ValueError("true_p is not available with Dask input (the true MSE needs the "
                         "rows); leave it None")
    if is_dask(scores) and scores.ndim == 2 and hasattr(scores, "columns"):  # one model a column
        scores = {str(c): scores[c] for c in scores.columns}
    if isinstance(scores, Mapping):
        rows = [one(v).rename(str(name)) for name, v in scores.items()]
        table = pd.DataFrame(rows).rename_axis("model").reset_index()
        return table[["model", *columns]]
    return one(scores)


@public_api
def calibration_report(scores: Any, labels: Any, *, true_p: Any = None, weights: Any = None,
                       threshold: float = 0.5, clinical: bool = False,
                       extra: Sequence[str] = (), ci: bool = False, n_boot: int = 200,
                       level: float = 0.95, seed: Any = None,
                       frequency_weights: Any = None,
                       by: Any = None) -> pd.Series | pd.DataFrame:
    """Every metric of locacal for one model, or for several models side by side.

    Parameters
    ----------
    scores : array-like, or dict / DataFrame of array-likes
        One score vector, or several named ones (dict ``{name: scores}`` or a DataFrame with
        one column per model).
    labels : array-like
        0/1 events, shared by all models.
    true_p : array-like, optional
        Known probabilities (simulations): adds the true MSE (NaN otherwise).
    weights : array-like, optional
        Observation weights. The smooth ECE has no weighted version: NaN with weights.
    frequency_weights : array-like, optional
        Counts (a row stands for that many identical observations): every value equals the
        report of the expanded rows, and ``ci`` resamples observations (multinomial counts
        per row) and draws each observation's null label; the smooth ECE, whose kernel
        counts rows, is NaN (:data:`locacal.metrics.registry.NOT_WITH_COUNTS`). The ICI,
        E50, E90 and Emax are R's lowess of the expanded rows.
    threshold : float, default 0.5
        Classification threshold for accuracy, sensitivity, specificity and the slides' ECE.
    clinical : bool, default False
        Add :data:`CLINICAL_COLUMNS`: Austin & Steyerberg's ICI (R's lowess, as
        ``rms::val.prob``) and the calibration intercept (calibration-in-the-large) and slope
        (:func:`~locacal.metrics.clinical.calibration_intercept_slope`). They cost a lowess
        and two logistic fits (about 50x np.sort each at n = 1e6), which the default report
        leaves out to stay fast on large samples.
    extra : sequence of str, default ()
        More metrics of :data:`locacal.metrics.registry.METRICS`, appended after the others,
        e.g. ``("ece_thresholded",)`` for the 2024 slides' "ECE" (eq. 2) or ``("kl",)``
        with ``true_p``. The slides' ECE is not in the default report: it compares the
        *accuracy of 0/1 predictions* at ``threshold`` with the mean score, so a perfectly
        calibrated model does not score 0 (about 0.45 for calibrated logistic scores,
        where the ECE is 0.008); it is a confidence-calibration measure of the thresholded
        classifier, not a calibration error of the probabilities.
    ci : bool, default False
        Add bootstrap intervals and the calibrated-model null expectation (below).
    n_boot : int, default 200
        With ``ci``: number of bootstrap resamples, and of null label draws (at most
        10^6, :data:`locacal._validation.MAX_RESAMPLES`).
    level : float, default 0.95
        With ``ci``: level of the bootstrap intervals, in (0, 1).
    seed : int, Generator, SeedSequence or None
        With ``ci``: seed of the resampling (anything :func:`numpy.random.default_rng`
        accepts); the same seed gives the same table.
    by : array-like of shape (n,) or str, optional
        A group per row (or the name of a column of a DataFrame ``scores``, which is then no
        model): the report of each group, equal to this call on the group's rows with the
        same arguments and ``seed``, stacked with the group as the first column (named after
        the grouping Series or column, else ``group``). Groups are sorted
        (:func:`locacal.data.groups.split_by`). To flag the groups that are miscalibrated
        after correcting for multiplicity, use :func:`~locacal.calibration_test` with
        ``by=``.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Without ``ci``: a Series indexed by :data:`REPORT_COLUMNS` for one score vector; for
        several, a DataFrame with a ``model`` column followed by those columns, one row per
        model. Defaults are those of each metric: LCS (nn 0.15, degree 0), ECE and QMSE (10
        quantile bins), WMSE (101 points), CalibMSE/refinement on adaptive
        bins of sqrt(n) scores, the ICI on R's lowess (``rms::val.prob``), the calibration
        intercept (calibration-in-the-large) and slope by logistic regression on
        logit(score), CORP ``mcb``/``dsc``/``unc``, the smooth ECE at its own bandwidth and
        Spiegelhalter's z. Each metric's meaning and reference are listed below (Notes)
        and in :data:`locacal.metrics.registry.METRICS`; :func:`explain_report` puts them
        beside the values.

        With ``ci=True``: for one score vector a DataFrame indexed by ``metric``
        (:data:`REPORT_COLUMNS`) with columns :data:`CI_COLUMNS`:

        * ``value``: the metric on the data (the Series above);
        * ``lower``, ``upper``: a bootstrap interval at ``level`` for the metric's
          *population value*: its limit as n -> infinity under the process that generated
          the rows, for the metric's fixed settings (10 bins for the ECE and QMSE, nn 0.15
          for the LCS and WMSE, ...; for calib_mse, whose bins of sqrt(n) scores shrink,
          E[(g(s) - s)^2] with g(s) = E[D | s], for the refinement E[g(s) (1 - g(s))]).
          ``n_boot`` resamples of the rows are drawn with replacement (labels, weights and
          true probabilities carried along; rows of weight zero are not in the sample and
          never drawn) and the metric recomputed on each; with q_lo,
          q_hi the (1 - level)/2 and (1 + level)/2 quantiles of these replicates, the
          interval is

          - for calib_mse, calib_err, the LCS, ECE, QMSE, WMSE, smooth ECE, CORP's mcb and
            the ICI (:data:`locacal.report.intervals.NORM_METRICS`), the noise-norm interval
            [max(0, value^(1/r) - q)^r, (value^(1/r) + q)^r], r = 1 for calib_err, the ECE,
            smooth ECE and ICI and 2 for the squared calib_mse, QMSE, LCS, WMSE and mcb,
            with q the ``level`` quantile of
            the metric^(1/r) over the ``n_boot`` null label draws below
            (:func:`locacal.metrics.equivalence.norm_interval`; the triangle inequality
            bounds the gap between the value and its population value by the norm of the
            label noise). It is the inverted calibration test: at a calibrated model it
            starts at 0 unless the test rejects. Their bootstrap intervals covered a
            population value at or near 0 at rates of 0.04 to 0.76; these cover it at the
            level within Monte Carlo error when the model is calibrated (0.90-1.0 over 40
            samples, s.e. up to 0.047, n = 500 and 2000) and conservatively (0.975-1.0)
            when it is not (gamma 1.25 and 3), at the price of wider intervals far from
            calibration (benchmarks/coverage_calibration_bounds.py; docs, "How well
            calibrated?"). These metrics are not bootstrapped;
          - for the refinement and CORP's dsc (and the other calibration errors, among
            ``extra``; nonnegative, of
            noisy bin or neighbourhood means, biased by about their spread:
            :data:`locacal.report.intervals.BASIC_METRICS`), the basic interval
            [2 value - q_hi, 2 value - q_lo] clipped at 0 (Davison & Hinkley 1997, §5.2;
            calib_err: the square root of calib_mse's). A calibration error of a finite
            sample overstates its population value, and its bootstrap replicates overstate
            the value by about as much (the refinement: understates, as much); the basic
            interval takes that bias off, so it may lie *below* ``value``. The percentile
            interval would sit above the value and miss the population value (coverage 0
            for most of them at n = 2000 unless the miscalibration is large). The basic
            interval reaches the level for the refinement and dsc
            (:func:`~locacal.report.intervals.interval_bounds`,
            benchmarks/coverage_report_ci.py);
          - for the other metrics (Brier score, log loss, AUC, accuracy, calibration
            intercept and slope, ...), the percentile interval [q_lo, q_hi] (Efron &
            Tibshirani 1993, §13.3). Spiegelhalter's z has no population value (it grows
            like sqrt(n) unless the model is calibrated): its interval only shows the
            statistic's spread.

          BCa intervals would need n jackknife evaluations of every metric and are not
          offered. ``n``, the number of rows, is not an estimate: its interval is [n, n];
        * ``null_mean``: for the calibration metrics
          (:data:`locacal.report.intervals.NULL_METRICS`), the mean of the metric
          over ``n_boot`` label vectors drawn as D*_i ~ Bernoulli(s_i) (consistency
          resampling, Bröcker & Smith 2007): the value a calibrated model with these same
          scores would show on average. An LCS or ECE is never 0 in a finite sample; an
          observed value near ``null_mean`` is what calibration predicts. NaN for the other
          metrics.

        For several models, a long DataFrame with columns ``model``, ``metric`` and
        :data:`CI_COLUMNS`, one row per model and metric; every model is resampled with
        the same rows and null draws (a paired comparison). Undefined replicates (a resample
        holding one class, say) are left out with a CalibrationWarning. A tqdm progress bar
        is shown when n_boot x n x models >= 2e7.

        Dask input (arrays, Series, DataFrames; :mod:`locacal.data.dask`): the columns that
        mergeable cell statistics determine, :data:`CELL_COLUMNS` (n, brier, log_loss,
        spiegelhalter_z and unc exactly; accuracy, sensitivity, specificity exactly at a
        threshold that is a multiple of 1/100800, as 0.5; ECE, QMSE, LCS, WMSE, AUC, mcb and
        dsc within the bounds of :func:`locacal.metrics.registry.evaluate_cells`), NaN for
        the others (:data:`NOT_FROM_CELLS` says why); no ``ci``, no ``true_p``.
    """
    check_bool(ci, "ci")
    # checked whether or not ci draws them, so that a bad value is never accepted silently
    seed = check_seed(seed)
    n_boot = check_resamples(n_boot, "n_boot")
    level = check_level(level)
    columns = _columns(clinical, extra, true_p)
    if by is not None:
        return _report_by_group(scores, labels, by, dict(
            true_p=true_p, weights=weights, threshold=threshold, clinical=clinical,
            extra=extra, ci=ci, n_boot=n_boot, level=level, seed=seed,
            frequency_weights=frequency_weights))
    inputs = scores.values() if isinstance(scores, Mapping) else [scores]
    if has_dask(labels, weights, true_p, frequency_weights, *inputs):
        return _dask_report(scores, labels, weights, true_p, threshold, ci, columns,
                            frequency_weights)
    if isinstance(scores, pd.DataFrame):
        scores = {str(c): scores[c] for c in scores.columns}
    if not ci:
        if isinstance(scores, Mapping):
            rows = [
                _one_report(v, labels, true_p, weights, threshold, columns,
                            frequency_weights=frequency_weights).rename(str(name))
                for name, v in scores.items()
            ]
            table = pd.DataFrame(rows).rename_axis("model").reset_index()
            return table[["model", *columns]]
        return _one_report(scores, labels, true_p, weights, threshold, columns,
                           frequency_weights=frequency_weights)
    entropy = int(np.random.default_rng(seed).integers(2**63))
    models = dict(scores) if isinstance(scores, Mapping) else {None: scores}
    n = len(labels) if hasattr(labels, "__len__") else 0
    tick, close = _progress(2 * n_boot * len(models),
                            n_boot * n * len(models) >= _PROGRESS_CELLS)
    try:
        tables = {name: _one_ci_report(v, labels, true_p, weights, threshold, n_boot, level,
                                       entropy, tick, columns,
                                       frequency_weights=frequency_weights)
                  for name, v in models.items()}
    finally:
        close()
    if not isinstance(scores, Mapping):
        return tables[None]
    long = pd.concat({str(k): t for k, t in tables.items()}, names=["model", "metric"])
    return long.reset_index()


def _report_by_group(scores: Any, labels: Any, by: Any,
                     options: dict[str, Any]) -> pd.DataFrame:
    """``calibration_report`` of each group's rows, stacked under a group column."""
    scores, by = pop_by_column(scores, by)
    inputs = scores.values() if isinstance(scores, Mapping) else [scores]
    if has_dask(labels, by, options["weights"], options["true_p"],
                options["frequency_weights"], *inputs):
        raise ValueError("by= is not available with Dask input; report each group's Dask "
                         "collection on its own")
    rows = np.asarray(labels).shape[0] if np.ndim(labels) else 0
    groups = split_by(by, rows)

    def subset(values: Any, rows: np.ndarray) -> Any:
        if values is None:
            return None
        if isinstance(values, Mapping):
            return {k: subset(v, rows) for k, v in values.items()}
        if isinstance(values, pd.DataFrame):
            return values.iloc[rows]
        return np.asarray(values)[rows] if np.ndim(values) else values

    parts = []
    for group, index in groups:
        part = calibration_report(subset(scores, index), subset(labels, index),
                                  **{**options, "true_p": subset(options["true_p"], index),
                                     "weights": subset(options["weights"], index),
                                     "frequency_weights": subset(options["frequency_weights"],
                                                                 index)})
        frame = part.to_frame().T if isinstance(part, pd.Series) else part
        if options["ci"] and isinstance(part, pd.DataFrame) and "metric" not in frame:
            frame = frame.rename_axis("metric").reset_index()
        parts.append(frame.assign(**{groups.name: group}))
    table = pd.concat(parts, ignore_index=True)
    return table[[groups.name, *table.columns[:-1]]]


def _metric_notes() -> str:
    """The Notes section of :func:`calibration_report`: every metric it can show, with its
    meaning and reference, from :data:`~locacal.metrics.registry.METRICS` (one source)."""
    def entry(name: str) -> str:
        metric = METRICS[name]
        text = metric.meaning + ("." if metric.reference == "-" else
                                 f". Reference: {metric.reference}.")
        return f"    ``{name}``\n" + textwrap.fill(text, 88, initial_indent=" " * 8,
                                                    subsequent_indent=" " * 8)

    optional = [m for m in METRICS if m not in REPORT_COLUMNS + CLINICAL_COLUMNS]
    return "\n".join([
        "", "    Notes", "    -----",
        "    The return value is a plain pandas Series or DataFrame (the contract): a subclass",
        "    with its own display would be lost by most pandas operations (``.loc``,",
        "    ``concat``, arithmetic) and break equality checks. :func:`explain_report` returns",
        "    the same numbers beside each metric's meaning and reference, as a DataFrame that",
        "    renders as a table in Jupyter.", "",
        "    Default columns (:data:`REPORT_COLUMNS`):", "",
        *(entry(m) for m in REPORT_COLUMNS), "",
        "    With ``clinical=True`` (:data:`CLINICAL_COLUMNS`):", "",
        *(entry(m) for m in CLINICAL_COLUMNS), "",
        "    Available through ``extra``:", "",
        *(entry(m) for m in optional), "",
    ])


calibration_report.__doc__ = (calibration_report.__doc__ or "").rstrip() + "\n" + \
    _metric_notes()


def _better(name: str) -> str:
    higher = METRICS[name].higher_is_better
    return "" if higher is None else ("higher" if higher else "lower")


def explain_report(report: pd.Series | pd.DataFrame) -> pd.DataFrame:
    """A :func:`calibration_report` with each metric's meaning and reference beside it.

    Parameters
    ----------
    report : Series or DataFrame
        What :func:`calibration_report` returned, in any of its four shapes.

    Returns
    -------
    DataFrame
        One row per metric (index ``metric``; for the long ``ci`` table of several models,
        one row per model and metric, as given), the report's numbers (``value`` for one
        model, one column per model for several, or the :data:`CI_COLUMNS`), then
        :data:`EXPLAIN_COLUMNS`: ``better`` ("lower", "higher", or empty when neither, as
        for the calibration slope, whose target is 1), ``meaning`` (one line) and
        ``reference`` (from :data:`locacal.metrics.registry.METRICS`).
    """
    if isinstance(report, pd.Series):
        table = report.rename("value").to_frame()
    elif not isinstance(report, pd.DataFrame):
        raise TypeError(f"report must be what calibration_report returns (a pandas Series or "
                        f"DataFrame), got {type(report).__name__}")
    elif "metric" in report.columns:  # ci=True, several models: long table
        table = report.copy()
    elif "model" in report.columns:  # several models: one row each
        table = report.set_index("model").T
        table.columns.name = None
    else:  # ci=True, one model: indexed by metric
        table = report.copy()
    names = table["metric"] if "metric" in table.columns else table.index
    if len(names) == 0:
        raise ValueError(f"report is an empty {type(report).__name__}: it holds no metric to "
                         "explain; pass what calibration_report returns")
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"report holds metrics locacal does not know: {unknown}")
    if "metric" not in table.columns:
        table.index.name = "metric"
    table["better"] = [_better(m) for m in names]
    table["meaning"] = [METRICS[m].meaning for m in names]
    table["reference"] = [METRICS[m].reference for m in names]
    return table
