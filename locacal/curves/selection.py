r"""Choice of the smoothing parameter of the local fit: locfit's criteria over a grid.

:func:`smoothing_table` fits the local regression of the labels on the scores for each span
``nn`` of a grid (or each fixed bandwidth ``h``), evaluated exactly at the observed scores
(locfit's ``ev = dat()``), and tabulates, with :math:`e_i = y_i - \hat g(s_i)`, prior weights
:math:`w_i` rescaled to mean 1 (all 1 without weights), :math:`n` rows and :math:`L_{ii}` the
influence (diagonal of the hat matrix, :mod:`locacal.localfit._influence`):

=========  ===================================================================  ==============
column     definition                                                           locfit
=========  ===================================================================  ==============
``df``     :math:`\operatorname{tr} L = \sum_i L_{ii}` ("Fitted DF")             ``gcv()[2]``
``rss``    :math:`\mathrm{RSS} = \sum_i w_i e_i^2` (locfit's likelihood is       ``-2 lk``
           :math:`-\mathrm{RSS}/2`)
``gcv``    :math:`n\,\mathrm{RSS} / (n - \operatorname{tr} L)^2`                 ``gcv()[4]``
``aic``    :math:`\mathrm{RSS} + 2 \operatorname{tr} L`                          ``aic()[4]``
``lcv``    :math:`\sum_i w_i e_i^2 (1 + L_{ii})^2`                               ``lcv()[4]``
``cv``     :math:`\sum_i w_i \bigl(e_i / (1 - L_{ii})\bigr)^2`                   --
``aicc``   :math:`\log(\mathrm{RSS}/\sum_i w_i) + 1 +                            --
           2 (\operatorname{tr} L + 1) / (n - \operatorname{tr} L - 2)`
=========  ===================================================================  ==============

**locfit's definitions are not the textbook ones.** For its (quasi-)Gaussian family locfit
takes the log-likelihood to be :math:`-\mathrm{RSS}/2`, without the variance, so its
``aic`` is :math:`\mathrm{RSS} + 2\operatorname{tr} L`, not scaled by :math:`\sigma^2`:
with 0/1 labels :math:`\sigma^2 \approx \bar g (1 - \bar g) < 1/4`, the penalty weighs at
least four times too much and the AIC over-smooths. ``gcv`` is Craven & Wahba's GCV times
:math:`n^2` (same minimiser). ``lcv`` is locfit's "likelihood cross-validation", whose
leave-one-out fits are the first-order approximation
:math:`\hat g_{-i} = \hat g_i - L_{ii} e_i`, so that its residuals are
:math:`e_i (1 + L_{ii})` rather than the exact :math:`e_i / (1 - L_{ii})` (measured against
R: ``residuals(fit, cv = TRUE)``). ``cv`` is the exact leave-one-out criterion of a linear
smoother (the bandwidth held fixed; Loader 1999, section 2.3, eq. 2.18, and Hastie &
Tibshirani 1990, section 3.4): infinite when some :math:`L_{ii} = 1` (a window holding one
score). ``aicc`` is the corrected AIC of Hurvich, Simonoff & Tsai (1998, eq. 3), the
textbook AIC for a smoother (it estimates :math:`\sigma^2` by RSS / n); infinite where the
fit interpolates the labels (RSS / n below :data:`INTERPOLATING_MSE`, 1e-12), whose log RSS
is rounding noise.

**Default grids.** ``nn``: 20 values log-spaced from :math:`\min(1, 10(\text{degree}+1)/n)`
to 1 (about 10 neighbours per coefficient: below that the tricube fit interpolates and
:math:`n - \operatorname{tr} L` vanishes). ``h``: 20 values log-spaced from
:math:`10(\text{degree}+1)\,r/n` to :math:`r`, :math:`r` the range of the scores.

**Selection rule.** :meth:`SmoothingTable.best` (and ``nn="gcv"`` etc. on
:class:`~locacal.curves.local.LocalRegressionCalibrator`) chooses, by default, the
*smoothest grid value whose criterion exceeds the minimum by at most half a standard error
of the difference*: the one-standard-error rule of Breiman, Friedman, Olshen & Stone (1984,
section 3.4.3; Hastie, Tibshirani & Friedman 2009, section 7.10) with the standard error
of the paired difference of the two criteria (:meth:`SmoothingTable.difference_se`) and a
factor 1/2 instead of 1. With 0/1 labels the criteria are nearly flat at large spans and
their minimiser is very variable. The factor is chosen by the simulation of
``benchmarks/bench_selection.py`` (calibrated, over- and under-confident scores from
``locacal.simulate.logistic_dgp``, degree 1, tricube; median ISE of the
chosen span over the median ISE of the best fixed span in hindsight; 50 and 20
replicates on a 40-span grid, measured before the choice; the script's own run is in
its docstring):

=====================  ===============  ===============
worst ratio, GCV / CV  n = 2000         n = 20000
=====================  ===============  ===============
minimum                1.88 / 2.29      1.28 / 1.28
factor 1               1.17 / 1.17      1.71 / 1.92
factor 1/2 (default)   1.38 / 1.38      1.30 / 1.29
=====================  ===============  ===============

(factor 1 over-smooths the curved over-confident map at n = 20000; the minimum over-fits
at n = 2000). ``rule="min"`` gives the plain minimiser (locfit's ``gcvplot`` reading) and
``se=1`` the classical rule. The rule applies to ``gcv``, ``aic`` and ``cv``, sums of
per-observation terms; ``lcv`` and ``aicc`` use the minimum. The table's plot is locfit's
``gcvplot`` (criterion against fitted degrees of freedom).

**Local likelihood** (``family="binomial"``, the local logistic fit). The criteria are
locfit's likelihood versions (``gcv``/``aic``/``gcvplot`` of a binomial ``locfit``): with
:math:`\hat g_i` the fit at :math:`s_i`, the deviance
:math:`D = -2 \sum_i w_i (y_i \log \hat g_i + (1 - y_i) \log(1 - \hat g_i))` (locfit's
``-2 lk``; 0/1 labels have a saturated log-likelihood of 0) and the influence
:math:`L_{ii} = w_i \hat g_i (1 - \hat g_i) (J^{-1})_{00}` (:math:`J` the local information
at :math:`s_i`), the table has ``df`` :math:`= \sum_i L_{ii}`, ``deviance``,
``gcv`` :math:`= n D / (n - \operatorname{tr} L)^2` and ``aic`` :math:`= D + 2
\operatorname{tr} L` (Loader 1999, sections 4.3 and 10.3; measured against R in
``tests/test_local_binomial_parity_r.py``). The one-standard-error rule applies as above,
with the per-observation deviance terms. ``lcv``, ``cv`` and ``aicc`` are the least-squares
family's only. Each span costs n local logistic fits (Newton steps on each window):
O(n x window) per span, seconds at n = 2000, a minute or more beyond 20000.

References
----------
C. Loader (1999), *Local Regression and Likelihood*, Springer, sections 2.3 (influence,
degrees of freedom) and 10.1-10.3 (cross-validation, GCV, AIC; locfit's ``gcvplot``).
C. M. Hurvich, J. S. Simonoff and C.-L. Tsai (1998), "Smoothing parameter selection in
nonparametric regression using an improved Akaike information criterion", *JRSS B* 60(2),
271-293.
T. Hastie and R. Tibshirani (1990), *Generalized Additive Models*, Chapman & Hall, ch. 3.
L. Breiman, J. Friedman, R. Olshen and C. Stone (1984), *Classification and Regression
Trees*, Wadsworth, section 3.4.3 (the one-standard-error rule).
T. Hastie, R. Tibshirani and J. Friedman (2009), *The Elements of Statistical Learning*,
2nd ed., Springer, section 7.10.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    as_1d_float,
    check_choice,
    check_int,
    check_scores_labels,
    plain,
    positive_weight_rows,
    public_api,
)
from locacal.data.frequency import weighting
from locacal.data.sample import SortedSample, sort_sample
from locacal.localfit import LocalParams, fit

__all__ = ["CRITERIA", "SmoothingTable", "default_h_grid", "default_nn_grid",
           "select_bandwidth", "smoothing_table"]

#: Criteria a span can be chosen by (columns of :attr:`SmoothingTable.table`).
CRITERIA = ("gcv", "aic", "lcv", "cv", "aicc")
#: The local likelihood's criteria (``family="binomial"``, module docstring).
BINOMIAL_CRITERIA = ("gcv", "aic")
FAMILIES = ("gaussian", "binomial")
#: Selection rules of :meth:`SmoothingTable.best`.
RULES = ("se", "min")
#: Default multiple of the standard error in the "se" rule (module docstring).
SE_FACTOR = 0.5
#: Criteria that are sums of per-observation terms (the one-standard-error rule applies):
#: the vector of terms each uses, and its factor per grid value.
PAIRED = {"gcv": "rss", "aic": "rss", "cv": "loo"}
#: Kernels with exact influence at the data (compact kernels).
SELECTION_KERNELS = ("rect", "tricube", "epan")
GRID_SIZE = 20
#: Mean squared residual below which the fit interpolates the 0/1 labels (``aicc`` is inf:
#: its log RSS would be rounding noise).
INTERPOLATING_MSE = 1e-12
#: Criterion values closer than this times the criterion's largest finite value over the
#: grid are tied in :meth:`SmoothingTable.best`.
TIE_TOLERANCE = 1e-10


def default_nn_grid(n: int, degree: int) -> np.ndarray:
    """20 spans log-spaced from ``min(1, 10 (degree + 1) / n)`` to 1 (module docstring)."""
    low = min(1.0, 10.0 * (degree + 1) / n)
    return np.unique(np.geomspace(low, 1.0, GRID_SIZE))


def default_h_grid(scores: np.ndarray, degree: int, n: int | None = None) -> np.ndarray:
    """20 bandwidths log-spaced from ``10 (degree + 1) r / n`` to ``r``, ``r`` the score
    range (1e-3 when all scores are equal); ``n`` the number of observations (default: the
    number of scores)."""
    r = float(np.ptp(scores)) or 1e-3
    n = scores.shape[0] if n is None else n
    low = min(1.0, 10.0 * (degree + 1) / n) * r
    return np.unique(np.geomspace(low, r, GRID_SIZE))


class SmoothingTable:
    """Goodness-of-fit criteria of a local fit over a grid of spans or bandwidths.

    Attributes
    ----------
    table : DataFrame
        One row per grid value: ``nn`` (or ``h``), ``df``, ``rss``, ``gcv``, ``aic``,
        ``lcv``, ``cv``, ``aicc`` (definitions in :mod:`locacal.curves.selection`).
    parameter : {"nn", "h"}
        The smoothing parameter of the grid.
    degree : int
    kernel : str
    n : int
        Number of observations: the rows, or the sum of the frequency weights.
    family : {"gaussian", "binomial"}
        Local least squares, or the local logistic likelihood (columns ``df``,
        ``deviance``, ``gcv``, ``aic``).
    criteria : tuple of str
        The criteria of the family (columns a span can be chosen by).
    """

    def __init__(self, table: pd.DataFrame, parameter: str, degree: int, kernel: str,
                 n: int, terms: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                 family: str = "gaussian") -> None:
        self.table = table
        self.parameter = parameter
        self.degree = degree
        self.kernel = kernel
        self.n = n
        self._terms = terms or {}
        self.family = family
        self.criteria = BINOMIAL_CRITERIA if family == "binomial" else CRITERIA

    def best(self, criterion: str = "gcv", rule: str = "se",
             se: float = SE_FACTOR) -> float:
        """The grid value chosen by ``criterion``.

        ``rule="min"``: the minimiser (the smoothest one among ties; values closer than
        :data:`TIE_TOLERANCE` times the largest finite value over the grid are ties). ``rule="se"``
        (default): the smoothest grid value whose criterion exceeds the minimum by at most
        ``se`` standard errors of the difference (module docstring, "Selection rule"; ``se
        = 1`` is the classical one-standard-error rule). It applies to ``gcv``, ``aic``
        and ``cv``, the sums of per-observation terms, while ``lcv`` and ``aicc`` always
        use the minimum.

        Raises ``ValueError`` if the criterion is infinite on the whole grid.
        """
        criterion = check_choice(criterion, self.criteria, "criterion")
        rule = check_choice(rule, RULES, "rule")
        if not (np.isfinite(se) and se >= 0):
            raise ValueError(f"se must be a finite number >= 0, got {plain(se)!r}")
        values = self.table[criterion].to_numpy()
        grid = self.table[self.parameter].to_numpy()
        if not np.isfinite(values).any():
            raise ValueError(f"criterion {plain(criterion)!r} is infinite at every grid value")
        # ties up to rounding count as ties (TIE_TOLERANCE times the criterion's largest
        # finite value over the grid): the choice must not hang on the last bits of sums
        # taken in another order (grouped and expanded rows), nor on the rounding noise of
        # a criterion that is 0 (interpolating fits)
        finite = np.isfinite(values)
        slack = TIE_TOLERANCE * float(np.abs(values[finite]).max())
        low = np.nanmin(values)
        best = int(np.flatnonzero(values <= low + slack)[-1])
        if rule == "min" or criterion not in PAIRED or PAIRED[criterion] not in self._terms:
            return float(grid[best])
        limit = values[best] + se * self.difference_se(criterion, best)
        return float(grid[finite & (values <= limit + slack)].max())

    def difference_se(self, criterion: str, ref: int) -> np.ndarray:
        r"""Standard error of ``criterion[j] - criterion[ref]`` for every grid index j.

        The criterion is a sum :math:`C_j = \sum_i a_j x_{ij}` of per-observation terms
        (``gcv``: :math:`x_{ij} = w_i e_{ij}^2`, :math:`a_j = n / (n - \operatorname{tr}
        L_j)^2`; ``aic``: the same terms, :math:`a_j = 1`; ``cv``: :math:`x_{ij} = w_i
        (e_{ij} / (1 - L_{ii,j}))^2`, :math:`a_j = 1`), so the difference is a sum of
        :math:`d_i = a_j x_{ij} - a_{ref} x_{i,ref}` and its standard error is
        :math:`\sqrt{n}\, \mathrm{sd}_i(d_i)`.
        """
        criterion = check_choice(criterion, tuple(PAIRED), "criterion")
        sums, gram = self._terms[PAIRED[criterion]]
        n = float(self.n)
        if criterion == "gcv":
            a = n / (n - self.table["df"].to_numpy()) ** 2
        else:
            a = np.ones(sums.shape[0])
        with np.errstate(invalid="ignore"):
            sq = (a ** 2 * np.diag(gram) + a[ref] ** 2 * gram[ref, ref]
                  - 2.0 * a * a[ref] * gram[:, ref])
            lin = a * sums - a[ref] * sums[ref]
            var = np.maximum(sq - lin ** 2 / n, 0.0) / max(n - 1.0, 1.0)
        return np.sqrt(n * var)

    def plot(self, criterion: str = "gcv", ax: Any = None, rule: str = "se") -> Any:
        """locfit's ``gcvplot``: the criterion against the fitted degrees of freedom
        ``tr L``, the choice of :meth:`best` (``rule``) marked. Returns the matplotlib
        Axes."""
        import matplotlib.pyplot as plt

        criterion = check_choice(criterion, self.criteria, "criterion")
        if ax is None:
            _, ax = plt.subplots()
        t = self.table
        ax.plot(t["df"], t[criterion], "o-", color="C0")
        best = t[t[self.parameter] == self.best(criterion, rule)]
        ax.plot(best["df"], best[criterion], "o", color="C3",
                label=f"{self.parameter} = {best[self.parameter].iloc[0]:.4g}")
        ax.set_xlabel("Fitted DF")
        ax.set_ylabel(criterion.upper())
        ax.legend()
        return ax

    def __repr__(self) -> str:
        family = "" if self.family == "gaussian" else f", family={self.family!r}"
        return (f"SmoothingTable({self.parameter}, degree={self.degree}, "
                f"kernel={plain(self.kernel)!r}, n={self.n}{family})\n"
                f"{self.table.to_string(index=False)}")

    def to_frame(self) -> pd.DataFrame:
        """The criteria table (a copy of :attr:`table`): ``nn`` (or ``h``), ``df``, ``rss``,
        ``gcv``, ``aic``, ``lcv``, ``cv``, ``aicc``."""
        return self.table.copy()

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        title = (f"SmoothingTable over <code>{self.parameter}</code>: degree {self.degree}, "
                 f"kernel <code>{self.kernel}</code>, n = {self.n}")
        try:
            figure = figure_html(lambda ax: self.plot("gcv", ax=ax), alt="GCV against df")
        except ValueError:  # GCV infinite on the whole grid: nothing to draw
            figure = ""
        return result_html(title, frame_html(self.table, index=False, max_rows=25),
                           figure=figure)


@public_api
def smoothing_table(scores: Any, labels: Any, *, degree: int = 1, nn: Any = None,
                    h: Any = None, kernel: str = "tricube",
                    weights: Any = None, family: str = "gaussian",
                    frequency_weights: Any = None) -> SmoothingTable:
    r"""locfit's GCV, AIC and likelihood-CV (and exact leave-one-out CV, corrected AIC) of
    the local fit of the labels on the scores, over a grid of spans.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Scores in [0, 1] and 0/1 labels (or two class names with ``pos_label``, the
        positive class, as for every function of locacal that takes labels).
    degree : {0, 1, 2}, default 1
    nn : array-like of floats in (0, 1], optional
        Spans (nearest-neighbour fractions). Default: :func:`default_nn_grid` (unless ``h``
        is given).
    h : array-like of floats > 0, optional
        Fixed bandwidths instead of spans (not with ``nn``); ``"default"`` for
        :func:`default_h_grid`.
    kernel : {"tricube", "rect", "epan"}, default "tricube"
    weights : array-like of shape (n,), optional
        Non-negative case weights; rows of weight 0 are dropped (``n`` counts the others).
        The criteria use them **rescaled to mean 1** (``w n / sum(w)``), so that, like
        every result of locacal, the table depends on ``w / sum(w)`` only. locfit's own
        numbers scale with the weights (its RSS, hence its ``aic``, is not invariant:
        ``weights = 2 w`` doubles the RSS but not the penalty); they equal this table for
        ``weights = w * n / sum(w)`` (``tests/test_selection.py``).
    family : {"gaussian", "binomial"}, default "gaussian"
        Local least squares, or the local logistic likelihood with its deviance-based
        ``gcv`` and ``aic`` (module docstring, "Local likelihood").
    frequency_weights : array-like of shape (n,), optional
        Non-negative whole counts: a row stands for that many identical observations. The
        table (and its choice) is that of the expanded rows, never built: ``n`` is the
        number of observations :math:`N = \sum_i f_i` (in the criteria, the default grids
        and the spans' windows), each observation's influence is its row's
        :math:`L_{ii} / f_i` (the copies share the window and the fit, so the row's
        :math:`L_{ii}` computed with the combined weight :math:`w_i f_i` is the sum of its
        copies'), and the standard errors of :meth:`SmoothingTable.best` sum over the
        observations (:mod:`locacal.data.frequency`); with ``family="binomial"`` likewise
        the deviance terms and the likelihood's influence.

    Returns
    -------
    SmoothingTable

    Notes
    -----
    ``df``, ``gcv``, ``aic`` and ``lcv`` are R's
    ``gcv(d ~ lp(s, nn = a, deg = degree), kern = "tcub", ev = dat())`` (second and fourth
    components), ``aic(...)[4]`` and ``lcv(...)[4]`` (measured within 2e-14 relative in
    degrees 0-1, with and without weights, 6e-10 in degree 2; ``tests/test_selection.py``).
    Cost: O(n log n) per grid value (:mod:`locacal.localfit._blocks`;
    ``benchmarks/bench_selection.py`` times 10 spans at n = 1e6 beside R's ``gcvplot``).

    Examples
    --------
    >>> import numpy as np
    >>> from locacal.curves import smoothing_table
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000); d = rng.uniform(size=2000) < s ** 2
    >>> tab = smoothing_table(s, d, nn=[0.1, 0.3, 1.0])
    >>> tab.table[["nn", "df"]].round(2).to_numpy().tolist()
    [[0.1, 18.11], [0.3, 6.53], [1.0, 2.48]]
    >>> tab.best("gcv", rule="min"), tab.best("gcv")  # minimiser, one-SE rule
    (0.1, 0.3)
    """
    s, y, w = check_scores_labels(scores, labels, weights)
    counts = None
    if frequency_weights is not None:
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        w, counts = both.point, both.counts
    s, y, w, counts = positive_weight_rows(s, y, w, counts)
    degree = check_int(degree, "degree", allowed=(0, 1, 2))
    kernel = check_choice(kernel, SELECTION_KERNELS, "kernel")
    family = check_choice(family, FAMILIES, "family")
    sample = sort_sample(s, y, w, counts)
    n_obs = sample.observations
    if nn is not None and h is not None:
        raise ValueError("give a grid of nn or of h, not both")
    if h is None:
        parameter = "nn"
        grid = default_nn_grid(n_obs, degree) if nn is None else _grid(nn, "nn", 1.0)
    else:
        parameter = "h"
        grid = (default_h_grid(sample.scores, degree, n_obs)
                if isinstance(h, str) and h == "default" else _grid(h, "h", np.inf))
    # one cache of moment trees and block sums serves the whole grid (they depend on degree
    # and kernel only); the grid is increasing, so each block level is built once
    structures: dict = {}
    # per-observation terms, one float32 row per grid value (allocated as the grid goes:
    # the first, narrow spans, whose block structures are the largest, run beside few rows)
    terms: dict[str, list[np.ndarray]] = {name: [] for name in set(PAIRED.values())}
    rows = []
    for v in grid:
        params = LocalParams(degree, v if parameter == "nn" else None,
                             v if parameter == "h" else None, kernel, family)
        row, per_obs = (_likelihood_criteria(sample, params) if family == "binomial"
                        else _criteria(sample, params, structures))
        rows.append(row)
        for name, x in per_obs.items():
            terms[name].append(x.astype(np.float32))
        del per_obs
    columns = (["df", "deviance", *BINOMIAL_CRITERIA] if family == "binomial"
               else ["df", "rss", *CRITERIA])
    table = pd.DataFrame(rows, columns=columns)
    table.insert(0, parameter, grid)
    if family == "binomial":
        terms.pop("loo")
    return SmoothingTable(table, parameter, degree, kernel, n_obs,
                          {name: _sums_and_gram(x, sample.counts) for name, x in terms.items()},
                          family)


def select_bandwidth(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, degree: int,
                     nn: Any, h: Any, kernel: str, *, family: str = "gaussian",
                     counts: np.ndarray | None = None) -> tuple[float | None, float | None,
                                                                SmoothingTable]:
    """``(nn, h, table)`` with the value :meth:`SmoothingTable.best` chooses by the criterion
    named by ``nn`` (or ``h``) over its default grid (one-SE rule for gcv, aic and cv); the
    other parameter must then be None; ``counts``: frequency weights (``w`` then the
    combined ``w f``). Used by :class:`~locacal.curves.local.LocalRegressionCalibrator`."""
    if isinstance(nn, str) and isinstance(h, str):
        raise ValueError("select nn or h by a criterion, not both")
    name, other = ("nn", h) if isinstance(nn, str) else ("h", nn)
    criterion = check_choice(nn if name == "nn" else h,
                             BINOMIAL_CRITERIA if family == "binomial" else CRITERIA, name)
    if other is not None:
        raise ValueError(f"{name}={plain(criterion)!r} selects {name}; the other of nn and h must "
                         "be None")
    if counts is not None:  # the combined weights back to relative ones beside the counts
        w = None if w is counts else w / counts
    table = smoothing_table(s, y, degree=degree, kernel=kernel, weights=w, family=family,
                            frequency_weights=counts,
                            **({} if name == "nn" else {"h": "default"}))
    best = table.best(criterion)
    return (best, None, table) if name == "nn" else (None, best, table)


def _grid(values: Any, name: str, upper: float) -> np.ndarray:
    if np.ndim(values) == 0 and not isinstance(values, str):
        values = [values]  # a single value: a grid of one
    arr = as_1d_float(values, name)
    bad = ~((arr > 0) & (arr <= upper))
    if bad.any():
        bound = "(0, 1]" if upper == 1.0 else "(0, inf)"
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"every {name} value must lie in {bound}; position {i} holds "
                         f"{float(arr[i])!r}")
    return np.unique(arr)


def _criteria(sample: SortedSample, params: LocalParams,
              structures: dict) -> tuple[tuple[float, ...], dict[str, np.ndarray]]:
    """The table's row (df, rss and :data:`CRITERIA`) and the per-observation terms of the
    paired criteria (:data:`PAIRED`, one copy's with frequency weights); ``structures``:
    :func:`locacal.localfit.fit`'s cache."""
    at_data = fit(sample, "data", params, outputs=("value", "influence"), cache=structures)
    n = float(sample.observations)
    # weights rescaled to mean 1 over the observations (module docstring): every column
    # depends on w / sum(w) only; with frequency weights, w f summed over a row's copies
    w = 1.0 if sample.weights is None else sample.weights * (n / np.sum(sample.weights))
    infl = at_data.influence
    e = np.subtract(sample.labels, at_data.value, out=at_data.value)
    del at_data
    df = float(np.sum(infl))
    if sample.counts is not None:  # each copy's share: its weight and its influence
        w, infl = w / sample.counts, infl / sample.counts
    sq = w * e * e
    rss = float(np.sum(sq if sample.counts is None else sq * sample.counts))
    gcv = n * rss / (n - df) ** 2 if df < n else np.inf
    aic = rss + 2.0 * df
    copies = sample.counts
    # the lcv and loo terms share one buffer (the same operations as w (e (1 + L))^2 and
    # w (e / (1 - L))^2, in place: n x 8 bytes fewer each; w = 1 multiplies nothing)
    term = np.add(1.0, infl)
    np.multiply(e, term, out=term)
    np.square(term, out=term)
    if not np.isscalar(w):
        np.multiply(w, term, out=term)
    lcv = float(np.sum(term if copies is None else term * copies))
    loo = term
    with np.errstate(divide="ignore", invalid="ignore"):
        np.subtract(1.0, infl, out=loo)
        np.divide(e, loo, out=loo)
    np.square(loo, out=loo)
    if not np.isscalar(w):
        np.multiply(w, loo, out=loo)
    cv = (float(np.sum(loo if copies is None else loo * copies)) if np.isfinite(loo).all()
          else np.inf)
    room = n - df - 2.0
    # an interpolating fit (mean squared residual below INTERPOLATING_MSE) has log RSS of
    # rounding noise: no AICc there, as for RSS = 0
    aicc = (np.log(rss / n) + 1.0 + 2.0 * (df + 1.0) / room
            if room > 0 and rss > INTERPOLATING_MSE * n else np.inf)
    return (df, rss, gcv, aic, lcv, cv, float(aicc)), {"rss": sq, "loo": loo}


def _likelihood_criteria(sample: SortedSample, params: LocalParams
                         ) -> tuple[tuple[float, ...], dict[str, np.ndarray]]:
    """The binomial table's row (df, deviance, gcv, aic) and the per-observation deviance
    terms (module docstring, "Local likelihood"); weights rescaled to mean 1."""
    at_data = fit(sample, "data", params, outputs=("value", "influence"))
    n = float(sample.observations)
    w = 1.0 if sample.weights is None else sample.weights * (n / np.sum(sample.weights))
    copies = 1.0 if sample.counts is None else sample.counts
    g = at_data.value
    y = sample.labels
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = np.where(y > 0, np.log(g), np.log1p(-g))
    terms = -2.0 * (w / copies) * loglik  # one copy's (frequency weights)
    deviance = float(np.sum(copies * terms))
    # influence is invariant to the weights' scale; NaN where a window holds one label
    df = float(np.nansum(at_data.influence))
    gcv = n * deviance / (n - df) ** 2 if df < n else np.inf
    aic = deviance + 2.0 * df
    return (df, deviance, gcv, aic), {"rss": terms, "loo": terms}


def _sums_and_gram(x: list[np.ndarray],
                   counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Row sums and Gram matrix ``x x'`` of the rows ``x`` (float64, accumulated by chunks
    of columns); ``counts``: each column stands for that many identical columns (the
    expanded rows')."""
    sums = np.zeros(len(x))
    gram = np.zeros((len(x), len(x)))
    step = 1 << 16
    for start in range(0, x[0].shape[0], step):
        chunk = np.stack([r[start:start + step] for r in x]).astype(np.float64)
        copies = chunk if counts is None else chunk * counts[start:start + step]
        sums += copies.sum(axis=1)
        gram += copies @ chunk.T
    return sums, gram
