r"""Upper confidence bounds of calibration errors and the equivalence test built on them.

A calibration error of the kind used here is a norm of an estimated calibration gap,
``M = ||G(y)||^r`` (r = 1 for the ECE, ICI, smooth ECE and sup; r = 2 for the LCS, WMSE and
CORP's MCB, squared norms), where given the scores the gap is affine in the labels,
``G(y) = A y - b``: bin means minus mean scores (ECE), window means minus the grid (LCS),
R's lowess with ``iter = 0`` minus the score (ICI; a linear smoother), local mean residuals
(sup). Writing ``Γ = A g - b`` for its conditional mean (g(s) = P(D = 1 | s)) and
``ε = A (y - g)`` for its noise, the triangle (Minkowski) inequality gives

.. math::

    \bigl|\, \|G(y)\| - \|\Gamma\| \,\bigr| \le \|\varepsilon\|,

so with q_β the β-quantile of ||ε||, ``[max(0, ||G|| - q_β), ||G|| + q_β]`` holds
``||Γ||`` with probability at least β, and ``||G|| + q_β`` is a one-sided upper bound at
level β. Near calibration the noise is that of labels drawn as D*_i ~ Bernoulli(s_i)
(consistency resampling, Bröcker & Smith 2007), and ``||G(D*)||`` is ``||ε*||`` exactly for
the ECE, the ICI (lowess reproduces the identity) and the sup (a mean residual), up to the
small smoothing bias ``||A s - b||`` for the LCS and WMSE, so q_β is read off the
resampled null values of the metric itself. This is the inversion of the calibration test
(Bröcker & Smith 2007; :func:`locacal.calibration_test`): at a calibrated model the lower
bound is 0 exactly when that test does not reject at level 1 - β.

Approximations, checked by the coverage and size studies (benchmarks/coverage_calibration
_bounds.py, benchmarks/size_equivalence.py): the noise of miscalibrated labels has variance
g (1 - g), not s (1 - s); the isotonic fit of the MCB and the data-chosen bandwidth of the
smooth ECE make their gaps only approximately affine; the population value is the limit of
``||Γ||`` as n grows, which differs from the finite-sample ``||Γ||`` by the sampling of the
scores. Far from calibration the bound is conservative: ``||G|| - ||Γ||`` is then about the
projection of ε on Γ's direction, much smaller than ||ε||.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    CalibrationWarning,
    check_choice,
    check_level,
    check_positive,
    check_resamples,
    check_scores_labels,
    check_seed,
    positive_weight_rows,
    public_api,
)
from locacal.metrics._null_statistics import (
    BatchBuilder,
    binned_batch,
    lcs_batch,
    local_gap_batch,
    rowwise,
)
from locacal.metrics.clinical import calibration_errors

__all__ = ["MEASURES", "NORM_POWER", "EquivalenceTestResult", "calibration_equivalence_test",
           "equivalence_pvalue", "noise_quantile", "norm_interval"]

#: r of M = ||G||^r for the calibration errors bounded by the noise norm: 1 for a norm
#: (mean absolute gap, sup), 2 for a squared norm (density-weighted or Brier-type squares).
NORM_POWER = {"ece": 1.0, "ici": 1.0, "sup": 1.0, "smece": 1.0, "calib_err": 1.0,
              "lcs": 2.0, "wmse": 2.0, "mcb": 2.0, "calib_mse": 2.0, "qmse": 2.0}

#: Measures of :func:`calibration_equivalence_test`.
MEASURES = ("ici", "ece", "lcs", "sup")


def _ici(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        return float(calibration_errors(scores, labels, weights=weights)["ici"])


_BATCHES: dict[str, BatchBuilder] = {
    "ici": rowwise(_ici),
    "ece": lambda s, w: binned_batch(s, w, squared=False),
    "lcs": lcs_batch,
    "sup": local_gap_batch,
}

_DESCRIPTION = {
    "ici": "ICI (mean |lowess curve - score|, R's lowess iter = 0)",
    "ece": "ECE (10 quantile bins)",
    "lcs": "LCS (nn 0.15, degree 0)",
    "sup": "sup |local mean residual| over the 5-95 % score range (nn 0.1)",
}


def _roots(null: np.ndarray, power: float) -> np.ndarray:
    values = np.asarray(null, dtype=np.float64)
    values = values[np.isfinite(values)]
    return np.sort(np.maximum(values, 0.0) ** (1.0 / power))


def noise_quantile(null: np.ndarray, power: float, level: float, *,
                   cap: bool = False) -> float:
    """The ``level`` quantile of the noise norm from B resampled null values T*_b.

    The k-th smallest of ``(T*_b)^(1/power)`` with ``k = ceil(level (B + 1))``, the order
    statistic of a Monte Carlo test (Davison & Hinkley 1997, §4.2.1), so that the bound and
    the p-value of :func:`equivalence_pvalue` agree exactly. When k > B: +inf, or, with
    ``cap``, the largest value (fewer resamples than the level can resolve). NaN without
    finite null values.
    """
    roots = _roots(null, power)
    b = roots.size
    if b == 0:
        return float("nan")
    k = math.ceil(level * (b + 1) - 1e-9)
    if k > b:
        return float(roots[-1]) if cap else float("inf")
    return float(roots[max(k, 1) - 1])


def norm_interval(value: float, null: np.ndarray, power: float, level: float
                  ) -> tuple[float, float]:
    """``[max(0, M^(1/r) - q)^r, (M^(1/r) + q)^r]`` with q the ``level`` noise quantile.

    Both ends hold on the one event ``||ε|| <= q`` (see the module docstring), so the
    interval has level ``level`` without splitting α between its ends. With fewer resamples
    than the level can resolve, q is the largest null value (:func:`noise_quantile`,
    ``cap=True``).
    """
    q = noise_quantile(null, power, level, cap=True)
    if not np.isfinite(value) or np.isnan(q):
        return float("nan"), float("nan")
    root = max(float(value), 0.0) ** (1.0 / power)
    return max(0.0, root - q) ** power, (root + q) ** power


def equivalence_pvalue(value: float, null: np.ndarray, power: float, margin: float) -> float:
    """Smallest α at which the upper bound ``(M^(1/r) + q_{1-α})^r`` lies below ``margin``.

    With c = margin^(1/r) - M^(1/r): ``p = (1 + #{b : (T*_b)^(1/r) >= c}) / (1 + B)`` for
    c > 0, and 1 when the estimate already reaches the margin.
    """
    roots = _roots(null, power)
    if roots.size == 0 or not np.isfinite(value):
        return float("nan")
    c = margin ** (1.0 / power) - max(float(value), 0.0) ** (1.0 / power)
    if c <= 0:
        return 1.0
    return float((1 + np.count_nonzero(roots >= c)) / (1 + roots.size))


@dataclass(frozen=True, eq=False)
class EquivalenceTestResult:
    """Result of :func:`calibration_equivalence_test`.

    ``estimate``: the measure on the data; ``upper``: its one-sided upper confidence bound at
    ``level``; ``pvalue``: of H0 "measure >= margin"; ``equivalent``: ``upper < margin``
    (equivalently ``pvalue <= 1 - level``); ``null``: the resampled values of the measure
    under calibration from which the bound is read.
    """

    measure: str
    estimate: float
    upper: float
    margin: float
    level: float
    pvalue: float
    equivalent: bool
    null: np.ndarray
    n: int

    def to_frame(self) -> pd.DataFrame:
        """One row (index: the measure): ``estimate, upper, margin, level, pvalue,
        equivalent, n, resamples``."""
        return pd.DataFrame({"estimate": [self.estimate], "upper": [self.upper],
                             "margin": [self.margin], "level": [self.level],
                             "pvalue": [self.pvalue], "equivalent": [self.equivalent],
                             "n": [self.n], "resamples": [int(self.null.size)]},
                            index=[self.measure])

    def _repr_html_(self) -> str:
        from locacal._repr import frame_html, result_html

        return result_html("Calibration equivalence test", frame_html(self.to_frame()))


@public_api
def calibration_equivalence_test(scores: Any, labels: Any, *, margin: float,
                                 measure: str = "ici", level: float = 0.95,
                                 n_resamples: int = 999, seed: Any = None,
                                 weights: Any = None) -> EquivalenceTestResult:
    r"""Test that a calibration error is below a margin: H0 measure >= margin.

    The measure M is ``||G||^r``, a norm of the estimated calibration gap G (module
    docstring). Its upper confidence bound at level 1 - α is

    .. math:: U(\alpha) = \bigl(M^{1/r} + q_{1-\alpha}\bigr)^r,

    q_{1-α} the (1 - α) quantile of the noise norm, read off B label vectors drawn as
    D*_i ~ Bernoulli(s_i) (consistency resampling, Bröcker & Smith 2007): the order
    statistic k = ceil((1 - α)(B + 1)) of ``(M(D*_b))^{1/r}``. H0 is rejected, and the scores
    declared calibrated within the margin, when U(1 - level) < margin (the confidence-bound
    form of an equivalence test, Wellek 2010, §3.1); the p-value is the smallest α with
    U(α) < margin:

    .. math:: p = \frac{1 + \#\{b : M(D^*_b)^{1/r} \ge margin^{1/r} - M^{1/r}\}}{1 + B}

    (1 when M >= margin). By the triangle inequality, ``|M^{1/r} - ||Γ|| | <= ||ε||``, so
    at ``||Γ|| = margin`` the test rejects only when ||ε|| exceeds its (1 - α) quantile: the
    size at the margin is at most α up to the approximations listed in the module docstring
    (benchmarks/size_equivalence.py measures it), and usually far below, as the test guards
    against the noise in every direction. It is therefore conservative: at n = 2000 a
    calibrated model's ICI bound is 0.03 to 0.04, so margins below that cannot be met.

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.
    margin : float
        The largest acceptable value of the measure (> 0), on its own scale (the LCS is a
        squared gap).
    measure : {"ici", "ece", "lcs", "sup"}, default "ici"
        ``"ici"``: Austin & Steyerberg's ICI, mean ``|lowess(s, d, iter = 0) - s|``
        (:func:`locacal.metrics.calibration_errors`); ``"ece"``: :func:`locacal.metrics.ece`
        (10 quantile bins); ``"lcs"``: :func:`locacal.metrics.lcs` (defaults);
        ``"sup"``: the largest absolute local mean residual ``|mean(y - s)|`` over windows of
        the 10 % nearest scores centred at 101 points spanning the 5 %-95 % score quantiles,
        an estimate of sup ``|g(x) - x|`` over that range, averaged over each window (its own
        resampling here; the simultaneous bands of ``calibration_curve(band="simultaneous")``
        are not used).
    level : float, default 0.95
        Confidence level of the upper bound; the test has level 1 - ``level``.
    n_resamples : int, default 999
        Number B of null label vectors. The smallest attainable p-value is 1 / (B + 1).
    seed : int, Generator, SeedSequence or None
        Seed of the resampling.
    weights : array-like, optional
        Case weights, used by the measure; each row's label is redrawn whatever its weight.

    Returns
    -------
    EquivalenceTestResult
        ``estimate``, ``upper``, ``pvalue``, ``equivalent``, plus ``measure``, ``margin``,
        ``level``, ``null`` and ``n``; ``to_frame()``.

    References
    ----------
    Bröcker & Smith (2007), Weather and Forecasting 22(3) (consistency resampling); Wellek
    (2010), *Testing Statistical Hypotheses of Equivalence and Noninferiority*, 2nd ed.,
    §3.1 (equivalence by confidence bounds); Austin & Steyerberg (2019), Stat. Med. 38(21)
    (ICI).

    Examples
    --------
    >>> from locacal import calibration_equivalence_test, simulate
    >>> d = simulate.logistic_dgp(5000, seed=1)  # calibrated scores
    >>> r = calibration_equivalence_test(d["score"], d["label"], margin=0.05, seed=0,
    ...                                  n_resamples=99)
    >>> bool(r.equivalent), bool(r.upper < 0.05), bool(r.pvalue <= 0.05)
    (True, True, True)
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    s, y, w = positive_weight_rows(s, y, w)
    check_choice(measure, MEASURES, "measure")
    margin = check_positive(margin, "margin")
    level = check_level(level)
    n_resamples = check_resamples(n_resamples, "n_resamples")
    rng = np.random.default_rng(check_seed(seed))
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order].astype(np.float64)
    w = None if w is None else w[order]
    batch = _BATCHES[measure](s, w)
    estimate = float(batch(y[None, :])[0])
    if not np.isfinite(estimate):
        raise ValueError(f"the {_DESCRIPTION[measure]} is undefined on these data")
    rows = max(1, (1 << 22) // s.size)
    null = np.empty(n_resamples)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        draws = (rng.random((stop - start, s.size)) < s).astype(np.float64)
        null[start:stop] = batch(draws)
    power = NORM_POWER[measure]
    q = noise_quantile(null, power, level)
    upper = (estimate ** (1.0 / power) + q) ** power
    pvalue = equivalence_pvalue(estimate, null, power, margin)
    return EquivalenceTestResult(measure=measure, estimate=estimate, upper=float(upper),
                                 margin=margin, level=level, pvalue=pvalue,
                                 equivalent=bool(upper < margin), null=null, n=int(s.size))
