"""Calibration metrics: each takes ``(scores, labels, *, weights=None, ...)`` and returns a float.

* :mod:`~locacal.metrics.classification`: Brier score, true MSE, accuracy, sensitivity,
  specificity, AUC.
* :mod:`~locacal.metrics.binned`: ECE, QMSE, the slides' thresholded ECE, the thesis's MSE
  calibration score, its interval and the Brier decomposition.
* :mod:`~locacal.metrics.lcs_wmse`: the Local Calibration Score and the WMSE.
* :mod:`~locacal.metrics.registry`: the table of every metric (what it needs, whether higher
  is better, its meaning and reference) and ``evaluate``, which validates and sorts a sample
  once for any list of them.
* :mod:`~locacal.metrics.clinical`: calibration intercept and slope, ICI/E50/E90/Emax, the
  Hosmer-Lemeshow and Spiegelhalter tests (equal to R's rms and glm).
* :mod:`~locacal.metrics.corp`: the CORP (isotonic) decomposition of the Brier score.
* :mod:`~locacal.metrics.decision`: decision curves (net benefit) and Murphy diagrams, with
  the net benefit that miscalibration costs at each threshold.
* :mod:`~locacal.metrics.smooth_ece`: the smooth ECE with its automatic bandwidth.
* :mod:`~locacal.metrics.log_score`: the log loss.
* :mod:`~locacal.metrics.calibration_testing`: resampling test of calibration, and by
  subgroup with :mod:`~locacal.metrics.grouped_test`'s family-wise adjustment.
* :mod:`~locacal.metrics.divergence`: the KL divergence between two score distributions.

All of them in one table: :func:`locacal.calibration_report` (:mod:`locacal.report`, the
layer above this one).
"""

from locacal._lazy import attach

#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "BrierDecomposition": "locacal.metrics.binned",
    "CalibMSEInterval": "locacal.metrics.binned",
    "brier_decomposition": "locacal.metrics.binned",
    "calib_err": "locacal.metrics.binned",
    "calib_mse": "locacal.metrics.binned",
    "calib_mse_interval": "locacal.metrics.binned",
    "ece": "locacal.metrics.binned",
    "ece_thresholded": "locacal.metrics.binned",
    "qmse": "locacal.metrics.binned",
    "accuracy": "locacal.metrics.classification",
    "auc": "locacal.metrics.classification",
    "brier_score": "locacal.metrics.classification",
    "sensitivity": "locacal.metrics.classification",
    "specificity": "locacal.metrics.classification",
    "true_mse": "locacal.metrics.classification",
    "HosmerLemeshowResult": "locacal.metrics.clinical",
    "SpiegelhalterResult": "locacal.metrics.clinical",
    "calibration_errors": "locacal.metrics.clinical",
    "calibration_intercept_slope": "locacal.metrics.clinical",
    "hosmer_lemeshow": "locacal.metrics.clinical",
    "spiegelhalter_z": "locacal.metrics.clinical",
    "CalibrationTestResult": "locacal.metrics.calibration_testing",
    "calibration_test": "locacal.metrics.calibration_testing",
    "GroupedTestResult": "locacal.metrics.grouped_test",
    "EquivalenceTestResult": "locacal.metrics.equivalence",
    "calibration_equivalence_test": "locacal.metrics.equivalence",
    "corp_decomposition": "locacal.metrics.corp",
    "DecisionCurve": "locacal.metrics.decision",
    "MurphyDiagram": "locacal.metrics.decision",
    "decision_curve": "locacal.metrics.decision",
    "murphy_diagram": "locacal.metrics.decision",
    "lcs": "locacal.metrics.lcs_wmse",
    "wmse": "locacal.metrics.lcs_wmse",
    "log_loss": "locacal.metrics.log_score",
    "smece": "locacal.metrics.smooth_ece",
}

__getattr__, __dir__ = attach(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
