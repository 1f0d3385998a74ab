"""Paired comparison of several models scored on the same rows: :func:`compare_models`.

Each pair of models gets, for each metric, the difference of the two values on the data, a
paired interval and a p-value of "no difference":

* the AUC by DeLong's test (:mod:`locacal.metrics.delong`), as R's ``pROC::roc.test(...,
  method = "delong", paired = TRUE)``;
* every other metric: the interval by the paired nonparametric bootstrap (one set of resampled
  rows per replicate, shared by all models and all metrics, so that each replicate's
  differences are differences on the same rows; Efron & Tibshirani 1993, §16.4's paired
  design), the p-value by a paired permutation test that swaps the two models' scores within
  randomly chosen rows (exact size when the models are interchangeable), or, with
  ``test="bootstrap"``, by the bootstrap interval inverted. The ECE and ICI, which are not
  differentiable where a calibration gap is 0, get directional bounds from the same
  resamples instead of the basic interval (:mod:`locacal.report._directional`).
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from locacal._repr import figure_html, frame_html, result_html
from locacal._validation import (
    check_aligned,
    check_bool,
    check_choice,
    check_level,
    check_resamples,
    check_scores_labels,
    check_seed,
    plain,
    public_api,
)
from locacal.metrics.delong import delong
from locacal.metrics.registry import METRICS, evaluate
from locacal.report._directional import (
    DIRECTIONAL,
    STORE_MAX,
    DirectionalReplicates,
    directional_bounds,
)
from locacal.report.intervals import _quiet, _report_dropped

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["COLUMNS", "DEFAULT_METRICS", "TESTS", "ModelComparison", "compare_models",
           "paired_bootstrap_bounds", "permutation_pvalue"]

#: Metrics compared by default (registry names): Brier score, log loss, LCS, ICI (Austin &
#: Steyerberg's, R's lowess), CORP's miscalibration MCB, ECE (10 quantile bins), AUC.
DEFAULT_METRICS = ("brier", "log_loss", "lcs", "ici", "mcb", "ece", "auc")
#: Columns of the comparison table.
COLUMNS = ("model_a", "model_b", "metric", "value_a", "value_b", "difference", "lower",
           "upper", "pvalue", "method")
#: Tests of "no difference" for the metrics other than the AUC (``test=``).
TESTS = ("permutation", "bootstrap")


def _named_models(scores: Any) -> dict[str, Any]:
    if isinstance(scores, pd.DataFrame):
        names = [str(c) for c in scores.columns]
        if len(set(names)) < len(names):
            dup = sorted({c for c in names if names.count(c) > 1})
            raise ValueError(f"scores has duplicate model names (columns) {dup}")
        models = {str(c): scores[c] for c in scores.columns}
    elif isinstance(scores, Mapping):
        models = {str(k): v for k, v in scores.items()}
        if len(models) < len(scores):
            raise ValueError(f"scores has model names that coincide as strings: "
                             f"{[plain(k) for k in scores]}")
    else:
        raise TypeError(f"scores must be a dict {{name: scores}} or a DataFrame with one "
                        f"column per model, got {type(scores).__name__}")
    if len(models) < 2:
        raise ValueError(f"scores must hold at least two models to compare, got "
                         f"{len(models)}: {list(models)}")
    lengths = {k: len(v) for k, v in models.items() if hasattr(v, "__len__")}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"scores: the models must score the same rows, but their lengths "
                         f"differ: {lengths}")
    return models


def _check_metrics(metrics: Any) -> tuple[str, ...]:
    if metrics is None:
        return DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        names = tuple(metrics)
    except TypeError:
        raise TypeError(f"metrics must be a sequence of metric names, got "
                        f"{plain(metrics)!r}") from None
    usable = [m for m, spec in METRICS.items() if spec.needs <= {"labels", "threshold"}
              and spec.higher_is_better is not None]
    for m in names:
        if not isinstance(m, str) or m not in usable:
            raise ValueError(f"metrics: unknown or unusable metric {plain(m)!r}; choose among "
                             f"{usable}")
    if not names:
        raise ValueError("metrics is empty: name at least one metric")
    if len(set(names)) < len(names):
        raise ValueError(f"metrics has duplicates: {list(names)}")
    return names


def _pairs(names: list[str], reference: Any) -> list[tuple[int, int]]:
    if reference is None:
        return list(itertools.combinations(range(len(names)), 2))
    if not isinstance(reference, str) or reference not in names:
        raise ValueError(f"reference must be one of the models {names}, got "
                         f"{plain(reference)!r}")
    r = names.index(reference)
    return [(i, r) for i in range(len(names)) if i != r]


def _quantile_level(sorted_reps: np.ndarray, x: float) -> float:
    """The u in [0, 1] at which the type-7 quantile of ``sorted_reps`` equals ``x``: the
    inverse of NumPy's default (linear) quantile, the midpoint of the levels where ``x`` is
    tied with replicates, 0 below and 1 above them all."""
    b = sorted_reps.size
    if b == 1:
        return 0.5 if x == sorted_reps[0] else float(x > sorted_reps[0])
    lo = int(np.searchsorted(sorted_reps, x, side="left"))
    hi = int(np.searchsorted(sorted_reps, x, side="right"))
    if lo < hi:
        return (lo + hi - 1) / 2.0 / (b - 1)
    if lo == 0:
        return 0.0
    if lo == b:
        return 1.0
    left, right = sorted_reps[lo - 1], sorted_reps[lo]
    return (lo - 1 + (x - left) / (right - left)) / (b - 1)


def paired_bootstrap_bounds(difference: np.ndarray, replicates: np.ndarray, level: float
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Basic bootstrap interval and p-value of differences from their paired replicates.

    ``difference`` has shape (J,), ``replicates`` (B, J) (NaN replicates are left out). With
    d̂ the difference on the data, d*_b its replicates and Q their quantile function (type 7,
    NumPy's default), q_lo = Q((1 - level) / 2), q_hi = Q((1 + level) / 2):

    * interval: the basic bootstrap interval [2d̂ - q_hi, 2d̂ - q_lo] (Davison & Hinkley
      1997, §5.2, eq. 5.6). It reads the law of d̂ - d off that of d* - d̂, so it takes off
      the part of the bias that the resamples reproduce; the calibration errors are biased
      upwards, and a difference of two of them is biased by the difference of their biases
      (zero when the models are equally noisy, not otherwise);
    * p-value of H0: d = 0: the interval inverted, i.e. the smallest 1 - level at which the
      basic interval excludes 0. The interval holds 0 iff q_lo <= 2d̂ <= q_hi, so with
      u = Q^{-1}(2d̂) (linear between the sorted replicates, the midpoint over ties),
      p = 2 min(u, 1 - u), floored at 1 / (B + 1) (the resolution of B resamples: p = 1/(B+1)
      reads "p <= 1/(B+1)"). It is the centred bootstrap test, whose null distribution of
      d̂ - d is that of d* - d̂ (Hall & Wilson 1991, Biometrics 47(2), guideline 1), and it
      agrees with the interval exactly: p < 1 - level iff 0 is outside the interval (for
      1 - level >= 1/(B+1)). When every replicate equals d̂ = 0 (identical models) p = 1.
    """
    alpha = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column gives NaN
        q_lo, q_hi = np.nanquantile(replicates, [alpha, 1.0 - alpha], axis=0)
    lower, upper = 2.0 * difference - q_hi, 2.0 * difference - q_lo
    pvalue = np.full(difference.shape, np.nan)
    for j, d in enumerate(difference):
        reps = np.sort(replicates[:, j][np.isfinite(replicates[:, j])])
        if reps.size and np.isfinite(d):
            u = _quantile_level(reps, 2.0 * d)
            pvalue[j] = max(2.0 * min(u, 1.0 - u), 1.0 / (reps.size + 1.0))
    return lower, upper, pvalue


def permutation_pvalue(difference: np.ndarray, permuted: np.ndarray) -> np.ndarray:
    """Two-sided Monte Carlo p-value of a paired permutation test.

    ``difference`` has shape (J,), ``permuted`` (B, J): the differences recomputed after
    each random swap of the models within rows (NaN ones are left out). With d̂ the observed
    difference and d_b the permuted ones, ``p = (1 + #{b: |d_b| >= |d̂|}) / (1 + B)``:
    the observed labelling counts as one of the permutations, which makes the test exact
    (P(p <= alpha) <= alpha under the null) with random rather than all permutations
    (Phipson & Smyth 2010, Stat. Appl. Genet. Mol. Biol. 9(1), eq. 2). The permutation law
    of the difference is symmetric about 0 (swapping every row negates it), so the
    two-sided test compares absolute values. ``|d_b| >= |d̂|`` is taken with a relative
    tolerance of 1e-12 (rounding); identical models give p = 1.
    """
    pvalue = np.full(difference.shape, np.nan)
    for j, d in enumerate(difference):
        perm = permuted[:, j][np.isfinite(permuted[:, j])]
        if perm.size and np.isfinite(d):
            hits = np.count_nonzero(np.abs(perm) >= abs(d) * (1.0 - 1e-12))
            pvalue[j] = (1.0 + hits) / (1.0 + perm.size)
    return pvalue


@dataclass(frozen=True)
class ModelComparison:
    """The result of :func:`compare_models`.

    Attributes
    ----------
    table : DataFrame
        One row per pair and metric, columns :data:`COLUMNS`.
    values : DataFrame
        Each metric (columns) of each model (index ``model``) on the data.
    scores : dict of str to ndarray
        The validated scores of each model, in the order given.
    labels : ndarray
        The 0/1 events.
    level : float
        Confidence level of the intervals.
    n_boot : int
        Bootstrap replicates, and permutations per pair with ``test="permutation"`` (0 with
        ``ci=False``).
    """

    table: pd.DataFrame
    values: pd.DataFrame
    scores: dict[str, np.ndarray]
    labels: np.ndarray
    level: float
    n_boot: int

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: ``model_a, model_b, metric, value_a, value_b, difference, lower,
        upper, pvalue, method`` (a copy)."""
        return self.table.copy()

    def curves(self, method: str = "local", **params: Any) -> dict[str, Any]:
        """The calibration curve of each model (:func:`~locacal.calibration_curve`)."""
        from locacal.curves import calibration_curve

        params.setdefault("band", None)
        return {name: calibration_curve(s, self.labels, method=method, **params)
                for name, s in self.scores.items()}

    def plot(self, ax: Axes | None = None, *, method: str = "local", band: bool = False,
             **params: Any) -> Axes:
        """The calibration curves of all models on one Axes, over the diagonal.

        ``method`` and ``params`` go to :func:`~locacal.calibration_curve`; ``band=True``
        shades each curve's pointwise band. Returns the Axes.
        """
        from locacal.plotting import new_axes, palette, plot_curve

        curves = self.curves(method, band="pointwise" if band else None, **params)
        ax = new_axes(ax)
        for i, (name, curve) in enumerate(curves.items()):
            plot_curve(curve, ax=ax, band=band, label=name, color=palette(i))
        return ax

    def plot_differences(self, ax: Axes | None = None, *, metrics: Sequence[str] | None = None
                         ) -> Axes:
        """Forest plot: each pair's difference and interval, one panel row per metric
        (differences of metrics of different scales share an axis only within a metric, so
        give ``metrics`` to choose them; default: the first metric of the table)."""
        from locacal.plotting import new_axes, palette

        table = self.table
        chosen = [table["metric"].iloc[0]] if metrics is None else list(metrics)
        rows = table[table["metric"].isin(chosen)].reset_index(drop=True)
        ax = new_axes(ax, (5.0, 0.4 * len(rows) + 1.2))
        y = np.arange(len(rows))[::-1]
        for j, metric in enumerate(chosen):
            sel = (rows["metric"] == metric).to_numpy()
            diff, lo, hi = (rows[c].to_numpy()[sel] for c in ("difference", "lower", "upper"))
            ax.errorbar(diff, y[sel], xerr=[diff - lo, hi - diff], fmt="o",
                        color=palette(j), label=metric, capsize=3)
        ax.axvline(0.0, color="0.5", linestyle="--", linewidth=1)
        ax.set_yticks(y, [f"{a} − {b} ({m})" for a, b, m in
                          zip(rows["model_a"], rows["model_b"], rows["metric"], strict=True)])
        ax.set_xlabel(f"difference, {self.level:.0%} interval")
        return ax

    def _repr_html_(self) -> str:
        def draw(ax: Axes) -> None:
            from locacal.plotting import palette, plot_curve

            for i, (name, curve) in enumerate(self.curves().items()):
                plot_curve(curve, ax=ax, band=False, label=name, color=palette(i))

        shown = self.table.drop(columns=["method"]).set_index(["model_a", "model_b",
                                                                "metric"])
        return result_html(
            f"ModelComparison &mdash; {len(self.scores)} models, n = {self.labels.size}, "
            f"{self.level:.0%} intervals",
            frame_html(shown, max_rows=30),
            figure=figure_html(draw, alt="calibration curves of the compared models"))

    def __repr__(self) -> str:
        return (f"ModelComparison(models={list(self.scores)}, n={self.labels.size}, "
                f"metrics={list(self.values.columns)})")


def _bootstrap(names: Sequence[str], scores: list[np.ndarray], labels: np.ndarray,
               n_boot: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """``(n_boot, K, M)`` replicates: each replicate draws one set of rows with replacement
    and evaluates every metric of every model on those rows; and for the ECE and ICI among
    ``names`` the ``(n_boot, K)`` upper and lower derivative replicates of every model on
    the same rows (:mod:`locacal.report._directional`). The ECE and ICI replicates are the
    registry's values, computed with their gaps; the other metrics by ``evaluate``."""
    n = labels.size
    out = np.full((n_boot, len(scores), len(names)), np.nan)
    plain_names = [m for m in names if m not in DIRECTIONAL]
    cols = [names.index(m) for m in plain_names]
    store = n_boot * n <= STORE_MAX
    gaps = {m: [_quiet(lambda m=m, s=s: DirectionalReplicates(m, s, labels, n_boot,
                                                              store=store))
                for s in scores] for m in names if m in DIRECTIONAL}
    again = copy.deepcopy(rng)  # the same resamples, for a second pass
    for b in range(n_boot):
        idx = rng.integers(0, n, size=n)
        y = labels[idx]
        for k, s in enumerate(scores):
            if plain_names:
                row = _quiet(lambda s=s, y=y, idx=idx: evaluate(plain_names, s[idx], y))
                out[b, k, cols] = [row[m] for m in plain_names]
            for m, per_model in gaps.items():
                out[b, k, names.index(m)] = _quiet(lambda r=per_model[k], b=b, idx=idx:
                                                   r.add(b, idx))
    revisit = [r for per_model in gaps.values() for r in per_model if r.second_pass]
    for b in range(n_boot if revisit else 0):
        idx = again.integers(0, n, size=n)
        for r in revisit:
            _quiet(lambda r=r, b=b, idx=idx: r.revisit(b, idx))
    deltas = {m: (np.column_stack([r.upper() for r in per_model]),
                  np.column_stack([r.lower() for r in per_model]))
              for m, per_model in gaps.items()}
    return out, deltas


def _permute(names: Sequence[str], a: np.ndarray, b: np.ndarray, labels: np.ndarray,
             n_perm: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_perm, M)`` differences value(a') - value(b') after swapping a's and b's scores
    in each row independently with probability 1/2 (the labels stay in place)."""
    out = np.full((n_perm, len(names)), np.nan)
    for r in range(n_perm):
        swap = rng.random(labels.size) < 0.5
        a2, b2 = np.where(swap, b, a), np.where(swap, a, b)
        row_a = _quiet(lambda a2=a2: evaluate(names, a2, labels))
        row_b = _quiet(lambda b2=b2: evaluate(names, b2, labels))
        out[r] = [row_a[m] - row_b[m] for m in names]
    return out


@public_api
def compare_models(scores: Any, labels: Any, *, metrics: Sequence[str] | None = None,
                   reference: str | None = None, ci: bool = True, n_boot: int = 500,
                   level: float = 0.95, test: str = "permutation", seed: Any = None
                   ) -> ModelComparison:
    """Paired comparison of several models scored on the same rows.

    For every pair of models (a, b) -- all pairs a before b in the order given, or every
    model against ``reference`` -- and every metric, the difference value(a) - value(b) on
    the data, a paired interval and the p-value of "no difference".

    Parameters
    ----------
    scores : dict or DataFrame
        ``{name: scores}`` or one column per model; at least two models, all of the length
        of ``labels``, with distinct names.
    labels : array-like
        0/1 events, shared by the models (the same rows).
    metrics : sequence of str, optional
        Registry metrics (:data:`locacal.metrics.registry.METRICS`) that need only the labels;
        default :data:`DEFAULT_METRICS`: Brier score, log loss, LCS, ICI, MCB, ECE, AUC.
    reference : str, optional
        Compare every other model with this one (rows ``model_a`` = the other,
        ``model_b`` = ``reference``) instead of all pairs.
    ci : bool, default True
        Compute the bootstrap intervals and the p-values (False: NaN for every metric but
        the AUC, which keeps its DeLong interval and test, which cost nothing).
    n_boot : int, default 500
        Bootstrap replicates, shared by all models and metrics; with
        ``test="permutation"`` also the number of permutations of each pair.
    level : float, default 0.95
        Confidence level of the intervals.
    test : {"permutation", "bootstrap"}, default "permutation"
        The p-value of the metrics other than the AUC: the paired permutation test (exact
        when the two models are interchangeable), or the basic bootstrap interval inverted
        (the p-value then agrees with the interval). See Notes.
    seed : int, Generator or None
        Seed of the bootstrap and the permutations.

    Returns
    -------
    ModelComparison
        ``to_frame()`` gives the tidy table (columns :data:`COLUMNS`), ``plot()`` overlays
        the models' calibration curves, ``plot_differences()`` draws the intervals.

    Notes
    -----
    *AUC*: DeLong et al. (1988) with the fast structural components of Sun & Xu (2014):
    z = (A_a - A_b) / se, se² = var_a + var_b - 2 cov_ab, p = 2 Φ(-``|z|``), interval
    (A_a - A_b) ± z_{(1+level)/2} se; equal to R's ``pROC::roc.test(roc_a, roc_b, method =
    "delong", paired = TRUE)`` (``direction = "<"``) to 1e-12.

    *Other metrics, interval*: paired nonparametric bootstrap. Replicate b draws n rows
    with replacement once; every model's metrics are recomputed on those rows, and
    d*_b = value_a* - value_b*. Interval: the basic bootstrap interval
    [2d̂ - q_hi, 2d̂ - q_lo] (:func:`paired_bootstrap_bounds`). The estimand is the
    difference of the metrics' population values at their fixed settings (bins, nn, span).

    *ECE and ICI, interval*: directional bounds (:mod:`locacal.report._directional`), on
    the same resampled rows. Both metrics are M = Σ_j w_j ``|gap_j|`` (ECE: the 10
    quantile bins, w_j their shares, gap_j = mean label - mean score; ICI: the rows,
    w_j = 1/n, gap_j = g(s_j) - s_j with R's lowess g), not differentiable where a gap is 0,
    as it is everywhere for a calibrated model. With the zero set Ẑ = {j: ``|ĝ_j|`` <=
    κ_n se_j} (se_j the bootstrap sd of gap*_j, κ_n = sqrt(log n)) and s_j = sign ĝ_j,
    replicate b gives the directional derivative of M at the data in the direction of the
    resample (Fang & Santos 2019, Review of Economic Studies 86(1)),
    δ^Z_b = Σ_{j∉Z} (w*_j s_j gap*_j - ŵ_j ``|ĝ_j|``) + Σ_{j∈Z} w*_j ``|gap*_j - ĝ_j|``
    (w*, gap* the resample's own bins or lowess fit), and since
    sign(g) e <= ``|g + e|`` - ``|g|`` <= ``|e|`` for every gap g, M̂ - M lies between
    δ^∅ (every gap non-zero, the data's signs) and δ^Ẑ whenever Ẑ holds the zero gaps
    and the data's signs are right outside it. The interval is
    [d̂ - q_hi(δ^Ẑ_a - δ^∅_b), d̂ - q_lo(δ^∅_a - δ^Ẑ_b)], each end valid at
    (1 - level)/2 by that ordering, whether or not the near-zero gaps are 0 (Fang & Santos's
    own interval, the quantiles of δ^Ẑ_a - δ^Ẑ_b, needs the zero set right, and covered
    0.56-0.90 below). Where no gap is near 0 both ends are the basic interval's. The
    bounds do not know that the two models' unknown biases may cancel: for two calibrated
    models they are wide (2-3 times the basic interval). With ``test="bootstrap"`` the
    ECE and ICI p-values stay the basic interval inverted (they need not agree with the
    bounds). Memory: the ICI's bounds keep 10 bytes per row, resample and model while
    ``n_boot x n`` is at most 2**25 (330 MB a model); above, they refit the resamples in a
    second pass instead (twice the ICI's time, the same bounds to 1e-15).

    *Other metrics, p-value* (``test="permutation"``): paired permutation test of the
    hypothesis that the two models are interchangeable, i.e. that in every row the pair of
    scores (s_a, s_b) is as likely as (s_b, s_a) given the row's label (two equally good
    models in the strong sense: e.g. two fits of one procedure on independent data).
    Permutation r swaps s_a and s_b in each row independently with probability 1/2, keeps
    the labels, and recomputes d_r = value(a') - value(b');
    p = (1 + #{r: ``|d_r| >= |d̂|``}) / (1 + B) (:func:`permutation_pvalue`; Phipson &
    Smyth 2010). Under that hypothesis the observed d̂ is one draw of the permutation law,
    so P(p <= alpha) <= alpha exactly, at any n, for any metric, however biased its plug-in
    estimate is. That is why it is the default: the bootstrap test (``test="bootstrap"``,
    the interval inverted, p < 1 - level exactly when the interval excludes 0) rests on
    d* - d̂ imitating d̂ - d, which fails for calibration errors near 0, where ``|gap|`` is not
    differentiable and each model's error is biased upwards by about its noise: measured
    size 0.00-0.03 for the LCS and MCB (the bootstrap exaggerates the spread of a
    difference of two squared gaps), up to 0.15 for the ECE and 0.10 for the ICI. Its
    limits: the hypothesis is stronger than "equal metric values"; two models with equal
    population ECE but different kinds of error are not interchangeable, and the test can
    reject them more often than alpha. And the p-value no longer inverts the interval: a
    permutation p <= 0.05 and a 95 % interval holding 0 can happen together (the interval
    is then the one to doubt near 0; see below). It costs n_boot more evaluations of every
    metric per pair.

    Measured (benchmarks/coverage_compare_models.py; two models seeing the true logit
    through noise; the docs page ``guide/compare_models`` has the tables with their Monte
    Carlo standard errors): with two exchangeable models, at n = 500 and 2000, 150-300 data
    sets of 40 permutations per cell, the permutation tests of the six metrics reject at
    p <= 0.05 in 0.013-0.070 of the data sets, 0.046 pooled over 5400 tests (exact size
    2/41 = 0.049); with two calibrated models of different sharpness (not interchangeable,
    equal calibration errors) the LCS, ICI, MCB and ECE tests reject in 0.04-0.08 at
    n = 500. DeLong's AUC test 0.039-0.050. When one model is calibrated and
    the other not, the 95 % intervals of the Brier, log loss, LCS, MCB and AUC differences
    cover the truth in 0.90-0.99. The basic intervals of the ICI and ECE covered only
    0.79-0.88 and 0.61-0.78 there (the calibrated model's error is inflated by its noise,
    which biases the difference towards 0, and the resamples reproduce only a part of that
    bias; the percentile interval, a bias correction scaled for an absolute gap near 0 and
    the m-out-of-n bootstrap did no better); the directional bounds cover it in 0.93-1.00
    at n = 500, 2000 and 20000 (ECE 1.00, 0.98, 0.96; ICI 0.93, 0.98, 1.00), at 1.4-2.7
    times the basic interval's width (the ECE at n = 500 is the widest: every bin of the
    over-confident model is then within 1.5 standard errors of the diagonal), and hold 0
    for two equally good models in 0.96-1.00. Weights are not taken.

    Examples
    --------
    >>> import numpy as np, locacal
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 400)
    >>> y = (rng.random(400) < p).astype(int)
    >>> res = locacal.compare_models({"a": p, "b": p ** 1.5}, y, metrics=["brier", "auc"],
    ...                              n_boot=50, seed=1)
    >>> list(res.to_frame()["metric"])
    ['brier', 'auc']
    """
    models = _named_models(scores)
    model_names = list(models)
    metric_names = _check_metrics(metrics)
    pairs = _pairs(model_names, reference)
    ci = check_bool(ci, "ci")
    n_boot = check_resamples(n_boot, "n_boot", minimum=10)
    level = check_level(level)
    test = check_choice(test, TESTS, "test")
    seed = check_seed(seed)
    check_aligned({**{f"scores[{name!r}]": v for name, v in models.items()},
                   "labels": labels})
    checked, y = [], None
    for name, values in models.items():
        s, y_k, _ = check_scores_labels(values, labels, names=(f"scores[{name!r}]", "labels",
                                                               "weights"))
        checked.append(s)
        y = y_k
    assert y is not None

    values = np.array([[evaluate(metric_names, s, y)[m] for m in metric_names]
                       for s in checked])
    boot_names = [m for m in metric_names if m != "auc"]
    replicates, deltas = None, {}
    rng = np.random.default_rng(seed)
    if ci and boot_names:
        replicates, deltas = _bootstrap(boot_names, checked, y, n_boot, rng)
        _report_dropped(replicates.reshape(n_boot, -1),
                        [f"{k}:{m}" for k in model_names for m in boot_names], "bootstrap")
        for m, (up, _) in deltas.items():
            _report_dropped(up, [f"{k}:{m} (directional)" for k in model_names],
                            "bootstrap")
    fit = delong(np.vstack(checked), y) if "auc" in metric_names and 0 < y.sum() < y.size \
        else None
    z = norm.ppf((1.0 + level) / 2.0)

    rows = []
    for a, b in pairs:
        if replicates is not None:
            cols = [metric_names.index(m) for m in boot_names]
            diff = values[a, cols] - values[b, cols]
            lower, upper, pvalue = paired_bootstrap_bounds(
                diff, replicates[:, a, :] - replicates[:, b, :], level)
            for m, (up, lo) in deltas.items():  # the ECE and ICI: directional bounds
                j = boot_names.index(m)
                lo_j, hi_j = directional_bounds(diff[j:j + 1], up[:, [a]] - lo[:, [b]],
                                                lo[:, [a]] - up[:, [b]], level)
                lower[j], upper[j] = lo_j[0], hi_j[0]
            if test == "permutation":
                permuted = _permute(boot_names, checked[a], checked[b], y, n_boot, rng)
                _report_dropped(permuted, list(boot_names), "permutation")
                pvalue = permutation_pvalue(diff, permuted)
            boot = {m: (lower[j], upper[j], pvalue[j]) for j, m in enumerate(boot_names)}
        else:
            boot = {}
        for j, m in enumerate(metric_names):
            d = values[a, j] - values[b, j]
            if m == "auc":
                lo = hi = p = np.nan
                if fit is not None:
                    d, se = fit.difference(a, b)
                    lo, hi = d - z * se, d + z * se
                    p = 2.0 * norm.sf(abs(d) / se) if se > 0 else (1.0 if d == 0 else 0.0)
                method = "delong"
            else:
                lo, hi, p = boot.get(m, (np.nan, np.nan, np.nan))
                interval = ("paired bootstrap (directional bounds)" if m in DIRECTIONAL
                            else "paired bootstrap (basic)")
                method = ("none" if not ci else interval if test == "bootstrap"
                          else f"{interval}, permutation")
            rows.append((model_names[a], model_names[b], m, values[a, j], values[b, j], d,
                         lo, hi, p, method))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    frame = pd.DataFrame(values, index=pd.Index(model_names, name="model"),
                         columns=list(metric_names))
    return ModelComparison(table=table, values=frame,
                           scores=dict(zip(model_names, checked, strict=True)), labels=y,
                           level=level, n_boot=n_boot if ci else 0)
