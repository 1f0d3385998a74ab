"""All calibration and classification metrics of one or several models in one table.

The metrics come from :func:`locacal.metrics.registry.evaluate`, which validates and sorts
each score vector once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import public_api
from locacal.metrics.registry import evaluate

__all__ = ["REPORT_COLUMNS", "calibration_report"]

#: Metrics of :func:`calibration_report`, in order.
REPORT_COLUMNS = (
    "n", "true_mse", "brier", "calib_mse", "calib_err", "refinement", "lcs", "ece",
    "ece_thresholded", "qmse", "wmse", "accuracy", "sensitivity", "specificity", "auc",
)


def _one_report(scores: Any, labels: Any, true_p: Any, weights: Any,
                threshold: float) -> pd.Series:
    names = REPORT_COLUMNS if true_p is not None else tuple(
        c for c in REPORT_COLUMNS if c != "true_mse")
    row = evaluate(names, scores, labels, weights=weights, true_p=true_p, threshold=threshold)
    return pd.Series({c: row.get(c, np.nan) for c in REPORT_COLUMNS}, name="value")


@public_api
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
