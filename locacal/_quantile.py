"""Empirical quantiles as R computes them by default (Hyndman & Fan type 7), with frequency
weights."""

from __future__ import annotations

import numpy as np

__all__ = ["quantile_type7"]


def quantile_type7(x_sorted: np.ndarray, w_sorted: np.ndarray | None,
                   probs: np.ndarray | float) -> np.ndarray:
    """Type-7 quantiles (R's default, NumPy's ``"linear"``) of a sorted sample.

    With frequency weights, position ``(N - 1) p`` (N = sum of weights) is looked up in the
    sample in which each value is repeated ``w`` times, without building it: integer weights
    give exactly the quantiles of the sample with duplicated rows, and other weights
    interpolate the same cumulative-count rule.

    References
    ----------
    Hyndman, R. J. & Fan, Y. (1996). Sample quantiles in statistical packages. *The American
    Statistician* 50(4), 361-365 (definition 7).
    """
    p = np.asarray(probs, dtype=np.float64)
    if w_sorted is None:
        return np.quantile(x_sorted, p)
    cum = np.cumsum(w_sorted)
    pos = (cum[-1] - 1.0) * p
    lo = np.floor(pos)
    frac = pos - lo
    last = x_sorted.size - 1

    def order_stat(j: np.ndarray) -> np.ndarray:  # value at 0-based position j
        idx = np.searchsorted(cum, j + 1.0 - 1e-9, side="left")
        return x_sorted[np.minimum(idx, last)]

    a = order_stat(lo)
    b = order_stat(lo + 1.0)
    return np.where(frac == 0, a, a + frac * (b - a))
