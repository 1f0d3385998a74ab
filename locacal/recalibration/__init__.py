"""Recalibration: fit a map g on a calibration split, apply g(s) to new scores.

A recalibration map is a calibration curve fitted on a calibration split (2024 slides, §4):
four scikit-learn–compatible recalibrators (:class:`PlattCalibrator`,
:class:`IsotonicCalibrator`, :class:`BetaCalibrator`, :class:`LocalRegressionCalibrator`), the
train / calibration / test :func:`split`, and :func:`recalibrate`, which fits them all on the
calibration split and compares them on every split.
"""

from locacal.recalibration.beta import BetaCalibrator
from locacal.recalibration.isotonic import IsotonicCalibrator
from locacal.recalibration.local import LocalRegressionCalibrator
from locacal.recalibration.platt import PlattCalibrator
from locacal.recalibration.split import split
from locacal.recalibration.workflow import RecalibrationResult, recalibrate

__all__ = [
    "BetaCalibrator",
    "IsotonicCalibrator",
    "LocalRegressionCalibrator",
    "PlattCalibrator",
    "RecalibrationResult",
    "recalibrate",
    "split",
]
