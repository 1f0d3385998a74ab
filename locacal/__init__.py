"""locacal: calibration analysis of binary classifiers.

See how far scores are from probabilities (calibration curves), measure it (LCS, ECE, Brier,
the MSE calibration score) and fix it (Platt, isotonic, beta, local-regression recalibration).
This module only re-exports the public names; each lives in the module that computes it.
"""

from locacal import simulate, studies, trees
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
from locacal.recalibration import (
    BetaCalibrator,
    IsotonicCalibrator,
    LocalRegressionCalibrator,
    PlattCalibrator,
    RecalibrationResult,
    recalibrate,
    split,
)
from locacal.studies import (
    forest_grid_study,
    real_data_study,
    run_simulation,
    tree_case_study,
    tree_grid_study,
)

__version__ = "0.1.0"

__all__ = [
    "BetaCalibrator",
    "CalibrationCurve",
    "CalibrationWarning",
    "IsotonicCalibrator",
    "LocalRegressionCalibrator",
    "PlattCalibrator",
    "RecalibrationResult",
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
    "forest_grid_study",
    "kl_divergence",
    "lcs",
    "qmse",
    "real_data_study",
    "recalibrate",
    "run_simulation",
    "sensitivity",
    "simulate",
    "specificity",
    "split",
    "studies",
    "tree_case_study",
    "tree_grid_study",
    "trees",
    "true_mse",
    "wmse",
]
