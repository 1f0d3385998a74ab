"""Calibration metrics on bins: ECE, QMSE, the slides' thresholded ECE, and the thesis's MSE
calibration score with its confidence interval and the calibration-refinement decomposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from locacal._validation import (
    check_choice,
    check_fraction,
    check_int,
    check_resamples,
    check_seed,
    plain,
    public_api,
    warn,
)
from locacal.data.bins import DEFAULT_BINS, STRATEGIES, BinStatistics
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import CELLS, edge_index
from locacal.metrics._dispatch import dask_input
from locacal.metrics._prepared import PreparedSample, prepare
from locacal.metrics.classification import brier_cells

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "BrierDecomposition",
    "CalibMSEInterval",
    "brier_decomposition",
    "calib_err",
    "calib_mse",
    "calib_mse_from_bins",
    "calib_mse_interval",
    "ece",
    "ece_thresholded",
    "qmse",
]


def calib_mse_from_bins(stats: BinStatistics) -> float:
    """The bin-weighted mean squared gap between mean score and mean label: CalibMSE on
    adaptive bins, QMSE on quantile or uniform bins. Every metric of that form calls this.

    .. math:: \\frac{1}{n} \\sum_{b=1}^B n_b (\\bar s_b - \\bar d_b)^2

    with n_b the (weighted) size of bin b and n their sum.

    References
    ----------
    Nguyen (2015), thesis §3.1.3 (CalibMSE, from DeGroot & Fienberg's decomposition).
    """
    gap = stats.mean_score - stats.mean_label
    return float(np.sum(stats.weight * gap**2) / stats.weight.sum())


def ece_from_bins(stats: BinStatistics) -> float:
    """The bin-weighted mean absolute gap between mean label and mean score (the ECE)."""
    return float(np.sum(stats.weight * np.abs(stats.mean_label - stats.mean_score))
                 / stats.weight.sum())


def _check_cell_bins(bins: Any, strategy: str) -> dict[str, Any]:
    """The bins of :func:`ece_cells`, checked before the pass over Dask input."""
    check_choice(strategy, STRATEGIES, "strategy")
    bins = check_int(bins, "bins", minimum=1)
    if strategy == "adaptive":
        raise ValueError("strategy='adaptive' is not available for Dask input (its bins of "
                         "bin_size rows cut inside cells); use 'quantile' or 'uniform'")
    return {"bins": bins, "strategy": strategy}


def ece_cells(cells: ScoreStatistics, *, bins: int = 10, strategy: str = "quantile") -> float:
    """:func:`ece` from cell sums: uniform bins exactly (``bins`` must divide the 100800
    cells, :meth:`~locacal.data.cells.ScoreStatistics.uniform_bins`), quantile bins cut at cell
    edges within the bound of :meth:`~locacal.data.cells.ScoreStatistics.quantile_bins`."""
    stats = cells.uniform_bins(bins) if strategy == "uniform" else cells.quantile_bins(bins)[0]
    return ece_from_bins(stats)


def ece_thresholded_with_bound(stats: ScoreStatistics, threshold: float = 0.5,
                               bins: int = DEFAULT_BINS) -> tuple[float, float]:
    """The slides' thresholded ECE (:func:`locacal.metrics.ece_thresholded`, quantile
    bins) from the cells, and the bound on its distance to the in-memory value.

    With the threshold a cell edge EDGES[J], a row is predicted positive when its cell is
    J or above, or it sits exactly on EDGES[J] (the top of cell J - 1, kept in the edge
    sums); so the weight of correct predictions per cell is sum w y above and
    sum w (1 - y) below, exactly. The bins are those of
    :meth:`~locacal.data.cells.ScoreStatistics.quantile_bins` and, since each row's
    w (1{correct} - s) lies in [-w, w] as w (y - s) does, the bound is the ECE's (see
    there). NaN (bound NaN) when the threshold is not a cell edge.
    """
    j = edge_index(threshold)
    if j is None:
        return float("nan"), float("nan")
    correct = np.where(np.arange(CELLS) >= j, stats.wy, stats.weight - stats.wy)
    if j > 0:  # rows on EDGES[j] are predicted positive: correct when y = 1
        correct[j - 1] += 2.0 * stats.edge_wy[j] - stats.edge_weight[j]
    bounds, error = stats.quantile_bounds(bins)
    gap = np.add.reduceat(correct, bounds[:-1]) - np.add.reduceat(stats.ws, bounds[:-1])
    return float(np.abs(gap).sum()) / stats.total_weight, error


def brier_decomposition_cells(cells: ScoreStatistics, bins: int = 10) -> BrierDecomposition:
    """Brier = calibration + refinement + within-bin on ``bins`` uniform bins, exactly
    (:class:`BrierDecomposition`; Murphy & Winkler 1984) from cell sums.

    The Brier score is the kept sum; calibration (CalibMSE on the bins) and refinement
    (sum_b W_b p_b (1 - p_b) / W) come from the bins' sums, which are exact; within-bin is
    the rest. :func:`locacal.brier_decomposition` uses adaptive bins of sqrt(n) rows,
    which cut inside cells; on uniform bins the identity and every term are exact.
    """
    stats = cells.uniform_bins(bins)
    brier = brier_cells(cells)
    calibration = calib_mse_from_bins(stats)
    p = stats.mean_label
    refinement = float(np.sum(stats.weight * p * (1.0 - p)) / stats.weight.sum())
    return BrierDecomposition(brier, calibration, refinement,
                              brier - calibration - refinement)


def ece_thresholded_from_sample(sample: PreparedSample, *, bins: int = 10,
                                strategy: str = "quantile") -> float:
    """:func:`ece_thresholded` of a prepared sample, at the sample's threshold."""
    b = sample.bins(strategy, bins)
    sorted_ = sample.sorted
    correct = (sorted_.scores >= sample.threshold) == sorted_.labels
    if sorted_.weights is None:
        acc, conf, n_b = b.sums(correct.astype(np.float64)), b.sums(sorted_.scores), b.count
    else:
        w = sorted_.weights
        acc, conf, n_b = b.sums(w * correct), b.sums(w * sorted_.scores), b.sums(w)
    gap = np.abs(acc - conf)  # = n_b * |acc(b) - conf(b)|
    return float(gap.sum() / n_b.sum())


def _prepared(scores: Any, labels: Any, weights: Any, frequency_weights: Any) -> PreparedSample:
    """The validated sample; ``frequency_weights`` (counts of identical observations) make
    every binned metric that of the expanded rows (:mod:`locacal.data.frequency`)."""
    return prepare(scores, labels, weights, frequency_weights=frequency_weights)


@public_api
@dask_input(ece_cells, check=_check_cell_bins)
def ece(scores: Any, labels: Any, *, weights: Any = None,
        frequency_weights: Any = None, bins: int = 10,
        strategy: str = "quantile") -> float:
    """Expected calibration error: the bin-weighted mean absolute gap between the mean label
    and the mean score.

    .. math:: \\mathrm{ECE} = \\sum_{b=1}^B \\frac{n_b}{n} \\left|\\bar d_b - \\bar s_b\\right|

    with quantile bins by default, formed as the 2024 R code forms them (see
    :mod:`locacal.curves.binning`). This is the standard ECE (Naeini, Cooper & Hauskrecht
    2015). The slides' eq. (2), which compares the *accuracy of thresholded predictions* with
    the mean score, is :func:`ece_thresholded`.

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.
    weights : array-like, optional
        Observation weights (n_b and the means become weighted).
    bins : int, default 10
        Number of bins, at most the number of observations with positive weight (or 10 on
        smaller samples): more bins than observations could only be empty.
    strategy : {"quantile", "uniform", "adaptive"}, default "quantile"
        How bins are formed. With Dask input (:mod:`locacal.data.dask`, :func:`ece_cells`)
        uniform bins are exact (``bins`` must divide 100800), quantile bins are cut at the
        cell holding each break, within the bound of
        :meth:`locacal.data.cells.ScoreStatistics.quantile_bins`, and adaptive bins are refused.
    """
    sample = _prepared(scores, labels, weights, frequency_weights)
    return ece_from_bins(sample.bin_statistics(strategy, bins))


@public_api
def qmse(scores: Any, labels: Any, *, weights: Any = None,
         frequency_weights: Any = None, bins: int = 10,
         strategy: str = "quantile") -> float:
    """Quantile-based MSE, the squared counterpart of :func:`ece` (2024 R code's QMSE).

    .. math:: \\mathrm{QMSE} = \\frac{1}{n} \\sum_{b=1}^B n_b (\\bar d_b - \\bar s_b)^2

    With ``strategy="adaptive"`` this is the thesis's MSE calibration score
    (:func:`calib_mse`). Arguments as in :func:`ece` (``bins`` at most the number of
    observations with positive weight, or 10).
    """
    sample = _prepared(scores, labels, weights, frequency_weights)
    return calib_mse_from_bins(sample.bin_statistics(strategy, bins))


@public_api
def ece_thresholded(scores: Any, labels: Any, *, weights: Any = None, bins: int = 10,
                    strategy: str = "quantile", threshold: float = 0.5,
                    frequency_weights: Any = None) -> float:
    """The 2024 slides' ECE (eq. 2): accuracy of thresholded predictions against confidence.

    .. math::

        \\mathrm{ECE}_\\tau = \\sum_{b=1}^B \\frac{n_b}{n}
        \\left|\\mathrm{acc}(b) - \\mathrm{conf}(b)\\right|, \\quad
        \\mathrm{acc}(b) = \\frac{1}{n_b}\\sum_{i \\in b} 1\\{\\hat d_i = d_i\\}, \\quad
        \\mathrm{conf}(b) = \\frac{1}{n_b}\\sum_{i \\in b} \\hat s(x_i)

    with :math:`\\hat d_i = 1\\{\\hat s(x_i) \\ge \\tau\\}`. Unlike :func:`ece`, this compares
    the share of *correct classifications* (not of events) with the mean score: a bin of scores
    around 0.2 whose events occur 20 % of the time has accuracy 0.8, so a perfectly calibrated
    model does not score 0. It is the multiclass "confidence" ECE transposed to a binary score,
    kept because the slides and their R code (``e_calib_error``) report it.

    The R code classifies with ``scores > threshold``; the slides (the specification) with
    ``>=``; locacal follows the slides (they differ only for scores equal to the threshold).
    Other arguments as in :func:`ece`.
    """
    sample = prepare(scores, labels, weights, threshold=threshold,
                     frequency_weights=frequency_weights)
    return ece_thresholded_from_sample(sample, bins=bins, strategy=strategy)


@public_api
def calib_mse(scores: Any, labels: Any, *, weights: Any = None,
              frequency_weights: Any = None,
              bin_size: int | None = None) -> float:
    """The thesis's MSE calibration score with adaptive binning.

    .. math:: \\mathrm{CalibMSE} = \\frac{1}{n} \\sum_{b=1}^T |B_b| (\\hat q_b - \\hat p_b)^2

    where the bins B_b hold ``bin_size`` consecutive sorted scores (a last short bin merged
    into the one before), q_b is the mean score and p_b the mean label of bin b.

    Parameters
    ----------
    bin_size : int, optional
        Points per bin; default ``round(sqrt(n))`` (thesis §4.3.3).

    References
    ----------
    Nguyen (2015), thesis §3.1.3 (definition from DeGroot & Fienberg's decomposition) and
    §3.2.1 (adaptive binning, step 5).
    """
    sample = _prepared(scores, labels, weights, frequency_weights)
    stats = sample.bin_statistics("adaptive", bin_size=bin_size)
    return calib_mse_from_bins(stats)


@public_api
def calib_err(scores: Any, labels: Any, *, weights: Any = None,
              frequency_weights: Any = None,
              bin_size: int | None = None) -> float:
    """CalibErr = sqrt(CalibMSE), on the probability scale (Nguyen & O'Connor 2015 poster)."""
    return float(np.sqrt(calib_mse(scores, labels, weights=weights,
                                   frequency_weights=frequency_weights, bin_size=bin_size)))


@dataclass(frozen=True)
class BrierDecomposition:
    """Calibration-refinement decomposition of the Brier score on adaptive bins.

    ``brier = calibration + refinement + within_bin`` holds exactly. ``calibration`` is the
    thesis's CalibMSE, ``refinement`` the mean of p_b (1 - p_b), and ``within_bin`` what
    replacing each score by its bin mean leaves out:
    (1/n) sum_b sum_{i in b} [(s_i - q_b)^2 - 2 (d_i - p_b)(s_i - q_b)]. It vanishes when scores
    are constant within bins, where the poster's identity Brier = CalibMSE + Refinement holds.
    """

    brier: float
    calibration: float
    refinement: float
    within_bin: float

    @property
    def calib_err(self) -> float:
        return float(np.sqrt(self.calibration))

    def to_frame(self) -> pd.DataFrame:
        """One row (index ``brier_decomposition``): ``brier, calibration, refinement,
        within_bin, calib_err``."""
        return pd.DataFrame({"brier": [self.brier], "calibration": [self.calibration],
                             "refinement": [self.refinement], "within_bin": [self.within_bin],
                             "calib_err": [self.calib_err]}, index=["brier_decomposition"])

    def plot(self, ax: Axes | None = None) -> Axes:
        """Horizontal bars: the Brier score and its three parts (``within_bin`` may be
        negative). Returns the Axes."""
        from locacal.plotting import new_axes, palette

        ax = new_axes(ax, (5.0, 2.5))
        parts = ("brier", "calibration", "refinement", "within_bin")
        values = [getattr(self, p) for p in parts]
        ax.barh(parts, values, color=[palette(i) for i in range(len(parts))])
        ax.axvline(0.0, color="0.3", linewidth=0.8)
        ax.invert_yaxis()
        ax.set_xlabel("contribution to the Brier score")
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import frame_html, result_html

        return result_html("Brier score decomposition (adaptive bins)",
                           frame_html(self.to_frame()))


@public_api
def brier_decomposition(scores: Any, labels: Any, *, weights: Any = None,
                        frequency_weights: Any = None,
                        bin_size: int | None = None) -> BrierDecomposition:
    """Split the Brier score into calibration (CalibMSE) and refinement on adaptive bins.

    .. math::

        \\frac{1}{n}\\sum_i (d_i - s_i)^2 = \\underbrace{\\frac{1}{n}\\sum_b |B_b|
        (q_b - p_b)^2}_{\\text{calibration}} + \\underbrace{\\frac{1}{n}\\sum_b |B_b|
        p_b (1 - p_b)}_{\\text{refinement}} + \\text{within-bin}

    References
    ----------
    Murphy & Winkler (1984); DeGroot & Fienberg (1983); Nguyen & O'Connor (2015), poster,
    "Calibration-refinement breakdown"; thesis §3.1.
    """
    return brier_decomposition_from_sample(_prepared(scores, labels, weights, frequency_weights),
                                           bin_size=bin_size)


def brier_decomposition_from_sample(sample: PreparedSample, *,
                                    bin_size: int | None = None) -> BrierDecomposition:
    """:func:`brier_decomposition` of a prepared sample."""
    st = sample.bin_statistics("adaptive", bin_size=bin_size)
    total = st.weight.sum()
    brier = sample.squared_errors()[0] / float(total)  # the Brier score's sum
    calibration = calib_mse_from_bins(st)
    p = st.mean_label
    refinement = float(np.sum(st.weight * p * (1.0 - p)) / total)
    return BrierDecomposition(brier, calibration, refinement, brier - calibration - refinement)


@dataclass(frozen=True)
class CalibMSEInterval:
    """CalibMSE with a confidence interval for the true CalibMSE.

    Attributes
    ----------
    estimate : float
        The plug-in CalibMSE, :func:`calib_mse` (biased upwards, see
        :func:`calib_mse_interval`).
    mean : float
        The centre of the interval: the bias-corrected CalibMSE (``method="debiased"``) or
        the mean of the thesis's redrawn scores (``method="thesis"``).
    se : float
        Standard error of ``mean``.
    lower, upper : float
        The interval (``lower`` truncated at 0 by ``method="debiased"``).
    method : str
        ``"debiased"`` or ``"thesis"``.
    """

    estimate: float
    mean: float
    se: float
    lower: float
    upper: float
    method: str = "debiased"

    def to_frame(self) -> pd.DataFrame:
        """One row (index ``calib_mse``): ``estimate, mean, se, lower, upper, method``."""
        return pd.DataFrame({"estimate": [self.estimate], "mean": [self.mean],
                             "se": [self.se], "lower": [self.lower], "upper": [self.upper],
                             "method": [self.method]}, index=["calib_mse"])

    def plot(self, ax: Axes | None = None) -> Axes:
        """The interval as a horizontal bar around its centre ``mean``, the plug-in
        ``estimate`` as a cross. Returns the Axes."""
        from locacal.plotting import new_axes, palette

        ax = new_axes(ax, (5.0, 1.8))
        ax.errorbar([self.mean], [0], xerr=[[self.mean - self.lower], [self.upper - self.mean]],
                    fmt="o", color=palette(0), capsize=4,
                    label=f"{self.method} interval [{self.lower:.3g}, {self.upper:.3g}]")
        ax.plot([self.estimate], [0], "x", color=palette(1), markersize=9,
                label=f"plug-in estimate {self.estimate:.3g}")
        ax.set_yticks([])
        ax.set_xlabel("CalibMSE")
        ax.legend(frameon=False, fontsize="small", loc="upper right")
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import frame_html, result_html

        return result_html("CalibMSE and its confidence interval", frame_html(self.to_frame()))


#: Interval procedures of :func:`calib_mse_interval`.
CALIB_MSE_INTERVALS = ("debiased", "thesis")


@public_api
def calib_mse_interval(scores: Any, labels: Any, *, weights: Any = None,
                       frequency_weights: Any = None,
                       bin_size: int | None = None, n_samples: int = 1000,
                       seed: int | None = 0, method: str = "debiased",
                       level: float = 0.95) -> CalibMSEInterval:
    r"""CalibMSE and a confidence interval for the true CalibMSE.

    The *true* CalibMSE of the binned scores is the same functional with each bin's mean
    label replaced by its expectation, the mean of the true probabilities in the bin:

    .. math:: \theta = \frac{1}{n}\sum_b n_b (q_b - \pi_b)^2, \qquad
              \pi_b = \frac{1}{n_b}\sum_{i \in b} P(D_i = 1 \mid x_i),

    with the bins (formed from the scores alone) held fixed. The plug-in
    :math:`\hat\theta = \frac1n \sum_b n_b (q_b - \hat p_b)^2` is biased upwards: since
    :math:`E(q_b - \hat p_b)^2 = (q_b - \pi_b)^2 + v_b` with
    :math:`v_b = \mathrm{Var}\,\hat p_b \approx \pi_b (1 - \pi_b) / n_b`, the bias is
    :math:`\frac1n\sum_b n_b v_b \approx \bar\pi(1-\bar\pi)\, B / n`, about
    0.25/sqrt(n) with the default sqrt(n) bins, of the order of the quantity itself.

    ``method="debiased"`` (default) removes it with the unbiased estimate of each bin's
    binomial variance (Ferro & Fricker 2012, eq. 9; Bröcker 2012; Kumar, Liang & Ma 2019,
    debiased squared calibration error):

    .. math:: \tilde\theta = \frac1n \sum_b n_b \left[(q_b - \hat p_b)^2 - \hat v_b
              \right], \qquad \hat v_b = \frac{\hat p_b (1 - \hat p_b)}{m_b - 1},

    with m_b the bin's effective size (n_b without weights). With
    :math:`\hat p_b \approx N(\pi_b, v_b)` independent across bins,
    :math:`\mathrm{Var}(q_b - \hat p_b)^2 = 4 \delta_b^2 v_b + 2 v_b^2`
    (:math:`\delta_b = q_b - \pi_b`, the variance of a scaled non-central chi-square with
    one degree of freedom), so

    .. math:: \mathrm{se}^2(\tilde\theta) = \max\Big(\sum_b \left(\frac{n_b}{n}
              \right)^2 \left(4 \hat\delta_b^2 \hat v_b + 2 \hat v_b^2\right),\;
              \sum_b \left(\frac{n_b}{n}\right)^2 2 \hat v_b^2\Big), \qquad
              \hat\delta_b^2 = (q_b - \hat p_b)^2 - \hat v_b

    (the unbiased :math:`\hat\delta_b^2` may be negative bin by bin; clipping it at 0 per
    bin over-estimated the variance: coverage 0.985 ± 0.009 at gamma = 1.5 in 200 samples),
    and the interval is :math:`\tilde\theta \pm z_{(1+\text{level})/2}\,\mathrm{se}`,
    truncated at 0 (the sum of many bins' terms is close to normal). ``mean`` is
    :math:`\tilde\theta` (which can be negative: a calibrated sample), ``estimate`` the
    plug-in. Coverage at level 0.95, n = 2000, the slides' logistic process
    (``benchmarks/coverage_calib_mse.py``, 1000 samples each, Monte Carlo se 0.007): 0.941
    at gamma = 1.5 and 0.947 at gamma = 3; the interval contains 0 for 0.990 of calibrated
    samples (gamma = 1).

    ``method="thesis"`` is the thesis's procedure (§3.2.2), kept for reproducing it: each
    bin's p_b is redrawn ``n_samples`` times from N(p_b, se_b^2),
    se_b = sqrt(p_b (1 - p_b) / m_b), and the interval is mean ± z sd of the redrawn scores.
    It is centred near the plug-in plus the bias again, so it does *not* cover the true
    CalibMSE: measured coverage 0.000 at gamma = 1.5, 0.193 at gamma = 3, and it never
    contains 0 for calibrated samples (same benchmark).

    Parameters
    ----------
    scores, labels, weights
        As in :func:`calib_mse`.
    bin_size : int, optional
        Points per adaptive bin; default ``round(sqrt(n))`` (thesis §4.3.3).
    n_samples : int, default 1000
        Redraws of ``method="thesis"`` (unused by ``"debiased"``), from 2 to 10^6.
    seed : int or None, default 0
        Seed of the redraws of ``method="thesis"``.
    method : {"debiased", "thesis"}, default "debiased"
    level : float in (0, 1), default 0.95

    References
    ----------
    Ferro, C. A. T. & Fricker, T. E. (2012). A bias-corrected decomposition of the Brier
    score. *Q. J. R. Meteorol. Soc.* 138, 1954-1960.
    Bröcker, J. (2012). Estimating reliability and resolution of probability forecasts
    through decomposition of the empirical score. *Climate Dynamics* 39, 655-667.
    Kumar, A., Liang, P. & Ma, T. (2019). Verified uncertainty calibration. NeurIPS, §5.
    Nguyen (2015), thesis §3.2.2 (``method="thesis"``).
    """
    sample = _prepared(scores, labels, weights, frequency_weights)
    method = check_choice(method, CALIB_MSE_INTERVALS, "method")
    level = check_fraction(level, "level")
    if level >= 1.0:
        raise ValueError(f"level must lie in (0, 1), got {plain(level)!r}")
    n_samples = check_resamples(n_samples, "n_samples", minimum=2)
    seed = check_seed(seed)
    st = sample.bin_statistics("adaptive", bin_size=bin_size)
    z = float(norm.ppf(0.5 + level / 2.0))
    plug_in = calib_mse_from_bins(st)
    if method == "thesis":
        return _thesis_interval(st, plug_in, n_samples, seed, z)
    p, q, m = st.mean_label, st.mean_score, st.effective_size
    share = st.weight / st.weight.sum()
    if np.any(m <= 1.0):
        warn("a bin holds a single observation, whose binomial variance cannot be "
             "estimated; its variance term is taken as 0")
    v = np.where(m > 1.0, p * (1.0 - p) / np.maximum(m - 1.0, 1.0), 0.0)
    delta_sq = (q - p) ** 2 - v
    debiased = float(share @ delta_sq)
    null_var = float(share**2 @ (2.0 * v**2))  # the variance when every delta_b = 0
    se = float(np.sqrt(max(share**2 @ (4.0 * delta_sq * v) + null_var, null_var)))
    return CalibMSEInterval(plug_in, debiased, se, max(debiased - z * se, 0.0),
                            max(debiased + z * se, 0.0), "debiased")


def _thesis_interval(st: BinStatistics, plug_in: float, n_samples: int, seed: int | None,
                     z: float) -> CalibMSEInterval:
    """The thesis's §3.2.2 redraw interval (see :func:`calib_mse_interval`)."""
    p, q, size = st.mean_label, st.mean_score, st.weight
    se = np.sqrt(p * (1.0 - p) / st.effective_size)
    rng = np.random.default_rng(seed)
    draws = rng.normal(p, se, size=(n_samples, p.size))
    scores_star = ((q - draws) ** 2) @ size / size.sum()
    mean, sd = float(scores_star.mean()), float(scores_star.std(ddof=1))
    return CalibMSEInterval(plug_in, mean, sd, mean - z * sd, mean + z * sd, "thesis")
