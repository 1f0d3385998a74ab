"""The logarithmic score (log loss, cross-entropy) of probability scores."""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import check_scores_labels, positive_weight_rows, public_api
from locacal.data.blockwise import pairwise_sums
from locacal.data.cells import LOG_LOSS_EPS, ScoreStatistics
from locacal.data.frequency import weighting

__all__ = ["LOG_LOSS_EPS", "log_loss"]



@public_api
def log_loss(scores: Any, labels: Any, *, weights: Any = None,
             frequency_weights: Any = None) -> float:
    """Log loss: the (weighted) mean negative log-likelihood of the labels under the scores.

    .. math::

        \\mathrm{LL} = -\\frac{\\sum_i w_i \\left[y_i \\log \\tilde s_i + (1 - y_i)
        \\log(1 - \\tilde s_i)\\right]}{\\sum_i w_i},
        \\qquad \\tilde s_i = \\min(\\max(s_i, \\varepsilon), 1 - \\varepsilon)

    with :math:`\\varepsilon` = :data:`LOG_LOSS_EPS` (2.2e-16), so that a score of exactly 0
    or 1 on the wrong side costs about 36 instead of infinity. Natural logarithm. Equals
    ``sklearn.metrics.log_loss(labels, scores, sample_weight=weights, labels=[0, 1])``.

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.
    weights : array-like, optional
        Case weights.
    frequency_weights : array-like, optional
        Counts of identical observations: the log loss of the expanded rows (the mean
        weighted by ``w f``).

    References
    ----------
    Good (1952), "Rational decisions", J. R. Stat. Soc. B 14(1); Gneiting & Raftery
    (2007), "Strictly proper scoring rules, prediction, and estimation", JASA 102.
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    if frequency_weights is not None:
        w = weighting(w, frequency_weights, s.size,
                      aligned={"scores": scores, "labels": labels}).point
    return log_loss_of_sample(*positive_weight_rows(s, y, w))


def log_loss_of_sample(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> float:
    """:func:`log_loss` of validated rows of positive weight (the metric registry's sample):
    ``np.average`` of the losses, summed block by block
    (:func:`~locacal.data.blockwise.pairwise_sums`: the same bits, small temporaries)."""
    def terms(rows: slice) -> tuple[np.ndarray, ...]:
        p = np.clip(s[rows], LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)
        # -log(1 - p) for the non-events, -log(p) for the events: each logarithm where needed
        losses = np.negative(p)
        np.log1p(losses, out=losses)
        np.log(p, out=losses, where=y[rows] == 1.0)
        np.negative(losses, out=losses)
        return (losses,) if w is None else (losses * w[rows], w[rows])

    sums = pairwise_sums(s.size, terms)
    return sums[0] / (s.size if w is None else sums[1])


def log_loss_cells(cells: ScoreStatistics) -> float:
    """:func:`log_loss` from cell sums, exactly: -sum w [y log s~ + (1 - y) log(1 - s~)] / sum w
    from the kept log-score sum (the same clipping of s to [eps, 1 - eps]); the scale of the
    weights cancels."""
    return -cells.log_sum / cells.total_weight
