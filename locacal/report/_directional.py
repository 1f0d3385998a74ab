r"""Directional bounds for a difference of two ECEs or ICIs: the paired bootstrap of the
directional derivative (Fang & Santos 2019), bounded over the gaps that may be 0.

Both metrics are ``M = phi(w, gap) = sum_j w_j |gap_j|`` (:mod:`locacal.metrics._gaps`):
bins and their shares for the ECE, rows and 1 / n for the ICI. ``|.|`` is not
differentiable at 0, and a calibrated model has every gap at 0, where the plug-in
``sum_j w_j |gap_hat_j|`` is biased upwards by about 0.8 standard error per gap; the basic
bootstrap of ``M* - M_hat`` reproduces only a part of that bias, so its interval for a
difference misses when one model is calibrated and the other not. phi is *directionally*
(Hadamard) differentiable, with derivative at (w, gap) in the direction (u, h)

.. math::

    \phi'_{w,gap}(u, h) = \sum_{j:\, gap_j \ne 0} \big(w_j \operatorname{sign}(gap_j)\,h_j
        + u_j |gap_j|\big) + \sum_{j:\, gap_j = 0} w_j |h_j|,

and ``sqrt(n)(M_hat - M)`` tends in law to ``phi'(U, H)``, (U, H) the Gaussian limit of
the weights and gaps: the half-normal ``|H_j|`` where a gap is 0. Fang & Santos (2019,
Review of Economic Studies 86(1), 377-412) bootstrap that law with a consistent estimate of
the derivative, the zero set ``Z = {j: gap_j = 0}`` estimated by
``Z_hat = {j: |gap_hat_j| <= kappa_n se_j}`` (se_j the bootstrap standard deviation of
gap*_j), ``kappa_n -> infinity``, ``kappa_n / sqrt(n) -> 0``. Replicate b gives

.. math::

    \delta^{Z}_b = \sum_{j \notin Z} \big(w^*_j s_j\, gap^*_j - \hat w_j |\hat{gap}_j|\big)
        + \sum_{j \in Z} w^*_j |gap^*_j - \hat{gap}_j|, \qquad s_j = \operatorname{sign}
        \hat{gap}_j

(``w*_j (gap*_j - gap_hat_j)`` in both sums: the resample's weights weigh its gap
deviations, which is ``phi'`` up to a term of second order). Where every gap is outside Z
and keeps its sign in the resample, ``delta*_b = M*_b - M_hat`` exactly: the basic
bootstrap.

*Why bounds.* That bootstrap is valid pointwise, but a gap of 1-2 standard errors is
neither 0 nor far from it, and a model whose calibration curve crosses the diagonal has
such gaps at every n (the bin or rows around the crossing); there the estimated zero set
is wrong either way: in the coverage study (one model calibrated, the other
over-confident) that pointwise interval covered the true difference in only 0.56-0.90 of
the data sets (docs: guide/compare_models). The bounds do not need
the zero set to be right, only to contain the gaps that are 0: for every gap and every
error e, ``sign(gap) e <= |gap + e| - |gap| <= |e|`` (convexity of ``|.|`` and the
triangle inequality), so ``M_hat - M`` lies between ``phi'_{Z=none}`` (every gap taken as
non-zero, with the data's signs) and ``phi'_{Z_hat}`` whenever ``Z_hat`` holds every zero
gap and the gaps outside it have the data's signs (inside ``Z_hat`` the data's sign may be
wrong; the sure lower bound there, ``-|e|``, would widen the interval further, and the
coverage study did not need it). For a difference ``d = M_a - M_b`` on the
same resampled rows,

.. math::

    \delta^-_b = \delta^{\emptyset}_{a,b} - \delta^{\hat Z_b}_{b,b}
        \;\le\; \hat d - d \;\le\;
    \delta^+_b = \delta^{\hat Z_a}_{a,b} - \delta^{\emptyset}_{b,b}

in law, and the interval is ``[d_hat - q_{1-alpha/2}(delta^+), d_hat - q_{alpha/2}(delta^-)]``:
each end is valid at alpha / 2 by stochastic dominance. Where no gap is near 0 the bounds
meet and give the Fang-Santos (= basic) interval; where one model is calibrated the lower
end is the Fang-Santos one; the interval is wider than the pointwise one by the plug-ins'
unknown biases, which is the price of not knowing which gaps are 0.

``kappa_n = sqrt(log n)``, the BIC-like choice of Andrews & Soares (2010, Econometrica
78(1)) for the same selection problem (which moments sit at their boundary): 2.49 at
n = 500, 2.76 at 2000, 3.15 at 20000; a zero gap escapes ``Z_hat`` with probability
P(``|N(0, 1)|`` > kappa_n), 1.3 % at n = 500.

The resample's own bins (its deciles) and its own lowess fit give gap*: the estimand's bins
are the population deciles, estimated in each resample as in the data. For the ICI, j runs
over the data's rows, the resample's rows being copies of them (``w*_j`` = copies / n); the
copies of a row share one fitted value (R's lowess averages tied scores' fits). When a
resample has fewer ECE bins than the data (tied scores), its gaps are taken on the data's
bins instead.
"""

from __future__ import annotations

import numpy as np

from locacal.metrics._gaps import ece_gaps, ece_gaps_on_bins, ici_gaps

__all__ = ["DIRECTIONAL", "STORE_MAX", "DirectionalReplicates", "directional_bounds", "kappa"]

#: The metrics whose difference gets the directional bounds.
DIRECTIONAL = ("ece", "ici")


def kappa(n: int) -> float:
    """The threshold ``kappa_n = sqrt(log n)`` (in standard errors) below which a gap may
    be 0."""
    return float(np.sqrt(np.log(max(n, 2))))


#: Above this many (resample, row) pairs the ICI's replicates are not stored (10 bytes a
#: pair: 330 MB a model) but computed in a second pass over the same resamples, which
#: refits the lowess (twice the ICI's cost, the same numbers).
STORE_MAX = 2**25


class DirectionalReplicates:
    """Collects one model's ECE or ICI gaps on the data and on each paired resample, and
    turns them into derivative replicates (module docstring).

    ``add(b, idx)`` evaluates resample b (rows ``idx`` of the data) and returns the metric's
    value on it (the registry's value, for the basic replicates); once all are added,
    :meth:`upper` and :meth:`lower` give ``delta^{Z_hat}_b`` and ``delta^{none}_b`` for
    every b (NaN for a resample where the metric or a gap is undefined).

    Memory: the gaps' standard errors are accumulated as the resamples come (Welford's
    running moments, one pass); the replicates need, besides, two arrays of ``n_boot x J``
    (J = 10 bins for the ECE, the n rows for the ICI: 10 bytes per row and resample).
    With ``store=False`` (the ICI only) nothing of size ``n_boot x n`` is kept: once every
    resample is added, :attr:`second_pass` is true and :meth:`revisit` must be called with
    the same resamples again; it refits them and keeps two numbers per resample. The
    replicates are the same to rounding (1e-15), at twice the fits.
    """

    def __init__(self, metric: str, scores: np.ndarray, labels: np.ndarray, n_boot: int,
                 *, store: bool = True) -> None:
        if metric not in DIRECTIONAL:
            raise ValueError(f"no directional bootstrap for {metric!r}")
        self.metric, self.scores, self.labels = metric, scores, labels
        self.store = store or metric == "ece"
        n = scores.size
        if metric == "ece":
            self.value, self.weight, self.gap, self._bins = ece_gaps(scores, labels)
        else:
            self.value, self.gap = ici_gaps(scores, labels)
            self.weight = np.full(n, 1.0 / n)
        j = self.gap.size
        if self.store:  # w*_j (the ICI's as copies) and w*_j (gap*_j - gap_hat_j)
            if metric == "ece":
                self._w = np.full((n_boot, j), np.nan)
            else:
                self._copies = np.zeros((n_boot, j), dtype=np.uint16)
            self._wh = np.full((n_boot, j), np.nan)
        else:  # upper and lower replicates, filled by revisit()
            self._deltas = np.full((2, n_boot), np.nan)
            self._nz: np.ndarray | None = None
        self._count = np.zeros(j)  # running moments of gap*_j - gap_hat_j
        self._mean = np.zeros(j)
        self._m2 = np.zeros(j)
        self.n = n

    @property
    def second_pass(self) -> bool:
        """Whether :meth:`revisit` must see the resamples again (``store=False``)."""
        return not self.store

    def _resample(self, idx: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """The metric on rows ``idx``, its weights w*_j and ``w*_j (gap*_j - gap_hat_j)``
        on the data's bins or rows."""
        s, y = self.scores[idx], self.labels[idx]
        if self.metric == "ece":
            value, share, gap, _ = ece_gaps(s, y)
            if share.size != self.gap.size:  # tied scores: fewer bins than the data's
                share, gap = ece_gaps_on_bins(self._bins, s, y)
            return value, share, share * (gap - self.gap)
        value, gap = ici_gaps(s, y)
        # the copies of a row share one fit: the sum over copies is copies x deviation
        wh = np.bincount(idx, weights=gap - self.gap[idx], minlength=self.n) / self.n
        return value, np.bincount(idx, minlength=self.n) / self.n, wh

    def add(self, b: int, idx: np.ndarray) -> float:
        """Evaluate resample b (rows ``idx``); returns the metric's value on it."""
        value, w, wh = self._resample(idx)
        held = (w > 0) & np.isfinite(wh)
        h = wh[held] / w[held]  # gap*_j - gap_hat_j
        self._count[held] += 1.0
        step = h - self._mean[held]
        self._mean[held] += step / self._count[held]
        self._m2[held] += step * (h - self._mean[held])
        if self.store:
            if self.metric == "ece":
                self._w[b] = w
            else:
                self._copies[b] = np.minimum(np.rint(w * self.n), 65535)
            self._wh[b] = wh
        return value

    def revisit(self, b: int, idx: np.ndarray) -> None:
        """Second pass (``store=False``): refit resample b and keep its two replicates."""
        if self._nz is None:  # the zero set, once every resample has been added
            self._nz = self.nonzero()
        _, w, wh = self._resample(idx)
        self._deltas[:, b] = [self._delta(w, wh, self._nz), self._delta(w, wh, None)]

    def standard_errors(self) -> np.ndarray:
        """Bootstrap standard deviation of each gap* (over the resamples that hold it,
        NaN where fewer than 2 do)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self._count >= 2, np.sqrt(self._m2 / (self._count - 1.0)),
                            np.nan)

    def nonzero(self, threshold: float | None = None) -> np.ndarray:
        """The gaps outside the estimated zero set: ``|gap_hat_j| > kappa_n se_j`` (a gap
        without a standard error -- held by fewer than 2 resamples -- is in it);
        ``threshold`` replaces kappa_n (studies)."""
        se = self.standard_errors()
        k = kappa(self.n) if threshold is None else threshold
        return np.abs(self.gap) > k * np.where(np.isfinite(se), se, np.inf)

    def _delta(self, w: np.ndarray, wh: np.ndarray, nz: np.ndarray | None) -> np.ndarray:
        """``delta^{Z}`` of the resamples in the rows of ``w`` and ``wh``, Z the complement
        of ``nz`` (None: Z empty, every gap non-zero with the data's sign)."""
        if nz is None:
            size = np.abs(self.gap)
            return wh @ np.sign(self.gap) + w @ size - self.weight @ size
        size = np.abs(self.gap) * nz
        signed = np.where(nz, np.sign(self.gap), 0.0)
        return (wh @ signed + np.abs(wh) @ (~nz).astype(np.float64)
                + w @ size - self.weight @ size)

    def deltas(self, threshold: float | None = None) -> np.ndarray:
        """``delta^{Z_hat}_b`` for every resample, Z_hat the gaps with
        ``|gap_hat| <= threshold * se`` (default kappa_n; module docstring). Without
        stored resamples only the default threshold is available."""
        if not self.store:
            if threshold is not None:
                raise ValueError("threshold needs the stored resamples (store=True)")
            return self._deltas[0]
        return self._delta(self._weights(), self._wh, self.nonzero(threshold))

    def upper(self) -> np.ndarray:
        """``delta^{Z_hat}_b``: the largest error of the plug-in the data allow (every gap
        that may be 0 taken as 0)."""
        return self.deltas()

    def lower(self) -> np.ndarray:
        """``delta^{none}_b = sum_j (w*_j s_j gap*_j - w_j |gap_hat_j|)``, s_j the sign of
        gap_hat_j (0 for a gap exactly 0): every gap taken as non-zero, with the data's
        sign."""
        return self._delta(self._weights(), self._wh, None) if self.store else self._deltas[1]

    def _weights(self) -> np.ndarray:
        """The stored w*_j, resample by resample."""
        return self._w if self.metric == "ece" else self._copies / self.n


def directional_bounds(difference: np.ndarray, upper: np.ndarray, lower: np.ndarray,
                       level: float) -> tuple[np.ndarray, np.ndarray]:
    """``[d_hat - q_hi(upper), d_hat - q_lo(lower)]``: q the type-7 quantiles
    ``(1 -/+ level) / 2`` of the paired replicates ``upper = delta^+`` and
    ``lower = delta^-`` (shape (B, J); NaN ones left out) of the differences ``difference``
    (shape (J,)); module docstring."""
    alpha = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        q_hi = np.nanquantile(upper, 1.0 - alpha, axis=0)
        q_lo = np.nanquantile(lower, alpha, axis=0)
    return difference - q_hi, difference - q_lo
