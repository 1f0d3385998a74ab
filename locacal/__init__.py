"""locacal: calibration analysis of binary classifiers.

See how far scores are from probabilities (calibration curves), measure it (LCS, ECE, Brier,
the MSE calibration score) and fix it (Platt, isotonic, beta, local-regression recalibration).
This module only re-exports the public names; each lives in the module that computes it.
"""

from locacal import simulate
from locacal._validation import CalibrationWarning
from locacal.curves import CalibrationCurve, calibration_curve
from locacal.divergence import kl_divergence
from locacal.metrics import (
    accuracy,
    auc,
    brier_decomposition,
    brier_score,
    calib_err,
    calib_mse,
    calib_mse_interval,
    calibration_report,
    ece,
    ece_thresholded,
    lcs,
    qmse,
    sensitivity,
    specificity,
    true_mse,
    wmse,
)

__version__ = "0.1.0"

__all__ = [
    "CalibrationCurve",
    "CalibrationWarning",
    "accuracy",
    "auc",
    "brier_decomposition",
    "brier_score",
    "calib_err",
    "calib_mse",
    "calib_mse_interval",
    "calibration_curve",
    "calibration_report",
    "ece",
    "ece_thresholded",
    "kl_divergence",
    "lcs",
    "qmse",
    "sensitivity",
    "simulate",
    "specificity",
    "true_mse",
    "wmse",
]
