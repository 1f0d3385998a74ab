"""Smooth ECE (Błasiok & Nakkiran 2023) with its automatic bandwidth, as relplot computes it.

The smooth ECE at bandwidth sigma smooths the residuals r_i = s_i - y_i and the scores' mass
with a Gaussian kernel reflected at 0 and 1 and integrates the absolute smoothed residual.
The bandwidth is the fixed point sigma* = smECE(sigma*), found by bisection.

relplot (the authors' package) discretises every step, and its value depends on those
choices at the 1e-3 level, so they are reproduced here (written independently from its
description):

* the kernel is applied on a grid of ``M = max(2000, round(20 / sigma)) // 2 + 1`` equally
  spaced nodes of [0, 1]: each observation's value is split between its two neighbouring
  nodes by linear interpolation, the node masses are mirrored at both ends and convolved with
  the Gaussian density of scale sigma tabulated at the node spacing and truncated at +-1/2;
* the smoothed functions are interpolated linearly at ``max(round(10 / sigma), 200)``
  evaluation points of [0, 1], and 1e-4 is added to the smoothed mass before dividing;
* the bandwidth search keeps sigma = 1 if it is already too small (sigma < smECE(sigma),
  which cannot happen since smECE <= 1), else makes ten bisection steps on [0, 1] (any
  sigma < 0.001 counts as too small) and returns the upper end.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.signal import fftconvolve
from scipy.stats import norm

from locacal._validation import check_scores_labels, public_api
from locacal.data.blockwise import blocks

__all__ = ["smece"]

_MASS_FLOOR = 1e-4     # added to the smoothed mass (relplot's eps)
_MIN_EVAL_POINTS = 200  # relplot's config.smECE_mesh_pts
_MIN_SIGMA = 1e-3      # below this a bandwidth always counts as too small
_BISECTIONS = 10


def _node_count(sigma: float) -> int:
    """relplot's number of grid nodes M for bandwidth sigma (1001 for every sigma >= 0.01)."""
    return max(2000, round(20.0 / sigma)) // 2 + 1


def _node_positions(scores: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each score's left node (floor(s (m - 1)), at most m - 2) and its offset from it."""
    frac = scores * (m - 1)
    left = frac.astype(np.intp)  # floor: the scores are >= 0
    np.minimum(left, m - 2, out=left)
    frac -= left
    return left, frac


class _NodeMasses:
    """Node masses on the ``m`` equally spaced nodes of [0, 1], accumulated over blocks of
    rows: 1 - frac of each row's value to its left node, frac to the next (the right shares
    are counted per left node, then shifted by one node). ``np.add.at`` adds the rows in
    their order, as ``np.bincount`` does, so the masses are the same bits whatever the
    blocks."""

    def __init__(self, m: int) -> None:
        self.to_left, self.to_right = np.zeros(m), np.zeros(m)

    def add(self, left: np.ndarray, frac: np.ndarray, values: np.ndarray | None) -> None:
        """Add rows of ``values`` (None: ones), each split linearly between its two
        neighbouring nodes: ``left`` and offset ``frac`` (:func:`_node_positions`;
        ``frac`` is overwritten)."""
        to_left = 1.0 - frac
        if values is not None:
            to_left *= values
            frac *= values
        np.add.at(self.to_left, left, to_left)
        np.add.at(self.to_right, left, frac)

    def masses(self) -> np.ndarray:
        return self.to_left + np.concatenate([[0.0], self.to_right[:-1]])


def _smooth_masses(mass: np.ndarray, sigma: float, points: np.ndarray) -> np.ndarray:
    """sum_i values_i K_sigma(points - s_i) with the reflected, discretised Gaussian kernel,
    from the node masses of :class:`_NodeMasses`."""
    m = mass.size
    mirrored = np.pad(mass, m - 1, mode="reflect")
    offsets = np.arange(m) / (m - 1) - 0.5
    kernel = norm.pdf(offsets, scale=sigma)
    # output node j gathers kernel index m // 2 + j - q for the (mirrored) node q
    smoothed = fftconvolve(mirrored, kernel, mode="valid")[m // 2: m // 2 + m]
    return np.interp(points, np.linspace(0.0, 1.0, m), smoothed)


class _Residuals:
    """The residuals s - y and the scores' node masses, binned once per node count M (the
    bisection's bandwidths share M = 1001 down to sigma = 0.01), so that each bandwidth
    costs a convolution on M nodes instead of passes over the data."""

    def __init__(self, scores: np.ndarray, labels: np.ndarray) -> None:
        self.scores, self.labels = scores, labels
        self._masses: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def masses(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Node masses of the residuals s - y and of the scores (unit values) on ``m``
        nodes, one pass over the rows in blocks (small temporaries)."""
        if m not in self._masses:
            residual, score = _NodeMasses(m), _NodeMasses(m)
            for rows in blocks(self.scores.size):
                s = self.scores[rows]
                left, frac = _node_positions(s, m)
                score.add(left, frac, None)  # before frac is overwritten
                residual.add(left, frac, s - self.labels[rows])
            self._masses[m] = (residual.masses(), score.masses())
        return self._masses[m]

    def smece(self, sigma: float) -> float:
        """The smooth ECE at bandwidth sigma."""
        points = np.linspace(0.0, 1.0, max(round(10.0 / sigma), _MIN_EVAL_POINTS))
        residual_mass, score_mass = self.masses(_node_count(sigma))
        smoothed = _smooth_masses(residual_mass, sigma, points)
        density = _smooth_masses(score_mass, sigma, points) + _MASS_FLOOR
        # sum |smoothed / density| * density / sum density
        return float(np.sum(np.abs(smoothed)) / np.sum(density))


@public_api
def smece(scores: Any, labels: Any) -> float:
    """Smooth ECE with its automatic bandwidth (Błasiok & Nakkiran 2023), as ``relplot.smECE``.

    .. math::

        \\mathrm{smECE}_\\sigma = \\int_0^1 \\left|\\hat r_\\sigma(t)\\right| \\hat
        \\delta_\\sigma(t)\\, dt, \\qquad \\hat r_\\sigma(t) = \\frac{\\sum_i K_\\sigma(t, s_i)
        (s_i - y_i)}{\\sum_i K_\\sigma(t, s_i)},

    with :math:`K_\\sigma` the Gaussian kernel of scale sigma reflected at 0 and 1 and
    :math:`\\hat\\delta_\\sigma` the kernel density of the scores; the reported value is at
    the bandwidth :math:`\\sigma^*` solving :math:`\\sigma^* = \\mathrm{smECE}_{\\sigma^*}`
    (it exists and is unique), found as relplot finds it (see the module
    documentation for its discretisation). Matches ``relplot.smECE`` (version 1.0.3) to
    1e-10 in the tests.

    Unweighted only: relplot's definition adds an absolute floor (1e-4) to the smoothed
    count of scores, so no weighted version could both be unchanged by rescaling the weights
    and equal to duplicated rows. Scores at or near 0 and 1 are safe (no division by them).

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.

    References
    ----------
    Błasiok & Nakkiran (2023), "Smooth ECE: Principled Reliability Diagrams via Kernel
    Smoothing", arXiv:2309.12236 (smooth ECE and its fixed-point bandwidth) and the
    ``relplot`` package.
    """
    s, y, _ = check_scores_labels(scores, labels)
    return smece_of_sample(s, y)


def smece_of_sample(s: np.ndarray, y: np.ndarray) -> float:
    """:func:`smece` of validated scores and 0/1 labels (the metric registry's sample)."""
    binned = _Residuals(s, y)

    def too_small(sigma: float) -> bool:
        return sigma < _MIN_SIGMA or sigma < binned.smece(sigma)

    upper = 1.0
    if not too_small(upper):
        lower = 0.0
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lower + upper)
            if too_small(mid):
                lower = mid
            else:
                upper = mid
    return binned.smece(upper)
