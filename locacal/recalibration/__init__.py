"""Recalibration: fit a map g on a calibration split, apply g(s) to new scores."""

from locacal.recalibration.beta import BetaCalibrator
from locacal.recalibration.isotonic import IsotonicCalibrator
from locacal.recalibration.platt import PlattCalibrator
from locacal.recalibration.split import split

__all__ = ["BetaCalibrator", "IsotonicCalibrator", "PlattCalibrator", "split"]
