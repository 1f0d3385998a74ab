"""Kullback–Leibler divergence between the distributions of two samples on [0, 1].

In the 2024 slides (§5.2) the KL divergence measures how far the distribution of a model's
scores is from that of the true probabilities: a tree with two leaves has two distinct scores,
an overfitted one piles its scores at 0 and 1, and in between lies the tree whose scores are
spread most like the truth.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import entropy

from locacal._validation import (
    as_1d_float,
    check_bandwidth,
    check_choice,
    check_grid_size,
    check_nonnegative,
    check_positive,
    check_scores,
    public_api,
)

__all__ = ["KL_METHODS", "kl_divergence"]

KL_METHODS = ("hist", "kde")

#: Default number of equal-width bins for ``method="hist"`` (the 2024 code's ``KL_20``).
HIST_BINS = 20
#: Default number of evaluation points on [0, 1] for ``method="kde"``.
KDE_POINTS = 512


def _bin_probabilities(sample: np.ndarray, edges: np.ndarray) -> np.ndarray:
    counts, _ = np.histogram(sample, bins=edges)
    return counts / sample.size


def _kde_probabilities(sample: np.ndarray, points: np.ndarray, bandwidth: float | None,
                       name: str) -> np.ndarray:
    """The reflected kernel density of ``sample`` at ``points``, normalised to sum to one.

    The Riemann sum over points a step Δ apart holds the mass of a Gaussian kernel of
    standard deviation h to within 2 exp(-2 π² h² / Δ²) (Poisson summation): 1.4 % at
    h = Δ / 2, 58 % at Δ / 4, and nothing at all once the kernels fall between the points
    (the density is then 0 at every point and the shares 0 / 0). A bandwidth below Δ / 2 is
    refused.
    """
    from locacal.density import reflected_bandwidth, reflected_kde_values

    h = reflected_bandwidth(sample) if bandwidth is None else bandwidth
    least = 0.5 * (points[1] - points[0])
    if h < least:
        which = (f"bandwidth={h!r}" if bandwidth is not None else
                 f"the bandwidth bw.nrd0 chooses for {name}, {h:.3g},")
        raise ValueError(f"{which} is below half the spacing of the {points.size} evaluation "
                         f"points ({least:.3g}): the sum over the points would miss the "
                         "kernels between them. Give bandwidth >= "
                         f"{least:.3g} or more points (bins)")
    dens = reflected_kde_values(sample, points, None, bandwidth=h)
    return dens / dens.sum()


@public_api
def kl_divergence(
    p_sample: Any,
    q_sample: Any,
    *,
    method: str = "hist",
    bins: Any = None,
    bandwidth: float | None = None,
    epsilon: float = 1e-5,
    base: float | None = None,
) -> float:
    r"""Kullback–Leibler divergence D(P ‖ Q) of the distribution of ``p_sample`` from that of
    ``q_sample``, both on [0, 1].

    .. math::

        D_{KL}(P \,\|\, Q) = \sum_i P(i) \log \frac{P(i)}{Q(i)}

    where P(i) and Q(i) are the shares of each sample in cell i of a partition of [0, 1]
    ([MC24]_ §5.2; Kullback & Leibler, 1951). D is zero when the two distributions agree cell
    by cell, positive otherwise, and not symmetric: Q is the reference. To measure how far a
    model's scores are from the true probabilities, as in the slides' tree study, pass the
    scores first and the true probabilities second (the 2024 code's ``KL_20_true_probas``).

    Parameters
    ----------
    p_sample, q_sample : array-like
        Two samples of values in [0, 1] (they may differ in size).
    method : {"hist", "kde"}, default "hist"
        ``"hist"``: P(i) and Q(i) are the shares of each sample in ``bins`` equal-width bins
        of [0, 1] (right-open, the last one closed), as in the 2024 code. Suits scores with
        few distinct values, such as a tree's. ``"kde"``: P(i) and Q(i) are proportional to
        each sample's Gaussian kernel density, reflected at 0 and 1
        (:func:`locacal.density.reflected_kde`), at ``bins`` equally spaced points of
        [0, 1]: a Riemann sum of :math:`\int_0^1 f_P \log(f_P/f_Q)`. Suits continuous scores.
    bins : int or array-like, optional
        ``"hist"``: number of bins (default 20; from 1 to 2^16) or increasing bin edges
        spanning [0, 1]. ``"kde"``: number of evaluation points (default 512; from 2 to
        2^16). A grid of [0, 1] finer than 2^16 steps resolves nothing more.
    bandwidth : float, optional
        ``"kde"`` only: kernel standard deviation; by default R's ``bw.nrd0`` of each
        reflected sample, chosen separately for the two samples. It must be at least half
        the spacing of the evaluation points, 1 / (2 (bins - 1)) (0.00098 for the default
        512 points): a narrower kernel falls between the points, which then miss its mass
        (and see a density of 0 everywhere for a bandwidth like 1e-9).
    epsilon : float, default 1e-5
        Floor for Q in the cells where Q is empty and P is not. Without it the divergence
        is infinite as soon as one value of ``p_sample`` falls where ``q_sample`` has none,
        which happens for any discrete score against a continuous reference. Q is floored at
        ``epsilon`` in those cells and renormalised to sum to one, so the result is a genuine
        divergence (non-negative, zero only for equal distributions). The 2024 code (R
        package philentropy) uses the same floor, 1e-5, without renormalising (a relative
        difference below ``epsilon`` times the number of floored cells). Pass
        ``epsilon=0`` to get ``inf`` instead. Cells where P is empty contribute 0
        (the limit of x log x at 0), whatever Q.
    base : float, optional
        Base of the logarithm: natural (nats) by default; 2 gives bits, as the 2024 code.

    Returns
    -------
    float
        The divergence, in [0, inf].

    Raises
    ------
    ValueError
        If a sample is empty, holds NaN or infinite values, or values outside [0, 1]; if the
        bin edges are not increasing or do not span [0, 1]; if ``epsilon`` is negative; if
        the kde bandwidth is below half the spacing of the points, or given to ``"hist"``.

    References
    ----------
    .. [MC24] Machado, Charpentier, Flachaire, Gallic & Hu (2024), "From Uncertainty to
       Precision", slides §5.2, "Kullback Leibler Divergence".
    .. [KL51] Kullback, S. and Leibler, R. A. (1951). On information and sufficiency.
       *The Annals of Mathematical Statistics* 22: 79–86.

    Examples
    --------
    >>> from locacal.metrics.divergence import kl_divergence
    >>> kl_divergence([0.1, 0.2, 0.7], [0.1, 0.2, 0.7])
    0.0
    >>> round(kl_divergence([0.1, 0.1], [0.1, 0.9], bins=2), 6)  # log(1 / 0.5)
    0.693147
    """
    p = check_scores(p_sample, "p_sample")
    q = check_scores(q_sample, "q_sample")
    check_choice(method, KL_METHODS, "method")
    eps = check_nonnegative(epsilon, "epsilon")
    if base is not None and check_positive(base, "base") == 1.0:
        raise ValueError("base must be a positive number other than 1, got 1")
    h = None if bandwidth is None else check_bandwidth(bandwidth, "bandwidth")
    if method == "hist":
        if h is not None:
            raise ValueError(f"bandwidth applies to method='kde' only; got bandwidth={h!r} "
                             "with method='hist'")
        if bins is None or np.ndim(bins) == 0:
            size = HIST_BINS if bins is None else check_grid_size(bins, "bins", minimum=1)
            edges = np.linspace(0.0, 1.0, size + 1)
        else:
            edges = as_1d_float(bins, "bins")
            if edges.size < 2 or not np.all(np.diff(edges) > 0):
                raise ValueError("bins must be a number or increasing edges (at least two)")
            if edges[0] > 0.0 or edges[-1] < 1.0:
                raise ValueError(f"bin edges must span [0, 1], got [{edges[0]}, {edges[-1]}]")
        prob_p = _bin_probabilities(p, edges)
        prob_q = _bin_probabilities(q, edges)
    else:
        size = KDE_POINTS if bins is None else check_grid_size(bins, "bins")
        points = np.linspace(0.0, 1.0, size)
        prob_p = _kde_probabilities(p, points, h, "p_sample")
        prob_q = _kde_probabilities(q, points, h, "q_sample")
    empty = (prob_q == 0.0) & (prob_p > 0.0)
    if empty.any():
        if eps == 0.0:
            return float("inf")
        prob_q = np.where(empty, eps, prob_q)
    return float(max(entropy(prob_p, prob_q, base=base), 0.0))
