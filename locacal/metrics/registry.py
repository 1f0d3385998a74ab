"""The table of locacal's metrics, and one function that evaluates any list of them.

:data:`METRICS` maps each metric's name to a :class:`Metric`: how to compute it from a
:class:`~locacal.metrics._prepared.PreparedSample`, what it needs besides the scores
(labels, true probabilities, a threshold), whether higher is better, a one-line meaning and
its reference, and how to read it off mergeable cell statistics with the bound on its
distance to the in-memory value (``cells``) or why the cells do not determine it
(``not_from_cells``). :func:`evaluate` validates the data once, sorts them once and shares
the bins and confusion counts between the metrics that use them; :func:`evaluate_cells`
reads the same metrics off the cells of data too large for memory (Dask input), sharing the
quantile bins, the confusion counts and the CORP fit likewise.
:func:`~locacal.calibration_report` (through :func:`evaluate_cells` for Dask input),
:func:`~locacal.recalibrate`'s per-split table and the tree and forest studies all tabulate
their metrics through :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pandas as pd

from locacal._validation import plain, public_api, warn
from locacal.data.bins import DEFAULT_BINS
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import CELLS, edge_index
from locacal.localfit import local_params
from locacal.metrics._prepared import PreparedSample, prepare
from locacal.metrics.binned import (
    brier_decomposition_from_sample,
    calib_mse_from_bins,
    ece_from_bins,
    ece_thresholded_from_sample,
    ece_thresholded_with_bound,
)
from locacal.metrics.classification import (
    accuracy_from_confusion,
    auc_from_sample,
    auc_with_bound,
    brier_cells,
    brier_from_sample,
    confusion_cells,
    sensitivity_from_confusion,
    specificity_from_confusion,
)
from locacal.metrics.clinical import (
    calibration_errors,
    calibration_intercept_slope,
    spiegelhalter_of_sample,
    spiegelhalter_z,
    spiegelhalter_z_cells,
)
from locacal.metrics.corp import corp_from_sorted, corp_with_bound
from locacal.metrics.divergence import kl_divergence
from locacal.metrics.lcs_wmse import (
    lcs_of_sample,
    lcs_with_bound,
    wmse,
    wmse_of_sample,
    wmse_with_bound,
)
from locacal.metrics.log_score import log_loss, log_loss_cells, log_loss_of_sample
from locacal.metrics.smooth_ece import smece_of_sample

__all__ = ["METRICS", "NEEDS", "CellSample", "Metric", "evaluate", "evaluate_cells"]

#: What a metric may need besides the scores.
NEEDS = ("labels", "true_p", "threshold")


@dataclass(frozen=True)
class Metric:
    """One metric of the table.

    Attributes
    ----------
    name : str
    compute : callable
        ``compute(sample) -> float`` on a prepared sample (defaults of the public function).
    needs : frozenset of str
        Among :data:`NEEDS`.
    higher_is_better : bool or None
        None when neither (the sample size).
    meaning : str
        One line, for reports.
    reference : str
        Where the metric is defined.
    cells : callable or None
        ``cells(sample) -> (value, bound)`` on a :class:`CellSample`: the metric read off
        the cells and the bound on its distance to the in-memory value (0 where exact, NaN
        where none is stated); None when the cells do not determine it.
    not_from_cells : str
        Why the cells do not determine the metric (empty when ``cells`` is given).
    """

    name: str
    compute: Callable[[PreparedSample], float]
    needs: frozenset[str]
    higher_is_better: bool | None
    meaning: str
    reference: str
    cells: Callable[[CellSample], tuple[float, float]] | None = None
    not_from_cells: str = ""

    def __post_init__(self) -> None:
        if (self.cells is None) == (not self.not_from_cells):
            raise ValueError(f"metric {self.name!r} needs either a cell version or the reason "
                             "it has none")


@dataclass
class CellSample:
    """Merged cell statistics with the classification threshold and a cache shared by the
    metrics read off them (:func:`evaluate_cells`)."""

    stats: ScoreStatistics
    threshold: float = 0.5
    cache: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, compute: Callable[[ScoreStatistics], Any]) -> Any:
        """``compute(stats)``, computed once per sample for every metric that reads it."""
        if key not in self.cache:
            self.cache[key] = compute(self.stats)
        return self.cache[key]


def _brier_part(part: str) -> Callable[[PreparedSample], float]:
    def compute(sample: PreparedSample) -> float:
        if "brier_decomposition" not in sample.cache:
            sample.cache["brier_decomposition"] = brier_decomposition_from_sample(sample)
        return float(getattr(sample.cache["brier_decomposition"], part))
    return compute


def _true_mse(sample: PreparedSample) -> float:
    """The weighted mean of (p - s)^2, as ``np.average`` forms it (block by block)."""
    total, weight = sample.squared_errors("true_p")
    return total / weight


def _kl(sample: PreparedSample) -> float:
    if sample.weights is not None:
        raise ValueError("the kl metric does not take weights")
    return kl_divergence(sample.scores, sample.true_p)


def _cached(key: str, table: Callable[[PreparedSample], Any],
            entry: str) -> Callable[[PreparedSample], float]:
    """``table(sample)[entry]``, the table computed once per sample for all its entries."""
    def compute(sample: PreparedSample) -> float:
        if key not in sample.cache:
            sample.cache[key] = table(sample)
        return float(sample.cache[key][entry])
    return compute


def _corp(sample: PreparedSample) -> Any:
    """CORP from the shared sort (the prepared sample holds positive weights only)."""
    ordered = sample.sorted
    return corp_from_sorted(ordered.scores, ordered.labels, ordered.weights)


def _errors(sample: PreparedSample) -> Any:
    return calibration_errors(sample.scores, sample.labels, **_split_weights(sample))


def _split_weights(sample: PreparedSample) -> dict[str, Any]:
    """The sample's weights as the public functions take them: relative weights, and the
    frequency weights when the sample holds counts (its weights are then ``w f``)."""
    if sample.counts is None:
        return {"weights": sample.weights}
    return {"weights": sample.weights / sample.counts, "frequency_weights": sample.counts}


def _intercept_slope(sample: PreparedSample) -> Any:
    return calibration_intercept_slope(sample.scores, sample.labels,
                                       **_split_weights(sample))["estimate"]


def _smece(sample: PreparedSample) -> float:
    if sample.weights is not None:
        raise ValueError("the smece metric does not take weights")
    return smece_of_sample(sample.scores, sample.labels)


def _spiegelhalter(sample: PreparedSample) -> float:
    if sample.counts is None:  # the sample's rows and weights are the validated ones
        return spiegelhalter_of_sample(sample.scores, sample.labels, sample.weights,
                                       None).statistic
    return spiegelhalter_z(sample.scores, sample.labels, **_split_weights(sample)).statistic


def _log_loss(sample: PreparedSample) -> float:
    if sample.counts is None:  # the sample's rows and weights are the validated ones
        return log_loss_of_sample(sample.scores, sample.labels, sample.weights)
    return log_loss(sample.scores, sample.labels, weights=sample.weights)


_SLIDES = "Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides"
_THESIS = "Nguyen (2015), thesis"

def _lcs(sample: PreparedSample) -> float:
    """The LCS (default settings) as :func:`lcs` computes it, from the shared sort when it
    sorts (the prepared sample holds positive weights only, as :func:`lcs` requires)."""
    return lcs_of_sample(sample.scores, sample.labels, sample.weights, local_params(),
                         sorted_sample=lambda: sample.sorted)


def _wmse(sample: PreparedSample) -> float:
    """The WMSE; without weights from the shared sort."""
    if sample.weights is None:
        return wmse_of_sample(sample.scores, sample.labels, None, sorted_sample=sample.sorted)
    return wmse(sample.scores, sample.labels, **_split_weights(sample))


def _exact(cell_version: Callable[[ScoreStatistics], float]
           ) -> Callable[[CellSample], tuple[float, float]]:
    """A metric the cells give exactly (bound 0)."""
    return lambda cells: (cell_version(cells.stats), 0.0)


def _rows(cells: CellSample) -> tuple[float, float]:
    """Every row, weight zero too, as in memory."""
    return float(cells.stats.n + cells.stats.zero_weight_rows), 0.0


def _quantile_bins(cells: CellSample) -> Any:
    """The 10 quantile bins cut at cell edges and the ECE's bound
    (:meth:`~locacal.data.cells.ScoreStatistics.quantile_bins`), shared by the ECE and QMSE."""
    return cells.once("quantile_bins", lambda stats: stats.quantile_bins(DEFAULT_BINS))


def _ece_cells(cells: CellSample) -> tuple[float, float]:
    bin_stats, bound = _quantile_bins(cells)
    return ece_from_bins(bin_stats), bound


def _qmse_cells(cells: CellSample) -> tuple[float, float]:
    """No stated bound: the rows of the cut cells move it by a share like the ECE's."""
    return calib_mse_from_bins(_quantile_bins(cells)[0]), float("nan")


def _corp_cells(part: str) -> Callable[[CellSample], tuple[float, float]]:
    """CORP's ``part`` by PAV over the cells (:func:`corp_with_bound`; ``unc`` exact)."""
    def compute(cells: CellSample) -> tuple[float, float]:
        values, bound = cells.once("corp", corp_with_bound)
        return float(values[part]), 0.0 if part == "unc" else bound
    return compute


def _confusion_cells(cells: CellSample) -> tuple[float, float, float, float] | None:
    """The confusion weights (tp, fn, tn, fp) at the threshold when it is a cell edge; None
    with a warning (once per sample) otherwise."""
    if "confusion" not in cells.cache:
        if edge_index(cells.threshold) is None:
            warn(f"threshold={plain(cells.threshold)!r} is not a multiple of 1/{CELLS}: "
                 "accuracy, sensitivity, specificity (and the thresholded ECE) are NaN for "
                 "Dask input")
            cells.cache["confusion"] = None
        else:
            cells.cache["confusion"] = confusion_cells(cells.stats, cells.threshold)
    return cells.cache["confusion"]


def _rate_cells(rate: Callable[[float, float, float, float, float], float]
                ) -> Callable[[CellSample], tuple[float, float]]:
    """``rate(tp, fn, tn, fp, total weight)``, exact at a cell-edge threshold, NaN (bound
    NaN) otherwise."""
    def compute(cells: CellSample) -> tuple[float, float]:
        counts = _confusion_cells(cells)
        if counts is None:
            return float("nan"), float("nan")
        return rate(*counts, cells.stats.total_weight), 0.0
    return compute


def _share(part: float, rest: float) -> float:
    return part / (part + rest) if part + rest > 0 else float("nan")


_TRUE_P = "needs the true probabilities row by row (true_p is refused for Dask input)"
_CALIB_MSE = ("adaptive bins of sqrt(n) rows: each bin edge cuts a cell, whose rows are "
              "about sqrt(n) / 100800 of a bin (1 % at n = 1e6, 31 % at 1e9) and may fall on "
              "either side, so no useful bound")
_LOWESS = "R's lowess over the rows: not computed from the cells"
_LOGISTIC = "a logistic regression on logit(score) over the rows: not computed from the cells"

_L, _P, _T = frozenset({"labels"}), frozenset({"true_p"}), frozenset({"labels", "threshold"})

_TABLE = (
    Metric("n", lambda s: float(s.rows), frozenset(), None,
           "number of observations (rows)", "-",
           cells=_rows),
    Metric("true_mse", _true_mse, _P, False,
           "mean squared error of the scores against the true probabilities",
           f"{_SLIDES}, eq. (4)",
           not_from_cells=_TRUE_P),
    Metric("brier", brier_from_sample, _L, False,
           "mean squared error of the scores against the 0/1 events",
           f"Brier (1950); {_SLIDES}, eq. (3)",
           cells=_exact(brier_cells)),
    Metric("calib_mse", _brier_part("calibration"), _L, False,
           "MSE calibration score: squared gap between mean score and mean event on adaptive "
           "bins of sqrt(n) scores", f"{_THESIS}, §3.1.3 and §3.2.1",
           not_from_cells=_CALIB_MSE),
    Metric("calib_err", _brier_part("calib_err"), _L, False,
           "square root of calib_mse, on the probability scale",
           "Nguyen & O'Connor (2015), poster",
           not_from_cells="the square root of calib_mse (adaptive bins of sqrt(n) rows, "
           "see there)"),
    Metric("refinement", _brier_part("refinement"), _L, False,
           "refinement part of the Brier score, mean of p_b (1 - p_b) on adaptive bins",
           "Murphy & Winkler (1984); DeGroot & Fienberg (1983)",
           not_from_cells="the mean p (1 - p) on the adaptive bins of calib_mse (see there)"),
    Metric("lcs", _lcs, _L, False,
           "Local Calibration Score: density-weighted squared gap between a local-regression "
           "calibration curve and the diagonal", f"{_SLIDES}, eq. (5)",
           cells=lambda c: lcs_with_bound(c.stats)),
    Metric("ece", lambda s: ece_from_bins(s.bin_statistics("quantile", 10)), _L, False,
           "expected calibration error: mean absolute gap between mean event and mean score "
           "on 10 quantile bins", "Naeini, Cooper & Hauskrecht (2015)",
           cells=_ece_cells),
    Metric("ece_thresholded", ece_thresholded_from_sample, _T, False,
           "the slides' 'ECE': mean absolute gap between the accuracy of the 0/1 predictions "
           "(score >= threshold) and the mean score on 10 quantile bins; not a calibration "
           "error of the probabilities (a calibrated model does not score 0)",
           f"{_SLIDES}, eq. (2); after Guo, Pleiss, Sun & Weinberger (2017), ICML, §2",
           cells=lambda c: ece_thresholded_with_bound(c.stats, c.threshold)),
    Metric("qmse", lambda s: calib_mse_from_bins(s.bin_statistics("quantile", 10)), _L, False,
           "quantile MSE: squared gap between mean event and mean score on 10 quantile bins",
           "2024 R code of the slides (QMSE)",
           cells=_qmse_cells),
    Metric("wmse", _wmse, _L, False,
           "density-weighted squared gap between nearest-neighbour event means and the "
           "diagonal", "2024 R code of the slides (weighted_mse)",
           cells=lambda c: wmse_with_bound(c.stats)),
    Metric("accuracy", lambda s: accuracy_from_confusion(s.confusion()), _T, True,
           "share of correct classes, predicting 1 when the score >= threshold",
           f"{_SLIDES}, 'Predicting risks'",
           cells=_rate_cells(lambda tp, fn, tn, fp, total: (tp + tn) / total)),
    Metric("sensitivity", lambda s: sensitivity_from_confusion(s.confusion()), _T, True,
           "true positive rate TP / (TP + FN)", f"{_SLIDES}, 'Predicting risks'",
           cells=_rate_cells(lambda tp, fn, tn, fp, total: _share(tp, fn))),
    Metric("specificity", lambda s: specificity_from_confusion(s.confusion()), _T, True,
           "true negative rate TN / (TN + FP)", f"{_SLIDES}, 'Predicting risks'",
           cells=_rate_cells(lambda tp, fn, tn, fp, total: _share(tn, fp))),
    Metric("auc", auc_from_sample, _L, True,
           "area under the ROC curve: chance that a positive scores above a negative",
           "Hanley & McNeil (1982)",
           cells=lambda c: auc_with_bound(c.stats)),
    Metric("kl", _kl, _P, False,
           "KL divergence of the scores' distribution from the true probabilities' "
           "(20 bins, nats)", f"{_SLIDES}, §5.2; Kullback & Leibler (1951)",
           not_from_cells=_TRUE_P),
    Metric("log_loss", _log_loss, _L, False,
           "mean negative log-likelihood of the events under the scores (nats)",
           "Good (1952), 'Rational decisions', JRSS B 14",
           cells=_exact(log_loss_cells)),
    Metric("smece", _smece, _L, False,
           "smooth ECE: kernel-smoothed mean absolute gap at its own bandwidth (unweighted "
           "only)", "Błasiok & Nakkiran (2023), arXiv:2309.12236",
           not_from_cells="a kernel smoother over the rows with its own bandwidth search "
           "(Blasiok & Nakkiran 2023): not computed from the cells"),
    Metric("mcb", _cached("corp", _corp, "mcb"), _L, False,
           "CORP miscalibration: Brier score minus that of the isotonic recalibration",
           "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)",
           cells=_corp_cells("mcb")),
    Metric("dsc", _cached("corp", _corp, "dsc"), _L, True,
           "CORP discrimination: Brier score of the event rate minus that of the isotonic "
           "recalibration", "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)",
           cells=_corp_cells("dsc")),
    Metric("unc", _cached("corp", _corp, "unc"), _L, None,
           "CORP uncertainty: Brier score of the event rate, rate (1 - rate)",
           "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)",
           cells=_corp_cells("unc")),
    Metric("ici", _cached("errors", _errors, "ici"), _L, False,
           "integrated calibration index: mean |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21), eq. 1",
           not_from_cells=_LOWESS),
    Metric("e50", _cached("errors", _errors, "e50"), _L, False,
           "median |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)",
           not_from_cells=_LOWESS),
    Metric("e90", _cached("errors", _errors, "e90"), _L, False,
           "90th percentile of |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)",
           not_from_cells=_LOWESS),
    Metric("emax", _cached("errors", _errors, "emax"), _L, False,
           "maximum of |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)",
           not_from_cells=_LOWESS),
    Metric("cal_intercept", _cached("intercept_slope", _intercept_slope, "intercept"), _L,
           None, "calibration-in-the-large: a in logit P(D=1) = a + logit(s); 0 if calibrated",
           "Cox (1958); Steyerberg (2019), §15.2",
           not_from_cells=_LOGISTIC),
    Metric("cal_slope", _cached("intercept_slope", _intercept_slope, "slope"), _L, None,
           "calibration slope: b in logit P(D=1) = a' + b logit(s); 1 if calibrated, < 1 "
           "over-confident", "Cox (1958); Steyerberg (2019), §15.2",
           not_from_cells=_LOGISTIC),
    Metric("spiegelhalter_z", _spiegelhalter, _L, None,
           "Spiegelhalter's z: standardised Brier score, N(0, 1) if calibrated",
           "Spiegelhalter (1986), Stat. Med. 5(5), eq. 3",
           cells=_exact(spiegelhalter_z_cells)),
)

#: Every metric by name; :func:`~locacal.calibration_report` shows them in this order except
#: ``ece_thresholded``, ``kl``, ``e50``, ``e90`` and ``emax`` (available through its
#: ``extra``).
METRICS: MappingProxyType[str, Metric] = MappingProxyType({m.name: m for m in _TABLE})


#: Metrics whose smoother counts rows (the smooth ECE's own kernel) or that take no weights
#: (KL): not available with frequency_weights.
NOT_WITH_COUNTS = frozenset({"smece", "kl"})


def _names(metrics: Iterable[str]) -> tuple[str, ...]:
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of names, got the string {plain(metrics)!r}")
    names = tuple(metrics)
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; choose among {tuple(METRICS)}")
    return names


@public_api
def evaluate(metrics: Iterable[str], scores: Any, labels: Any, *, weights: Any = None,
             true_p: Any = None, threshold: float = 0.5,
             frequency_weights: Any = None) -> dict[str, float]:
    """Evaluate the named metrics on one sample, validating and sorting it once.

    Parameters
    ----------
    metrics : sequence of str
        Names of :data:`METRICS`, in the order wanted.
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events (validated once; a single class warns once).
    weights : array-like, optional
        Observation weights.
    true_p : array-like, optional
        Known probabilities; required by ``true_mse`` and ``kl``.
    threshold : float, default 0.5
        Classification threshold of the metrics that need one.
    frequency_weights : array-like, optional
        Counts of identical observations: each metric equals its value on the expanded rows
        (:mod:`locacal.data.frequency`); the metrics of :data:`NOT_WITH_COUNTS` refuse them.

    Returns
    -------
    dict
        ``{name: value}`` in the order of ``metrics``, each as the metric's public function
        returns it with its default settings.
    """
    names = _names(metrics)
    if true_p is None:
        lacking = [m for m in names if "true_p" in METRICS[m].needs]
        if lacking:
            raise ValueError(f"metrics {lacking} need true_p")
    if frequency_weights is not None:
        refused = [m for m in names if m in NOT_WITH_COUNTS]
        if refused:
            raise ValueError(f"metrics {refused} do not take frequency_weights yet (their "
                             "smoothers count rows); leave them out or expand the rows")
    sample = prepare(scores, labels, weights, true_p=true_p, threshold=threshold,
                     frequency_weights=frequency_weights)
    return {m: METRICS[m].compute(sample) for m in names}


def evaluate_cells(metrics: Iterable[str], stats: ScoreStatistics, *,
                   threshold: float = 0.5) -> tuple[pd.Series, pd.Series]:
    """Read the named metrics off merged cell statistics, with the bound on each one's
    distance to the in-memory value.

    Parameters
    ----------
    metrics : sequence of str
        Names of :data:`METRICS`, in the order wanted.
    stats : ScoreStatistics
        The cells of the sample (:func:`locacal.data.dask.statistics` for Dask input).
    threshold : float, default 0.5
        Classification threshold of the metrics that need one.
    frequency_weights : array-like, optional
        Counts of identical observations: each metric equals its value on the expanded rows
        (:mod:`locacal.data.frequency`); the metrics of :data:`NOT_WITH_COUNTS` refuse them.

    Returns
    -------
    (value, bound) : two pandas Series indexed by ``metrics``
        ``value`` as :attr:`Metric.cells` reads it; ``bound`` 0 where exact, NaN where no
        bound is stated. Each metric's ``cells`` states its rule:

        * ``n`` (every row, weight zero too, as in memory), ``brier``, ``log_loss``,
          ``spiegelhalter_z``, ``unc``: exact (kept sums); ``accuracy``, ``sensitivity``,
          ``specificity``: exact when the threshold is a cell edge (a multiple of 1 / 100800,
          as 0.5 is), NaN with a warning otherwise;
        * ``ece``, ``qmse``: 10 quantile bins cut at cell edges, the ECE within the bound of
          :meth:`~locacal.data.cells.ScoreStatistics.quantile_bins` (QMSE: NaN bound, the rows of
          the cut cells move it by a similar share); ``ece_thresholded``:
          :func:`~locacal.metrics.binned.ece_thresholded_with_bound`;
        * ``lcs``: :func:`~locacal.metrics.lcs_wmse.lcs_with_bound` and ``wmse``:
          :func:`~locacal.metrics.lcs_wmse.wmse_with_bound` (their curve parts; the
          density adds a relative 1e-6); ``auc``:
          :func:`~locacal.metrics.classification.auc_with_bound`;
        * ``mcb``, ``dsc``: PAV over the cells, within the bound of
          :func:`~locacal.metrics.corp.corp_with_bound` (exact when no cell mixes rows the
          exact PAV separates);
        * the metrics the cells do not determine (:attr:`Metric.not_from_cells` says why):
          NaN.
    """
    names = _names(metrics)
    sample = CellSample(stats, threshold)
    nan = (float("nan"), float("nan"))
    read = {m: (METRICS[m].cells or (lambda _: nan))(sample) for m in dict.fromkeys(names)}
    return (pd.Series({m: read[m][0] for m in names}, name="value"),
            pd.Series({m: read[m][1] for m in names}, name="bound"))
