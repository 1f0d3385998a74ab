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

**Frequency weights** (``counts``: row j stands for ``f_j`` identical observations) give the
fit of the expanded rows without building them. Sorted stably, the expanded rows are each
sorted row repeated ``f_j`` times, so the observations are positions ``0 .. N - 1`` and
position ``p`` belongs to the row ``j`` with ``F_{j-1} <= p < F_j`` (``F`` the cumulative
counts). clowess is run on positions: the window of ``ns = floor(f N + 1e-7)``
observations and its sliding compare the scores at positions; a row enters the local line
with its kernel weight times the number of its copies inside the window (a window may cut a
row's copies at either end); the skipping by ``delta`` jumps between positions. Each fit is
made at the last copy of a run of equal scores (or at the first, after which its ties copy
it), and the copies before it in the run are interpolated with weight exactly 1 on it, so
all copies of a score share one fitted value: one per row, computed once. The cost is
O(fits x window rows), the window's rows instead of its observations.
"""

from __future__ import annotations

import numpy as np

__all__ = ["r_lowess_fit"]


def r_lowess_fit(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, *,
                 f: float = 2.0 / 3.0, delta: float | None = None,
                 counts: np.ndarray | None = None) -> np.ndarray:
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
    counts : ndarray, optional
        Frequency weights (positive whole numbers): the fit of the expanded rows, each
        row's copy weighted by ``weights`` (module docstring).
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    ys = y[order]
    ws = None if weights is None else weights[order]
    if delta is None:
        delta = 0.01 * (xs[-1] - xs[0])
    if counts is not None:
        out = np.empty(x.shape[0])
        out[order] = _clowess_counts(xs, ys, ws, counts[order], f, delta)
        return out
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
    # clowess scans right from nleft until a point beyond 0.999 h on the right. The window
    # was slid so that x[nright + 1] - x_i >= h: with h > 0 the scan ends at nright + 1; with
    # h = 0 (a window of ties) it takes in every tie of x_i.
    stop = nright + 1
    if h == 0.0:
        stop = max(stop, int(np.searchsorted(x, xi, side="right")))
    return _weighted_line(xi, h, x[nleft:stop], y[nleft:stop], float(y[i]), x_range,
                          None if w is None else w[nleft:stop])


def _weighted_line(xi: float, h: float, xw: np.ndarray, yw: np.ndarray, fallback: float,
                   x_range: float, *multipliers: np.ndarray | None) -> float:
    """clowess's tricube-weighted local line at ``xi`` through the window ``(xw, yw)`` of
    half-width ``h``; the kernel is multiplied by each of ``multipliers`` (case weights,
    copies) in turn. ``fallback`` where every weight is 0."""
    h9 = 0.999 * h
    h1 = 0.001 * h
    r = np.abs(xw - xi)
    u = r / h if h > 0 else np.zeros_like(r)
    v = 1.0 - u * u * u
    kern = np.where(r <= h9, np.where(r <= h1, 1.0, v * v * v), 0.0)
    for multiplier in multipliers:
        if multiplier is not None:
            kern = kern * multiplier
    total = kern.sum()
    if total <= 0.0:
        return fallback
    kern = kern / total
    if h > 0.0:
        centre = np.dot(kern, xw)
        spread = np.dot(kern, (xw - centre) ** 2)
        if np.sqrt(spread) > 0.001 * x_range:
            slope = (xi - centre) / spread
            kern = kern * (slope * (xw - centre) + 1.0)
    return float(np.dot(kern, yw))


def _clowess_counts(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, counts: np.ndarray,
                    f: float, delta: float) -> np.ndarray:
    """:func:`_clowess_pass` of the expanded rows, one value per sorted row (module
    docstring, "Frequency weights"); positions are 0-based observations."""
    m = x.shape[0]
    cum = np.cumsum(counts.astype(np.int64))
    n = int(cum[-1])
    fit = np.empty(m)
    if n < 2:
        fit[:] = y
        return fit
    row_of = _RowOf(cum)
    ns = max(2, min(n, int(f * n + 1e-7)))
    x_range = x[-1] - x[0]
    nleft, last, i = 0, -1, 0
    while True:
        nleft = _slide_positions(x, row_of, i, nleft, ns, n)
        ri = row_of(i)
        value = _local_line_counts(x, y, w, cum, row_of, i, nleft, nleft + ns - 1, x_range)
        if last < i - 1:  # skipped rows: interpolated between the fitted neighbours
            a, b = row_of(last + 1), row_of(i - 1)
            x_last, fit_last = x[row_of(last)], fit[row_of(last)]
            alpha = (x[a:b + 1] - x_last) / (x[ri] - x_last)
            fit[a:b + 1] = alpha * value + (1.0 - alpha) * fit_last
        fit[ri] = value
        tie_end = int(np.searchsorted(x, x[ri], side="right")) - 1  # last row tied with ri
        fit[ri + 1:tie_end + 1] = value
        last = int(cum[tie_end]) - 1
        beyond_row = int(np.searchsorted(x, x[ri] + delta, side="right"))
        beyond = n if beyond_row == m else int(cum[beyond_row - 1]) if beyond_row else 0
        i = max(last + 1, beyond - 1)
        if last >= n - 1:
            return fit


class _RowOf:
    """The sorted row holding each observation position (``F_{j-1} <= p < F_j``)."""

    def __init__(self, cum: np.ndarray) -> None:
        self.cum = cum
        self.starts = np.concatenate(([0], cum[:-1]))  # first position of each row

    def __call__(self, position: int) -> int:
        return int(np.searchsorted(self.cum, position, side="right"))


def _slide_positions(x: np.ndarray, row_of: _RowOf, i: int, nleft: int, ns: int,
                     n: int) -> int:
    """:func:`_slide_window` on positions: the scores at positions are their rows'."""
    xi = x[row_of(i)]
    lo, hi = nleft, n - ns
    while lo < hi:
        mid = (lo + hi) // 2
        if xi - x[row_of(mid)] > x[row_of(mid + ns)] - xi:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _local_line_counts(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, cum: np.ndarray,
                       row_of: _RowOf, i: int, nleft: int, nright: int,
                       x_range: float) -> float:
    """:func:`_local_line` on the positions ``[nleft, nright]``: each row weighted by its
    copies inside them."""
    ri = row_of(i)
    xi = x[ri]
    h = max(xi - x[row_of(nleft)], x[row_of(nright)] - xi)
    stop = nright + 1  # positions [nleft, stop)
    if h == 0.0:
        tie_end = int(np.searchsorted(x, xi, side="right"))
        stop = max(stop, int(cum[tie_end - 1]))
    a, b = row_of(nleft), row_of(stop - 1)
    starts = row_of.starts[a:b + 1]
    copies = (np.minimum(cum[a:b + 1], stop) - np.maximum(starts, nleft)).astype(np.float64)
    return _weighted_line(xi, h, x[a:b + 1], y[a:b + 1], float(y[ri]), x_range,
                          None if w is None else w[a:b + 1], copies)
