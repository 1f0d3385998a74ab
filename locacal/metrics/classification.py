"""Scores against labels: Brier, true MSE, and the thresholded classification rates.

The class predicted at threshold tau is 1 when s >= tau (Machado, Charpentier et al. 2024,
"Predicting risks" slide). The 2024 R code writes ``scores > threshold`` instead; the two differ
only for scores exactly equal to tau, and locacal follows the slides, which are its
specification.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from locacal._validation import (
    check_fraction,
    check_probabilities,
    check_scores,
    check_scores_labels,
    check_weights,
    warn,
)

__all__ = ["accuracy", "auc", "brier_score", "sensitivity", "specificity", "true_mse"]


def _mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    return float(np.mean(values) if weights is None else np.average(values, weights=weights))


def brier_score(scores: Any, labels: Any, *, weights: Any = None) -> float:
    """Brier score, the mean squared difference between scores and events.

    .. math:: \\mathrm{BS} = \\frac{1}{n} \\sum_{i=1}^n (d_i - \\hat s(x_i))^2

    (weighted mean with ``weights``).

    References
    ----------
    Brier (1950); Machado, Charpentier et al. (2024), eq. (3).
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    return _mean((y - s) ** 2, w)


def true_mse(scores: Any, true_p: Any, *, weights: Any = None) -> float:
    """Mean squared error of the scores against known probabilities (simulations only).

    .. math:: \\mathrm{MSE} = \\frac{1}{n} \\sum_{i=1}^n (p_i - \\hat s(x_i))^2

    References
    ----------
    Machado, Charpentier et al. (2024), eq. (4).
    """
    s = check_scores(scores)
    p = check_probabilities(true_p, s.size)
    w = check_weights(weights, s.size)
    return _mean((p - s) ** 2, w)


def _confusion(scores: Any, labels: Any, weights: Any, threshold: float):
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False)
    tau = check_fraction(threshold, "threshold", low_open=False)
    w = np.ones_like(s) if w is None else w
    pred = s >= tau
    pos = y == 1.0
    return (float(w[pred & pos].sum()), float(w[~pred & ~pos].sum()),
            float(w[pred & ~pos].sum()), float(w[~pred & pos].sum()))


def accuracy(scores: Any, labels: Any, *, weights: Any = None, threshold: float = 0.5) -> float:
    """Share of correct classes when predicting 1 for s >= threshold: (TP + TN) / n."""
    tp, tn, fp, fn = _confusion(scores, labels, weights, threshold)
    return (tp + tn) / (tp + tn + fp + fn)


def sensitivity(scores: Any, labels: Any, *, weights: Any = None,
                threshold: float = 0.5) -> float:
    """True positive rate TP / (TP + FN); NaN, with a warning, when there is no positive."""
    tp, _, _, fn = _confusion(scores, labels, weights, threshold)
    if tp + fn == 0:
        warn("no positive label: sensitivity is undefined (NaN)")
        return float("nan")
    return tp / (tp + fn)


def specificity(scores: Any, labels: Any, *, weights: Any = None,
                threshold: float = 0.5) -> float:
    """True negative rate TN / (TN + FP); NaN, with a warning, when there is no negative."""
    _, tn, fp, _ = _confusion(scores, labels, weights, threshold)
    if tn + fp == 0:
        warn("no negative label: specificity is undefined (NaN)")
        return float("nan")
    return tn / (tn + fp)


def auc(scores: Any, labels: Any, *, weights: Any = None) -> float:
    """Area under the ROC curve (ties count one half); NaN, with a warning, for one class."""
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False)
    present = y if w is None else y[w > 0]
    if present.min() == present.max():
        warn("labels hold a single class: the AUC is undefined (NaN)")
        return float("nan")
    return float(roc_auc_score(y, s, sample_weight=w))
