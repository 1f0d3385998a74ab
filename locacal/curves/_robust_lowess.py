r"""Robust LOWESS (Cleveland 1979) on grouped rows: statsmodels' ``lowess(it > 0)`` of the
expanded rows, computed from the rows and their frequency weights.

Row :math:`i` (score :math:`s_i`, label :math:`y_i`) stands for :math:`f_i` identical
observations; the :math:`N = \sum f_i` expanded observations, sorted by score, are indexed
``0 .. N-1`` and row i's copies are ``c_{i-1} .. c_i - 1`` (:math:`c` the cumulative counts).
This reproduces statsmodels' algorithm (``statsmodels.nonparametric._smoothers_lowess``,
read to follow it, not copied) step by step on the expanded observations:

* the span is :math:`k = \lfloor \mathrm{frac}\, N + 10^{-10} \rfloor`, clipped to [2, N];
* at a point t the window is the run ``[L, L + k)`` of expanded observations with ``L`` the
  smallest start such that ``L = N - k`` or :math:`t \le (x_L + x_{L+k}) / 2` (statsmodels
  slides its window right while t is past that midpoint; the condition is monotone in L, so
  the smallest such L is found by bisection), radius
  :math:`r = \max(t - x_L, x_{L+k-1} - t)`;
* weights :math:`v_j = T(|x_j - t| / r)\, \rho_j` (tricube T, robustness weight
  :math:`\rho`); the regression runs when at least two observations have
  :math:`v_j > 10^{-12}`, with normalised weights, weighted mean :math:`\bar x` and
  :math:`S = \max(\sum v_j (x_j - \bar x)^2, 10^{-12})`:
  :math:`\hat g(t) = \sum_j v_j (1 + (t - \bar x)(x_j - \bar x) / S)\, y_j`; otherwise
  the observation's own label at the data and NaN elsewhere;
* after each of the ``it`` fits at the data, :math:`\rho_j = B(\min(|y_j - \hat g(x_j)| /
  (6 m), 1))` with B the bisquare and m the median absolute residual of the N observations
  (the mean of the two middle ones when N is even); where m = 0, :math:`\rho_j` is 1 for a
  zero residual and 0 otherwise;
* the map at new points is the last fit with the last robustness weights.

Grouped: the copies of a row share score, label, fit and residual, hence robustness weight
(so the row's weight applies to all its copies); a window holds the copies of its rows with
index in ``[L, L + k)`` (all of an inner row's, part of a boundary row's), and the median
absolute residual is the median of the rows' residuals weighted by their counts. Results
equal statsmodels' on the expanded rows up to rounding (tested to 1e-10), in any order of
the points.

Reference: Cleveland, W. S. (1979). Robust locally weighted regression and smoothing
scatterplots. JASA 74, 829-836.
"""

from __future__ import annotations

import numpy as np

__all__ = ["grouped_robust_lowess"]

#: statsmodels' thresholds: a weight counts when above this; the weighted variance of the
#: scores in a window is at least this.
_TINY = 1e-12


def grouped_robust_lowess(scores: np.ndarray, labels: np.ndarray, counts: np.ndarray,
                          frac: float, it: int, points: np.ndarray) -> np.ndarray:
    """The robust LOWESS map of the expanded rows at ``points`` (module docstring).

    ``scores`` sorted ascending, ``labels`` 0/1, ``counts`` positive whole counts, all of
    the rows' length; ``points`` in any order.
    """
    x = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    f = np.asarray(counts, dtype=np.int64)
    cum = np.cumsum(f)
    total = int(cum[-1])
    k = min(max(int(frac * total + 1e-10), 2), total)
    rho = np.ones(x.size)
    for _ in range(it):
        fitted = _fit(x, y, f, cum, k, rho, x, at_data=True)
        residual = np.abs(y - fitted)
        rho = _bisquare_weights(residual, f)
    return _fit(x, y, f, cum, k, rho, np.asarray(points, dtype=np.float64), at_data=False)


def _bisquare_weights(residual: np.ndarray, f: np.ndarray) -> np.ndarray:
    """statsmodels' robustness weights from the rows' absolute residuals and counts."""
    median = _weighted_median(residual, f)
    if median == 0:
        u = (residual > 0).astype(np.float64)
    else:
        u = np.minimum(residual / (6.0 * median), 1.0)
    return (1.0 - u * u) ** 2


def _weighted_median(values: np.ndarray, f: np.ndarray) -> float:
    """``np.median`` of the expanded values: the middle one, or the mean of the two."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(f[order])
    total = int(cum[-1])
    # expanded index j is a copy of the sorted row searchsorted(cum, j, "right")
    low = order[np.searchsorted(cum, (total - 1) // 2, side="right")]
    high = order[np.searchsorted(cum, total // 2, side="right")]
    return 0.5 * (values[low] + values[high])


def _expanded(x: np.ndarray, cum: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Scores of the expanded observations ``index``."""
    return x[np.searchsorted(cum, index, side="right")]


def _window_starts(x: np.ndarray, cum: np.ndarray, k: int, t: np.ndarray) -> np.ndarray:
    """statsmodels' window start L at each point (bisection over ``0 .. N - k``)."""
    total = int(cum[-1])
    lo = np.zeros(t.size, dtype=np.int64)
    hi = np.full(t.size, total - k, dtype=np.int64)
    while np.any(lo < hi):  # invariant: the answer is in [lo, hi]
        mid = (lo + hi) // 2
        right = _expanded(x, cum, np.minimum(mid + k, total - 1))
        stop = (mid == total - k) | (t <= (_expanded(x, cum, mid) + right) / 2.0)
        hi = np.where(stop, mid, hi)
        lo = np.where(stop, lo, mid + 1)
    return lo


def _fit(x: np.ndarray, y: np.ndarray, f: np.ndarray, cum: np.ndarray, k: int,
         rho: np.ndarray, t: np.ndarray, *, at_data: bool) -> np.ndarray:
    """One pass of the local line at the points ``t`` with robustness weights ``rho``
    (at the rows themselves when ``at_data``: a failed regression gives the row's label)."""
    starts = _window_starts(x, cum, k, t)
    first = np.searchsorted(cum, starts, side="right")  # row of observation L
    last = np.searchsorted(cum, starts + k - 1, side="right")  # row of observation L+k-1
    out = np.empty(t.size)
    begin = cum - f  # first expanded index of each row
    # statsmodels copies the fit at the first of tied data scores to the others, so a
    # failed regression gives every tied observation the first one's label
    own = y[np.searchsorted(x, x, side="left")] if at_data else None
    for p in range(t.size):
        a, b, point = first[p], last[p] + 1, t[p]
        xs = x[a:b]
        radius = max(point - xs[0], xs[-1] - point)
        copies = (np.minimum(cum[a:b], starts[p] + k) - np.maximum(begin[a:b], starts[p]))
        with np.errstate(invalid="ignore", divide="ignore"):
            u = np.abs(xs - point) / radius
        tri = 1.0 - u * u * u
        v = tri * tri * tri * rho[a:b]
        if copies[v > _TINY].sum() < 2:  # NaN weights (radius 0) fail the test too
            out[p] = own[p] if at_data else np.nan
            continue
        mass = v * copies
        mass = mass / mass.sum()
        mean = mass @ xs
        spread = max(mass @ (xs - mean) ** 2, _TINY)
        out[p] = (mass * (1.0 + (point - mean) * (xs - mean) / spread)) @ y[a:b]
    return out
