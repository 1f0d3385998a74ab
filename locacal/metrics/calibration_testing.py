"""Test of the null hypothesis that the scores are calibrated, P(D = 1 | s) = s.

Consistency resampling (Bröcker & Smith 2007; Dimitriadis, Gneiting & Jordan 2021):
under the null, given the scores, the labels are independent Bernoulli(s_i), so redrawing them
that way and recomputing the statistic gives its exact conditional null distribution up to
Monte Carlo error, for any statistic. The resamples are computed in batches (see
:mod:`locacal.metrics._null_statistics`): 999 resamples at n = 1e5 take seconds.

Adding a statistic is one entry of :data:`STATISTICS`. A scalar metric
``f(scores, labels, weights) -> float`` becomes a resampling statistic with
``CalibrationStatistic("name", rowwise(f))`` (one call per resample), and an asymptotic p-value is
added with ``asymptotic=g`` where ``g(scores, labels, weights) -> (statistic, pvalue)``; as for
the Hosmer-Lemeshow chi-square and Spiegelhalter's normal z.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    CalibrationWarning,
    check_choice,
    check_frequency_weights,
    check_resamples,
    check_scores_labels,
    check_seed,
    plain,
    positive_weight_rows,
    public_api,
    spawn_seeds,
    warn,
)
from locacal.data.frequency import consistency_counts, split_by_label, weighting
from locacal.data.groups import split_by
from locacal.metrics._null_statistics import (
    BatchBuilder,
    binned_batch,
    hl_batch,
    lcs_batch,
    mcb_batch,
    spiegelhalter_batch,
)
from locacal.metrics.binned import ece, qmse
from locacal.metrics.clinical import hosmer_lemeshow, spiegelhalter_z
from locacal.metrics.grouped_test import GroupedTestResult, minp_adjust
from locacal.metrics.lcs_wmse import lcs
from locacal.metrics.registry import evaluate

__all__ = [
    "METHODS",
    "STATISTICS",
    "CalibrationStatistic",
    "CalibrationTestResult",
    "calibration_test",
]

METHODS = ("auto", "resampling", "asymptotic")

#: Resampled label matrices are drawn and evaluated this many cells (rows x n) at a time.
_CHUNK_CELLS = 1 << 22
#: A progress bar is shown when n_resamples x n reaches this (about a second of work).
_PROGRESS_CELLS = 50_000_000
#: Null values within this relative distance below the observed one count as ties (>=), so
#: that rounding in the batch arithmetic cannot move a resample across the observed value.
_TIE_RTOL = 1e-12
#: With ``by``: the family-wise level the number of resamples must be able to reach.
_FAMILY_LEVEL = 0.05


@dataclass(frozen=True)
class CalibrationStatistic:
    """One statistic of :func:`calibration_test`.

    ``batch`` builds the batch evaluator from the sorted scores and weights (see
    :mod:`locacal.metrics._null_statistics`); ``asymptotic`` (optional) returns
    ``(statistic, pvalue)`` from a known limiting null distribution.
    """

    label: str
    batch: BatchBuilder
    asymptotic: Callable[[np.ndarray, np.ndarray, np.ndarray | None],
                         tuple[float, float]] | None = None


def _hl_asymptotic(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    # chi-square on G (non-empty groups) degrees of freedom, not hoslem.test's G - 2: the
    # scores under test were not fitted on these labels (see hosmer_lemeshow's docstring)
    result = hosmer_lemeshow(s, y, weights=w)
    return result.statistic, result.pvalue_external


def _spiegelhalter_asymptotic(s: np.ndarray, y: np.ndarray,
                              w: np.ndarray | None) -> tuple[float, float]:
    result = spiegelhalter_z(s, y, weights=w)
    return abs(result.statistic), result.pvalue


def sup_test(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, *,
             critical: str = "bootstrap", seed: Any = None) -> tuple[float, float, Any]:
    """The sup test, dual of the default curve's simultaneous band.

    ``calibration_curve(s, y, weights=w, band="simultaneous", critical=critical,
    seed=seed)`` is the default local curve with the sup-t band of
    :mod:`locacal.curves.simultaneous`; the statistic is
    :math:`T = \\max_t |\\hat g(t) - t| / \\widehat{se}(t)` over its grid points
    within the 5-95 % score quantiles, and the p-value :math:`P(M \\ge T)` under the law
    that gives the band's critical value, so ``p < alpha`` exactly when the diagonal
    leaves the ``1 - alpha`` band at some grid point. Returns ``(T, p, draws)``, ``draws``
    the sorted multiplier draws of M (None for the tube formula).
    """
    from locacal.curves.family import make_calibrator
    from locacal.curves.simultaneous import sup_statistic

    calibrator = make_calibrator("local").fit(s, y, sample_weight=w)
    curve = calibrator.curve(band=None)
    null = calibrator._sup_null(curve.grid, critical, seed)
    statistic = sup_statistic(curve.estimate, curve.grid, null)
    return statistic, null.pvalue(statistic), null.maxima


def _sup_asymptotic(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    statistic, pvalue, _ = sup_test(s, y, w, critical="tube")
    return statistic, pvalue


def _no_batch(s: np.ndarray, w: np.ndarray | None) -> Callable[[np.ndarray], np.ndarray]:
    raise ValueError("statistic 'sup' is tested against the null law of the curve's "
                     "simultaneous band, not by consistency resampling (which would break "
                     "its agreement with the band); use method='auto' (multiplier "
                     "bootstrap) or 'asymptotic' (tube formula)")


#: The statistics of :func:`calibration_test`. The LCS, ECE, QMSE and CORP MCB have no known
#: asymptotic null distribution (non-smooth functionals of a smoother or of data-dependent
#: bins), so they are tested by resampling only; Hosmer-Lemeshow's C is asymptotically
#: chi-square and Spiegelhalter's z standard normal.
STATISTICS: dict[str, CalibrationStatistic] = {
    "lcs": CalibrationStatistic("LCS", lcs_batch),
    "ece": CalibrationStatistic("ECE", lambda s, w: binned_batch(s, w, squared=False)),
    "brier": CalibrationStatistic("Brier reliability (binned)",
                           lambda s, w: binned_batch(s, w, squared=True)),
    "mcb": CalibrationStatistic("CORP MCB", mcb_batch),
    "hl": CalibrationStatistic("Hosmer-Lemeshow C", hl_batch, _hl_asymptotic),
    "spiegelhalter": CalibrationStatistic("Spiegelhalter |z|", spiegelhalter_batch,
                                          _spiegelhalter_asymptotic),
    "sup": CalibrationStatistic("sup-t of the local curve", _no_batch, _sup_asymptotic),
}


@dataclass(frozen=True, eq=False)
class CalibrationTestResult:
    """Result of :func:`calibration_test`.

    ``null`` holds the resampled statistics (``None`` for an asymptotic test).
    """

    statistic: float
    pvalue: float
    null: np.ndarray | None
    method: str
    name: str
    n: int

    def to_frame(self) -> pd.DataFrame:
        """One row (index: the statistic's name): ``statistic, pvalue, method, n,
        resamples`` (0 for an asymptotic test)."""
        resamples = 0 if self.null is None else int(self.null.size)
        return pd.DataFrame({"statistic": [self.statistic], "pvalue": [self.pvalue],
                             "method": [self.method], "n": [self.n],
                             "resamples": [resamples]}, index=[self.name])

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = ("" if self.null is None else
                  figure_html(lambda ax: self.plot(ax=ax), alt="null distribution",
                              figsize=(4.0, 3.0)))
        return result_html("Calibration test", frame_html(self.to_frame()), figure=figure)

    def plot(self, ax: Any = None) -> Any:
        """Histogram of the resampled null distribution with the observed value marked.

        Raises ``ValueError`` for an asymptotic test, which has no resampled values.
        """
        if self.null is None:
            raise ValueError("an asymptotic test has no resampled null distribution to plot; "
                             "use method='resampling'")
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.hist(self.null, bins="auto", color="0.75", edgecolor="0.4",
                label=f"null ({self.null.size} resamples)")
        ax.axvline(self.statistic, color="C3", lw=2,
                   label=f"observed = {self.statistic:.4g} (p = {self.pvalue:.3g})")
        ax.set_xlabel(self.name)
        ax.set_ylabel("count")
        ax.legend()
        return ax


def _auto_method(spec: CalibrationStatistic, scores: np.ndarray) -> str:
    if spec.asymptotic is None:
        return "resampling"
    n, distinct = scores.size, np.unique(scores).size
    return "resampling" if n <= max(1000, min(5000, 50 * distinct)) else "asymptotic"


def _resample(batch: Callable[[np.ndarray], np.ndarray], scores: np.ndarray,
              n_resamples: int, seed: Any) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = scores.size
    rows = max(1, _CHUNK_CELLS // n)
    chunks = range(0, n_resamples, rows)
    if n_resamples * n >= _PROGRESS_CELLS:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, desc="calibration_test resamples", unit="chunk")
    null = np.empty(n_resamples)
    for start in chunks:
        stop = min(start + rows, n_resamples)
        # the draws are consumed in order, so the result does not depend on the chunk size
        labels = (rng.random((stop - start, n)) < scores).astype(np.float64)
        null[start:stop] = batch(labels)
    return null


@public_api
def calibration_test(scores: Any, labels: Any, *, statistic: str = "lcs", method: str = "auto",
                     n_resamples: int = 999, seed: Any = None, weights: Any = None,
                     frequency_weights: Any = None,
                     by: Any = None) -> CalibrationTestResult | GroupedTestResult:
    """Test whether the scores are calibrated, P(D = 1 | s) = s.

    **Resampling** (consistency resampling): B label vectors are drawn with
    D*_i ~ Bernoulli(s_i) independently, the statistic T is recomputed on each, and

    .. math:: p = \\frac{1 + \\#\\{b : T^*_b \\ge T\\}}{1 + B},

    which is a valid p-value for every B (a Monte Carlo test, Davison & Hinkley 1997, ch. 4) as,
    under the null and given the scores, the observed labels are one more such draw. Null
    values within a relative 1e-12 below T count as ties.

    **Asymptotic**: a known limiting null distribution of the statistic. ``"hl"``: the
    Hosmer-Lemeshow C against chi-square on G degrees of freedom (G non-empty groups), i.e.
    :attr:`~locacal.metrics.HosmerLemeshowResult.pvalue_external` and not ``hoslem.test``'s
    G - 2: the scores tested here are taken as given, not fitted on these labels, and then C
    is approximately chi-square on G (Hosmer, Lemeshow & Sturdivant 2013, §5.2.2; G - 2
    rejects 11.5% of calibrated samples at level 5% with 10 groups). ``"spiegelhalter"``:
    ``|z|`` against the standard normal, ``p = 2 Phi(-|z|)``. None of ``"lcs"``, ``"ece"``,
    ``"brier"`` and ``"mcb"`` has one, so ``method="asymptotic"`` raises ``ValueError`` for
    them.

    **Sup test** (``statistic="sup"``): :math:`T = \\max_t |\\hat g(t) - t| /
    \\widehat{se}(t)` for the default local curve over its grid points within the 5-95 %
    score quantiles; its p-value is the tube-formula tail of the sup-t law that sets the
    critical value of ``calibration_curve(scores, labels, band="simultaneous")``
    (:mod:`locacal.curves.simultaneous`), so ``p < alpha`` exactly when the diagonal leaves
    that curve's ``1 - alpha`` simultaneous band: the plot and the test never disagree.
    ``method="auto"``: the band's default law, :data:`~locacal.curves.simultaneous.DRAWS`
    Bernoulli multiplier draws seeded by ``seed`` (0 when None, as the band's; ``null``
    holds them and ``method`` reads ``"multiplier"``; ``n_resamples`` is not used), equal
    to the band of ``calibration_curve(scores, labels, band="simultaneous", seed=seed)``;
    ``"asymptotic"``: the volume-of-tube formula, equal to the band with
    ``critical="tube"``; ``"resampling"`` raises (consistency resampling would not agree
    with the band). Size at 5 %: ``benchmarks/coverage_simultaneous.py``.

    **Auto**: asymptotic when the statistic has an asymptotic distribution and
    n > max(1000, min(5000, 50 x number of distinct scores)), resampling otherwise; the rule
    by which the R package ``reliabilitydiag`` switches from resampling to asymptotic
    consistency bands (``detect_regionmethod``).

    Parameters
    ----------
    scores, labels : array-like
        Scores in [0, 1] and 0/1 events.
    statistic : {"lcs", "ece", "brier", "mcb", "hl", "spiegelhalter", "sup"}, default "lcs"
        ``"lcs"``: :func:`locacal.metrics.lcs` (default parameters); ``"ece"``:
        :func:`locacal.metrics.ece` (10 quantile bins); ``"brier"``: the reliability term of
        the binned (Murphy) decomposition of the Brier score,
        sum_b (n_b / n) (mean label_b - mean score_b)^2 on the same 10 quantile bins
        (:func:`locacal.metrics.qmse`); quantile bins depend on the scores only, unlike the
        adaptive bins of :func:`locacal.metrics.brier_decomposition` whose tie-breaking uses
        the labels; ``"mcb"``: the CORP miscalibration term of
        :func:`locacal.metrics.corp_decomposition` (isotonic instead of binned reliability);
        ``"hl"``: the Hosmer-Lemeshow C of :func:`locacal.metrics.hosmer_lemeshow` (10
        groups); ``"spiegelhalter"``: the absolute value of
        :func:`locacal.metrics.spiegelhalter_z` (two-sided); ``"sup"``: the sup test, the dual
        of the default curve's simultaneous band (below).
    method : {"auto", "resampling", "asymptotic"}, default "auto"
    n_resamples : int, default 999
        Number B of resampled label vectors, at most 10^6
        (:data:`locacal._validation.MAX_RESAMPLES`).
    seed : int, Generator, SeedSequence or None
        Seed of the resampling (anything :func:`numpy.random.default_rng` accepts).
    weights : array-like, optional
        Case weights: the statistic is computed with them, and each row's label is redrawn
        from Bernoulli(s_i) whatever its weight.
    by : array-like of shape (n,), optional
        A group per row: each group is tested as the call on its rows would be, with its
        own independent resampling stream (group k gets the k-th child of
        ``numpy.random.SeedSequence(seed)``, so its result equals the call on its rows with
        that child as ``seed``), and the family of tests gets a family-wise p-value and
        adjusted per-group p-values by the min-P rule (:mod:`locacal.metrics.grouped_test`).
    frequency_weights : array-like, optional
        Counts (a row stands for that many identical observations): the test of the expanded
        rows. The statistic is that of the expanded rows; each observation's label is redrawn,
        so a row of f copies holds Binomial(f, s) events in a resample (an event row and a
        non-event row with those counts); ``auto`` and ``n`` count observations.

    Returns
    -------
    CalibrationTestResult
        ``statistic``, ``pvalue``, ``null`` (the B resampled values, or ``None``), ``method``
        (the method actually used), ``name`` and ``n``; ``plot()`` and ``_repr_html_()``.
        With ``by``: a :class:`~locacal.metrics.grouped_test.GroupedTestResult` (the groups'
        results, ``pvalue`` family-wise, ``adjusted``; ``to_frame()`` worst group first,
        ``plot()``, an HTML table flagging the groups whose adjusted p-value is below 5 %).

    References
    ----------
    Bröcker & Smith (2007), "Increasing the reliability of reliability diagrams", Weather and
    Forecasting 22(3) (consistency resampling); Dimitriadis, Gneiting & Jordan (2021), PNAS
    118(8), e2016191118 (CORP, consistency bands and reliabilitydiag).
    """
    check_choice(statistic, tuple(STATISTICS), "statistic")
    check_choice(method, METHODS, "method")
    n_resamples = check_resamples(n_resamples, "n_resamples")
    seed = check_seed(seed)
    if method == "asymptotic" and STATISTICS[statistic].asymptotic is None:
        raise ValueError(f"statistic {plain(statistic)!r} has no known asymptotic null "
                         "distribution; use method='resampling' (or 'auto')")
    if by is not None:
        return _grouped_test(scores, labels, weights, frequency_weights, by, statistic,
                             method, n_resamples, seed)
    s, y, w = check_scores_labels(scores, labels, weights)
    if frequency_weights is not None:
        if statistic == "sup":
            raise ValueError("statistic='sup' does not take frequency_weights yet (its "
                             "multiplier draws are per row); use another statistic or expand "
                             "the rows")
        both = weighting(w, frequency_weights, s.size,
                         aligned={"scores": scores, "labels": labels})
        s, y, point, counts = positive_weight_rows(s, y, both.point, both.counts)
        return _test_with_counts(s, y, point / counts, counts, statistic, method,
                                 n_resamples, seed)
    s, y, w = positive_weight_rows(s, y, w)
    return _one_test(s, y, w, STATISTICS[statistic], method, n_resamples, seed)


def _grouped_test(scores: Any, labels: Any, weights: Any, frequency_weights: Any, by: Any,
                  statistic: str, method: str, n_resamples: int,
                  seed: Any) -> GroupedTestResult:
    """Each group's test (the call on its rows) on its own seed stream, then the min-P
    family adjustment."""
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False)
    f = check_frequency_weights(frequency_weights, s.size)
    groups = split_by(by, s.size)
    if method != "asymptotic" and len(groups) + 1 > _FAMILY_LEVEL * (n_resamples + 1):
        warn(f"with {len(groups)} groups and n_resamples={n_resamples} the family-wise "
             f"p-value cannot fall below about {(len(groups) + 1) / (n_resamples + 1):.2g}; "
             f"use n_resamples >= {int(np.ceil((len(groups) + 1) / _FAMILY_LEVEL)) - 1}")
    streams = spawn_seeds(seed, len(groups))
    results = {}
    for (group, rows), stream in zip(groups, streams, strict=True):
        results[group] = calibration_test(
            s[rows], y[rows], statistic=statistic, method=method, n_resamples=n_resamples,
            seed=stream, weights=None if w is None else w[rows],
            frequency_weights=None if f is None else f[rows])
    family, adjusted = minp_adjust([r.pvalue for r in results.values()],
                                   [r.null for r in results.values()])
    return GroupedTestResult(STATISTICS[statistic].label, groups.name, results, family,
                             adjusted)


def _one_test(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, spec: CalibrationStatistic,
              method: str, n_resamples: int, seed: Any) -> CalibrationTestResult:
    """The test on validated rows of positive weight."""
    if spec is STATISTICS["sup"] and method == "auto":  # the default band's multipliers
        value, pvalue, draws = sup_test(s, y, w, seed=seed)
        return CalibrationTestResult(value, pvalue, draws, "multiplier", spec.label, s.size)
    if method == "auto":
        method = _auto_method(spec, s)
    if method == "asymptotic":
        value, pvalue = spec.asymptotic(s, y, w)
        return CalibrationTestResult(float(value), float(pvalue), None, method, spec.label,
                                     s.size)
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order]
    w = None if w is None else w[order]
    batch = spec.batch(s, w)
    observed = float(batch(y[None, :])[0])
    if np.isnan(observed):  # +inf (HL: an event where the scores expect none) is evidence
        raise ValueError(f"the {spec.label} is undefined on these data (a window or bin "
                         "with zero total weight, or scores all in {0, 1/2, 1}?)")
    null = _resample(batch, s, n_resamples, seed)
    exceed = int(np.count_nonzero(null >= observed - _TIE_RTOL * abs(observed)))
    pvalue = (1.0 + exceed) / (1.0 + n_resamples)
    return CalibrationTestResult(observed, pvalue, null, "resampling", spec.label, s.size)


#: The statistic of each test as a function of grouped rows with frequency weights.
_WITH_COUNTS: dict[str, Callable[..., float]] = {
    "lcs": lambda s, y, w, f: lcs(s, y, weights=w, frequency_weights=f),
    "ece": lambda s, y, w, f: ece(s, y, weights=w, frequency_weights=f),
    "brier": lambda s, y, w, f: qmse(s, y, weights=w, frequency_weights=f),
    "mcb": lambda s, y, w, f: evaluate(["mcb"], s, y, weights=w, frequency_weights=f)["mcb"],
    "hl": lambda s, y, w, f: hosmer_lemeshow(s, y, weights=w,
                                             frequency_weights=f).statistic,
    "spiegelhalter": lambda s, y, w, f: abs(spiegelhalter_z(s, y, weights=w,
                                                            frequency_weights=f).statistic),
}


def _test_with_counts(s: np.ndarray, y: np.ndarray, w: np.ndarray, counts: np.ndarray,
                      statistic: str, method: str, n_resamples: int,
                      seed: Any) -> CalibrationTestResult:
    """:func:`calibration_test` of grouped rows (frequency weights ``counts``, relative
    weights ``w``): the expanded rows' test, each resample one :func:`evaluate`-like call
    on an event row and a non-event row per group (Binomial(f, s) events)."""
    spec = STATISTICS[statistic]
    n = int(counts.sum())
    if method == "auto":
        method = "asymptotic" if (spec.asymptotic is not None and n > max(
            1000, min(5000, 50 * np.unique(s).size))) else "resampling"
    if method == "asymptotic":
        if spec.asymptotic is None:
            raise ValueError(f"statistic {plain(statistic)!r} has no known asymptotic null "
                             "distribution; use method='resampling' (or 'auto')")
        if statistic == "hl":
            result = hosmer_lemeshow(s, y, weights=w, frequency_weights=counts)
            return CalibrationTestResult(result.statistic, result.pvalue_external, None,
                                         method, spec.label, n)
        z = spiegelhalter_z(s, y, weights=w, frequency_weights=counts)
        return CalibrationTestResult(abs(z.statistic), z.pvalue, None, method, spec.label, n)
    compute = _WITH_COUNTS[statistic]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        observed = float(compute(s, y, w, counts))
        if np.isnan(observed):
            raise ValueError(f"the {spec.label} is undefined on these data (a window or bin "
                             "with zero total weight, or scores all in {0, 1/2, 1}?)")
        rng = np.random.default_rng(seed)
        s2, y2, w2 = split_by_label(s, w)
        null = np.empty(n_resamples)
        for b in range(n_resamples):
            null[b] = compute(s2, y2, w2, consistency_counts(rng, s, counts))
    exceed = int(np.count_nonzero(null >= observed - _TIE_RTOL * abs(observed)))
    pvalue = (1.0 + exceed) / (1.0 + n_resamples)
    return CalibrationTestResult(observed, pvalue, null, "resampling", spec.label, n)
