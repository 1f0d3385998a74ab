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

__all__ = ["smece"]

_MASS_FLOOR = 1e-4     # added to the smoothed mass (relplot's eps)
_MIN_EVAL_POINTS = 200  # relplot's config.smECE_mesh_pts
_MIN_SIGMA = 1e-3      # below this a bandwidth always counts as too small
_BISECTIONS = 10


def _smooth_on_grid(scores: np.ndarray, values: np.ndarray, sigma: float,
                    points: np.ndarray) -> np.ndarray:
    """sum_i values_i K_sigma(points - s_i) with the reflected, discretised Gaussian kernel."""
    m = max(2000, round(20.0 / sigma)) // 2 + 1
    pos = scores * (m - 1)
    left = np.clip(np.floor(pos).astype(np.int64), 0, m - 2)
    frac = pos - left
    mass = (np.bincount(left, weights=(1.0 - frac) * values, minlength=m)
            + np.bincount(left + 1, weights=frac * values, minlength=m))
    mirrored = np.pad(mass, m - 1, mode="reflect")
    offsets = np.arange(m) / (m - 1) - 0.5
    kernel = norm.pdf(offsets, scale=sigma)
    # output node j gathers kernel index m // 2 + j - q for the (mirrored) node q
    smoothed = fftconvolve(mirrored, kernel, mode="valid")[m // 2: m // 2 + m]
    return np.interp(points, np.linspace(0.0, 1.0, m), smoothed)


def _smece_residuals(scores: np.ndarray, residuals: np.ndarray, sigma: float) -> float:
    points = np.linspace(0.0, 1.0, max(round(10.0 / sigma), _MIN_EVAL_POINTS))
    smoothed = _smooth_on_grid(scores, residuals, sigma, points)
    density = _smooth_on_grid(scores, np.ones_like(scores), sigma, points) + _MASS_FLOOR
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
    r = s - y

    def too_small(sigma: float) -> bool:
        return sigma < _MIN_SIGMA or sigma < _smece_residuals(s, r, sigma)

    upper = 1.0
    if not too_small(upper):
        lower = 0.0
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lower + upper)
            if too_small(mid):
                lower = mid
            else:
                upper = mid
    return _smece_residuals(s, r, upper)
