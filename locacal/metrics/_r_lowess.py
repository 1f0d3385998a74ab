"""R's ``lowess`` smoother (``stats``' C routine ``clowess``), one pass without robustness.

``rms::val.prob`` computes its Eavg / E90 / Emax from ``lowess(p, y, iter = 0)``; statsmodels'
lowess differs from R's in its window and skipping rules (fitted values up to ~2e-6 apart), so
the algorithm is re-implemented here from its description (Cleveland 1979; the rules of R's
``clowess``):

* the data are sorted by x (stably); each fit uses the ``ns = max(2, min(n, floor(f n + 1e-7)))``
  nearest points, a window that slides right while that shortens its radius;
* the radius ``h`` is the larger distance from the fitted x to the window's ends; the weights are
  tricube ``(1 - (r/h)^3)^3``, set to 1 for ``r <= 0.001 h`` and to 0 beyond ``0.999 h``; points
  tied with the window's right end are included;
* the fit is the weighted mean when the weighted spread of x is below ``0.001 * range(x)``, the
  weighted least-squares line otherwise;
* after a fit at x_i, the points within ``delta`` of x_i are not fitted but interpolated linearly
  between fitted neighbours (ties of x_i copy its value); the next fit is at the last point
  within ``delta``.

Prior weights, which R's lowess does not take, enter where R puts its robustness weights: they
multiply the tricube weights, and the window still counts rows.
"""

from __future__ import annotations

import numpy as np

__all__ = ["r_lowess_fit"]


def r_lowess_fit(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, *,
                 f: float = 2.0 / 3.0, delta: float | None = None) -> np.ndarray:
    """Fitted values of R's ``lowess(x, y, f, iter = 0, delta)`` at every x, in input order.

    Tied x get the mean of their fitted values, as ``approx(lowess(x, y), xout = x,
    ties = mean)`` in ``rms::val.prob`` does (the fits of tied x can differ when some were
    interpolated and one was fitted).

    Parameters
    ----------
    x, y : ndarray
        Validated data of equal length.
    weights : ndarray, optional
        Prior weights multiplying the tricube weights (R's lowess has none).
    f : float, default 2/3
        Share of the points in each window (R's default).
    delta : float, optional
        Skipping distance; default R's ``0.01 * diff(range(x))``.
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    ys = y[order]
    ws = None if weights is None else weights[order]
    if delta is None:
        delta = 0.01 * (xs[-1] - xs[0])
    fitted_sorted = _clowess_pass(xs, ys, ws, f, delta)
    # approx(..., ties = mean): one value per distinct x, the mean of its fits
    _, first, inverse = np.unique(xs, return_index=True, return_inverse=True)
    sums = np.bincount(inverse, weights=fitted_sorted)
    counts = np.bincount(inverse)
    means = np.where(counts == 1, fitted_sorted[first], sums / counts)
    out = np.empty_like(fitted_sorted)
    out[order] = means[inverse]
    return out


def _clowess_pass(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, f: float,
                  delta: float) -> np.ndarray:
    """One pass of clowess over data sorted by x (0-based indices throughout)."""
    n = x.shape[0]
    fit = np.empty(n)
    if n < 2:
        fit[:] = y
        return fit
    ns = max(2, min(n, int(f * n + 1e-7)))
    x_range = x[-1] - x[0]
    nleft, last, i = 0, -1, 0
    while True:
        nleft = _slide_window(x, i, nleft, ns)
        nright = nleft + ns - 1
        fit[i] = _local_line(x, y, w, i, nleft, nright, x_range)
        if last < i - 1:
            # skipped points: linear interpolation between the two fitted neighbours
            denom = x[i] - x[last]
            alpha = (x[last + 1:i] - x[last]) / denom
            fit[last + 1:i] = alpha * fit[i] + (1.0 - alpha) * fit[last]
        last = i
        cut = x[last] + delta
        tied_end = int(np.searchsorted(x, x[last], side="right")) - 1
        fit[last + 1:tied_end + 1] = fit[last]
        last = tied_end
        beyond = int(np.searchsorted(x, cut, side="right"))  # first index with x > cut
        i = max(last + 1, beyond - 1)
        if last >= n - 1:
            return fit


def _slide_window(x: np.ndarray, i: int, nleft: int, ns: int) -> int:
    """Left end of the window of x_i: move right from ``nleft`` while the radius shrinks.

    clowess steps one point at a time while ``x_i - x[nleft] > x[nleft + ns] - x_i`` and the
    window can still move; that predicate is monotone in ``nleft``, so binary search finds the
    same stopping point.
    """
    n = x.shape[0]
    lo, hi = nleft, n - ns  # hi: the window cannot move further
    while lo < hi:
        mid = (lo + hi) // 2
        if x[i] - x[mid] > x[mid + ns] - x[i]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _local_line(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, i: int, nleft: int,
                nright: int, x_range: float) -> float:
    """clowess's ``lowest``: tricube-weighted local line at x_i on the window [nleft, nright]."""
    xi = x[i]
    h = max(xi - x[nleft], x[nright] - xi)
    h9 = 0.999 * h
    h1 = 0.001 * h
    # clowess scans right from nleft until a point beyond 0.999 h on the right. The window
    # was slid so that x[nright + 1] - x_i >= h: with h > 0 the scan ends at nright + 1; with
    # h = 0 (a window of ties) it takes in every tie of x_i.
    stop = nright + 1
    if h == 0.0:
        stop = max(stop, int(np.searchsorted(x, xi, side="right")))
    xw = x[nleft:stop]
    r = np.abs(xw - xi)
    u = r / h if h > 0 else np.zeros_like(r)
    v = 1.0 - u * u * u
    kern = np.where(r <= h9, np.where(r <= h1, 1.0, v * v * v), 0.0)
    if w is not None:
        kern = kern * w[nleft:stop]
    total = kern.sum()
    if total <= 0.0:
        return float(y[i])
    kern = kern / total
    if h > 0.0:
        centre = np.dot(kern, xw)
        spread = np.dot(kern, (xw - centre) ** 2)
        if np.sqrt(spread) > 0.001 * x_range:
            slope = (xi - centre) / spread
            kern = kern * (slope * (xw - centre) + 1.0)
    return float(np.dot(kern, y[nleft:stop]))
