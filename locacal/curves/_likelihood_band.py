r"""Pointwise band of the local logistic likelihood (``family="binomial"``): Wald on the logit.

At a point t with local logit :math:`\hat\theta(t)` and its sandwich standard error
:math:`\widehat{\mathrm{se}}(t)` (:mod:`locacal.localfit._likelihood`),

.. math::

    \bigl[\operatorname{expit}(\hat\theta - z\,\widehat{\mathrm{se}}),\;
          \operatorname{expit}(\hat\theta + z\,\widehat{\mathrm{se}})\bigr],
    \qquad z = \Phi^{-1}\bigl((1 + \text{level}) / 2\bigr),

which stays inside (0, 1) and is asymmetric where g is near 0, the tail that matters at low
prevalence (Loader 1999, section 4.3; the band of R's ``plot(locfit(..., family =
"binomial"), band = "local")`` up to its variance estimate). In a window without events the
logit is :math:`-\infty` and there is no Wald interval; the band is then Clopper-Pearson's for
0 events in the window's effective size :math:`m = (\sum K w)^2 / \sum (K w)^2`:
:math:`[0, 1 - (\alpha/2)^{1/m}]` (and :math:`[(\alpha/2)^{1/m}, 1]` for events only).

It is a band for the smoothed map (the local likelihood's limit at fixed span), like the
least-squares band; its coverage of the true map at 2 % prevalence is measured in
``benchmarks/coverage_binomial.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import norm

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
    with np.errstate(divide="ignore", invalid="ignore"):
        edge = (alpha / 2.0) ** var_factor  # (alpha/2)^(1/m)
    none = logit == -np.inf
    every = logit == np.inf
    lower[none], upper[none] = 0.0, 1.0 - edge[none]
    lower[every], upper[every] = edge[every], 1.0
    return lower, upper
