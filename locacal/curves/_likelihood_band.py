r"""Pointwise band of the local logistic likelihood (``family="binomial"``): a score interval.

At a point t the local likelihood estimate :math:`\hat\theta` of the logit is asymptotically
linear, :math:`\hat\theta - \theta \approx e_0' J^{-1} \sum_i K_i w_i x_i (y_i - p_i)`, with
the sandwich variance :math:`e_0' J^{-1} M_2 J^{-1} e_0` (Loader 1999, section 4.3;
:mod:`locacal.localfit._likelihood`). Under the hypothesis :math:`g(t) = p_0` with the
window's probabilities locally constant, :math:`p_i \approx p_0`, the factors
:math:`p_0 (1 - p_0)` leave :math:`J` and :math:`M_2`, and

.. math::

    \operatorname{Var}(\hat\theta) \approx \frac{\sum_i l_i(t)^2}{p_0 (1 - p_0)},
    \qquad
    \operatorname{Var}(\hat g) \approx p_0 (1 - p_0) \sum_i l_i(t)^2,

with :math:`l_i(t)` the weights of the local least-squares smoother of the same degree,
kernel and span (:math:`\hat g_{LS}(t) = \sum_i l_i(t) y_i`). Inverting
:math:`|\hat g - p_0| \le z \sqrt{p_0 (1 - p_0) \sum_i l_i^2}` over :math:`p_0` is Wilson's
score interval for the proportion :math:`\hat g` at the effective size
:math:`n_e = 1 / \sum_i l_i(t)^2`: the band of :func:`locacal.curves.bands.proportion_band`
(Wilson by default; ``interval`` chooses Jeffreys, Clopper-Pearson or the normal one),
centred at the likelihood's estimate. It stays in [0, 1], is asymmetric near 0, and where a
window has no event (:math:`\hat g = 0`) it is :math:`[0, z^2 / (n_e + z^2)]`.

Why not the Wald interval :math:`\operatorname{expit}(\hat\theta \pm z\,\widehat{\mathrm{se}})`
with the plug-in sandwich (R's ``plot(locfit(...), band = "local")`` up to the variance):
at 2 % prevalence and n = 2000 it over-covered, 0.974 (MC s.e. at most 0.004) on average
between the 5 % and 95 % score quantiles for a nominal 0.95
(``benchmarks/coverage_binomial.py``, 2000 samples). Two mechanisms, measured on those
samples: where a window holds one to four expected events the local line nearly separates
them, the logit runs off towards minus infinity with a standard error in the tens (root mean
square 8-22 against a median of 0.6-1.5 on the logit scale), and the interval covers
(0, ~1); where it holds more, the standard error, evaluated at the estimate, is largest
exactly where the estimate is too low (correlation of the logit's error with its standard
error -0.88 to -0.96 at the 65 %, 80 % and 95 % score quantiles, 400 samples): the
intervals of the estimates below the truth covered 0.99-1.00, those above 0.95-0.96, so the
coverage stays at 0.97 although the root mean square of the standard error matches the
spread of the estimates. The score interval evaluates the variance at the hypothesised
:math:`p_0` instead; its measured coverage is in
:class:`~locacal.curves.local.LocalRegressionCalibrator`'s notes.

References: C. Loader (1999), *Local Regression and Likelihood*, Springer, section 4.3;
E. B. Wilson (1927), Probable inference, the law of succession, and statistical inference,
JASA 22, 209-212.
"""

from __future__ import annotations

import numpy as np

from locacal.curves.bands import proportion_band

__all__ = ["likelihood_band"]


def likelihood_band(estimate: np.ndarray, least_squares_var_factor: np.ndarray,
                    level: float, interval: str = "wilson") -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper pointwise limits (module docstring): ``interval``'s binomial interval
    for ``estimate`` at the effective size ``1 / least_squares_var_factor``; NaN where the
    estimate is NaN or the window has no weight."""
    return proportion_band(estimate, least_squares_var_factor, level, interval)
