r"""Pointwise band of the local logistic likelihood (``family="binomial"``): Wald on the logit.

At a point t with local logit :math:`\hat\theta(t)` and its sandwich standard error
:math:`\widehat{\mathrm{se}}(t)` (:mod:`locacal.localfit._likelihood`),

.. math::

    \bigl[\operatorname{expit}(\hat\theta - z\,\widehat{\mathrm{se}}),\;
          \operatorname{expit}(\hat\theta + z\,\widehat{\mathrm{se}})\bigr],
    \qquad z = \Phi^{-1}\bigl((1 + \text{level}) / 2\bigr),

which stays inside (0, 1) and is asymmetric where g is near 0, the tail that matters at low
prevalence (Loader 1999, section 4.3; the band of R's ``plot(locfit(..., family =
"binomial"), band = "local")`` up to its variance estimate). Where the window's events
(nearly) separate, locfit's iteration stops at a boundary (no event, events only, a nearly
perfect fit, :math:`|\hat\theta| > 700`) and there is no usable Wald interval (the logit is
infinite or its standard error explodes); the band is then Clopper-Pearson's for
:math:`m \hat g` events out of the window's effective size
:math:`m = (\sum K w)^2 / \sum (K w)^2` (Beta quantiles, fractional counts allowed): with
no event, :math:`[0, 1 - (\alpha/2)^{1/m}]`.

It is a band for the smoothed map (the local likelihood's limit at fixed span), like the
least-squares band; its coverage of the true map at 2 % prevalence is measured in
``benchmarks/coverage_binomial.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import beta, norm

__all__ = ["logit_band"]


def logit_band(logit: np.ndarray, se: np.ndarray, var_factor: np.ndarray,
               level: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper pointwise limits (module docstring); NaN where the window has no
    weight or the standard error is undefined."""
    z = norm.ppf(0.5 + level / 2.0)
    with np.errstate(invalid="ignore"):
        lower = expit(logit - z * se)
        upper = expit(logit + z * se)
    alpha = 1.0 - level
    fallback = ~np.isfinite(se) & np.isfinite(var_factor) & (var_factor > 0)
    if fallback.any():
        m = 1.0 / var_factor[fallback]
        g = np.clip(expit(logit[fallback]), 0.0, 1.0)
        x = g * m
        with np.errstate(invalid="ignore", divide="ignore"):
            low = np.where(x > 0, beta.ppf(alpha / 2, x, m - x + 1), 0.0)
            high = np.where(x < m, beta.ppf(1 - alpha / 2, x + 1, m - x), 1.0)
        lower[fallback], upper[fallback] = low, high
    return lower, upper
