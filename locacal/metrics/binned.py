"""Calibration metrics on bins: ECE, QMSE, the slides' thresholded ECE, and the thesis's MSE
calibration score with its confidence interval and the calibration-refinement decomposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from locacal._validation import check_int, public_api
from locacal.curves._bins import Z_95, BinStatistics
from locacal.metrics._prepared import PreparedSample, prepare

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


@public_api
def ece(scores: Any, labels: Any, *, weights: Any = None, bins: int = 10,
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
        Number of bins.
    strategy : {"quantile", "uniform", "adaptive"}, default "quantile"
        How bins are formed.
    """
    return ece_from_bins(prepare(scores, labels, weights).bin_statistics(strategy, bins))


@public_api
def qmse(scores: Any, labels: Any, *, weights: Any = None, bins: int = 10,
         strategy: str = "quantile") -> float:
    """Quantile-based MSE, the squared counterpart of :func:`ece` (2024 R code's QMSE).

    .. math:: \\mathrm{QMSE} = \\frac{1}{n} \\sum_{b=1}^B n_b (\\bar d_b - \\bar s_b)^2

    With ``strategy="adaptive"`` this is the thesis's MSE calibration score
    (:func:`calib_mse`).
    """
    return calib_mse_from_bins(prepare(scores, labels, weights).bin_statistics(strategy, bins))


@public_api
def ece_thresholded(scores: Any, labels: Any, *, weights: Any = None, bins: int = 10,
                    strategy: str = "quantile", threshold: float = 0.5) -> float:
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
    """
    sample = prepare(scores, labels, weights, threshold=threshold)
    return ece_thresholded_from_sample(sample, bins=bins, strategy=strategy)


@public_api
def calib_mse(scores: Any, labels: Any, *, weights: Any = None,
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
    stats = prepare(scores, labels, weights).bin_statistics("adaptive", bin_size=bin_size)
    return calib_mse_from_bins(stats)


@public_api
def calib_err(scores: Any, labels: Any, *, weights: Any = None,
              bin_size: int | None = None) -> float:
    """CalibErr = sqrt(CalibMSE), on the probability scale (Nguyen & O'Connor 2015 poster)."""
    return float(np.sqrt(calib_mse(scores, labels, weights=weights, bin_size=bin_size)))


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


@public_api
def brier_decomposition(scores: Any, labels: Any, *, weights: Any = None,
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
    return brier_decomposition_from_sample(prepare(scores, labels, weights), bin_size=bin_size)


def brier_decomposition_from_sample(sample: PreparedSample, *,
                                    bin_size: int | None = None) -> BrierDecomposition:
    """:func:`brier_decomposition` of a prepared sample."""
    st = sample.bin_statistics("adaptive", bin_size=bin_size)
    total = st.weight.sum()
    brier = float(np.dot(sample.unit_weights, (sample.labels - sample.scores) ** 2) / total)
    calibration = calib_mse_from_bins(st)
    p = st.mean_label
    refinement = float(np.sum(st.weight * p * (1.0 - p)) / total)
    return BrierDecomposition(brier, calibration, refinement, brier - calibration - refinement)


@dataclass(frozen=True)
class CalibMSEInterval:
    """CalibMSE with the thesis's simulation-based 95 % interval (§3.2.2)."""

    estimate: float
    mean: float
    se: float
    lower: float
    upper: float


@public_api
def calib_mse_interval(scores: Any, labels: Any, *, weights: Any = None,
                       bin_size: int | None = None, n_samples: int = 1000,
                       seed: int | None = 0) -> CalibMSEInterval:
    """CalibMSE and its confidence interval by the thesis's sampling procedure.

    Each bin's p_b is redrawn ``n_samples`` times from N(p_b, se_b^2) with
    se_b = sqrt(p_b (1 - p_b) / |B_b|); the interval is mean ± 1.96 sd of the redrawn scores.
    Like the thesis says, it is an approximation without guaranteed coverage (bins with p_b
    equal to 0 or 1 get se_b = 0).

    References
    ----------
    Nguyen (2015), thesis §3.2.2.
    """
    sample = prepare(scores, labels, weights)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    st = sample.bin_statistics("adaptive", bin_size=bin_size)
    p, q, size = st.mean_label, st.mean_score, st.weight
    se = np.sqrt(p * (1.0 - p) / st.effective_size)
    rng = np.random.default_rng(seed)
    draws = rng.normal(p, se, size=(n_samples, p.size))
    scores_star = ((q - draws) ** 2) @ size / size.sum()
    mean, sd = float(scores_star.mean()), float(scores_star.std(ddof=1))
    return CalibMSEInterval(calib_mse_from_bins(st), mean, sd, mean - Z_95 * sd,
                            mean + Z_95 * sd)
