"""The data layer: what every estimator and metric starts from, and nothing they compute.

* :mod:`~locacal.data.sample`: the sample sorted once by score, with cached prefix sums;
* :mod:`~locacal.data.quantile`: empirical quantiles as R computes them (type 7), with
  relative case weights.
"""
