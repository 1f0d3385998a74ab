"""The table of locacal's metrics, and one function that evaluates any list of them.

:data:`METRICS` maps each metric's name to a :class:`Metric`: how to compute it from a
:class:`~locacal.metrics._prepared.PreparedSample`, what it needs besides the scores
(labels, true probabilities, a threshold), whether higher is better, a one-line meaning and
its reference. :func:`evaluate` validates the data once, sorts them once and shares the bins
and confusion counts between the metrics that use them. :func:`~locacal.calibration_report`,
:func:`~locacal.recalibrate`'s per-split table and the tree and forest studies all tabulate
their metrics through :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from locacal._validation import plain, public_api
from locacal.localfit import local_params
from locacal.metrics._prepared import PreparedSample, prepare
from locacal.metrics.binned import (
    brier_decomposition_from_sample,
    calib_mse_from_bins,
    ece_from_bins,
    ece_thresholded_from_sample,
)
from locacal.metrics.classification import (
    accuracy_from_confusion,
    auc_from_sample,
    brier_from_sample,
    sensitivity_from_confusion,
    specificity_from_confusion,
)
from locacal.metrics.clinical import (
    calibration_errors,
    calibration_intercept_slope,
    spiegelhalter_z,
)
from locacal.metrics.corp import corp_from_sorted
from locacal.metrics.divergence import kl_divergence
from locacal.metrics.lcs_wmse import lcs_of_sample, wmse, wmse_of_sample
from locacal.metrics.log_score import log_loss
from locacal.metrics.smooth_ece import smece

__all__ = ["METRICS", "NEEDS", "Metric", "evaluate"]

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
    """

    name: str
    compute: Callable[[PreparedSample], float]
    needs: frozenset[str]
    higher_is_better: bool | None
    meaning: str
    reference: str


def _brier_part(part: str) -> Callable[[PreparedSample], float]:
    def compute(sample: PreparedSample) -> float:
        if "brier_decomposition" not in sample.cache:
            sample.cache["brier_decomposition"] = brier_decomposition_from_sample(sample)
        return float(getattr(sample.cache["brier_decomposition"], part))
    return compute


def _true_mse(sample: PreparedSample) -> float:
    return sample.mean((sample.true_p - sample.scores) ** 2)


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
    return corp_from_sorted(ordered.scores, ordered.labels.astype(np.float64),
                            ordered.weights)


def _errors(sample: PreparedSample) -> Any:
    return calibration_errors(sample.scores, sample.labels, weights=sample.weights)


def _intercept_slope(sample: PreparedSample) -> Any:
    return calibration_intercept_slope(sample.scores, sample.labels,
                                       weights=sample.weights)["estimate"]


def _smece(sample: PreparedSample) -> float:
    if sample.weights is not None:
        raise ValueError("the smece metric does not take weights")
    return smece(sample.scores, sample.labels)


def _spiegelhalter(sample: PreparedSample) -> float:
    return spiegelhalter_z(sample.scores, sample.labels, weights=sample.weights).statistic


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
    return wmse(sample.scores, sample.labels, weights=sample.weights)


_L, _P, _T = frozenset({"labels"}), frozenset({"true_p"}), frozenset({"labels", "threshold"})

_TABLE = (
    Metric("n", lambda s: float(s.rows), frozenset(), None,
           "number of observations (rows)", "-"),
    Metric("true_mse", _true_mse, _P, False,
           "mean squared error of the scores against the true probabilities",
           f"{_SLIDES}, eq. (4)"),
    Metric("brier", brier_from_sample, _L, False,
           "mean squared error of the scores against the 0/1 events",
           f"Brier (1950); {_SLIDES}, eq. (3)"),
    Metric("calib_mse", _brier_part("calibration"), _L, False,
           "MSE calibration score: squared gap between mean score and mean event on adaptive "
           "bins of sqrt(n) scores", f"{_THESIS}, §3.1.3 and §3.2.1"),
    Metric("calib_err", _brier_part("calib_err"), _L, False,
           "square root of calib_mse, on the probability scale",
           "Nguyen & O'Connor (2015), poster"),
    Metric("refinement", _brier_part("refinement"), _L, False,
           "refinement part of the Brier score, mean of p_b (1 - p_b) on adaptive bins",
           "Murphy & Winkler (1984); DeGroot & Fienberg (1983)"),
    Metric("lcs", _lcs, _L, False,
           "Local Calibration Score: density-weighted squared gap between a local-regression "
           "calibration curve and the diagonal", f"{_SLIDES}, eq. (5)"),
    Metric("ece", lambda s: ece_from_bins(s.bin_statistics("quantile", 10)), _L, False,
           "expected calibration error: mean absolute gap between mean event and mean score "
           "on 10 quantile bins", "Naeini, Cooper & Hauskrecht (2015)"),
    Metric("ece_thresholded", ece_thresholded_from_sample, _T, False,
           "the slides' 'ECE': mean absolute gap between the accuracy of the 0/1 predictions "
           "(score >= threshold) and the mean score on 10 quantile bins; not a calibration "
           "error of the probabilities (a calibrated model does not score 0)",
           f"{_SLIDES}, eq. (2); after Guo, Pleiss, Sun & Weinberger (2017), ICML, §2"),
    Metric("qmse", lambda s: calib_mse_from_bins(s.bin_statistics("quantile", 10)), _L, False,
           "quantile MSE: squared gap between mean event and mean score on 10 quantile bins",
           "2024 R code of the slides (QMSE)"),
    Metric("wmse", _wmse, _L, False,
           "density-weighted squared gap between nearest-neighbour event means and the "
           "diagonal", "2024 R code of the slides (weighted_mse)"),
    Metric("accuracy", lambda s: accuracy_from_confusion(s.confusion()), _T, True,
           "share of correct classes, predicting 1 when the score >= threshold",
           f"{_SLIDES}, 'Predicting risks'"),
    Metric("sensitivity", lambda s: sensitivity_from_confusion(s.confusion()), _T, True,
           "true positive rate TP / (TP + FN)", f"{_SLIDES}, 'Predicting risks'"),
    Metric("specificity", lambda s: specificity_from_confusion(s.confusion()), _T, True,
           "true negative rate TN / (TN + FP)", f"{_SLIDES}, 'Predicting risks'"),
    Metric("auc", auc_from_sample, _L, True,
           "area under the ROC curve: chance that a positive scores above a negative",
           "Hanley & McNeil (1982)"),
    Metric("kl", _kl, _P, False,
           "KL divergence of the scores' distribution from the true probabilities' "
           "(20 bins, nats)", f"{_SLIDES}, §5.2; Kullback & Leibler (1951)"),
    Metric("log_loss", lambda s: log_loss(s.scores, s.labels, weights=s.weights), _L, False,
           "mean negative log-likelihood of the events under the scores (nats)",
           "Good (1952), 'Rational decisions', JRSS B 14"),
    Metric("smece", _smece, _L, False,
           "smooth ECE: kernel-smoothed mean absolute gap at its own bandwidth (unweighted "
           "only)", "Błasiok & Nakkiran (2023), arXiv:2309.12236"),
    Metric("mcb", _cached("corp", _corp, "mcb"), _L, False,
           "CORP miscalibration: Brier score minus that of the isotonic recalibration",
           "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)"),
    Metric("dsc", _cached("corp", _corp, "dsc"), _L, True,
           "CORP discrimination: Brier score of the event rate minus that of the isotonic "
           "recalibration", "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)"),
    Metric("unc", _cached("corp", _corp, "unc"), _L, None,
           "CORP uncertainty: Brier score of the event rate, rate (1 - rate)",
           "Dimitriadis, Gneiting & Jordan (2021), PNAS 118(8)"),
    Metric("ici", _cached("errors", _errors, "ici"), _L, False,
           "integrated calibration index: mean |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21), eq. 1"),
    Metric("e50", _cached("errors", _errors, "e50"), _L, False,
           "median |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)"),
    Metric("e90", _cached("errors", _errors, "e90"), _L, False,
           "90th percentile of |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)"),
    Metric("emax", _cached("errors", _errors, "emax"), _L, False,
           "maximum of |lowess curve - score| over the observations",
           "Austin & Steyerberg (2019), Stat. Med. 38(21)"),
    Metric("cal_intercept", _cached("intercept_slope", _intercept_slope, "intercept"), _L,
           None, "calibration-in-the-large: a in logit P(D=1) = a + logit(s); 0 if calibrated",
           "Cox (1958); Steyerberg (2019), §15.2"),
    Metric("cal_slope", _cached("intercept_slope", _intercept_slope, "slope"), _L, None,
           "calibration slope: b in logit P(D=1) = a' + b logit(s); 1 if calibrated, < 1 "
           "over-confident", "Cox (1958); Steyerberg (2019), §15.2"),
    Metric("spiegelhalter_z", _spiegelhalter, _L, None,
           "Spiegelhalter's z: standardised Brier score, N(0, 1) if calibrated",
           "Spiegelhalter (1986), Stat. Med. 5(5), eq. 3"),
)

#: Every metric by name; :func:`~locacal.calibration_report` shows them in this order except
#: ``ece_thresholded``, ``kl``, ``e50``, ``e90`` and ``emax`` (available through its
#: ``extra``).
METRICS: MappingProxyType[str, Metric] = MappingProxyType({m.name: m for m in _TABLE})


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
             true_p: Any = None, threshold: float = 0.5) -> dict[str, float]:
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
    sample = prepare(scores, labels, weights, true_p=true_p, threshold=threshold)
    return {m: METRICS[m].compute(sample) for m in names}
