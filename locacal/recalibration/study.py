"""Kept for old code: the recalibration studies moved to :mod:`locacal.studies.recalibration`.

``from locacal.recalibration.study import slides_recalibration_study`` (and the other names
below) keeps working; new code imports them from :mod:`locacal.studies`.
"""

from locacal.studies.recalibration import (
    DEFAULT_METHODS,
    calibrated_scores_study,
    slides_recalibration_study,
    study_summary,
)

__all__ = ["DEFAULT_METHODS", "calibrated_scores_study", "slides_recalibration_study",
           "study_summary"]
