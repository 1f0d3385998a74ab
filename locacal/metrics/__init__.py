"""Calibration metrics: each takes ``(scores, labels, *, weights=None, ...)`` and returns a float.

* :mod:`~locacal.metrics.classification`: Brier score, true MSE, accuracy, sensitivity,
  specificity, AUC.
* :mod:`~locacal.metrics.binned`: ECE, QMSE, the slides' thresholded ECE, the thesis's MSE
  calibration score, its interval and the Brier decomposition.
* :mod:`~locacal.metrics.local`: the Local Calibration Score and the WMSE.
* :mod:`~locacal.metrics.registry`: the table of every metric (what it needs, whether higher
  is better, its meaning and reference) and ``evaluate``, which validates and sorts a sample
  once for any list of them.
* :mod:`~locacal.metrics.clinical`: calibration intercept and slope, ICI/E50/E90/Emax, the
  Hosmer-Lemeshow and Spiegelhalter tests (equal to R's rms and glm).
* :mod:`~locacal.metrics.corp`: the CORP (isotonic) decomposition of the Brier score.
* :mod:`~locacal.metrics.smooth_ece`: the smooth ECE with its automatic bandwidth.
* :mod:`~locacal.metrics.log_score`: the log loss.
* :mod:`~locacal.metrics.calibration_testing`: resampling test of calibration.
* :mod:`~locacal.metrics.report`: all of them in one table.
"""

from locacal.metrics.binned import (
    BrierDecomposition,
    CalibMSEInterval,
    brier_decomposition,
    calib_err,
    calib_mse,
    calib_mse_interval,
    ece,
    ece_thresholded,
    qmse,
)
from locacal.metrics.calibration_testing import CalibrationTestResult, calibration_test
from locacal.metrics.classification import (
    accuracy,
    auc,
    brier_score,
    sensitivity,
    specificity,
    true_mse,
)
from locacal.metrics.clinical import (
    HosmerLemeshowResult,
    SpiegelhalterResult,
    calibration_errors,
    calibration_intercept_slope,
    hosmer_lemeshow,
    spiegelhalter_z,
)
from locacal.metrics.corp import corp_decomposition
from locacal.metrics.local import lcs, wmse
from locacal.metrics.log_score import log_loss
from locacal.metrics.report import REPORT_COLUMNS, calibration_report
from locacal.metrics.smooth_ece import smece

__all__ = [
    "REPORT_COLUMNS",
    "BrierDecomposition",
    "CalibMSEInterval",
    "CalibrationTestResult",
    "HosmerLemeshowResult",
    "SpiegelhalterResult",
    "accuracy",
    "auc",
    "brier_decomposition",
    "brier_score",
    "calib_err",
    "calib_mse",
    "calib_mse_interval",
    "calibration_errors",
    "calibration_intercept_slope",
    "calibration_report",
    "calibration_test",
    "corp_decomposition",
    "ece",
    "ece_thresholded",
    "hosmer_lemeshow",
    "lcs",
    "log_loss",
    "qmse",
    "sensitivity",
    "smece",
    "specificity",
    "spiegelhalter_z",
    "true_mse",
    "wmse",
]
