"""Relative weights and frequency weights combined: what point estimates, intervals and the
bootstrap of observations need.

A row with relative weight ``w`` (``weights=``: exposure, survey or importance weight; only
``w / sum(w)`` matters) and frequency weight ``f`` (``frequency_weights=``: a count, the row
stands for ``f`` identical observations) is the same as ``f`` copies of the row with weight
``w``. Every result with frequency weights therefore equals the result on the expanded rows,
and this module says how to get it without expanding them:

* point estimates use the combined weight ``w f`` (:attr:`Weighting.point`);
* a sum of squared weights over the expanded rows is ``sum f w^2``, so Kish's effective size
  of the expanded rows is ``n_e = (sum f w)^2 / sum f w^2`` (Kish 1965, section 11.7); with
  frequency weights only it is the number of observations ``sum f``
  (:attr:`Weighting.square`, :attr:`Weighting.n_eff`);
* the nonparametric bootstrap of the expanded rows draws ``N = sum f`` observations with
  replacement, each with probability ``1 / N``; the numbers of draws that land in the rows'
  groups are multinomial ``(N; f / N)`` (:func:`bootstrap_counts`), which is the same
  distribution of resampled data sets, because the observations of a row are identical.

Reference: L. Kish (1965), *Survey Sampling*, Wiley, section 11.7; B. Efron and
R. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman & Hall, ch. 6.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from locacal._validation import check_aligned, check_frequency_weights, check_weights

__all__ = ["Weighting", "bootstrap_counts", "consistency_counts", "split_by_label",
           "weighting"]


@dataclass(frozen=True, eq=False)
class Weighting:
    """Validated relative and frequency weights of n rows.

    ``relative``: ``w / max(w)`` or None (unit); ``counts``: ``f`` (float64 whole numbers) or
    None (each row one observation).
    """

    relative: np.ndarray | None
    counts: np.ndarray | None
    n: int

    @property
    def point(self) -> np.ndarray | None:
        """Weights of the point estimates, ``w f`` (None: all 1). Relative: only their
        shares matter."""
        if self.counts is None:
            return self.relative
        return self.counts if self.relative is None else self.relative * self.counts

    @property
    def square(self) -> np.ndarray | None:
        """Each row's contribution to ``sum w^2`` over the expanded rows, ``f w^2`` (None:
        all 1), on the scale of :attr:`point` (so ``sum point`` / ``sum square`` is the
        expanded rows' ``sum w`` / ``sum w^2``)."""
        if self.counts is None:
            return None if self.relative is None else self.relative * self.relative
        return self.counts if self.relative is None else (
            self.counts * self.relative * self.relative)

    @property
    def observations(self) -> float:
        """Number of observations: ``sum f``, or n."""
        return float(self.n) if self.counts is None else float(self.counts.sum())

    @property
    def n_eff(self) -> float:
        """Kish's effective size of the expanded rows, ``(sum f w)^2 / sum f w^2``."""
        point, square = self.point, self.square
        if point is None:
            return float(self.n)
        total = float(point.sum())
        return total * total / float(square.sum())

    def kish_weights(self) -> np.ndarray | None:
        """Weights summing to :attr:`n_eff` that act as frequency weights in a likelihood or
        a chi-square count: ``w f sum(w f) / sum(f w^2)``; exactly ``f`` with frequency
        weights only, None without any weights."""
        if self.relative is None:
            return self.counts
        point, square = self.point, self.square
        return point * (float(point.sum()) / float(square.sum()))


def weighting(weights: Any, frequency_weights: Any, n: int, *,
              names: tuple[str, str] = ("weights", "frequency_weights"),
              aligned: dict[str, Any] | None = None) -> Weighting:
    """Validate ``weights`` (relative, :func:`~locacal._validation.check_weights`) and
    ``frequency_weights`` (counts, :func:`~locacal._validation.check_frequency_weights`) of
    ``n`` rows; ``aligned``: the call's other inputs by name, whose pandas indexes the
    frequency weights must share (:func:`~locacal._validation.check_aligned`)."""
    if aligned is not None:
        check_aligned({**aligned, names[1]: frequency_weights})
    relative = check_weights(weights, n, names[0])
    counts = check_frequency_weights(frequency_weights, n, names[1])
    if counts is not None and relative is not None:
        if not (relative * counts).any():
            raise ValueError(f"{names[0]} x {names[1]} are all zero: no observation has "
                             "weight")
        # w / max(w) over the observations, as check_weights scales the expanded rows
        relative = relative / float(relative[counts > 0].max())
    return Weighting(relative, counts, n)


def bootstrap_counts(rng: np.random.Generator, counts: np.ndarray | None, n: int,
                     size: int) -> np.ndarray:
    """(size, n) numbers of times each row's observations are drawn in ``size`` bootstrap
    resamples of the observations: multinomial ``(N; f / N)`` with ``N = sum f``, the law of
    the expanded rows' bootstrap grouped by row (``f = 1``: the ordinary bootstrap)."""
    if counts is None:
        return rng.multinomial(n, np.full(n, 1.0 / n), size=size)
    total = int(counts.sum())
    return rng.multinomial(total, counts / counts.sum(), size=size)


def split_by_label(scores: np.ndarray, weights: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Grouped rows ready for a consistency draw: every row twice, first as an event row
    (label 1) then as a non-event row (label 0), with its score and relative weight; a draw
    gives their counts (:func:`consistency_counts`)."""
    labels = np.concatenate([np.ones_like(scores), np.zeros_like(scores)])
    both = None if weights is None else np.concatenate([weights, weights])
    return np.concatenate([scores, scores]), labels, both


def consistency_counts(rng: np.random.Generator, scores: np.ndarray,
                       counts: np.ndarray) -> np.ndarray:
    """Frequency weights of :func:`split_by_label`'s rows in one consistency draw: each of a
    row's f observations draws its own label, D ~ Bernoulli(s), so the row holds
    Binomial(f, s) events and the rest non-events (the expanded rows' draw, grouped)."""
    events = rng.binomial(counts.astype(np.int64), scores).astype(np.float64)
    return np.concatenate([events, counts - events])
