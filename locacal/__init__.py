"""locacal: calibration analysis of binary classifiers.

See how far scores are from probabilities (calibration curves), measure it (LCS, ECE, Brier,
the MSE calibration score) and fix it (Platt, isotonic, beta, local-regression recalibration).
"""

from locacal._validation import CalibrationWarning
from locacal.curves import CalibrationCurve, calibration_curve

__version__ = "0.1.0"

__all__ = [
    "CalibrationCurve",
    "CalibrationWarning",
    "calibration_curve",
]
