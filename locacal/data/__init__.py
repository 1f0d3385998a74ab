"""The data layer: what every estimator and metric starts from, and nothing they compute.

* :mod:`~locacal.data.sample`: the validated sample, and the sample sorted once by score with
  cached prefix sums;
* :mod:`~locacal.data.bins`: uniform, quantile and adaptive bins and their sufficient
  statistics, shared by the binning calibrator and the binned metrics;
* :mod:`~locacal.data.quantile`: empirical quantiles as R computes them (type 7), with
  relative case weights, and the quantile breaks of bins.
* :mod:`~locacal.data.grid`: the fine grids of [0, 1], linear binning and Gaussian
  convolutions on their nodes, and the nearest-neighbour bracket from cell counts;
* :mod:`~locacal.data.cells`: mergeable per-cell sums of a sample of any size;
* :mod:`~locacal.data.dask`: Dask input reduced partition by partition to cell sums (the only
  module that imports Dask).
"""
