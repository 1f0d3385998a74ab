"""The data layer: what every estimator and metric starts from, and nothing they compute.

* :mod:`~locacal.data.sample`: the validated sample, and the sample sorted once by score with
  cached prefix sums;
* :mod:`~locacal.data.bins`: uniform, quantile and adaptive bins and their sufficient
  statistics, shared by the binning calibrator and the binned metrics;
* :mod:`~locacal.data.quantile`: empirical quantiles as R computes them (type 7), with
  relative case weights, and the quantile breaks of bins.
"""
