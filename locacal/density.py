"""Kernel density of scores on [0, 1], reflected at 0 and 1 (the LCS and WMSE weights).

The 2024 R code (``local_calib_score`` and ``weighted_mse``) weights the squared gap between the
calibration curve and the diagonal by ``density(c(-s, s, 2 - s), from = 0, to = 1)``: a Gaussian
kernel density of the scores reflected at both ends of [0, 1], so that the estimate does not
drop by half at the boundary. The bandwidth is R's default rule ``bw.nrd0`` applied to the
reflected sample of 3n values.

R's ``density()`` evaluates the kernel sum approximately (linear binning on 512 points and an
FFT; R 4.4 changed the binning), within about 1e-3 of it. locacal evaluates the same Gaussian
kernel sum exactly up to :data:`EXACT_MAX_N` scores and, above, by the same binning-and-FFT idea
on the :data:`~locacal.data.grid.BINNED_CELLS` cells of [0, 1] (delta = 2^-16), whose relative
error, about (delta/h)^2 / 4, stays below 1e-6 while h >= 0.008, that is for any n below about
1e8 (measured against the exact sum: 2e-8 at n = 7e4; tested). The binned sum is needed only at
the two nodes around each evaluation point: for a few points (the LCS's 100) each node is a dot
product with the sampled kernel, for many one FFT serves all nodes (the binning and the
convolutions: :mod:`locacal.data.grid`).

From the cell sums of a sample (:class:`locacal.data.cells.ScoreStatistics`, the Dask path),
:func:`reflected_kde_cells` bins the scores linearly on the nodes k/C exactly (a score's share
of the right node is s C - j, so the cell sums of w and w s give it) and convolves as the
binned density does. Its bandwidth (:func:`reflected_bandwidth_cells`) takes n_eff and the sd
exactly from the sums, and the two quartiles of the reflected sample from the cumulative cell
weights (:func:`reflected_quartiles_cells`), each order statistic represented by the mean
score of its cell: within one cell (delta) of the exact one, so the IQR is within 2 delta and
the bandwidth within relative 2 delta / IQR (IQR of the reflected sample, about 1) when the
IQR branch of ``bw.nrd0`` is active, exact otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from locacal._validation import (
    check_bandwidth,
    check_points,
    check_scores,
    check_weights,
    public_api,
)
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import (
    BINNED_CELLS,
    CELLS,
    linear_binning,
    order_stat_cells,
    reflected_sum_from_mass,
)
from locacal.data.quantile import quantile_type7

__all__ = ["bw_nrd0", "reflected_bandwidth", "reflected_bandwidth_cells", "reflected_kde",
           "reflected_kde_cells", "reflected_kde_values", "reflected_quartiles_cells"]

#: Up to this many scores the kernel sum is evaluated exactly.
EXACT_MAX_N = 60_000

_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _nrd0_from_moments(count: float, sd: float, iqr: float, first: float) -> float:
    """R's ``bw.nrd0`` rule from the sample size, sd and IQR: 0.9 min(sd, IQR/1.34) n^-1/5."""
    lo = min(sd, iqr / 1.34)
    if not lo > 0:
        lo = sd if sd > 0 else (abs(first) if first != 0 else 1.0)
    return 0.9 * lo * count ** (-0.2)


def _weighted_moments(total: float, total_sq: float, sum_x: float,
                      sum_x2: float) -> tuple[float, float]:
    """Kish's effective size and the unbiased weighted sd from weighted sums.

    With V1 = sum w, V2 = sum w^2: n_eff = V1^2 / V2 and
    sd^2 = sum w (x - mean)^2 / (V1 - V2 / V1), the reliability-weights unbiased variance;
    both are scale-free and equal n and the usual (n - 1)-denominator sd for unit weights.
    When one weight outweighs the others beyond double precision (relative weights 1 and
    1e-40), V1 - V2 / V1 rounds to 0: one effective observation, whose spread is taken as 0
    (bw.nrd0 then falls back as R's does).
    """
    n_eff = total * total / total_sq
    mean = sum_x / total
    ss = max(sum_x2 - total * mean * mean, 0.0)
    dof = total - total_sq / total
    return n_eff, float(np.sqrt(ss / dof)) if dof > 0 else 0.0


def bw_nrd0(x: Any, weights: Any = None, *, counts: Any = None) -> float:
    """Silverman's rule of thumb exactly as R's ``bw.nrd0``, with relative case weights.

    .. math:: h = 0.9 \\, \\min\\left(\\hat\\sigma, \\frac{\\mathrm{IQR}}{1.34}\\right) n^{-1/5}

    with R's fall-backs when the minimum is zero (sd, then ``|x[1]|``, then 1). With weights
    (relative case weights, see :func:`locacal._validation.check_weights`), every ingredient is
    scale-free and equals its unweighted value for unit weights: n is Kish's effective sample
    size (sum w)^2 / sum w^2 (the rule's n^-1/5 is a sample size, and the effective size is the
    one that governs the variance of the weighted kernel sum), sigma the unbiased weighted sd
    sqrt(sum w (x - mean)^2 / (V1 - V2 / V1)) (V1 = sum w, V2 = sum w^2), and the IQR that of
    the weighted type-7 quantiles (:func:`locacal.data.quantile.quantile_type7`).

    References
    ----------
    Silverman, B. W. (1986). *Density Estimation*, eq. (3.31). R documentation ``?bw.nrd0``.
    Kish, L. (1965). *Survey Sampling*, §11.7 (effective sample size).

    ``counts`` (validated frequency weights, with ``weights`` the combined ``w f`` or None):
    the bandwidth of the expanded rows (sum of squared weights ``sum f w^2``, quantiles of
    the observations).
    """
    xv = np.asarray(x, dtype=np.float64)
    if xv.ndim != 1 or xv.size < 2:
        raise ValueError("x needs at least two values to select a bandwidth")
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if counts is not None and w is None:
        w = np.asarray(counts, dtype=np.float64)
    if w is None:  # the values alone: a sort without the permutation (several times faster)
        xs, ws, cs = np.sort(xv), None, None
    else:
        order = np.argsort(xv, kind="stable")
        xs, ws = xv[order], w[order]
        cs = None if counts is None else np.asarray(counts, dtype=np.float64)[order]
    if ws is None:
        count, sd = float(xs.size), float(np.std(xs, ddof=1))
    else:
        count, sd = _weighted_moments(float(ws.sum()),
                                      float(np.dot(ws, ws if cs is None else ws / cs)),
                                      float(np.dot(ws, xs)), float(np.dot(ws, xs * xs)))
    q1, q3 = quantile_type7(xs, ws, np.array([0.25, 0.75]), counts=cs)
    iqr = float(q3 - q1)
    return _nrd0_from_moments(count, sd, iqr, float(xv[0]))


def reflected_bandwidth(scores: np.ndarray, weights: np.ndarray | None = None, *,
                        is_sorted: bool = False, counts: np.ndarray | None = None) -> float:
    """``bw.nrd0(c(-s, s, 2 - s))``: the bandwidth R's code uses for the reflected density.

    Computed from the scores without building the 3n-sample: its moments follow from those of
    the scores, and its order statistics are those of ``-s``, ``s`` and ``2 - s`` laid end to
    end (all of ``-s`` lie below all of ``s``, which lie below all of ``2 - s``). With relative
    case weights the reflected sample carries each weight three times, so its effective size is
    3 n_eff and its sd the weighted one of :func:`bw_nrd0`. ``counts`` (frequency weights,
    ``weights`` then the combined ``w f``): the bandwidth of the expanded rows.
    """
    w = weights
    if counts is not None and w is None:
        w = counts
    if w is None:
        s1, s2 = float(scores.sum()), float(np.dot(scores, scores))
        q1, q3 = _reflected_quartiles(scores, is_sorted)
        return unweighted_reflected_bandwidth(scores.size, s1, s2, q1, q3, float(scores[0]))
    n, n_sq = float(w.sum()), float(np.dot(w, w if counts is None else w / counts))
    s1, s2 = float(np.dot(w, scores)), float(np.dot(w, scores * scores))
    first = -float(scores[np.flatnonzero(w > 0)[0]])
    sum_x, sum_x2 = _reflected_sums(n, s1, s2)
    total, sd = _weighted_moments(3.0 * n, 3.0 * n_sq, sum_x, sum_x2)
    order = slice(None) if is_sorted else np.argsort(scores, kind="stable")
    xs, ws = scores[order], w[order]
    refl = np.concatenate([-xs[::-1], xs, 2.0 - xs[::-1]])
    cs = None if counts is None else counts[order]
    q1, q3 = quantile_type7(refl, np.concatenate([ws[::-1], ws, ws[::-1]]),
                            np.array([0.25, 0.75]),
                            None if cs is None else np.concatenate([cs[::-1], cs, cs[::-1]]))
    return _nrd0_from_moments(total, sd, float(q3 - q1), first)


def _reflected_sums(total: float, s1: float, s2: float) -> tuple[float, float]:
    """Sums of w x and w x^2 over the reflected sample -s, s, 2 - s, from V1 = ``total``,
    ``s1`` = sum w s and ``s2`` = sum w s^2."""
    sum_x = 2.0 * total - s1                       # -s1 + s1 + (2 V1 - s1)
    sum_x2 = s2 + s2 + (4.0 * total - 4.0 * s1 + s2)
    return sum_x, sum_x2


def unweighted_reflected_bandwidth(n: int, s1: float, s2: float, q1: float, q3: float,
                                   first: float) -> float:
    """:func:`reflected_bandwidth` without weights from n, sum s, sum s^2, the reflected
    sample's quartiles (:func:`reflected_quartiles_from`) and the first score."""
    sum_x, sum_x2 = _reflected_sums(float(n), s1, s2)
    total = 3.0 * n
    mean = sum_x / total
    sd = float(np.sqrt(max((sum_x2 - total * mean * mean) / (total - 1.0), 0.0)))
    return _nrd0_from_moments(total, sd, float(q3 - q1), -first)


def _quartile_positions(n: int) -> list[tuple[int, float]]:
    """Type-7 quartiles of the 3n reflected values: (lower position, fraction) of each."""
    positions = []
    for prob in (0.25, 0.75):
        pos = (3 * n - 1) * prob
        lo = int(np.floor(pos))
        positions.append((lo, pos - lo))
    return positions


def _rank_in_scores(k: int, n: int) -> int:
    """Which order statistic of s sits at position k of the sorted reflected sample."""
    return n - 1 - k if k < n else (k - n if k < 2 * n else 3 * n - 1 - k)


def quartile_ranks(n: int) -> list[int]:
    """The order statistics of the n scores (0-based ranks) behind the reflected quartiles."""
    needed = {k for lo, _ in _quartile_positions(n) for k in (lo, min(lo + 1, 3 * n - 1))}
    return sorted({_rank_in_scores(k, n) for k in needed})


def reflected_quartiles_from(order_stat: Callable[[int], float],
                             n: int) -> tuple[float, float]:
    """Type-7 quartiles of ``c(-s, s, 2 - s)`` given ``order_stat(r)``, the r-th smallest of
    the n scores (0-based), at the ranks :func:`quartile_ranks` lists."""
    def value(k: int) -> float:
        v = float(order_stat(_rank_in_scores(k, n)))
        return -v if k < n else (v if k < 2 * n else 2.0 - v)

    q = [value(lo) + frac * (value(min(lo + 1, 3 * n - 1)) - value(lo))
         for lo, frac in _quartile_positions(n)]
    return q[0], q[1]


def _reflected_quartiles(scores: np.ndarray, is_sorted: bool = False) -> tuple[float, float]:
    """Type-7 quartiles of ``c(-s, s, 2 - s)`` from a few order statistics of ``s``.

    Sorted, the reflected sample is ``-s`` (descending s), then ``s``, then ``2 - s``
    (descending s); position k of it is one order statistic of s, found by a partial sort
    (O(n)) instead of sorting 3n values.
    """
    n = scores.size
    part = scores if is_sorted else np.partition(scores, quartile_ranks(n))
    return reflected_quartiles_from(part.__getitem__, n)


def _gauss_sum(points: np.ndarray, centres: np.ndarray, mass: np.ndarray | None,
               bandwidth: float) -> np.ndarray:
    """sum_i mass_i * phi((x - c_i)/h) over the reflected centres, for each point x."""
    out = np.zeros(points.size)
    chunk = max(1, 2_000_000 // max(points.size, 1))
    for start in range(0, centres.size, chunk):
        c = centres[start:start + chunk]
        m = None if mass is None else mass[start:start + chunk]
        for shifted in (c, -c, 2.0 - c):
            z = (points[:, None] - shifted[None, :]) / bandwidth
            k = np.exp(-0.5 * z * z)
            out += k.sum(axis=1) if m is None else k @ m
    return out


def _binned_gauss_sum(points: np.ndarray, scores: np.ndarray, weights: np.ndarray | None,
                      bandwidth: float, cells: int, is_sorted: bool = False) -> np.ndarray:
    """The reflected kernel sum of :func:`_gauss_sum` after linear binning.

    The binned masses are laid out on the nodes of [-1, 2] (the reflections -s and 2 - s
    included), convolved with the sampled Gaussian by FFT, and read off at ``points`` by linear
    interpolation between nodes. Both steps err by at most about (delta/h)^2 / 8 relative,
    delta = 1/cells.
    """
    return reflected_sum_from_mass(points, linear_binning(scores, weights, cells, is_sorted),
                                   bandwidth, cells)


@public_api
def reflected_kde(scores: Any, points: Any, *, weights: Any = None,
                  bandwidth: float | None = None) -> np.ndarray:
    """Gaussian kernel density of scores reflected at 0 and 1, evaluated at ``points``.

    .. math::

        \\hat f(x) = \\frac{1}{3 N h} \\sum_{i} w_i \\left[\\phi\\left(\\frac{x - s_i}{h}\\right)
        + \\phi\\left(\\frac{x + s_i}{h}\\right) + \\phi\\left(\\frac{x - 2 + s_i}{h}\\right)
        \\right]

    the density of the reflected sample ``c(-s, s, 2 - s)`` of the 2024 R code, with
    N = sum of weights (n without weights) and h = :func:`reflected_bandwidth` unless given.
    Only the relative weights w / N enter: multiplying all weights by c > 0 changes nothing.
    Multiply by 3 to get a density that integrates to 1 on [0, 1]; the LCS only uses it as
    relative weights, like the R code.

    Parameters
    ----------
    scores : array-like
        Scores in [0, 1].
    points : array-like
        Evaluation points in [0, 1].
    weights : array-like, optional
        Relative case weights (see :func:`locacal._validation.check_weights`). With a given
        ``bandwidth``, an integer weight of 2 is a duplicated score; the default bandwidth
        counts Kish's effective size (sum w)^2 / sum w^2 instead of sum w.
    bandwidth : float, optional
        Kernel standard deviation, at least 1e-150
        (:data:`locacal._validation.MIN_BANDWIDTH`); default R's ``bw.nrd0`` of the reflected
        sample.

    Returns
    -------
    ndarray
        The density at each point.

    References
    ----------
    Machado, Charpentier, Flachaire, Gallic & Hu (2024), LCS definition (eq. 5) and the R
    function ``local_calib_score``. Silverman (1986) §3.10.1 on reflection at boundaries.
    """
    s = check_scores(scores)
    x = check_points(points, "points")
    w = check_weights(weights, s.size)
    return reflected_kde_values(s, x, w, bandwidth=bandwidth)


def reflected_kde_values(scores: np.ndarray, points: np.ndarray, weights: np.ndarray | None,
                         *, bandwidth: float | None = None,
                         is_sorted: bool = False,
                         counts: np.ndarray | None = None) -> np.ndarray:
    """:func:`reflected_kde` on validated arrays; ``is_sorted=True`` (scores ascending, weights
    in the same order) saves the partial sort behind the bandwidth. ``counts``: frequency
    weights (``weights`` the combined ``w f``), the density of the expanded rows."""
    s, x = scores, points
    w = weights if (weights is not None or counts is None) else counts
    if bandwidth is None:
        h = reflected_bandwidth(s, w, is_sorted=is_sorted, counts=counts)
    else:
        h = check_bandwidth(bandwidth, "bandwidth")
    total = float(s.size) if w is None else float(w.sum())
    if s.size <= EXACT_MAX_N:
        sums = _gauss_sum(x, s, w, h)
    else:
        sums = _binned_gauss_sum(x, s, w, h, BINNED_CELLS, is_sorted)
    return sums / (3.0 * total * h * _SQRT_2PI)


def reflected_quartiles_cells(cells: ScoreStatistics) -> tuple[float, float]:
    """Type-7 quartiles of the reflected sample ``c(-s, s, 2 - s)`` from the cells.

    Order statistic j (0-based) of the reflected sample lies in the first cell whose
    cumulative normalised weight reaches j + 1 (as in :func:`locacal.data.quantile.
    quantile_type7`); it is represented by that cell's mean score, within one cell width
    of it, and so is their interpolation.
    """
    mass, rows = cells._row_mass()
    filled = cells.weight > 0
    mass = mass[filled]
    mean = cells.ws[filled] / cells.weight[filled]
    masses = np.concatenate([mass[::-1], mass, mass[::-1]])
    values = np.concatenate([-mean[::-1], mean, 2.0 - mean[::-1]])
    pos = (3.0 * rows - 1.0) * np.array([0.25, 0.75])
    lo = np.floor(pos)
    a = values[order_stat_cells(masses, lo)]
    b = values[order_stat_cells(masses, np.minimum(lo + 1.0, 3.0 * rows - 1.0))]
    q = a + (pos - lo) * (b - a)
    return float(q[0]), float(q[1])


def reflected_bandwidth_cells(cells: ScoreStatistics) -> float:
    """:func:`locacal.density.reflected_bandwidth` from the cells: n_eff and the sd
    exactly, the IQR within two cell widths
    (:func:`reflected_quartiles_cells`)."""
    total, total_sq = cells.total_weight, float(cells.weight_sq.sum())
    s1, s2 = float(cells.ws.sum()), float(cells.ws2.sum())
    # reflected sample -s, s, 2 - s: weight 3 V1, and its sums of w x and w x^2
    sum_x, sum_x2 = 2.0 * total - s1, 3.0 * s2 + 4.0 * total - 4.0 * s1
    n_eff, sd = _weighted_moments(3.0 * total, 3.0 * total_sq, sum_x, sum_x2)
    q1, q3 = reflected_quartiles_cells(cells)
    return _nrd0_from_moments(n_eff, sd, q3 - q1, -cells.min_score)

def reflected_kde_cells(cells: ScoreStatistics, points: np.ndarray) -> np.ndarray:
    """:func:`locacal.density.reflected_kde` at ``points`` from the cells: the linear
    binning on the nodes k/C is exact from the cell sums (cell j gives node j + 1 the
    share sum w (s C - j) = C sum(w s) - j sum(w)), the convolution is the binned
    density's."""
    j = np.arange(CELLS)
    right = np.clip(CELLS * cells.ws - j * cells.weight, 0.0, cells.weight)
    mass = np.zeros(CELLS + 1)
    mass[:-1] += cells.weight - right
    mass[1:] += right
    h = reflected_bandwidth_cells(cells)
    sums = reflected_sum_from_mass(np.asarray(points, dtype=np.float64), mass, h, CELLS)
    return sums / (3.0 * cells.total_weight * h * _SQRT_2PI)
