r"""Decision curves (net benefit) and Murphy diagrams (elementary scores), with the part of
each that miscalibration costs.

A risk score s is used by treating a patient (or pricing a policy, flagging a claim, ...) when
:math:`s \ge t`. Writing :math:`W = \sum_i w_i` and, for the rule "treat if :math:`x_i \ge t`",

.. math::

    \mathrm{TP}(t) = \sum_i w_i y_i \mathbf 1\{x_i \ge t\},\qquad
    \mathrm{FP}(t) = \sum_i w_i (1 - y_i) \mathbf 1\{x_i \ge t\},\qquad
    \mathrm{FN}(t) = \sum_i w_i y_i \mathbf 1\{x_i < t\},

two summaries of the same decisions are computed at every threshold t in (0, 1):

* the **net benefit** (Vickers & Elkin 2006), the benefit of the true positives net of the
  harm of the false positives, weighted by the odds of the threshold,

  .. math:: \mathrm{NB}(t) = \frac{\mathrm{TP}(t)}{W} - \frac{\mathrm{FP}(t)}{W}\,
     \frac{t}{1 - t};

* the **mean elementary score** of the forecast for the threshold t (Ehm, Gneiting, Jordan &
  Krüger 2016, eq. 5 for the mean functional: :math:`S_t(x, y) = (\mathbf 1\{y < t\} -
  \mathbf 1\{x < t\})(t - y)`), which for a 0/1 outcome is the cost-weighted
  misclassification rate

  .. math:: \bar S(t) = \frac{t\,\mathrm{FP}(t) + (1 - t)\,\mathrm{FN}(t)}{W}.

They are one quantity in two units: with :math:`\bar y = \sum w_i y_i / W` the event rate,
:math:`\bar S(t) = (1 - t)\,(\bar y - \mathrm{NB}(t))`. The elementary scores mix to the
Brier score, :math:`(x - y)^2 = 2 \int_0^1 S_t(x, y)\,dt`, so the Murphy diagram (Ehm et al.
2016, section 3.3) is the Brier score spread over the thresholds.

**Tie rule.** A score equal to the threshold is treated (``>=``), as in ``dcurves`` (1.1.7,
``risks >= threshold``) and in Ehm et al.'s :math:`\mathbf 1\{x < t\}` (a forecast at the
threshold counts as a "treat"). Scores 0 and 1 need no special case because thresholds lie in
the open interval (0, 1): a score 0 is never treated, a score 1 always.

**Decomposition by recalibration.** Let :math:`\hat s` be the CORP recalibration of s, the
isotonic (PAV) regression of the labels on the scores with ties pooled
(:func:`locacal.metrics.corp_decomposition`; Dimitriadis, Gneiting & Jordan 2021). For every
threshold the set :math:`\{\hat s \ge t\}` is the best upper set of the sorted scores for the
elementary score :math:`S_t` (each PAV block's suffixes have a mean at most the block's and
its prefixes at least, so no partial block improves on whole blocks), hence the best cutoff
rule "treat if :math:`s \ge c`" over all c has net benefit :math:`\mathrm{NB}_{\hat s}(t)`.
The split

.. math::

    \bar S_s(t) = \underbrace{\bar S_s(t) - \bar S_{\hat s}(t)}_{\mathrm{MCB}_t}
    - \underbrace{(\bar S_{\bar y}(t) - \bar S_{\hat s}(t))}_{\mathrm{DSC}_t}
    + \underbrace{\bar S_{\bar y}(t)}_{\mathrm{UNC}_t}

is CORP's decomposition at one threshold: :math:`\mathrm{MCB}_t \ge 0` and
:math:`\mathrm{DSC}_t \ge 0` at every t, both are 0 where the scores are already isotonic
(:math:`\hat s = s`), and :math:`2\int_0^1 \mathrm{MCB}_t\,dt` is CORP's Brier MCB (the
same for DSC and UNC) because the integral of the elementary scores is half the Brier score.
In net-benefit units the miscalibration term is

.. math:: \mathrm{NB}_{\hat s}(t) - \mathrm{NB}_s(t) = \frac{\mathrm{MCB}_t}{1 - t},

the net benefit lost at threshold t by using the score's own threshold instead of the best
cutoff on the same score (the in-sample gain of recalibrating; in sample it is optimistic,
as the PAV fit is fitted on the data it is judged on). Its integral is *not* MCB/2: the
identity holds in elementary-score units, where :math:`\int_0^1 (1 - t)\,
(\mathrm{NB}_{\hat s} - \mathrm{NB}_s)\,dt = \mathrm{MCB} / 2`.

Computation: per model one sort of the scores and cumulative sums of the weighted events and
non-events over the distinct scores (and over the PAV blocks, which are runs of the same
order); each threshold is then a binary search, O((n + T) log n) for T thresholds.

References
----------
Vickers, A. J. and Elkin, E. B. (2006). Decision curve analysis: a novel method for
evaluating prediction models. *Medical Decision Making* 26(6), 565-574.
Ehm, W., Gneiting, T., Jordan, A. and Krüger, F. (2016). Of quantiles and expectiles:
consistent scoring functions, Choquet representations and forecast rankings. *JRSS B* 78(3),
505-562.
Dimitriadis, T., Gneiting, T. and Jordan, A. I. (2021). Stable reliability diagrams for
probabilistic classifiers. *PNAS* 118(8), e2016191118.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._validation import (
    as_1d_float,
    check_bool,
    check_frequency_weights,
    check_scores_labels,
    plain,
    positive_weight_rows,
    public_api,
)
from locacal.metrics.corp import TiedScores

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["DecisionCurve", "MurphyDiagram", "decision_curve", "murphy_diagram"]

#: dcurves' default thresholds without 0 (a threshold must lie in the open interval (0, 1)).
DECISION_THRESHOLDS = np.arange(1, 100) / 100.0
#: The Murphy diagram's default thresholds: the midpoints of 200 equal steps of (0, 1), so
#: that twice a column's mean is the midpoint rule for twice its integral.
MURPHY_THRESHOLDS = (np.arange(200) + 0.5) / 200.0
#: Name of the model when ``scores`` is one unnamed array.
DEFAULT_MODEL = "model"


# --- input ---------------------------------------------------------------------------------


def check_thresholds(thresholds: Any, default: np.ndarray) -> np.ndarray:
    """Thresholds as a sorted float array without duplicates, each in the open interval
    (0, 1); ``None`` gives ``default``."""
    if thresholds is None:
        return default
    if isinstance(thresholds, int | float | np.number) and not isinstance(thresholds, bool):
        thresholds = [thresholds]
    t = as_1d_float(thresholds, "thresholds")
    outside = ~((t > 0.0) & (t < 1.0))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"thresholds must lie in the open interval (0, 1) (net benefit "
                         f"weighs false positives by t / (1 - t)); position {i} holds "
                         f"{plain(t[i])!r}")
    return np.unique(t)


def _models(scores: Any) -> dict[str, Any]:
    """``{name: scores}``: a mapping or the columns of a DataFrame, else one model (named by
    a pandas Series' name, or :data:`DEFAULT_MODEL`)."""
    if isinstance(scores, pd.DataFrame):
        models = {str(c): scores[c] for c in scores.columns}
    elif isinstance(scores, Mapping):
        models = {str(k): v for k, v in scores.items()}
    else:
        name = getattr(scores, "name", None) if isinstance(scores, pd.Series) else None
        return {DEFAULT_MODEL if name is None else str(name): scores}
    if not models:
        raise ValueError("scores is an empty mapping or DataFrame: give at least one model")
    return models


@dataclass(frozen=True)
class _Sample:
    """One model's validated rows of positive weight (``w`` None for unit weights)."""

    s: np.ndarray
    y: np.ndarray
    w: np.ndarray | None


def _samples(scores: Any, labels: Any, weights: Any,
             frequency_weights: Any) -> dict[str, _Sample]:
    """Validate every model against the same labels and weights; the case weight of a row is
    its relative weight times its count (rows of weight 0 leave)."""
    out = {}
    for k, (name, values) in enumerate(_models(scores).items()):
        label = "scores" if k == 0 and not isinstance(scores, Mapping | pd.DataFrame) \
            else f"scores[{name!r}]"
        s, y, w = check_scores_labels(values, labels, weights, warn_one_class=k == 0,
                                      names=(label, "labels", "weights"))
        f = check_frequency_weights(frequency_weights, s.size)
        if f is not None:
            w = f if w is None else w * f
        s, y, w = positive_weight_rows(s, y, w)
        if s.size == 0:
            raise ValueError("weights times frequency_weights are zero on every row")
        out[name] = _Sample(s, y, w)
    return out


# --- the sums ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Decisions:
    """Weighted TP, FP, FN of the rule "treat if forecast >= t" at each threshold."""

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray


def _rule(values: np.ndarray, head_pos: np.ndarray, tail_pos: np.ndarray,
          tail_neg: np.ndarray, t: np.ndarray) -> _Decisions:
    """``values``: non-decreasing forecast per group; ``head_*``/``tail_*``: the weighted
    events (non-events) of the groups before / from each position (length groups + 1)."""
    k = np.searchsorted(values, t, side="left")  # first group with value >= t
    return _Decisions(tp=tail_pos[k], fp=tail_neg[k], fn=head_pos[k])


@dataclass(frozen=True)
class _Terms:
    """Everything per threshold for one model, in sums (divide by ``total``)."""

    total: float
    rate: float
    raw: _Decisions
    recalibrated: _Decisions  # the raw rule when not asked for
    constant: _Decisions


def _terms(sample: _Sample, t: np.ndarray, *, recalibrate: bool) -> _Terms:
    """One sort, the pooled ties and (with ``recalibrate``) their PAV fit (CORP's,
    :class:`TiedScores`), cumulative sums; then the rules "s >= t", "ŝ >= t" and "ȳ >= t" at
    every threshold. The order of tied scores is irrelevant (their sums are pooled), so the
    sort need not be stable."""
    order = np.argsort(sample.s)
    s = sample.s[order]
    y = sample.y[order]
    w = None if sample.w is None else sample.w[order]
    groups = TiedScores.from_sorted(s, w)
    pos = np.add.reduceat(y if w is None else w * y, groups.starts)
    neg = np.add.reduceat(1.0 - y if w is None else w * (1.0 - y), groups.starts)
    head_pos = np.concatenate([[0.0], np.cumsum(pos)])
    tail_pos = np.append(np.cumsum(pos[::-1])[::-1], 0.0)
    tail_neg = np.append(np.cumsum(neg[::-1])[::-1], 0.0)
    # the PAV fit is non-decreasing in the order of the groups
    fitted = groups.recalibrate(pos) if recalibrate else groups.values
    total = float(groups.weight.sum())
    events = float(head_pos[-1])
    rate = events / total
    treat_all = t <= rate
    constant = _Decisions(tp=np.where(treat_all, events, 0.0),
                          fp=np.where(treat_all, total - events, 0.0),
                          fn=np.where(treat_all, 0.0, events))
    return _Terms(total, rate, _rule(groups.values, head_pos, tail_pos, tail_neg, t),
                  _rule(fitted, head_pos, tail_pos, tail_neg, t), constant)


def _net_benefit(d: _Decisions, total: float, t: np.ndarray) -> np.ndarray:
    return d.tp / total - d.fp / total * (t / (1.0 - t))


def _elementary(d: _Decisions, total: float, t: np.ndarray) -> np.ndarray:
    return (t * d.fp + (1.0 - t) * d.fn) / total


def _excess(worse: _Decisions, best: _Decisions, total: float, t: np.ndarray) -> np.ndarray:
    """S̄_worse(t) - S̄_best(t) from the differences of the sums (exact integers without
    weights). ``best`` is the PAV rule, optimal among the upper sets of the sorted scores at
    every t, so the exact difference is >= 0 and a negative value is rounding: set to 0."""
    diff = (t * (worse.fp - best.fp) + (1.0 - t) * (worse.fn - best.fn)) / total
    return np.maximum(diff, 0.0)


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionCurve:
    """Net benefit of one or several models over thresholds (:func:`decision_curve`).

    ``table`` is tidy: one row per model and threshold with ``model, threshold,
    net_benefit, treat_all, treat_none`` and, when decomposed, ``net_benefit_recalibrated,
    miscalibration_loss, elementary_mcb``. ``prevalence`` is the (weighted) event rate.
    """

    table: pd.DataFrame
    prevalence: float
    decomposed: bool

    @property
    def models(self) -> list[str]:
        """The models, in the order given."""
        return list(dict.fromkeys(self.table["model"]))

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`table`."""
        return self.table.copy()

    def plot(self, ax: Axes | None = None, *, recalibrated: bool | None = None) -> Axes:
        """Net benefit of each model against the threshold, with treat-all and treat-none;
        with the decomposition (``recalibrated`` defaults to it), each model's recalibrated
        net benefit dashed and the miscalibration loss shaded between. Returns the Axes
        (:func:`locacal.plotting.plot_decision_curve`)."""
        from locacal.plotting import plot_decision_curve

        if recalibrated is None:
            recalibrated = self.decomposed
        return plot_decision_curve(self.table, ax=ax, recalibrated=recalibrated)

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax), alt="decision curve",
                             figsize=(4.4, 3.4))
        title = (f"Decision curve: {len(self.models)} model(s), prevalence "
                 f"{self.prevalence:.4g}")
        return result_html(title, frame_html(self.table, index=False), figure=figure)


@dataclass(frozen=True)
class MurphyDiagram:
    """Mean elementary scores of one or several models over thresholds
    (:func:`murphy_diagram`).

    ``table`` is tidy: one row per model and threshold with ``model, threshold,
    elementary_score`` and, when decomposed, ``mcb, dsc, unc`` (``elementary_score = mcb -
    dsc + unc``). Twice the integral of a column over (0, 1) is the Brier score (or CORP's
    term of the same name).
    """

    table: pd.DataFrame
    decomposed: bool

    @property
    def models(self) -> list[str]:
        """The models, in the order given."""
        return list(dict.fromkeys(self.table["model"]))

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`table`."""
        return self.table.copy()

    def plot(self, ax: Axes | None = None) -> Axes:
        """Elementary score of each model against the threshold (and, decomposed, the
        miscalibration term dotted). Returns the Axes
        (:func:`locacal.plotting.plot_murphy_diagram`)."""
        from locacal.plotting import plot_murphy_diagram

        return plot_murphy_diagram(self.table, ax=ax)

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax), alt="Murphy diagram",
                             figsize=(4.4, 3.4))
        title = f"Murphy diagram: {len(self.models)} model(s)"
        return result_html(title, frame_html(self.table, index=False), figure=figure)


# --- public functions ----------------------------------------------------------------------


@public_api
def decision_curve(scores: Any, labels: Any, *, thresholds: Any = None,
                   weights: Any = None, frequency_weights: Any = None,
                   decompose: bool = False) -> DecisionCurve:
    r"""Decision curve: net benefit of treating when the score reaches each threshold.

    .. math:: \mathrm{NB}(t) = \frac{\mathrm{TP}(t)}{W} - \frac{\mathrm{FP}(t)}{W}\,
       \frac{t}{1-t},\quad \text{treat all: } \bar y - (1 - \bar y)\frac{t}{1-t},
       \quad \text{treat none: } 0,

    with TP(t), FP(t) the weighted true and false positives of "treat if
    :math:`s \ge t`" and W the total weight (Vickers & Elkin 2006, eq. 1). A score equal to
    the threshold is treated; this equals the Python package ``dcurves`` (1.1.7,
    ``dca(...)``'s ``net_benefit`` of the model, ``all`` and ``none`` rows) to 1e-12.

    Parameters
    ----------
    scores : array-like, dict of array-like, or DataFrame
        Scores in [0, 1]; several models as a mapping ``name -> scores`` or the columns of a
        DataFrame (all against the same labels).
    labels : array-like
        0/1 events.
    thresholds : array-like, optional
        Thresholds in the open interval (0, 1); sorted and de-duplicated. Default 0.01,
        0.02, ..., 0.99 (dcurves' grid without 0).
    weights : array-like, optional
        Relative case weights: the curve depends on them only through w / sum(w).
    frequency_weights : array-like, optional
        Whole-number counts (a row stands for that many observations): the result equals
        the call on the expanded rows. With ``weights`` too, a row weighs their product.
    decompose : bool, default False
        Add, per threshold, the net benefit of the CORP (isotonic, PAV) recalibration of the
        scores and what miscalibration costs (see below).

    Returns
    -------
    DecisionCurve
        ``.table`` (also ``.to_frame()``): columns ``model, threshold, net_benefit,
        treat_all, treat_none``; with ``decompose=True`` also

        * ``net_benefit_recalibrated``: :math:`\mathrm{NB}_{\hat s}(t)`, the net benefit of
          "treat if :math:`\hat s \ge t`" with :math:`\hat s` the PAV recalibration (equal
          to the best net benefit of any cutoff rule "treat if :math:`s \ge c`" at this t);
        * ``miscalibration_loss``: :math:`\mathrm{NB}_{\hat s}(t) - \mathrm{NB}_s(t) \ge 0`,
          in net-benefit units (true positives per patient): the net benefit lost at t
          because the scores are miscalibrated, 0 when they are isotonic in the labels;
        * ``elementary_mcb``: the same loss in elementary-score units,
          :math:`\mathrm{MCB}_t = (1 - t)\,` ``miscalibration_loss``, the miscalibration
          term of the mean elementary score at t (see :func:`murphy_diagram`).

        ``.plot(ax=None)`` draws all models in one figure; ``.prevalence``.

    Notes
    -----
    *Which reading of "twice its integral equals CORP's MCB".* The decomposition splits the
    mean elementary score :math:`\bar S_s(t) = (1 - t)(\bar y - \mathrm{NB}_s(t))` (Ehm et
    al. 2016) by the recalibration, so the identity :math:`2 \int_0^1 \mathrm{MCB}_t\,dt =
    \mathrm{MCB}` (CORP's Brier miscalibration, :func:`corp_decomposition`) holds for
    ``elementary_mcb``; it is tested on that column. The column in net-benefit units,
    ``miscalibration_loss`` = ``elementary_mcb`` / (1 - t), is what a clinician reads off a
    decision curve, but its integral is not MCB / 2 (the factor 1/(1 - t) weighs high
    thresholds more). Both are kept; both are >= 0 at every threshold and 0 for scores
    already isotonic in the labels. The recalibration is fitted on the data it is judged on,
    so the loss is the in-sample gain of recalibrating; judge it on held-out data (e.g. the
    calibration and test splits of :func:`locacal.split`) before acting on it.

    Scores 0 and 1 need no special rule (dcurves nudges them by machine epsilon to the same
    effect): for t in (0, 1) a score 0 is never treated and a score 1 always.

    References
    ----------
    Vickers & Elkin (2006), *Medical Decision Making* 26(6), 565-574; Ehm, Gneiting, Jordan &
    Krüger (2016), *JRSS B* 78(3), 505-562; Dimitriadis, Gneiting & Jordan (2021), *PNAS*
    118(8). Module :mod:`locacal.metrics.decision` gives the derivations.

    Examples
    --------
    >>> from locacal import decision_curve
    >>> dc = decision_curve([0.1, 0.3, 0.3, 0.5, 0.7, 0.9], [0, 0, 1, 1, 0, 1],
    ...                     thresholds=[0.25, 0.6], decompose=True)
    >>> dc.table[["threshold", "net_benefit", "net_benefit_recalibrated",
    ...           "miscalibration_loss"]].round(4)
       threshold  net_benefit  net_benefit_recalibrated  miscalibration_loss
    0       0.25       0.3889                    0.3889                 0.00
    1       0.60      -0.0833                    0.1667                 0.25

    At t = 0.6 the scores 0.7 (a non-event) and 0.9 are treated; the PAV recalibration pools
    0.5 and 0.7 to 0.5, so only 0.9 is treated, which gains 0.25 true positives per patient.
    """
    t = check_thresholds(thresholds, DECISION_THRESHOLDS)
    decompose = check_bool(decompose, "decompose")
    samples = _samples(scores, labels, weights, frequency_weights)
    frames = []
    prevalence = np.nan
    for name, sample in samples.items():
        terms = _terms(sample, t, recalibrate=decompose)
        prevalence = terms.rate
        columns: dict[str, Any] = {
            "model": name, "threshold": t,
            "net_benefit": _net_benefit(terms.raw, terms.total, t),
            "treat_all": terms.rate - (1.0 - terms.rate) * (t / (1.0 - t)),
            "treat_none": np.zeros(t.size),
        }
        if decompose:
            mcb = _excess(terms.raw, terms.recalibrated, terms.total, t)
            columns["net_benefit_recalibrated"] = _net_benefit(terms.recalibrated,
                                                               terms.total, t)
            columns["miscalibration_loss"] = mcb / (1.0 - t)
            columns["elementary_mcb"] = mcb
        frames.append(pd.DataFrame(columns))
    return DecisionCurve(pd.concat(frames, ignore_index=True), float(prevalence), decompose)


@public_api
def murphy_diagram(scores: Any, labels: Any, *, thresholds: Any = None, weights: Any = None,
                   frequency_weights: Any = None, decompose: bool = False) -> MurphyDiagram:
    r"""Murphy diagram: the mean elementary score of the scores at each threshold.

    For a 0/1 outcome and threshold :math:`\theta \in (0, 1)` the elementary score of the
    mean (Ehm, Gneiting, Jordan & Krüger 2016, eq. 5) is

    .. math:: S_\theta(x, y) = (\mathbf 1\{y < \theta\} - \mathbf 1\{x < \theta\})
       (\theta - y) = \theta\,\mathbf 1\{y = 0,\ x \ge \theta\}
       + (1 - \theta)\,\mathbf 1\{y = 1,\ x < \theta\},

    the cost of the decision "act if :math:`x \ge \theta`" when a false alarm costs
    :math:`\theta` and a miss :math:`1 - \theta`; the diagram is its weighted mean
    :math:`\bar S(\theta)` over the rows.

    **Scaling.** :math:`(x - y)^2 = 2 \int_0^1 S_\theta(x, y)\,d\theta`, so twice the area
    under the diagram is the Brier score (and under a decomposition column, CORP's term of
    the same name). The diagram is piecewise linear in :math:`\theta` with jumps at the
    scores, so the midpoint rule on the intervals between consecutive distinct scores gives
    that integral exactly.

    **Tie rule.** A score equal to the threshold acts (:math:`\mathbf 1\{x < \theta\} = 0`),
    the rule of :func:`decision_curve`; then :math:`\bar S(\theta) = (1 - \theta)\,(\bar y -
    \mathrm{NB}(\theta))` with NB the net benefit. A lower elementary score is better at that
    threshold; a model whose diagram lies below another's at every threshold is preferred
    by every consistent scoring function of the mean (Ehm et al. 2016, Corollary 2b).

    Parameters
    ----------
    scores : array-like, dict of array-like, or DataFrame
        Scores in [0, 1]; several models as a mapping ``name -> scores`` or DataFrame
        columns.
    labels : array-like
        0/1 events.
    thresholds : array-like, optional
        Thresholds in the open interval (0, 1) (sorted, de-duplicated); default 0.0025,
        0.0075, ..., 0.9975, the midpoints of 200 equal steps, so that twice the mean of a
        column approximates twice its integral (the Brier score, or CORP's term) by the
        midpoint rule.
    weights, frequency_weights : array-like, optional
        Relative case weights and whole-number counts, as in :func:`decision_curve`.
    decompose : bool, default False
        Add CORP's decomposition at each threshold: ``mcb`` (:math:`\bar S_s - \bar
        S_{\hat s}`, with :math:`\hat s` the PAV recalibration), ``dsc`` (:math:`\bar
        S_{\bar y} - \bar S_{\hat s}`), ``unc`` (:math:`\bar S_{\bar y}`, the score of the
        constant forecast :math:`\bar y`), with ``elementary_score = mcb - dsc + unc``;
        ``mcb`` and ``dsc`` are >= 0.

    Returns
    -------
    MurphyDiagram
        ``.table`` (``.to_frame()``): ``model, threshold, elementary_score`` (and ``mcb,
        dsc, unc``); ``.plot(ax=None)``.

    References
    ----------
    Ehm, Gneiting, Jordan & Krüger (2016), *JRSS B* 78(3), 505-562, section 3 (Murphy
    diagrams); Dimitriadis, Gneiting & Jordan (2021), *PNAS* 118(8) (CORP).

    Examples
    --------
    >>> from locacal import murphy_diagram
    >>> md = murphy_diagram([0.1, 0.3, 0.3, 0.5, 0.7, 0.9], [0, 0, 1, 1, 0, 1],
    ...                     thresholds=[0.25, 0.6], decompose=True)
    >>> md.table.drop(columns="model").round(4)
       threshold  elementary_score  mcb     dsc    unc
    0       0.25            0.0833  0.0  0.0417  0.125
    1       0.60            0.2333  0.1  0.0667  0.200
    """
    t = check_thresholds(thresholds, MURPHY_THRESHOLDS)
    decompose = check_bool(decompose, "decompose")
    samples = _samples(scores, labels, weights, frequency_weights)
    frames = []
    for name, sample in samples.items():
        terms = _terms(sample, t, recalibrate=decompose)
        columns: dict[str, Any] = {
            "model": name, "threshold": t,
            "elementary_score": _elementary(terms.raw, terms.total, t),
        }
        if decompose:
            columns["mcb"] = _excess(terms.raw, terms.recalibrated, terms.total, t)
            columns["dsc"] = _excess(terms.constant, terms.recalibrated, terms.total, t)
            columns["unc"] = _elementary(terms.constant, terms.total, t)
        frames.append(pd.DataFrame(columns))
    return MurphyDiagram(pd.concat(frames, ignore_index=True), decompose)
