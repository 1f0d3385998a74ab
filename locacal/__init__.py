"""locacal: calibration analysis of binary classifiers.

See how far scores are from probabilities (calibration curves), measure it (LCS, ECE, Brier,
the MSE calibration score, the clinical diagnostics) and fix it (Platt, isotonic, beta,
local-regression recalibration).

This module only names the public API; each name lives in the module that computes it and is
imported on first use (PEP 562), so ``import locacal`` loads neither scikit-learn,
statsmodels, matplotlib, tqdm, joblib nor rpy2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from locacal._lazy import attach
from locacal._validation import CalibrationWarning
from locacal._version import __version__ as __version__  # re-exported

#: Public name -> the module that defines it.
_EXPORTS = {
    "calibration_curve": "locacal.curves",
    "ReliabilityDisplay": "locacal.display",
    "CalibrationCurve": "locacal.curves.curve",
    "make_calibrator": "locacal.curves",
    "smoothing_table": "locacal.curves.selection",
    "compare_curves": "locacal.curves.compare",
    "BinningCalibrator": "locacal.curves.binning",
    "LocalRegressionCalibrator": "locacal.curves.local",
    "LowessCalibrator": "locacal.curves.lowess",
    "KernelCalibrator": "locacal.curves.kernel",
    "IsotonicCalibrator": "locacal.curves.isotonic",
    "PlattCalibrator": "locacal.curves.platt",
    "BetaCalibrator": "locacal.curves.beta",
    "accuracy": "locacal.metrics.classification",
    "auc": "locacal.metrics.classification",
    "brier_score": "locacal.metrics.classification",
    "sensitivity": "locacal.metrics.classification",
    "specificity": "locacal.metrics.classification",
    "true_mse": "locacal.metrics.classification",
    "brier_decomposition": "locacal.metrics.binned",
    "calib_err": "locacal.metrics.binned",
    "calib_mse": "locacal.metrics.binned",
    "calib_mse_interval": "locacal.metrics.binned",
    "ece": "locacal.metrics.binned",
    "ece_thresholded": "locacal.metrics.binned",
    "qmse": "locacal.metrics.binned",
    "lcs": "locacal.metrics.lcs_wmse",
    "wmse": "locacal.metrics.lcs_wmse",
    "calibration_report": "locacal.report.table",
    "explain_report": "locacal.report.table",
    "compare_models": "locacal.report.comparison",
    "ModelComparison": "locacal.report.comparison",
    "calibration_intercept_slope": "locacal.metrics.clinical",
    "calibration_errors": "locacal.metrics.clinical",
    "hosmer_lemeshow": "locacal.metrics.clinical",
    "spiegelhalter_z": "locacal.metrics.clinical",
    "corp_decomposition": "locacal.metrics.corp",
    "smece": "locacal.metrics.smooth_ece",
    "log_loss": "locacal.metrics.log_score",
    "calibration_test": "locacal.metrics.calibration_testing",
    # the package, not its module `split` (a module named like the export is returned as is)
    "split": "locacal.recalibration",
    "recalibrate": "locacal.recalibration.workflow",
    "RecalibrationResult": "locacal.recalibration.workflow",
    "run_simulation": "locacal.studies.miscalibration",
    "real_data_study": "locacal.studies.real_data",
    "tree_case_study": "locacal.studies.tree_case",
    "tree_grid_study": "locacal.studies.tree_grid",
    "forest_grid_study": "locacal.studies.tree_grid",
    "kl_divergence": "locacal.metrics.divergence",
    "simulate": "locacal.simulate",
    "studies": "locacal.studies",
    "testing": "locacal.testing",
    "metrics": "locacal.metrics",
    "curves": "locacal.curves",
    "plotting": "locacal.plotting",
    "density": "locacal.density",
}

__getattr__, __dir__ = attach(__name__, _EXPORTS)

__all__ = [
    "BetaCalibrator",
    "BinningCalibrator",
    "CalibrationCurve",
    "CalibrationWarning",
    "IsotonicCalibrator",
    "KernelCalibrator",
    "LocalRegressionCalibrator",
    "LowessCalibrator",
    "ModelComparison",
    "PlattCalibrator",
    "RecalibrationResult",
    "ReliabilityDisplay",
    "accuracy",
    "auc",
    "brier_decomposition",
    "brier_score",
    "calib_err",
    "calib_mse",
    "calib_mse_interval",
    "calibration_curve",
    "calibration_errors",
    "calibration_intercept_slope",
    "calibration_report",
    "calibration_test",
    "compare_curves",
    "compare_models",
    "corp_decomposition",
    "curves",
    "density",
    "ece",
    "ece_thresholded",
    "explain_report",
    "forest_grid_study",
    "hosmer_lemeshow",
    "kl_divergence",
    "lcs",
    "log_loss",
    "make_calibrator",
    "metrics",
    "plotting",
    "qmse",
    "real_data_study",
    "recalibrate",
    "run_simulation",
    "sensitivity",
    "simulate",
    "smece",
    "smoothing_table",
    "specificity",
    "spiegelhalter_z",
    "split",
    "studies",
    "testing",
    "tree_case_study",
    "tree_grid_study",
    "true_mse",
    "wmse",
]

if TYPE_CHECKING:  # for static analysers and IDEs; nothing is imported at run time
    from locacal import curves, density, metrics, plotting, simulate, studies, testing
    from locacal.curves import (
        BetaCalibrator,
        BinningCalibrator,
        CalibrationCurve,
        IsotonicCalibrator,
        KernelCalibrator,
        LocalRegressionCalibrator,
        LowessCalibrator,
        PlattCalibrator,
        calibration_curve,
        compare_curves,
        make_calibrator,
        smoothing_table,
    )
    from locacal.display import ReliabilityDisplay
    from locacal.metrics import (
        accuracy,
        auc,
        brier_decomposition,
        brier_score,
        calib_err,
        calib_mse,
        calib_mse_interval,
        calibration_errors,
        calibration_intercept_slope,
        calibration_test,
        corp_decomposition,
        ece,
        ece_thresholded,
        hosmer_lemeshow,
        lcs,
        log_loss,
        qmse,
        sensitivity,
        smece,
        specificity,
        spiegelhalter_z,
        true_mse,
        wmse,
    )
    from locacal.metrics.divergence import kl_divergence
    from locacal.recalibration import RecalibrationResult, recalibrate, split
    from locacal.report.table import calibration_report, explain_report
    from locacal.studies import (
        forest_grid_study,
        real_data_study,
        run_simulation,
        tree_case_study,
        tree_grid_study,
    )
