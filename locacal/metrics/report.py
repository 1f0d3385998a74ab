"""All calibration and classification metrics of one or several models in one table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import check_scores_labels
from locacal.metrics.binned import brier_decomposition, ece, ece_thresholded, qmse
from locacal.metrics.classification import accuracy, auc, sensitivity, specificity, true_mse
from locacal.metrics.local import lcs, wmse

__all__ = ["REPORT_COLUMNS", "calibration_report"]

#: Metrics of :func:`calibration_report`, in order.
REPORT_COLUMNS = (
    "n", "true_mse", "brier", "calib_mse", "calib_err", "refinement", "lcs", "ece",
    "ece_thresholded", "qmse", "wmse", "accuracy", "sensitivity", "specificity", "auc",
)


def _one_report(scores: Any, labels: Any, true_p: Any, weights: Any,
                threshold: float) -> pd.Series:
    s, y, w = check_scores_labels(scores, labels, weights)
    decomposition = brier_decomposition(s, y, weights=w)
    row = {
        "n": float(s.size),
        "true_mse": np.nan,
        "brier": decomposition.brier,
        "calib_mse": decomposition.calibration,
        "calib_err": decomposition.calib_err,
        "refinement": decomposition.refinement,
        "lcs": lcs(s, y, weights=w),
        "ece": ece(s, y, weights=w),
        "ece_thresholded": ece_thresholded(s, y, weights=w, threshold=threshold),
        "qmse": qmse(s, y, weights=w),
        "wmse": wmse(s, y, weights=w),
        "accuracy": accuracy(s, y, weights=w, threshold=threshold),
        "sensitivity": sensitivity(s, y, weights=w, threshold=threshold),
        "specificity": specificity(s, y, weights=w, threshold=threshold),
        "auc": auc(s, y, weights=w),
    }
    if true_p is not None:
        row["true_mse"] = true_mse(s, true_p, weights=w)
    return pd.Series(row, name="value")


def calibration_report(scores: Any, labels: Any, *, true_p: Any = None, weights: Any = None,
                       threshold: float = 0.5) -> pd.Series | pd.DataFrame:
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
        Observation weights.
    threshold : float, default 0.5
        Classification threshold for accuracy, sensitivity, specificity and the slides' ECE.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        A Series indexed by :data:`REPORT_COLUMNS` for one score vector; for several, a
        DataFrame with a ``model`` column followed by those columns, one row per model.
        Defaults are those of each metric: LCS (nn 0.15, degree 0), ECE, thresholded ECE and
        QMSE (10 quantile bins), WMSE (101 points), and CalibMSE/refinement on adaptive bins
        of sqrt(n) scores.
    """
    if isinstance(scores, pd.DataFrame):
        scores = {str(c): scores[c] for c in scores.columns}
    if isinstance(scores, Mapping):
        rows = [
            _one_report(v, labels, true_p, weights, threshold).rename(str(name))
            for name, v in scores.items()
        ]
        table = pd.DataFrame(rows).rename_axis("model").reset_index()
        return table[["model", *REPORT_COLUMNS]]
    return _one_report(scores, labels, true_p, weights, threshold)
