"""Calibration curve and recalibration map by binning: :class:`BinningCalibrator`.

The bins themselves (uniform, quantile, adaptive; their conventions and sufficient
statistics) are defined in :mod:`locacal.data.bins`, which the binned metrics share.

The pointwise band is a binomial interval for p_b on n_b observations (Kish's effective size
(sum w)^2 / sum w^2 in place of n_b under weights): Wilson's by default, or
``interval="normal"`` for the thesis's normal approximation (§3.2.2),
p_b ± z sqrt(p_b (1 - p_b) / n_b) clipped to [0, 1], or Jeffreys' or Clopper-Pearson's
(statsmodels' ``proportion_confint``; :mod:`locacal.curves.bands`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal._validation import check_choice, check_int, plain
from locacal.curves._base import BaseCalibrator
from locacal.curves.bands import proportion_band
from locacal.curves.simultaneous import sidak_level
from locacal.data.bins import DEFAULT_BINS, STRATEGIES, bin_statistics, default_bin_size
from locacal.data.cells import ScoreStatistics

__all__ = ["BinningCalibrator"]

#: Each bin's interval in the simultaneous (Šidák) band: exact, so the product of the
#: per-bin coverages is at least the joint level.
SIMULTANEOUS_INTERVAL = "clopper-pearson"


class BinningCalibrator(BaseCalibrator):
    """Calibration curve and recalibration map by binning: the mean label in each bin.

    Parameters
    ----------
    strategy : {"quantile", "uniform", "adaptive"}, default "quantile"
        See the module documentation.
    bins : int, optional
        Number of quantile or uniform bins (default 10); refused with ``"adaptive"``, whose
        bins are set by ``bin_size``.
    bin_size : int, optional
        Observations per adaptive bin (default ``round(sqrt(n))``, thesis §4.3.3); refused
        with ``"quantile"`` and ``"uniform"``.

    Attributes
    ----------
    stats_ : BinStatistics
        Per-bin sufficient statistics (non-empty bins, increasing scores).
    bin_size_ : int or None
        The adaptive bin size used.

    From cell statistics (:meth:`from_statistics`, Dask input) quantile and uniform bins:
    uniform bins exactly, quantile bins within the bound of
    :meth:`~locacal.data.cells.ScoreStatistics.quantile_bins` on their ECE.

    Notes
    -----
    ``predict`` returns the mean label p_b of the bin each score falls in (a step function,
    right-closed, constant beyond the end bins). The default curve grid is the bin centres
    (the mean score q_b of each bin); its band is the binomial interval of the module
    docstring at the requested level.

    The simultaneous band (``curve(band="simultaneous")``) covers the bin averages of g
    jointly: given the scores the bins' label sums are independent, so Šidák's per-bin
    level :math:`(1 - \\alpha)^{1/k}` (k non-empty bins) gives joint coverage at least
    :math:`1 - \\alpha` when each bin's interval covers at least its level. Clopper and
    Pearson's interval does, whatever p (for a sum of Bernoulli variables with unequal
    means too, whose tails are no heavier than the binomial's, Hoeffding 1956); Wilson's,
    the pointwise default, does not at the high per-bin levels Šidák asks (0.995 for 10
    bins) when a bin holds few events: its lower limit is then too high, and with Wilson
    the band covered 0.905 (200 samples, s.e. 0.015) on the low bins of skewed scores at
    n = 2000 (``benchmarks/coverage_simultaneous.py``). So the simultaneous band always
    uses Clopper-Pearson's interval; ``interval=`` sets the pointwise band only.

    References
    ----------
    Nguyen (2015), thesis §3.2.1 (adaptive binning) and §3.2.2 (confidence interval);
    Machado, Charpentier et al. (2024), "Creating bins" (quantile bins). Clopper, C. J. &
    Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the case
    of the binomial. *Biometrika* 26, 404-413. Hoeffding, W. (1956). On the distribution of
    the number of successes in independent trials. *Ann. Math. Statist.* 27, 713-721.
    Šidák, Z. (1967). *JASA* 62, 626-633.
    """

    method = "binning"

    def __init__(self, strategy: str = "quantile", bins: int | None = None,
                 bin_size: int | None = None) -> None:
        self.strategy = strategy
        self.bins = bins
        self.bin_size = bin_size

    _takes_frequency_weights = True

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        check_choice(self.strategy, STRATEGIES, "strategy")
        if self.strategy == "adaptive" and self.bins is not None:
            raise ValueError("bins: adaptive bins are set by bin_size (observations per bin), "
                             f"not by a number of bins; got bins={plain(self.bins)!r}")
        if self.strategy != "adaptive" and self.bin_size is not None:
            raise ValueError(f"bin_size applies to strategy='adaptive' only; {self.strategy} "
                             f"bins are set by bins (got bin_size={plain(self.bin_size)!r})")
        bins = DEFAULT_BINS if self.bins is None else self.bins
        self.bin_size_ = None
        counts = self.frequency_weights_
        n = s.size if counts is None else int(counts.sum())
        if self.strategy == "adaptive":
            self.bin_size_ = check_int(default_bin_size(n) if self.bin_size is None
                                       else self.bin_size, "bin_size", minimum=1)
        self.stats_ = bin_statistics(s, y, w, strategy=self.strategy, bins=bins,
                                     bin_size=self.bin_size_, counts=counts)

    def _fit_statistics(self, stats: ScoreStatistics) -> None:
        check_choice(self.strategy, ("quantile", "uniform"), "strategy")
        bins = DEFAULT_BINS if self.bins is None else check_int(self.bins, "bins", minimum=1)
        if self.bin_size is not None:
            raise ValueError(f"bin_size applies to strategy='adaptive' only; {self.strategy} "
                             f"bins are set by bins (got bin_size={plain(self.bin_size)!r})")
        self.bin_size_ = None
        self.stats_ = (stats.uniform_bins(bins) if self.strategy == "uniform"
                       else stats.quantile_bins(bins)[0])

    def _predict(self, s: np.ndarray) -> np.ndarray:
        return self.stats_.mean_label[self.stats_.assign(s)]

    def _default_grid(self) -> np.ndarray:
        # a bin of tied scores has its mean at its right edge: rounding must not put the mean
        # above the edge, which would send the grid point to the next bin
        return np.minimum(self.stats_.mean_score, self.stats_.upper)

    def _has_pointwise_band(self) -> bool:
        return True

    def _pointwise_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                        interval: str) -> tuple[np.ndarray, np.ndarray]:
        st = self.stats_
        lower, upper = proportion_band(st.mean_label, 1.0 / st.effective_size, level,
                                       interval)
        idx = st.assign(grid)
        return lower[idx], upper[idx]

    def _simultaneous_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                           interval: str, critical: str,
                           seed: Any) -> tuple[np.ndarray, np.ndarray]:
        """Šidák: each bin's Clopper-Pearson interval at level ``level ** (1 / k)``, k
        non-empty bins, for the bin averages of g (:mod:`locacal.curves.simultaneous`);
        ``interval`` is the pointwise band's and is not used here (class Notes)."""
        bins = int(np.count_nonzero(self.stats_.count > 0))
        return self._pointwise_band(grid, estimate, sidak_level(level, bins),
                                    SIMULTANEOUS_INTERVAL)

    def _counts(self, grid: np.ndarray) -> np.ndarray:
        return self.stats_.count[self.stats_.assign(grid)]

    def _curve_params(self) -> dict[str, Any]:
        if self.strategy == "adaptive":
            return {"strategy": self.strategy, "bin_size": self.bin_size_}
        return {"strategy": self.strategy,
                "bins": DEFAULT_BINS if self.bins is None else self.bins}
