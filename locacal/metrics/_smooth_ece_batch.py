"""The smooth ECE of many label vectors with the same scores at once.

:func:`locacal.metrics.smece` finds its bandwidth by bisection (sigma* = smECE(sigma*)) and
evaluates the smooth ECE on a grid of nodes by an FFT convolution at each step. For label
vectors that share their scores (the null draws of the report, D* ~ Bernoulli(s)), what
depends on the scores only is computed once: each score's two grid nodes and shares, the
smoothed score density at each bandwidth. The bisections of all vectors run together, one
step at a time; at each step the vectors are grouped by their current bandwidth (a dyadic
fraction: they share few values), and a group's residual masses, transformed once per
node count, are convolved with the group's kernel by one inverse FFT each. The values equal
:func:`locacal.metrics.smece` (tests check this to 1e-12); only the order of some
floating-point sums differs.

Reference: Błasiok & Nakkiran (2023), "Smooth ECE: Principled Reliability Diagrams via
Kernel Smoothing", arXiv:2309.12236.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import fft, sparse
from scipy.stats import norm

from locacal.metrics.smooth_ece import (
    _BISECTIONS,
    _MASS_FLOOR,
    _MIN_EVAL_POINTS,
    _MIN_SIGMA,
    _node_count,
    _node_positions,
    _NodeMasses,
    _smooth_masses,
)

__all__ = ["smece_batch"]


class _Nodes:
    """The grid of m nodes: the scores' positions on it, their mass, and the FFT length of
    the convolution of the mirrored node masses (3m - 2) with the kernel (m).

    The length is the mirrored masses' own, 3m - 2 (rounded up to a quick FFT length), not
    the full linear convolution's 4m - 3: a circular convolution of length L adds to output
    j the linear one's at j + L and j - L, which vanish for the outputs kept,
    m - 1 + m // 2 <= j < 2m - 1 + m // 2, when L >= 3m - 2 (the linear one ends at
    4m - 4)."""

    def __init__(self, scores: np.ndarray, m: int) -> None:
        self.m = m
        left, frac = _node_positions(scores, m)
        # the scores are sorted, so each node's rows are a run
        new = np.r_[True, left[1:] != left[:-1]]
        runs = np.flatnonzero(new)
        self.nodes = left[runs]
        # per run: the labels' shares to the left node, and their total (2 rows per run)
        run = np.cumsum(new) - 1
        n, r = scores.size, runs.size
        self.shares = sparse.csr_matrix(
            (np.concatenate([1.0 - frac, np.ones(n)]),
             (np.concatenate([run, run + r]), np.tile(np.arange(n), 2))), shape=(2 * r, n))
        # the scores' own shares (s to the left node, s frac to the right one) and mass
        self.score_left = np.add.reduceat(scores * (1.0 - frac), runs)
        self.score_right = np.add.reduceat(scores * frac, runs)
        unit = _NodeMasses(m)
        unit.add(left, frac, None)  # unit values: frac is not overwritten
        self.score_mass = unit.masses()
        self.size = fft.next_fast_len(3 * m - 2, real=True)

    def residual_spectra(self, labels_t: np.ndarray) -> np.ndarray:
        """rfft of the mirrored node masses of the residuals s - y of each label vector
        (the columns of ``labels_t``, (n, B) C-contiguous): the scores' shares less the
        labels' (one sparse product gives the labels' left shares and run totals)."""
        r = self.nodes.size
        shares = self.shares @ labels_t
        to_left, totals = shares[:r].T, shares[r:].T
        mass = np.zeros((labels_t.shape[1], self.m))
        mass[:, self.nodes] = self.score_left - to_left
        mass[:, self.nodes + 1] += self.score_right - (totals - to_left)
        mirrored = np.pad(mass, ((0, 0), (self.m - 1, self.m - 1)), mode="reflect")
        return fft.rfft(mirrored, self.size, axis=1)


def smece_batch(scores: np.ndarray, weights: np.ndarray | None
                ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`locacal.metrics.smece` of each row of a ``(B, n)`` label matrix, the scores
    sorted ascending (unweighted only, as the metric)."""
    if weights is not None:
        raise ValueError("the smece metric does not take weights")
    nodes: dict[int, _Nodes] = {}
    at_sigma: dict[float, tuple[np.ndarray, np.ndarray, float]] = {}

    def grid(m: int) -> _Nodes:
        if m not in nodes:
            nodes[m] = _Nodes(scores, m)
        return nodes[m]

    def bandwidth(sigma: float) -> tuple[np.ndarray, np.ndarray, float]:
        """What sigma alone fixes: the kernel's spectrum, the evaluation points and the sum
        of the smoothed score density (plus the floor) at them."""
        if sigma not in at_sigma:
            g = grid(_node_count(sigma))
            points = np.linspace(0.0, 1.0, max(round(10.0 / sigma), _MIN_EVAL_POINTS))
            density = _smooth_masses(g.score_mass, sigma, points) + _MASS_FLOOR
            kernel = norm.pdf(np.arange(g.m) / (g.m - 1) - 0.5, scale=sigma)
            at_sigma[sigma] = (fft.rfft(kernel, g.size), points, float(np.sum(density)))
        return at_sigma[sigma]

    def statistic(labels: np.ndarray) -> np.ndarray:
        spectra: dict[int, np.ndarray] = {}  # per node count, every row's (one product)
        labels_t = np.ascontiguousarray(labels.T)

        def values(rows: np.ndarray, sigma: float) -> np.ndarray:
            """smECE_sigma of the label rows ``rows``."""
            m = _node_count(sigma)
            g = grid(m)
            if m not in spectra:
                spectra[m] = g.residual_spectra(labels_t)
            kernel, points, density = bandwidth(sigma)
            smoothed = fft.irfft(spectra[m][rows] * kernel, g.size, axis=1)
            start = m - 1 + m // 2
            at = _interpolate(points, m, smoothed[:, start:start + m])
            return np.abs(at).sum(axis=1) / density

        def too_small(rows: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """(sigma < smECE(sigma), smECE(sigma)) of the rows at their own sigma."""
            value = np.full(rows.size, np.nan)
            for s in np.unique(sigma):
                at = sigma == s
                if s >= _MIN_SIGMA:
                    value[at] = values(rows[at], float(s))
            return (sigma < _MIN_SIGMA) | (sigma < value), value

        every = np.arange(labels.shape[0])
        upper = np.ones(every.size)
        small, result = too_small(every, upper)
        search = every[~small]
        lower = np.zeros(every.size)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lower[search] + upper[search])
            small, value = too_small(search, mid)
            lower[search[small]] = mid[small]
            upper[search[~small]] = mid[~small]
            result[search[~small]] = value[~small]
        # relplot ends with smECE(upper); upper < 0.001 cannot be returned (too small)
        return result

    return statistic


def _interpolate(points: np.ndarray, m: int, values: np.ndarray) -> np.ndarray:
    """``np.interp(points, linspace(0, 1, m), row)`` for each row of ``values``."""
    xp = np.linspace(0.0, 1.0, m)
    j = np.clip(np.searchsorted(xp, points, side="right") - 1, 0, m - 2)
    slope = (values[:, j + 1] - values[:, j]) / (xp[j + 1] - xp[j])
    out = slope * (points - xp[j]) + values[:, j]
    return np.where(points >= xp[-1], values[:, [-1]], out)
