"""Recalibration: fit a map g on a calibration split, apply g(s) to new scores.

Every calibrator of :mod:`locacal.curves` is a recalibrator (a calibration curve fitted on a
calibration split *is* the recalibration map); this package adds the train / calibration /
test :func:`split` and :func:`recalibrate`, which fits several maps on the calibration split
and compares them on every split (2024 slides, §4).
"""

from locacal.recalibration.split import split
from locacal.recalibration.workflow import RecalibrationResult, recalibrate

__all__ = ["RecalibrationResult", "recalibrate", "split"]
