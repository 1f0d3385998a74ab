"""Empirical quantiles as R computes them by default (Hyndman & Fan type 7), with relative
case weights, and the breaks of quantile bins."""

from __future__ import annotations

import numpy as np

from locacal._validation import warn

__all__ = ["normalised_weights", "quantile_breaks", "quantile_type7", "sorted_linear_quantiles",
           "warn_tied_bins"]

#: Slack, relative to the number of weighted rows, with which a cumulative weight counts as
#: having reached a position: it absorbs the rounding of the cumulative sum (about 1e-13
#: relative at n = 1e6), so that weights w and c w pick the same order statistics.
_POSITION_SLACK = 1e-10


def normalised_weights(weights: np.ndarray) -> tuple[np.ndarray, int]:
    """Weights rescaled to sum to the number of rows with positive weight.

    .. math:: \\tilde w_i = w_i \\, n_+ / \\textstyle\\sum_j w_j, \\qquad
              n_+ = \\#\\{i : w_i > 0\\}

    ``w_tilde`` depends only on the relative weights ``w / sum(w)`` and equals 1 for unit
    weights, so a rule that counts observations (a quantile position, a number of nearest
    neighbours) keeps its unweighted value and becomes scale-free under weights. Returns
    ``(w_tilde, n_+)``.
    """
    positive = int(np.count_nonzero(weights > 0))
    return weights * (positive / float(weights.sum())), positive


def sorted_linear_quantiles(x_sorted: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``np.quantile(x_sorted, probs)`` (method ``"linear"``) of a sorted float64 array,
    without its copy and selection over the whole array: the same arithmetic on the two
    order statistics around each position (n - 1) p, so the same bits (checked against
    ``np.quantile`` in tests/test_blockwise.py).

    With ``a``, ``b`` the order statistics at ``floor((n - 1) p)`` and the next (both the
    largest beyond the end) and ``g`` the fractional part, ``a + (b - a) g``, or
    ``b - (b - a)(1 - g)`` when ``g >= 1/2`` (NumPy's ``_lerp``).
    """
    n = x_sorted.size
    virtual = (n - 1) * np.asarray(probs, dtype=np.float64)
    previous = np.floor(virtual)
    beyond = virtual >= n - 1
    previous[beyond] = -1.0
    previous[virtual < 0] = 0.0
    following = previous + 1.0
    following[beyond] = -1.0
    previous_index, following_index = previous.astype(np.intp), following.astype(np.intp)
    gamma = virtual - previous_index
    a, b = x_sorted[previous_index], x_sorted[following_index]
    diff = b - a
    result = a + diff * gamma
    upper = gamma >= 0.5
    result[upper] = (b - diff * (1 - gamma))[upper]
    return result


def quantile_type7(x_sorted: np.ndarray, w_sorted: np.ndarray | None,
                   probs: np.ndarray | float,
                   counts: np.ndarray | None = None) -> np.ndarray:
    """Type-7 quantiles (R's default, NumPy's ``"linear"``) of a sorted sample.

    Unweighted, the quantile at p interpolates the order statistics around position
    (n - 1) p. With relative case weights, the weights are first normalised to sum to the
    number n+ of rows with positive weight (:func:`normalised_weights`), and position
    (n+ - 1) p is looked up in the cumulative normalised weights: the j-th order statistic
    (0-based) is the first value whose cumulative weight reaches j + 1, as in the sample in
    which each value is repeated ``w_tilde`` times. Unit weights give exactly the unweighted
    quantiles, and multiplying the weights by any c > 0 changes nothing (the frequency reading
    of the weights, position (sum w - 1) p, would collapse every quantile onto the smallest
    value when the weights sum to 1).

    References
    ----------
    Hyndman, R. J. & Fan, Y. (1996). Sample quantiles in statistical packages. *The American
    Statistician* 50(4), 361-365 (definition 7).

    ``counts`` (frequency weights, same order; ``w_sorted`` the combined weights ``w f``):
    the quantiles of the expanded rows, whose n+ is the number of observations with positive
    weight.
    """
    p = np.asarray(probs, dtype=np.float64)
    if w_sorted is None and counts is None:
        return sorted_linear_quantiles(x_sorted, p)
    if counts is None:
        w_tilde, positive = normalised_weights(w_sorted)
    else:
        w_sorted = counts if w_sorted is None else w_sorted
        positive = int(counts[w_sorted > 0].sum())
        w_tilde = w_sorted * (positive / float(w_sorted.sum()))
    cum = np.cumsum(w_tilde)
    pos = (positive - 1.0) * p
    lo = np.floor(pos)
    frac = pos - lo
    last = x_sorted.size - 1
    slack = _POSITION_SLACK * positive

    def order_stat(j: np.ndarray) -> np.ndarray:  # value at 0-based position j
        idx = np.searchsorted(cum, j + 1.0 - slack, side="left")
        return x_sorted[np.minimum(idx, last)]

    a = order_stat(lo)
    b = order_stat(lo + 1.0)
    return np.where(frac == 0, a, a + frac * (b - a))


def quantile_breaks(quantiles: np.ndarray, bins: int) -> np.ndarray:
    """The distinct values of ``quantiles`` (the breaks at probabilities ``(0:bins)/bins``),
    ascending; warns (:func:`warn_tied_bins`) when ties leave fewer than ``bins`` bins.

    The caller computes the quantiles (:func:`quantile_type7` on sorted scores, or
    ``np.quantile`` by selection: type-7 quantiles are order statistics, the same either
    way). A single distinct score gives one break, hence one bin.
    """
    breaks = np.unique(quantiles)
    if breaks.size - 1 < bins:
        warn_tied_bins(max(breaks.size - 1, 1), bins)
    return breaks


def warn_tied_bins(made: int, bins: int) -> None:
    """The warning of every quantile binning whose ties leave ``made < bins`` bins."""
    warn(f"tied scores leave {made} distinct quantile bins of the {bins} requested")
