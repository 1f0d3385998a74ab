"""Estimators of the calibration curve g(p) = E[D | s(X) = p]: one calibrator class per method.

Every method is a calibrator with scikit-learn's API (:mod:`locacal.curves._base`), and
:func:`calibration_curve` is exactly "fit that calibrator, tabulate it on the grid". The same
fitted object is the picture (``curve.plot()``), the input of the metrics and the
recalibration map (``curve(new_scores)`` is ``curve.estimator.predict(new_scores)``).

====================  ==========================================  ==========================
``method=``           calibrator                                  module
====================  ==========================================  ==========================
``"local"``           :class:`LocalRegressionCalibrator`          :mod:`.local`
``"binning"``         :class:`BinningCalibrator`                  :mod:`.binning`
``"lowess"``          :class:`LowessCalibrator`                   :mod:`.lowess`
``"kernel"``          :class:`KernelCalibrator`                   :mod:`.kernel`
``"locfit"``          :class:`LocalRegressionCalibrator`          :mod:`.rlocfit` (R's locfit)
``"isotonic"``        :class:`IsotonicCalibrator`                 :mod:`.isotonic`
``"platt"``           :class:`PlattCalibrator`                    :mod:`.platt`
``"beta"``            :class:`BetaCalibrator`                     :mod:`.beta`
====================  ==========================================  ==========================

``method="locfit"`` is ``LocalRegressionCalibrator(backend="locfit", evaluation="locfit")``.
"""

from locacal._lazy import attach

#: Public name -> the module that defines it (imported on first use: the LCS, which needs
#: only the local engine, does not load scikit-learn).
_EXPORTS = {
    "METHODS": "locacal.curves.family",
    "calibration_curve": "locacal.curves.family",
    "make_calibrator": "locacal.curves.family",
    "BaseCalibrator": "locacal.curves._base",
    "CalibrationCurve": "locacal.curves.curve",
    "CurvesByGroup": "locacal.curves.grouped",
    "BetaCalibrator": "locacal.curves.beta",
    "BinningCalibrator": "locacal.curves.binning",
    "IsotonicCalibrator": "locacal.curves.isotonic",
    "KernelCalibrator": "locacal.curves.kernel",
    "LocalRegressionCalibrator": "locacal.curves.local",
    "LowessCalibrator": "locacal.curves.lowess",
    "PlattCalibrator": "locacal.curves.platt",
    "CurveComparison": "locacal.curves.compare",
    "compare_curves": "locacal.curves.compare",
    "SmoothingTable": "locacal.curves.selection",
    "smoothing_table": "locacal.curves.selection",
}

__getattr__, __dir__ = attach(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
