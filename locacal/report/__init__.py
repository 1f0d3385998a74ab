"""The calibration report: every metric of one or several models in one table.

* :mod:`~locacal.report.table`: :func:`~locacal.report.table.calibration_report` and
  :func:`~locacal.report.table.explain_report` (both also ``locacal.NAME``);
* :mod:`~locacal.report.intervals`: its bootstrap intervals and calibrated-model null
  expectations;
* :mod:`~locacal.report.page`: the self-contained HTML page of ``locacal report``.

The report sits above the metrics (it evaluates the registry of :mod:`locacal.metrics`) and
below recalibration and the studies, which tabulate it.
"""
