r"""Honest simultaneous band of a monotone calibration curve (isotonic regression's band with
``simultaneous="honest"``; the default is :mod:`locacal.curves.calibrated_monotone`).

Dimitriadis, Dümbgen, Henzi, Puke & Ziegel (2023), *Honest calibration assessment for binary
outcome predictions*, Biometrika 110(3), 663-680, section 2 (R package ``calibrationband``).
Only assumption: the calibration curve :math:`g(t) = P(D = 1 \mid s = t)` is non-decreasing.

Construction
------------
Given the scores, the labels are independent with :math:`P(D_i = 1) = g(s_i)`. Group the
sorted observations into *cells* of consecutive scores (below), and call a *window* W any run
of consecutive cells: it holds :math:`n_W` observations, :math:`S_W` events, and its mean
event probability is :math:`\bar g_W = n_W^{-1} \sum_{i \in W} g(s_i)`. If g is
non-decreasing, every t at or above the largest score of W has :math:`g(t) \ge \bar g_W`, and
every t at or below its smallest score has :math:`g(t) \le \bar g_W`. Hence, with one-sided
bounds :math:`L_W \le \bar g_W \le U_W` for all K windows,

.. math::

    \ell(t) = \max\{L_W : \max_{i \in W} s_i \le t\}, \qquad
    u(t) = \min\{U_W : \min_{i \in W} s_i \ge t\}

(0 and 1 when no window qualifies) satisfy :math:`\ell(t) \le g(t) \le u(t)` for *every*
:math:`t \in [0, 1]` at once. Both are monotone step functions.

Per-window bound
    Clopper & Pearson's (1934) one-sided bounds at level :math:`\delta`:
    :math:`L_W = B^{-1}(\delta; S_W, n_W - S_W + 1)` (0 if :math:`S_W = 0`) and
    :math:`U_W = B^{-1}(1 - \delta; S_W + 1, n_W - S_W)` (1 if :math:`S_W = n_W`),
    :math:`B^{-1}` the Beta quantile (the paper's bounds; its equation for the band is the
    display above). :math:`S_W` is a sum of independent Bernoulli variables with *unequal*
    probabilities (a Poisson-binomial law), not a binomial one; the bound still holds:
    :math:`P(L_W > \bar g_W) \le -\log(1 - \delta)` for :math:`\delta < 1/4`. Proof:
    :math:`\{L_W > \bar g_W\} = \{S_W \ge m\}` with m the smallest integer whose binomial
    tail :math:`P(\mathrm{Bin}(n_W, \bar g_W) \ge m)` is below :math:`\delta`. If
    :math:`m \ge n_W \bar g_W + 1`, Hoeffding (1956, Theorem 4) bounds the Poisson-binomial
    tail by the binomial one, so the probability is below :math:`\delta`. Otherwise
    :math:`m \le \lceil n_W \bar g_W \rceil`; when :math:`n_W \bar g_W \ge 1` the binomial
    tail at m is then above 1/4 (Greenberg & Mohri 2014: a binomial exceeds its mean with
    probability above 1/4), a contradiction; so :math:`n_W \bar g_W < 1`, m = 1, and
    :math:`P(S_W \ge 1) \le n_W \bar g_W \le -\log P(\mathrm{Bin} = 0) < -\log(1 - \delta)`.
    The upper bound is the same statement for the non-events.

Level
    A union bound over the 2K one-sided bounds: :math:`\delta = 1 - e^{-\alpha / (2K)}`, so
    that :math:`-\log(1 - \delta) = \alpha / (2K)` and the band holds g everywhere with
    probability at least :math:`1 - \alpha`, for every n and every non-decreasing g
    (:math:`\delta < 1/4` whenever :math:`\alpha \le 1/2` or K > 1). The paper uses
    :math:`\delta = \alpha / (2K)`, larger by a factor :math:`1 + O(\alpha / K)`; the
    smaller :math:`\delta` closes the gap the m = 1 case above leaves.

Windows (which K)
    *Cells*: the distinct scores when there are at most :data:`MAX_CELLS` of them: every
    window of consecutive distinct scores, K = N(N + 1)/2, the paper's band
    (``calibrationband``'s ``method="standard"``). With more distinct scores, the scores
    are grouped by :math:`\lfloor 10^3 s \rfloor` (cells of width 0.001, at most
    :data:`MAX_CELLS`), and the windows are the runs of these cells, as
    ``calibrationband``'s ``method="round"`` with ``digits = 3`` (which rounds down for the
    upper and up for the lower bound; here one partition serves both, and each cell keeps
    its observed smallest and largest score, so no score is moved). Any fixed set of
    windows chosen from the scores alone gives a valid band; fewer windows give a smaller
    K (a milder correction) and a coarser step function.

Algorithm
    Prefix sums of events and observations over the cells give every window's
    :math:`(S_W, n_W)` in O(1). The lower bound at cell k is the running maximum over the
    windows ending at or before k; since :math:`L_W \le S_W / n_W`, only windows whose
    proportion exceeds the running maximum can raise it, and only their Beta quantiles are
    computed (the upper bound is the lower bound of the non-events in reversed order). At
    most :math:`K \le 501\,501` windows are screened, in O(K) array operations; no window
    is skipped, so the band equals the maximum over all K windows.

What is exact and what is not
    The coverage statement is finite-sample and conditional on the scores; it needs
    independence of the labels given the scores and a non-decreasing g, nothing else. The
    band is conservative (union bound; the bounds of overlapping windows are strongly
    dependent): joint coverage near 1 at 95 % is expected (``benchmarks/
    coverage_simultaneous.py``). Relative weights have no such binomial bound: weighted
    data are refused; frequency weights (counts) are observations and enter the counts.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
in the case of the binomial. *Biometrika* 26, 404-413.
Dimitriadis, T., Dümbgen, L., Henzi, A., Puke, M. & Ziegel, J. (2023). Honest calibration
assessment for binary outcome predictions. *Biometrika* 110(3), 663-680.
Greenberg, S. & Mohri, M. (2014). Tight lower bound on the probability of a binomial
exceeding its mean. *Statistics & Probability Letters* 86, 91-98.
Hoeffding, W. (1956). On the distribution of the number of successes in independent
trials. *Annals of Mathematical Statistics* 27, 713-721.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betaincinv

from locacal._validation import check_frequency_weights, check_level, check_scores_labels

__all__ = ["DIGITS", "MAX_CELLS", "MonotoneBand", "cell_bounds", "clopper_pearson_lower",
           "monotone_band", "sorted_rows", "window_level"]

#: Decimal digits of the cells when the distinct scores are too many (width 10^-DIGITS).
DIGITS = 3
#: Largest number of cells: the distinct scores up to this many, rounded cells beyond.
MAX_CELLS = 10 ** DIGITS + 1


def window_level(level: float, windows: int) -> float:
    """The per-window one-sided level :math:`\\delta = 1 - e^{-\\alpha / (2K)}`,
    :math:`\\alpha = 1 - level`, K = ``windows`` (module docstring)."""
    return float(-math.expm1(-(1.0 - level) / (2.0 * windows)))


def clopper_pearson_lower(events: np.ndarray, n: np.ndarray, delta: float) -> np.ndarray:
    """Clopper-Pearson's one-sided lower bound at level ``delta``:
    :math:`B^{-1}(\\delta; S, n - S + 1)`, 0 where S = 0."""
    events = np.asarray(events, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    some = events > 0
    out = np.zeros(np.broadcast(events, n).shape)
    if np.any(some):
        s, m = np.broadcast_arrays(events, n)
        out[some] = betaincinv(s[some], m[some] - s[some] + 1.0, delta)
    return out


@dataclass(frozen=True, eq=False)
class MonotoneBand:
    """The band :math:`\\ell \\le g \\le u` on its cells (module docstring).

    Attributes
    ----------
    first, last : ndarray
        Smallest and largest score of each cell, increasing.
    lower : ndarray
        :math:`\\ell` from the largest score of each cell up to the next cell's (running
        maximum of :math:`L_W` over the windows ending at or before the cell).
    upper : ndarray
        :math:`u` from the previous cell's smallest score (exclusive) up to this cell's
        (running minimum of :math:`U_W` over the windows starting at or after the cell).
    windows : int
        K, the number of windows.
    delta : float
        The per-window one-sided level.
    rounded : bool
        Whether the cells are the scores' 10^-:data:`DIGITS` cells (else distinct scores).
    """

    first: np.ndarray
    last: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    windows: int
    delta: float
    rounded: bool

    def __call__(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:math:`(\\ell(t), u(t))` at ``points``: the lower bound of the last cell whose
        largest score is at most t (0 below all), the upper bound of the first cell whose
        smallest score is at least t (1 above all)."""
        points = np.asarray(points, dtype=np.float64)
        below = np.searchsorted(self.last, points, side="right") - 1
        above = np.searchsorted(self.first, points, side="left")
        lower = np.where(below >= 0, self.lower[np.maximum(below, 0)], 0.0)
        upper = np.where(above < self.first.size,
                         self.upper[np.minimum(above, self.first.size - 1)], 1.0)
        return lower, upper


def monotone_band(scores: Any, labels: Any, level: float = 0.95,
                  counts: Any = None) -> MonotoneBand:
    """The honest band of a non-decreasing calibration curve (module docstring).

    Parameters
    ----------
    scores : array-like
        Scores in [0, 1] (any order).
    labels : array-like
        0/1 or bool labels.
    level : float in (0, 1)
        Joint coverage guaranteed: :math:`P(\\ell(t) \\le g(t) \\le u(t)\\ \\forall t) \\ge`
        ``level``.
    counts : array-like, optional
        Frequency weights (whole numbers): a row stands for that many observations. There
        are no relative weights (module docstring).

    Returns
    -------
    MonotoneBand
    """
    scores, labels, _ = check_scores_labels(scores, labels, warn_one_class=False,
                                            warn_class_predictions=False)
    level = check_level(level)
    counts = check_frequency_weights(counts, scores.size, "counts")
    scores, labels, weight = sorted_rows(scores, labels, counts)
    distinct = np.r_[True, scores[1:] != scores[:-1]]
    rounded = int(distinct.sum()) > MAX_CELLS
    key = np.floor(scores * 10.0 ** DIGITS) if rounded else scores
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.append(starts[1:], scores.size) - 1
    n_cell = np.add.reduceat(weight, starts)
    e_cell = np.add.reduceat(weight * labels, starts)
    cells = starts.size
    windows = cells * (cells + 1) // 2
    delta = window_level(level, windows)
    lower, upper = cell_bounds(e_cell, n_cell, delta)
    return MonotoneBand(scores[starts], scores[ends], lower, upper, windows, delta, rounded)


def sorted_rows(scores: np.ndarray, labels: np.ndarray, counts: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of positive weight (``counts``, or 1 each), sorted by score (stable):
    ``(scores, labels, weight)``."""
    weight = np.ones_like(scores) if counts is None else counts
    keep = weight > 0
    order = np.argsort(scores[keep], kind="stable")
    return scores[keep][order], labels[keep][order], weight[keep][order]


def cell_bounds(events: np.ndarray, n: np.ndarray, delta: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's lower and upper bound at window level ``delta``: the largest one-sided
    Clopper-Pearson lower bound of the windows ending at or before it, and the smallest
    upper bound of the windows starting at or after it (the lower bounds of the
    non-events, read from the right)."""
    lower = _running_lower(events, n, delta)
    upper = 1.0 - _running_lower((n - events)[::-1], n[::-1], delta)[::-1]
    return lower, upper


def _running_lower(events: np.ndarray, n: np.ndarray, delta: float) -> np.ndarray:
    """For each cell k, :math:`\\max L_W` over the windows of cells j..k', j <= k' <= k.

    Window j..k has :math:`S = E_{k+1} - E_j`, :math:`n = N_{k+1} - N_j` (prefix sums);
    only the windows whose proportion exceeds the running maximum can raise it
    (:math:`L_W \\le S_W / n_W`), so only their Beta quantiles are computed."""
    cum_e = np.concatenate([[0.0], np.cumsum(events)])
    cum_n = np.concatenate([[0.0], np.cumsum(n)])
    out = np.empty(events.size)
    best = 0.0
    for k in range(events.size):
        s = cum_e[k + 1] - cum_e[: k + 1]
        m = cum_n[k + 1] - cum_n[: k + 1]
        candidate = s > best * m  # proportion above the running maximum (and S > 0)
        if np.any(candidate):
            best = max(best, float(np.max(clopper_pearson_lower(s[candidate], m[candidate],
                                                                delta))))
        out[k] = best
    return out
