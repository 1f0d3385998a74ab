"""Curves and calibrators read off mergeable cell statistics.

:class:`locacal._sufficient.ScoreStatistics` holds per-cell sums of a sample of any size;
this module turns them into what the in-memory functions return, so that Dask input
(:mod:`locacal.data.dask`) gets the same objects:

* :func:`binning_calibrator`: a fitted :class:`~locacal.curves.binning.BinningCalibrator`
  (uniform bins exactly; quantile bins with the bound of
  :meth:`~locacal._sufficient.ScoreStatistics.quantile_bins`);
* :class:`CellLocalCalibrator`: the binned local polynomial fit
  (:meth:`~locacal._sufficient.ScoreStatistics.local_fit`, degree 0/1, rect/tricube) as a
  calibrator of the family.

The report's columns come from each metric's cell version
(:func:`locacal.metrics.registry.evaluate_cells`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._sufficient import ScoreStatistics
from locacal._validation import check_choice, check_int, plain
from locacal.curves._base import BaseCalibrator
from locacal.curves.bands import proportion_band
from locacal.curves.binning import BinningCalibrator
from locacal.curves.local import DEFAULT_LOCAL
from locacal.data.bins import DEFAULT_BINS
from locacal.data.grid import nn_bracket

__all__ = ["CellLocalCalibrator", "binning_calibrator"]

def binning_calibrator(stats: ScoreStatistics, strategy: str = "quantile",
                       bins: int | None = None) -> tuple[BinningCalibrator, float]:
    """A :class:`BinningCalibrator` fitted from the cells, and the bound on its bins' ECE
    (0 for uniform bins; :meth:`ScoreStatistics.quantile_bins` for quantile bins)."""
    check_choice(strategy, ("quantile", "uniform"), "strategy")
    n_bins = DEFAULT_BINS if bins is None else check_int(bins, "bins", minimum=1)
    if strategy == "uniform":
        bin_stats, bound = stats.uniform_bins(n_bins), 0.0
    else:
        bin_stats, bound = stats.quantile_bins(n_bins)
    calibrator = BinningCalibrator(strategy=strategy, bins=bins)
    calibrator.stats_ = bin_stats
    calibrator.bin_size_ = None
    _set_fitted(calibrator, stats)
    return calibrator, bound


def _set_fitted(calibrator: BaseCalibrator, stats: ScoreStatistics) -> None:
    """The attributes :meth:`BaseCalibrator.fit` sets, from the cells (no row sample: the
    resampled bands are unavailable)."""
    calibrator.n_features_in_ = 1
    calibrator.weight_sum_ = stats.total_weight
    calibrator.score_range_ = (stats.min_score, stats.max_score)
    calibrator.fit_sample_ = None


class CellLocalCalibrator(BaseCalibrator):
    """Binned local polynomial regression (degree 0 or 1; rect or tricube kernel) from cell
    statistics: the local curve of data too large for memory.

    The defaults are the in-memory default curve's, :data:`locacal.curves.local.
    DEFAULT_LOCAL` (local-linear, tricube, nn = 0.15). The fit at a point is
    :meth:`locacal._sufficient.ScoreStatistics.local_fit`, within its stated bound of
    :class:`~locacal.curves.local.LocalRegressionCalibrator`'s exact fit with the same
    ``degree``, ``nn`` and ``kernel``, clipped to [0, 1] with ``clip``. It costs
    O(cells in the window) per distinct point: meant for curves and moderate numbers of new
    scores. The pointwise band is the in-memory one (binomial interval, Wilson's by default,
    at the effective size 1 / sum_i l_i(t)^2, Loader 1999, section 2.3) with the smoother
    weights of the binned fit
    (:meth:`~locacal._sufficient.ScoreStatistics.local_variance_factor`, degree 0 and 1).

    Attributes
    ----------
    stats_ : ScoreStatistics
        The cells the map is read from.
    """

    method = "local"

    def __init__(self, degree: int = DEFAULT_LOCAL["degree"],
                 nn: float = DEFAULT_LOCAL["nn"], kernel: str = DEFAULT_LOCAL["kernel"],
                 clip: bool = True) -> None:
        self.degree = degree
        self.nn = nn
        self.kernel = kernel
        self.clip = clip

    @classmethod
    def from_statistics(cls, stats: ScoreStatistics, **params: Any) -> CellLocalCalibrator:
        calibrator = cls(**params)
        calibrator._check_params()
        calibrator.stats_ = stats
        _set_fitted(calibrator, stats)
        return calibrator

    def _check_params(self) -> None:
        if self.degree not in (0, 1) or self.kernel not in ("rect", "tricube"):
            raise ValueError("from cell statistics (Dask input) the local fit has degree 0 or "
                             "1 and kernel 'rect' or 'tricube'; got "
                             f"degree={plain(self.degree)!r}, kernel={plain(self.kernel)!r}")

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        self._check_params()
        self.stats_ = ScoreStatistics.from_arrays(s, y, w)

    def _raw(self, s: np.ndarray) -> np.ndarray:
        points, inverse = np.unique(s, return_inverse=True)
        estimate, _ = self.stats_.local_fit(points, self.degree, self.nn, self.kernel)
        return estimate[inverse]

    def _predict(self, s: np.ndarray) -> np.ndarray:
        raw = self._raw(s)
        return np.clip(raw, 0.0, 1.0) if self.clip else raw

    def _has_pointwise_band(self) -> bool:
        return True

    def _pointwise_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                        interval: str) -> tuple[np.ndarray, np.ndarray]:
        var_factor = self.stats_.local_variance_factor(grid, self.degree, self.nn,
                                                       self.kernel)
        return proportion_band(estimate, var_factor, level, interval)

    def _counts(self, grid: np.ndarray) -> np.ndarray:
        st = self.stats_
        k = float(max(int(st.n * self.nn + 1e-12), 1))
        cum = np.concatenate([[0.0], np.cumsum(st.count)])
        _, _, _, outer = nn_bracket(grid, k, cum)
        return np.minimum(cum[outer[1]] - cum[outer[0]], k)

    def _curve_params(self) -> dict[str, Any]:
        return {"degree": self.degree, "nn": self.nn, "kernel": self.kernel,
                "evaluation": "binned"}
