r"""The calibration diagnostics of clinical prediction modelling, equal to R's.

* :func:`calibration_intercept_slope`: calibration-in-the-large and the calibration slope by
  logistic regression on logit(score) (Cox 1958; Steyerberg 2019, ch. 15), Wald intervals as
  R's ``glm`` + ``confint.default``;
* :func:`calibration_errors`: ICI, E50, E90 and Emax of a smoothed calibration curve (Austin &
  Steyerberg 2019), with ``rms::val.prob``'s lowess or Austin & Steyerberg's loess;
* :func:`hosmer_lemeshow`: the Hosmer-Lemeshow test with ``ResourceSelection::hoslem.test``'s
  grouping;
* :func:`spiegelhalter_z`: Spiegelhalter's z test, ``rms::val.prob``'s ``S:z`` and ``S:p``.

**Weights.** Point estimates depend on the weights only through w / sum(w). Where a variance
or a chi-square count is needed, the weights are rescaled to sum to Kish's effective sample
size n_eff = (sum w)^2 / sum w^2 (``w * sum(w) / sum(w^2)``) and then act as frequency weights;
unit weights leave every number equal to R's unweighted one, and multiplying the weights by a
constant changes nothing. Each function states what it does with them.

References
----------
Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index (ICI) and related
metrics for quantifying the calibration of logistic regression models. *Statistics in
Medicine* 38(21), 4051-4065.
Cox, D. R. (1958). Two further applications of a model for binary regression. *Biometrika*
45, 562-565.
Harrell, F. E. (2023). rms: Regression Modeling Strategies, ``val.prob``.
Hosmer, D. W. & Lemeshow, S. (1980). Goodness of fit tests for the multiple logistic
regression model. *Communications in Statistics A* 9(10), 1035-1053.
Spiegelhalter, D. J. (1986). Probabilistic prediction in patient management and clinical
trials. *Statistics in Medicine* 5(5), 421-433.
Steyerberg, E. W. (2019). *Clinical Prediction Models*, 2nd ed., Springer, ch. 15.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from locacal._validation import (
    check_bins,
    check_choice,
    check_level,
    check_scores_labels,
    positive_weight_rows,
    public_api,
    warn,
)
from locacal.curves._logistic import fisher_information, fit_logistic
from locacal.data.blockwise import pairwise_sums
from locacal.data.cells import ScoreStatistics
from locacal.data.frequency import Weighting, weighting
from locacal.metrics._r_lowess import r_lowess_fit

__all__ = [
    "HosmerLemeshowResult",
    "SpiegelhalterResult",
    "calibration_errors",
    "calibration_intercept_slope",
    "hosmer_lemeshow",
    "spiegelhalter_z",
]

#: Rows of :func:`calibration_intercept_slope` and the null value each p-value tests.
INTERCEPT_SLOPE_NULLS = {"intercept": 0.0, "slope": 1.0, "joint_intercept": 0.0}
_COLUMNS = ["estimate", "lower", "upper", "pvalue"]


def _weighted_rows(scores: Any, labels: Any, weights: Any, frequency_weights: Any
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Weighting]:
    """Validated rows of positive weight, their point weights (``w f``, None for unit) and
    the :class:`~locacal.data.frequency.Weighting` of those rows (frequency weights:
    counts of identical observations)."""
    s, y, w = check_scores_labels(scores, labels, weights)
    if frequency_weights is None:
        s, y, w = positive_weight_rows(s, y, w)
        return s, y, w, Weighting(w, None, s.size)
    both = weighting(w, frequency_weights, s.size,
                     aligned={"scores": scores, "labels": labels})
    s, y, point, counts = positive_weight_rows(s, y, both.point, both.counts)
    return s, y, point, Weighting(point / counts, counts, s.size)


def _kish_weights(w: np.ndarray | None, n: int) -> np.ndarray:
    """Weights rescaled to sum to Kish's effective sample size (unit weights unchanged)."""
    if w is None:
        return np.ones(n)
    return w * (w.sum() / np.dot(w, w))


def _r_quantile(values: np.ndarray, weights: np.ndarray | None,
                probs: np.ndarray | float) -> np.ndarray:
    """R's ``quantile(values, probs)`` (type 7, with R's arithmetic), frequency weights.

    Position ``1 + (N - 1) p`` (N = sum of weights) of the sample in which each value is
    repeated ``w`` times; R combines the two order statistics as ``(1 - h) a + h b``.
    """
    order = np.argsort(values, kind="stable")
    x = values[order]
    cum = np.arange(1.0, x.size + 1.0) if weights is None else np.cumsum(weights[order])
    index = 1.0 + max(cum[-1] - 1.0, 0.0) * np.asarray(probs, dtype=np.float64)
    lo = np.floor(index)
    hi = np.ceil(index)

    def order_stat(k: np.ndarray) -> np.ndarray:  # value at 1-based position k
        return x[np.minimum(np.searchsorted(cum, k - 1e-9, side="left"), x.size - 1)]

    a, b = order_stat(lo), order_stat(hi)
    h = index - lo
    return np.where((index > lo) & (b != a), (1.0 - h) * a + h * b, a)


def _wald_row(estimate: float, se: float, null: float, z: float) -> list[float]:
    return [estimate, estimate - z * se, estimate + z * se,
            float(2.0 * stats.norm.sf(abs(estimate - null) / se))]


def _logistic_fit(y: np.ndarray, features: np.ndarray, offset: np.ndarray | None,
                  w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients (intercept first, then one per column of ``features``) and standard
    errors of the binomial GLM logit P(D = 1) = offset + a + features @ b, weights ``w``
    (Kish-rescaled) as frequency weights: the maximum by locacal's Newton solver, the
    standard errors from the Fisher information at it."""
    beta = fit_logistic(features, y, w, offset=offset, on_separation="nan")
    if np.isfinite(beta).all():
        design = np.column_stack([np.ones(y.size), features])
        eta = design @ beta if offset is None else design @ beta + offset
        info = fisher_information(design, special.expit(eta), w)
        try:
            variance = np.diag(np.linalg.inv(info))
        except np.linalg.LinAlgError:
            variance = np.full(beta.size, np.nan)
        if (variance > 0).all():
            return beta, np.sqrt(variance)
    # the scores separate the classes, or the information is numerically singular: the
    # likelihood has no maximum (R's glm warns "fitted probabilities numerically 0 or 1" and
    # reports huge estimates)
    warn("the scores separate the two classes: the logistic calibration has no finite "
         "estimate (NaN)")
    nan = np.full(beta.size, np.nan)
    return nan, nan


@public_api
def calibration_intercept_slope(scores: Any, labels: Any, *, weights: Any = None,
                                frequency_weights: Any = None,
                                level: float = 0.95) -> pd.DataFrame:
    r"""Calibration-in-the-large and calibration slope, with Wald intervals and p-values.

    With :math:`\eta_i = \operatorname{logit}(s_i)`, two logistic models are fitted
    (Cox 1958; Steyerberg 2019, §15.2):

    * ``intercept`` (calibration-in-the-large): :math:`\operatorname{logit} P(D=1) = a +
      \eta` (η as offset); H0: a = 0;
    * ``slope``: :math:`\operatorname{logit} P(D=1) = a' + b\,\eta`; H0: b = 1;
    * ``joint_intercept``: the a' of that second model; H0: a' = 0. This is what
      ``rms::val.prob`` reports as "Intercept" -- not calibration-in-the-large, which is
      the first row.

    Intervals are Wald intervals, estimate ± z_{(1+level)/2} SE, with SE from the Fisher
    information at the estimate; p-values are two-sided Wald tests of the null value (stored
    in ``result.attrs["null"]``). They equal R's ``glm(..., family = binomial)`` with
    ``confint.default`` when R's fit is converged tightly (``glm.control(epsilon = 1e-14)``):
    estimates to about 1e-14, bounds and p-values to about 4e-8 (measured in the tests; R's
    ``vcov`` uses the weights of its last iteration, one step behind the estimate; R's
    default tolerance moves the bounds by about 1e-5).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities in [0, 1]. Scores of exactly 0 or 1 have an infinite logit and
        are left out with a :class:`~locacal.CalibrationWarning`, as ``rms::val.prob`` does.
    labels : array-like of shape (n,)
        Observed events, 0/1 or bool.
    weights : array-like of shape (n,), optional
        Case weights, rescaled to sum to Kish's effective sample size and passed to the GLM
        as frequency weights: the estimates are the weighted maximum-likelihood ones, the
        standard errors those of a sample of n_eff observations.
    frequency_weights : array-like of shape (n,), optional
        Counts: a row stands for that many identical observations. The result equals
        the call on the expanded rows (which are not built): the counts enter the
        information, chi-square counts and variance as observations
        (:mod:`locacal.data.frequency`).
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        Index ``["intercept", "slope", "joint_intercept"]``, columns ``estimate, lower,
        upper, pvalue``. When the labels of the fitted rows hold one class, or (slope rows
        only) all their scores are equal or separate the two classes, the model has no
        finite estimate: those rows are NaN and a CalibrationWarning says why.
    """
    s, y, w, both = _weighted_rows(scores, labels, weights, frequency_weights)
    level = check_level(level)
    inside = (s > 0.0) & (s < 1.0)
    if not inside.all():
        warn(f"{int((~inside).sum())} scores equal to 0 or 1 left out of the logistic "
             "calibration (their logit is infinite)")
        if not inside.any():
            raise ValueError("scores: every score is 0 or 1, so the logistic calibration "
                             "has no data")
        s, y = s[inside], y[inside]
        w = None if w is None else w[inside]
        both = Weighting(None if both.relative is None else both.relative[inside],
                         None if both.counts is None else both.counts[inside], s.size)
    wk = _kish_weights(w, s.size) if both.counts is None else both.kish_weights()
    eta = special.logit(s)
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    table = pd.DataFrame(np.nan, index=list(INTERCEPT_SLOPE_NULLS), columns=_COLUMNS)
    table.attrs["null"] = dict(INTERCEPT_SLOPE_NULLS)
    table.attrs["level"] = level
    present = y[wk > 0]
    if present.min() == present.max():
        warn("labels hold one class: the logistic calibration has no finite estimate (NaN)")
        return table
    beta, se = _logistic_fit(y, np.empty((s.size, 0)), eta, wk)
    table.loc["intercept"] = _wald_row(beta[0], se[0], 0.0, z)
    eta_used = eta[wk > 0]
    if eta_used.min() == eta_used.max():
        warn("all scores are equal: the calibration slope is undefined (NaN)")
        return table
    beta, se = _logistic_fit(y, eta[:, None], None, wk)
    table.loc["slope"] = _wald_row(beta[1], se[1], 1.0, z)
    table.loc["joint_intercept"] = _wald_row(beta[0], se[0], 0.0, z)
    return table


@public_api
def calibration_errors(scores: Any, labels: Any, *, weights: Any = None,
                       smoother: str = "lowess",
                       frequency_weights: Any = None) -> pd.Series:
    r"""ICI, E50, E90 and Emax: summaries of ``|g(s_i) - s_i|`` over the observations.

    g is a smoothed calibration curve; the Integrated Calibration Index is the mean absolute
    difference, E50 / E90 its median and 90th percentile, Emax its maximum (Austin &
    Steyerberg 2019, §2, eqs. 1-2; percentiles as R's ``quantile``, type 7):

    .. math::

        \mathrm{ICI} = \frac{\sum_i w_i |g(s_i) - s_i|}{\sum_i w_i}.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Predicted probabilities in [0, 1]; observed events (0/1 or bool).
    weights : array-like of shape (n,), optional
        Case weights. They weight the summaries (weighted mean; weighted type-7 percentiles
        with the weights rescaled to mean 1, so unit weights give R's numbers) and enter the
        smoother as prior weights (below).
    smoother : str, default "lowess"
        * ``"lowess"``: exactly what ``rms::val.prob`` computes for Eavg / E90 / Emax: R's
          ``lowess(s, d, iter = 0)`` (f = 2/3, ``delta = 0.01 * diff(range(s))``), a port of
          R's ``clowess`` (:mod:`locacal.metrics._r_lowess`; statsmodels' lowess differs by up
          to 2e-6), averaged over tied scores as ``approx(..., ties = mean)``. R's lowess
          takes no weights: weights multiply its tricube weights, where clowess puts its
          robustness weights (the window still counts rows).
        * ``"loess"``: Austin & Steyerberg's ``loess(d ~ s)`` (degree 2, span 0.75, tricube)
          evaluated exactly at each score, i.e. R's ``surface = "direct"``, by locacal's
          local engine (same neighbourhood: the floor(0.75 n) nearest scores, tricube on the
          distance of the farthest; ties at that distance have weight 0 either way). R's
          default ``surface = "interpolate"`` interpolates a k-d tree of such fits and differs
          from the direct fit by up to ~0.03 in g at n = 60 and ~0.003 at n = 2000 (ICI by up
          to 2e-3 and 1e-4); R's ``loess(weights = w)`` takes the weights as here.
        * any other method of :func:`locacal.calibration_curve` (``"local"``, ``"binning"``,
          ``"kernel"``, ``"locfit"``, ...): that curve with its defaults, evaluated at the
          scores. (``"lowess"`` always means R's lowess above, not calibration_curve's
          statsmodels lowess.)

        The lowess and loess fits are not clipped to [0, 1], as in R.
    frequency_weights : array-like of shape (n,), optional
        Counts of identical observations: the summaries of the expanded rows, with every
        smoother (R's ``"lowess"``: clowess run on the observations, its window of
        ``floor(2/3 N)`` of them; :mod:`locacal.metrics._r_lowess`).

    Returns
    -------
    pandas.Series
        Index ``["ici", "e50", "e90", "emax"]``, named after the smoother.
    """
    from locacal.curves import METHODS, calibration_curve

    # rows of weight zero are not in the sample: R's lowess would count them in its window
    s, y, w, both = _weighted_rows(scores, labels, weights, frequency_weights)
    counts = both.counts
    check_choice(smoother, ("lowess", "loess", *[m for m in METHODS if m != "lowess"]),
                 "smoother")
    if smoother == "lowess":  # with counts: clowess of the expanded rows, never built
        fitted = (r_lowess_fit(s, y, w) if counts is None
                  else r_lowess_fit(s, y, both.relative, counts=counts))
    elif smoother == "loess":
        from locacal.curves.local import local_estimate

        fitted = local_estimate(s, y, w, s, degree=2, nn=0.75, kernel="tricube",
                                counts=counts)
    else:
        fitted = calibration_curve(s, y, method=smoother, weights=None if w is None else (
            w if counts is None else both.relative), frequency_weights=counts)(s)
    err = np.abs(fitted - s)
    # weights with mean 1 over the observations (type-7 positions of the expanded rows)
    total = s.size if counts is None else float(counts.sum())
    wn = np.ones(s.size) if w is None else w * (total / w.sum())
    usable = np.isfinite(err)
    if not usable.all():
        if not usable.any():
            raise ValueError(f"smoother: the {smoother} fit is undefined at every score")
        warn(f"the {smoother} fit is undefined at {int((~usable).sum())} scores; the errors "
             "summarise the others")
        err, wn = err[usable], wn[usable]
    e50, e90 = _r_quantile(err, None if w is None else wn, np.array([0.5, 0.9]))
    return pd.Series({"ici": float(np.dot(wn, err) / wn.sum()), "e50": float(e50),
                      "e90": float(e90), "emax": float(err.max())}, name=smoother)


@dataclass(frozen=True)
class HosmerLemeshowResult:
    """Hosmer-Lemeshow test: chi-square ``statistic`` on ``df`` = G - 2 degrees of freedom,
    its ``pvalue`` (hoslem.test's), ``pvalue_external`` on G degrees of freedom (the right
    reference when the scores were not fitted on these data), and the per-group ``table``
    (bounds, weight, observed and expected events and non-events)."""

    statistic: float
    df: int
    pvalue: float
    table: pd.DataFrame
    pvalue_external: float

    def to_frame(self) -> pd.DataFrame:
        """One row: ``statistic, df, pvalue, pvalue_external, groups`` (non-empty groups)."""
        groups = int((self.table["n"] > 0).sum())
        return pd.DataFrame({"statistic": [self.statistic], "df": [self.df],
                             "pvalue": [self.pvalue], "pvalue_external": [self.pvalue_external],
                             "groups": [groups]}, index=["hosmer_lemeshow"])

    def plot(self, ax: Any = None) -> Any:
        """Observed against expected event rate of each group (O_g / n_g against
        E_g / n_g), on the diagonal; the point areas follow the group sizes. Returns the
        Axes."""
        from locacal.plotting import new_axes, palette

        ax = new_axes(ax)
        t = self.table[self.table["n"] > 0]
        expected, observed = t["expected_events"] / t["n"], t["observed_events"] / t["n"]
        ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1)
        ax.scatter(expected, observed, s=200 * t["n"] / t["n"].max(), color=palette(0),
                   alpha=0.7, label=f"C = {self.statistic:.3g}, p = {self.pvalue:.3g}")
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel="expected event rate E/n",
               ylabel="observed event rate O/n")
        ax.legend(frameon=False, loc="upper left")
        return ax

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax), alt="observed against expected")
        return result_html("Hosmer-Lemeshow test", frame_html(self.to_frame()),
                           frame_html(self.table), figure=figure)


@public_api
def hosmer_lemeshow(scores: Any, labels: Any, *, groups: int = 10,
                    weights: Any = None,
                    frequency_weights: Any = None) -> HosmerLemeshowResult:
    r"""Hosmer-Lemeshow goodness-of-fit test on groups of quantiles of the scores.

    .. math::

        C = \sum_{g=1}^{G} \left[\frac{(O_g - E_g)^2}{E_g} + \frac{(O_g - E_g)^2}
        {n_g - E_g}\right],\qquad O_g = \sum_{i \in g} d_i,\; E_g = \sum_{i \in g} s_i,

    compared with :math:`\chi^2_{G-2}` (Hosmer & Lemeshow 1980, eq. 7), with O and E the
    observed and expected events of group g and the same terms for non-events. The grouping is
    ``ResourceSelection::hoslem.test``'s (0.3-6): breaks ``unique(quantile(s, seq(0, 1,
    1/groups)))`` (type 7), intervals closed on the right with the lowest closed
    (``cut(include.lowest = TRUE)``), and G = number of non-empty groups, so ties that merge
    quantiles lower the degrees of freedom (with a CalibrationWarning, as hoslem.test warns).
    Copies of hoslem.test before 0.3-5 (and many transcriptions of it) use ``groups - 2``
    degrees of freedom whatever G is.

    **Which degrees of freedom.** G - 2 is the reference for a logistic model fitted on the
    same data (Hosmer & Lemeshow 1980). For scores that were *not* fitted on these data
    (external validation, a classifier checked on a test set), C is approximately
    :math:`\chi^2_G` (Hosmer, Lemeshow & Sturdivant 2013, *Applied Logistic Regression*, 3rd
    ed., §5.2.2), and the G - 2 p-value rejects too often: with 10 groups,
    P(χ²₁₀ > χ²₈,₀.₉₅) = 0.115 instead of 0.05 (the seeded simulation in the tests and
    ``benchmarks/bench_clinical_size.py`` measure it). ``pvalue_external`` gives the
    :math:`\chi^2_G` p-value for that use.

    Departures from R in degenerate data only: an empty interval (possible with heavy ties)
    is left out of the sum (R's sum is then NaN), and a term with E = O = 0 counts 0.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Predicted probabilities in [0, 1]; observed events (0/1 or bool).
    groups : int, default 10
        Requested number of groups, at least 3 and at most the number of observations with
        positive weight (or 10 on smaller samples; more groups would only be empty).
    weights : array-like of shape (n,), optional
        Case weights, rescaled to sum to Kish's effective sample size and used as frequency
        weights for the quantiles and the counts (unit weights give hoslem.test's numbers).
    frequency_weights : array-like of shape (n,), optional
        Counts: a row stands for that many identical observations. The result equals
        the call on the expanded rows (which are not built): the counts enter the
        information, chi-square counts and variance as observations
        (:mod:`locacal.data.frequency`).

    Returns
    -------
    HosmerLemeshowResult
        ``pvalue`` is NaN (with a CalibrationWarning) when fewer than 3 groups are non-empty;
        ``pvalue_external`` is always defined.
    """
    s, y, w, both = _weighted_rows(scores, labels, weights, frequency_weights)
    groups = check_bins(groups, int(both.observations), "groups", minimum=3)
    wk = _kish_weights(w, s.size) if both.counts is None else both.kish_weights()
    breaks, group = hosmer_lemeshow_groups(s, None if w is None else wk, groups)
    n_int = max(breaks.size - 1, 1)
    size = np.bincount(group, weights=wk, minlength=n_int)
    obs1 = np.bincount(group, weights=wk * y, minlength=n_int)
    exp1 = np.bincount(group, weights=wk * s, minlength=n_int)
    obs0, exp0 = size - obs1, size - exp1
    table = pd.DataFrame({
        "lower": breaks[:n_int], "upper": breaks[1:] if breaks.size > 1 else breaks,
        "n": size, "observed_events": obs1, "expected_events": exp1,
        "observed_nonevents": obs0, "expected_nonevents": exp0,
    }, index=pd.RangeIndex(1, n_int + 1, name="group"))
    statistic = float(_chi_terms(obs1, exp1).sum() + _chi_terms(obs0, exp0).sum())
    nonempty = int((size > 0).sum())
    df = nonempty - 2
    if nonempty < groups:
        warn(f"the scores allow only {nonempty} non-empty groups of the {groups} requested "
             f"(tied quantiles); df = {df}")
    if df < 1:
        warn("fewer than 3 non-empty groups: the Hosmer-Lemeshow test has no degrees of "
             "freedom (pvalue NaN)")
        pvalue = float("nan")
    else:
        pvalue = float(stats.chi2.sf(statistic, df))
    return HosmerLemeshowResult(statistic, df, pvalue, table,
                                float(stats.chi2.sf(statistic, nonempty)))


def hosmer_lemeshow_groups(scores: np.ndarray, weights: np.ndarray | None,
                           groups: int) -> tuple[np.ndarray, np.ndarray]:
    """``hoslem.test``'s breaks (unique type-7 quantiles of the scores, frequency ``weights``)
    and the 0-based interval of each score (right-closed, the lowest also left-closed)."""
    probs = np.minimum(np.arange(groups + 1) * (1.0 / groups), 1.0)  # R's seq(0, 1, 1/g)
    breaks = np.unique(_r_quantile(scores, weights, probs))
    n_int = max(breaks.size - 1, 1)
    return breaks, np.clip(np.searchsorted(breaks, scores, side="left") - 1, 0, n_int - 1)


def _chi_terms(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """(O - E)^2 / E per group; 0 when O = E = 0, inf when only E = 0."""
    diff2 = (observed - expected) ** 2
    safe = np.where(expected > 0, expected, 1.0)
    return np.where(expected > 0, diff2 / safe, np.where(diff2 > 0, np.inf, 0.0))


@dataclass(frozen=True)
class SpiegelhalterResult:
    """Spiegelhalter's z test of calibration: ``statistic`` (z) and two-sided ``pvalue``."""

    statistic: float
    pvalue: float

    def to_frame(self) -> pd.DataFrame:
        """One row: ``statistic, pvalue``."""
        return pd.DataFrame({"statistic": [self.statistic], "pvalue": [self.pvalue]},
                            index=["spiegelhalter_z"])

    def _repr_html_(self) -> str:
        from locacal._repr import frame_html, result_html

        return result_html("Spiegelhalter's z test", frame_html(self.to_frame()))


#: Why Spiegelhalter's z is NaN (in memory and from cells).
_ZERO_VARIANCE = "every score is 0, 1/2 or 1: Spiegelhalter's z has zero variance (NaN)"


@public_api
def spiegelhalter_z(scores: Any, labels: Any, *, weights: Any = None,
                    frequency_weights: Any = None) -> SpiegelhalterResult:
    r"""Spiegelhalter's z test that the scores are the event probabilities.

    .. math::

        z = \frac{\sum_i w_i (d_i - s_i)(1 - 2 s_i)}
                 {\sqrt{\sum_i w_i^2 (1 - 2 s_i)^2 s_i (1 - s_i)}},\qquad
        p = 2\,\Phi(-|z|)

    (Spiegelhalter 1986, eq. 3: the standardised Brier score; under H0 the numerator has
    mean 0 and the denominator is its exact standard deviation for fixed weights). With unit
    weights it is ``rms::val.prob``'s ``S:z`` and ``S:p``.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Predicted probabilities in [0, 1] (0 and 1 allowed: they add nothing to the
        variance); observed events (0/1 or bool).
    weights : array-like of shape (n,), optional
        Case weights; z is unchanged by their scale.
    frequency_weights : array-like of shape (n,), optional
        Counts: a row stands for that many identical observations. The result equals
        the call on the expanded rows (which are not built): the counts enter the
        information, chi-square counts and variance as observations
        (:mod:`locacal.data.frequency`).

    Returns
    -------
    SpiegelhalterResult
        NaN statistic and p-value, with a CalibrationWarning, when every score is 0, 1/2 or 1
        (the variance is 0, and z is 0/0 in R too).
    """
    s, y, w, both = _weighted_rows(scores, labels, weights, frequency_weights)
    return spiegelhalter_of_sample(s, y, w, both.counts)


def spiegelhalter_of_sample(s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                            counts: np.ndarray | None) -> SpiegelhalterResult:
    """:func:`spiegelhalter_z` of validated rows of positive weight: ``w`` the point weights
    (``w f`` with frequency weights ``counts``; None for unit weights). Both sums block by
    block (:func:`~locacal.data.blockwise.pairwise_sums`: ``np.sum``'s bits)."""
    scale = None if w is None else w.max()

    def terms(rows: slice) -> tuple[np.ndarray, np.ndarray]:
        sr = s[rows]
        lever = 1.0 - 2.0 * sr
        if w is None:  # unit weights: w = 1 and w^2 = 1 multiply nothing
            num = y[rows] - sr
            var = lever * lever
        else:
            wr = w[rows] / scale
            # sum of squared weights over the expanded rows: f w^2 = (w f)^2 / f
            square = wr * wr if counts is None else wr * wr / counts[rows]
            num = wr * (y[rows] - sr)
            var = square * lever
            var *= lever
        num *= lever
        var *= sr
        var *= 1.0 - sr
        return num, var

    numerator, variance = pairwise_sums(s.size, terms)
    if variance <= 0.0:
        warn(_ZERO_VARIANCE)
        return SpiegelhalterResult(float("nan"), float("nan"))
    z = float(numerator / np.sqrt(variance))
    return SpiegelhalterResult(z, float(2.0 * stats.norm.sf(abs(z))))


def spiegelhalter_z_cells(cells: ScoreStatistics) -> float:
    """Spiegelhalter's z (:func:`spiegelhalter_z`'s statistic) from cell sums, exactly: the
    kept sums sum w (y - s)(1 - 2 s) and sum w^2 (1 - 2 s)^2 s (1 - s) (the in-memory weights
    are divided by their largest, a scale that cancels in z). NaN with the same warning when
    the variance is 0."""
    if cells.spiegel_var <= 0.0:
        warn(_ZERO_VARIANCE)
        return float("nan")
    return cells.spiegel_num / float(np.sqrt(cells.spiegel_var))
