"""Scores against labels: Brier, true MSE, and the thresholded classification rates.

The class predicted at threshold tau is 1 when s >= tau (Machado, Charpentier et al. 2024,
"Predicting risks" slide). The 2024 R code writes ``scores > threshold`` instead; the two differ
only for scores exactly equal to tau, and locacal follows the slides, which are its
specification.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import (
    check_aligned,
    check_probabilities,
    check_scores,
    check_weights,
    positive_weight_rows,
    public_api,
    warn,
)
from locacal.data.cells import ScoreStatistics
from locacal.data.frequency import weighting
from locacal.data.grid import CELLS
from locacal.metrics._dispatch import dask_input
from locacal.metrics._prepared import Confusion, PreparedSample, prepare

__all__ = ["accuracy", "auc", "brier_score", "sensitivity", "specificity", "true_mse"]


def _mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    return float(np.mean(values) if weights is None else np.average(values, weights=weights))


def brier_cells(cells: ScoreStatistics) -> float:
    """:func:`brier_score` from cell sums: exact (the sum w (y - s)^2 is kept, not binned)."""
    return cells.brier_sum / cells.total_weight


@public_api
@dask_input(brier_cells)
def brier_score(scores: Any, labels: Any, *, weights: Any = None,
                frequency_weights: Any = None) -> float:
    """Brier score, the mean squared difference between scores and events.

    .. math:: \\mathrm{BS} = \\frac{1}{n} \\sum_{i=1}^n (d_i - \\hat s(x_i))^2

    (weighted mean with ``weights``; ``frequency_weights``, counts of identical observations,
    give the Brier score of the expanded rows: the mean weighted by ``w f``).

    References
    ----------
    Brier (1950); Machado, Charpentier et al. (2024), eq. (3). Dask input: exact, partition
    by partition (:mod:`locacal.data.dask`).
    """
    return brier_from_sample(prepare(scores, labels, weights,
                                     frequency_weights=frequency_weights))


def brier_from_sample(sample: PreparedSample) -> float:
    """:func:`brier_score` of a prepared sample: the mean of (y - s)^2, weighted as
    ``np.average`` weighs it (:meth:`~locacal.metrics._prepared.PreparedSample.squared_errors`,
    the same sums, formed block by block)."""
    total, weight = sample.squared_errors()
    return total / weight


@public_api
def true_mse(scores: Any, true_p: Any, *, weights: Any = None,
             frequency_weights: Any = None) -> float:
    """Mean squared error of the scores against known probabilities (simulations only).

    .. math:: \\mathrm{MSE} = \\frac{1}{n} \\sum_{i=1}^n (p_i - \\hat s(x_i))^2

    References
    ----------
    Machado, Charpentier et al. (2024), eq. (4).
    """
    s = check_scores(scores)
    check_aligned({"scores": scores, "true_p": true_p, "weights": weights,
                   "frequency_weights": frequency_weights})
    p = check_probabilities(true_p, s.size)
    w = (check_weights(weights, s.size) if frequency_weights is None
         else weighting(weights, frequency_weights, s.size).point)
    s, p, w = positive_weight_rows(s, p, w)
    return _mean((p - s) ** 2, w)


def _confusion(scores: Any, labels: Any, weights: Any, threshold: float,
               frequency_weights: Any = None) -> Confusion:
    return prepare(scores, labels, weights, threshold=threshold, warn_one_class=False,
                   frequency_weights=frequency_weights).confusion()


def accuracy_from_confusion(c: Confusion) -> float:
    """(TP + TN) / n."""
    return (c.tp + c.tn) / (c.tp + c.tn + c.fp + c.fn)


def sensitivity_from_confusion(c: Confusion) -> float:
    """TP / (TP + FN); NaN, with a warning, when there is no positive."""
    if c.tp + c.fn == 0:
        warn("no positive label: sensitivity is undefined (NaN)")
        return float("nan")
    return c.tp / (c.tp + c.fn)


def specificity_from_confusion(c: Confusion) -> float:
    """TN / (TN + FP); NaN, with a warning, when there is no negative."""
    if c.tn + c.fp == 0:
        warn("no negative label: specificity is undefined (NaN)")
        return float("nan")
    return c.tn / (c.tn + c.fp)


@public_api
def accuracy(scores: Any, labels: Any, *, weights: Any = None, threshold: float = 0.5,
             frequency_weights: Any = None) -> float:
    """Share of correct classes when predicting 1 for s >= threshold: (TP + TN) / n
    (``frequency_weights``: counts of identical observations, the expanded rows' value)."""
    return accuracy_from_confusion(_confusion(scores, labels, weights, threshold,
                                              frequency_weights))


@public_api
def sensitivity(scores: Any, labels: Any, *, weights: Any = None,
                threshold: float = 0.5, frequency_weights: Any = None) -> float:
    """True positive rate TP / (TP + FN); NaN, with a warning, when there is no positive."""
    return sensitivity_from_confusion(_confusion(scores, labels, weights, threshold,
                                                 frequency_weights))


@public_api
def specificity(scores: Any, labels: Any, *, weights: Any = None,
                threshold: float = 0.5, frequency_weights: Any = None) -> float:
    """True negative rate TN / (TN + FP); NaN, with a warning, when there is no negative."""
    return specificity_from_confusion(_confusion(scores, labels, weights, threshold,
                                                 frequency_weights))


def auc_from_sample(sample: PreparedSample) -> float:
    """:func:`auc` of a prepared sample."""
    w = sample.weights
    present = sample.labels if w is None else sample.labels[w > 0]
    if present.min() == present.max():
        warn("labels hold a single class: the AUC is undefined (NaN)")
        return float("nan")
    return sample.mann_whitney_auc


@public_api
def auc(scores: Any, labels: Any, *, weights: Any = None,
        frequency_weights: Any = None) -> float:
    """Area under the ROC curve (ties count one half); NaN, with a warning, for one class.

    Computed as the Mann-Whitney statistic on the scores sorted once
    (:attr:`locacal.metrics._prepared.PreparedSample.mann_whitney_auc`): the probability that
    a random positive scores above a random negative, ties counting one half, which is the
    area under the empirical ROC curve (Hanley & McNeil 1982). Equals scikit-learn's
    ``roc_auc_score`` (checked in the tests). ``frequency_weights`` (counts of identical
    observations): the AUC of the expanded rows.
    """
    return auc_from_sample(prepare(scores, labels, weights, warn_one_class=False,
                                   frequency_weights=frequency_weights))


def auc_with_bound(stats: ScoreStatistics) -> tuple[float, float]:
    """The AUC (Mann-Whitney, ties one half) from the cells, and a bound.

    Positives weigh P_c = sum w y and negatives N_c = sum w (1 - y) in cell c; pairs in
    different cells are ordered by their cells, pairs within a cell are counted one half:

    .. math:: \\widetilde{\\mathrm{AUC}} = \\frac{\\sum_c P_c (\\sum_{c' < c} N_{c'}
        + N_c / 2)}{P N}, \\quad |\\widetilde{\\mathrm{AUC}} - \\mathrm{AUC}|
        \\le \\frac{\\sum_c P_c N_c}{2 P N}

    since a within-cell pair counts 0, 1/2 or 1 in the exact AUC. NaN for one class.
    """
    pos = stats.wy
    neg = stats.weight - stats.wy
    total_pos, total_neg = float(pos.sum()), float(neg.sum())
    if total_pos <= 0.0 or total_neg <= 0.0:
        return float("nan"), 0.0
    below = np.concatenate([[0.0], np.cumsum(neg)[:-1]])
    within = float(pos @ neg)
    value = (float(pos @ below) + 0.5 * within) / (total_pos * total_neg)
    return value, 0.5 * within / (total_pos * total_neg)


def confusion_cells(stats: ScoreStatistics, threshold: float) -> tuple[float, float, float, float]:
    """(TP, FN, TN, FP) weights for the prediction s >= threshold, exact when the threshold
    is a cell edge (any multiple of 1/100800: 0.5, 0.3, 1/3, ...)."""
    j = round(threshold * CELLS)
    pos, weight = stats.wy, stats.weight
    # rows of s == EDGES[j] are counted in cell j - 1 (right-closed cells) and are >= t
    tp = float(pos[j:].sum() + (stats.edge_wy[j] if j > 0 else 0.0))
    pred_pos = float(weight[j:].sum() + (stats.edge_weight[j] if j > 0 else 0.0))
    total_pos = float(pos.sum())
    fp = pred_pos - tp
    fn = total_pos - tp
    tn = stats.total_weight - total_pos - fp
    return tp, fn, tn, fp
