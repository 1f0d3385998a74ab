"""The smooth ECE of many label vectors with the same scores at once.

:func:`locacal.metrics.smece` finds its bandwidth by bisection (sigma* = smECE(sigma*)) and
evaluates the smooth ECE on a grid of nodes by an FFT convolution at each step. For label
vectors that share their scores (the null draws of the report, D* ~ Bernoulli(s)), what
depends on the scores only is computed once: each score's two grid nodes and shares, the
smoothed score density at each bandwidth, the interpolation of the evaluation points. The
bisections of all vectors run together, one step at a time; at each step the vectors are
grouped by their current bandwidth (a dyadic fraction: they share few values), and a
group's residual masses, transformed once per node count, are convolved with the group's
kernel by one inverse transform each. The labels' part of the node masses, per node's run
of sorted scores the events and sum frac_i y_i with frac_i = (m - 1) s_i - k, comes for
every node count from two running sums per batch: the running event counts and 64-bit
integer running sums of round(s_i 2^53) y_i (:class:`ScaledScores`, exact modulo 2^64 over
pieces of at most 256 rows). The values equal :func:`locacal.metrics.smece` (tests check
this to 1e-12); only the rounding of some floating-point sums differs.

Two shortcuts leave the decisions of the bisection unchanged:

* the mirrored node masses are periodic (period 2m - 2) and the kernel, truncated at +-1/2,
  is shorter than a period, so the convolution is a circular one of length 2m - 2; for
  odd m (a kernel symmetric about its middle node) it is diagonal in the type-I discrete
  cosine transform of the m masses. That length is used when it factors into small primes
  (1001 nodes, every bandwidth >= 0.01), the padded length otherwise;
* a bisection step needs smECE(sigma) only to compare it with sigma. As the kernel and the
  interpolation weights are nonnegative, smECE(sigma) <= U(sigma) = sum_j |r_j| c_j / D,
  with r_j the residual mass of node j, c_j the total weight of node j over the evaluation
  points and D the smoothed score mass; where U(sigma) < sigma (the large bandwidths of
  the first steps) the step is decided without the transforms, and smECE is evaluated at
  the end where the search ended on such a sigma.

Reference: Błasiok & Nakkiran (2023), "Smooth ECE: Principled Reliability Diagrams via
Kernel Smoothing", arXiv:2309.12236.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import fft
from scipy.stats import norm

from locacal.localfit import event_prefix
from locacal.metrics.smooth_ece import (
    _BISECTIONS,
    _MASS_FLOOR,
    _MIN_EVAL_POINTS,
    _MIN_SIGMA,
    _node_count,
    _node_positions,
)

__all__ = ["smece_batch"]

#: A step is decided by the bound U only when U < sigma (1 - _BOUND_MARGIN): far above the
#: rounding of U and of the transforms (relative 1e-13 at most).
_BOUND_MARGIN = 1e-9
#: Largest prime factor of a circular length 2m - 2 that the FFT takes quickly (pocketfft
#: has passes for 2, 3, 4, 5, 7, 11 and a generic one; longer prime factors go through
#: Bluestein's algorithm, slower than the padded length).
_SMOOTH_PRIME = 19
#: Scores as integers of s 2^_SCALE_BITS (exact for s >= 1/2; at most 2^-54 off below).
_SCALE_BITS = 53
_UNSCALE = 2.0**-_SCALE_BITS
#: Longest piece of a node's run whose scaled sum is formed in 64-bit integers: below
#: 2^63 / (2^53 + m) terms, m < 2^14 (sigma >= 0.001).
_PIECE = 256


def _is_smooth(length: int) -> bool:
    """Whether ``length`` has no prime factor above :data:`_SMOOTH_PRIME`."""
    for p in range(2, _SMOOTH_PRIME + 1):
        while length % p == 0:
            length //= p
    return length == 1


class _Nodes:
    """The grid of m nodes: the scores' positions on it, their mass, and how the mirrored
    node masses are convolved with the kernel.

    The mirrored masses (the m masses reflected at both ends, ``np.pad(mode="reflect")``)
    coincide on their whole length 3m - 2 with the periodic extension of period
    P = 2m - 2 of the masses, and each kept output sums m consecutive mirrored masses
    against the m kernel values. So the convolution is circular of length P, the kernel
    placed at its offsets from the output node modulo P (``period``); for odd m the
    kernel is symmetric and the transform is the type-I DCT of the m masses (``cosine``).
    When P has a long prime factor, the padded route: a circular convolution of length
    3m - 2 (rounded up to a quick FFT length) of the mirrored masses, which adds to output
    j the linear one's at j + L and j - L, void for the outputs kept,
    m - 1 + m // 2 <= j < 2m - 1 + m // 2, when L >= 3m - 2 (the linear one ends at
    4m - 4)."""

    def __init__(self, scores: np.ndarray, m: int) -> None:
        self.m = m
        left, frac = _node_positions(scores, m)
        # the scores are sorted, so each node's rows are a run
        new = np.r_[True, left[1:] != left[:-1]]
        runs = np.flatnonzero(new)
        self.nodes = left[runs]
        n = scores.size
        # runs cut into pieces of at most _PIECE rows (ScaledScores: exact sums per piece)
        cuts = (np.diff(np.r_[runs, n]) - 1) // _PIECE  # cuts inside each run
        pieces = np.repeat(runs, cuts + 1)
        if cuts.any():
            pieces += _PIECE * (np.arange(pieces.size) - np.repeat(np.cumsum(cuts + 1) - cuts - 1,
                                                                   cuts + 1))
        self.piece_bounds = np.r_[pieces, n]
        self.factor = np.uint64(m - 1)
        self.piece_offset = left[pieces].astype(np.uint64) << np.uint64(_SCALE_BITS)
        # each run's first piece (None: one piece per run)
        self.run_pieces = (None if pieces.size == runs.size
                           else np.flatnonzero(new[pieces]))
        # the scores' own shares (s to the left node, s frac to the right one) and mass
        self.score_left = np.add.reduceat(scores * (1.0 - frac), runs)
        self.score_right = np.add.reduceat(scores * frac, runs)
        # unit values (the metric's _NodeMasses adds the rows one by one; these sums round
        # differently, by about 1e-16 of each node's mass)
        self.score_mass = np.zeros(m)
        self.score_mass[self.nodes] = np.add.reduceat(1.0 - frac, runs)
        self.score_mass[self.nodes + 1] += np.add.reduceat(frac, runs)
        period = 2 * m - 2
        self.route = ("padded" if not _is_smooth(period)
                      else "cosine" if m % 2 else "period")
        self.size = period if self.route != "padded" else fft.next_fast_len(3 * m - 2,
                                                                            real=True)

    def right_shares(self, scaled: np.ndarray, prefix: np.ndarray,
                     rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per label vector and run, (B, runs): the labels' shares to the right node,
        sum_run frac_i y_i, and their total sum_run y_i, from the running sums ``scaled``
        of :class:`ScaledScores` and the running event counts ``prefix`` (``rows``: of
        those label vectors only).

        With frac_i = (m - 1) s_i - k on node k's run and v_i = s_i 2^53 rounded, each
        piece's sum_piece y_i ((m - 1) v_i - k 2^53) is exact in 64-bit integers: the
        unsigned arithmetic is modulo 2^64 and the sum itself is below 2^63 (at most
        _PIECE terms, each in [-m, 2^53 + m]). Scaled by 2^-53 it is sum frac_i y_i up to
        (m - 1) |v_i 2^-53 - s_i| <= (m - 1) 2^-54 per row, no more than the rounding of
        s_i (m - 1) in the metric's own frac for s_i >= 1/2 (a float prefix sum of s_i
        y_i would lose about 1e-16 of the running total, times m - 1, in each run)."""
        if rows is None:
            sums = np.diff(np.take(scaled, self.piece_bounds, axis=1), axis=1)
            events = np.diff(np.take(prefix, self.piece_bounds, axis=1), axis=1)
        else:  # those label vectors only
            at = np.ix_(rows, self.piece_bounds)
            sums, events = np.diff(scaled[at], axis=1), np.diff(prefix[at], axis=1)
        sums *= self.factor
        sums -= events.astype(np.uint64) * self.piece_offset
        shares = sums.view(np.int64) * _UNSCALE
        totals = events.astype(np.float64)
        if self.run_pieces is not None:
            shares = np.add.reduceat(shares, self.run_pieces, axis=1)
            totals = np.add.reduceat(totals, self.run_pieces, axis=1)
        return shares, totals

    def residual_masses(self, scaled: np.ndarray, prefix: np.ndarray,
                        rows: np.ndarray | None = None) -> np.ndarray:
        """Node masses of the residuals s - y of each label vector, (B, m): the scores'
        shares less the labels' (``scaled``, ``prefix``, ``rows``: :meth:`right_shares`)."""
        to_right, totals = self.right_shares(scaled, prefix, rows)
        mass = np.zeros((to_right.shape[0], self.m))
        mass[:, self.nodes] = self.score_left - (totals - to_right)
        mass[:, self.nodes + 1] += self.score_right - to_right
        return mass

    def spectra(self, mass: np.ndarray) -> np.ndarray:
        """Transform of each row's mirrored masses (real for the circular routes: the
        periodic extension is even)."""
        if self.route != "padded":
            return fft.dct(mass, type=1, axis=1)
        mirrored = np.pad(mass, ((0, 0), (self.m - 1, self.m - 1)), mode="reflect")
        return fft.rfft(mirrored, self.size, axis=1)

    def kernel_spectrum(self, sigma: float) -> np.ndarray:
        """Spectrum of the kernel of scale sigma tabulated at the m node offsets
        ``arange(m) / (m - 1) - 1/2`` (relplot's; half-integer offsets for even m)."""
        m = self.m
        kernel = norm.pdf(np.arange(m) / (m - 1) - 0.5, scale=sigma)
        if self.route == "padded":
            return fft.rfft(kernel, self.size)
        # output node j gathers kernel index m // 2 + j - q from node q
        placed = np.zeros(self.size)
        placed[(np.arange(m) - m // 2) % self.size] = kernel
        spectrum = fft.rfft(placed)
        return spectrum.real.copy() if self.route == "cosine" else spectrum

    def smooth(self, spectra: np.ndarray, kernel: np.ndarray) -> np.ndarray:
        """The smoothed masses at the m nodes, (B, m), from :meth:`spectra` rows."""
        if self.route == "cosine":
            return fft.idct(spectra * kernel, type=1, axis=1)
        smoothed = fft.irfft(spectra * kernel, self.size, axis=1)
        start = 0 if self.route == "period" else self.m - 1 + self.m // 2
        return smoothed[:, start:start + self.m]

    def node_weights(self, kernel: np.ndarray, point_weights: np.ndarray) -> np.ndarray | None:
        """c_j = sum over the evaluation points of the weight of node j's mass in the
        smoothed value there (``point_weights``: each node's total interpolation weight),
        the adjoint of :meth:`smooth` applied to it: a circular correlation of length P
        with the kernel, folded back onto the nodes (node j >= 1 is also at P - j). None on
        the padded route (no bound there)."""
        if self.route == "padded":
            return None
        m = self.m
        spectrum = fft.rfft(point_weights, self.size)
        folded = fft.irfft(spectrum * np.conj(kernel), self.size)
        weights = folded[:m].copy()
        weights[1:m - 1] += folded[self.size - 1:m - 1:-1]
        return weights


class ScaledScores:
    """Running sums of v_i y_i for label vectors y on the sorted scores, v_i = s_i 2^53
    rounded to an integer: (B, n + 1) uint64, modulo 2^64 (only differences over at most
    _PIECE rows are read, :meth:`_Nodes.right_shares`). One pass over a chunk's labels
    serves every node count (a sparse product per node count would go over them again);
    the array is kept from chunk to chunk (a fresh one costs its page faults)."""

    def __init__(self, scores: np.ndarray) -> None:
        self.values = np.rint(scores * 2.0**_SCALE_BITS).astype(np.uint64)
        self.buffer = np.empty(0, dtype=np.uint64)

    def __call__(self, prefix: np.ndarray) -> np.ndarray:
        """The running sums for the label vectors of running event counts ``prefix``
        (:func:`~locacal.localfit.event_prefix`, (B, n + 1))."""
        shape = prefix.shape
        if self.buffer.size < shape[0] * shape[1]:
            self.buffer = np.empty(shape[0] * shape[1], dtype=np.uint64)
        out = self.buffer[:shape[0] * shape[1]].reshape(shape)
        out[:, 0] = 0
        body = out[:, 1:]
        # the 0/1 labels back from the counts (half the time of a cast of float labels)
        np.subtract(prefix[:, 1:], prefix[:, :-1], out=body, casting="unsafe")
        np.multiply(body, self.values, out=body)
        np.cumsum(body, axis=1, out=body)
        return out


class _Interpolation:
    """``np.interp(points, linspace(0, 1, m), row)`` for the rows of a (B, m) matrix, the
    points' nodes and offsets found once (same operations as :func:`numpy.interp`)."""

    def __init__(self, points: np.ndarray, m: int) -> None:
        xp = np.linspace(0.0, 1.0, m)
        self.j = np.clip(np.searchsorted(xp, points, side="right") - 1, 0, m - 2)
        self.step = xp[self.j + 1] - xp[self.j]
        self.offset = points - xp[self.j]
        self.end = np.flatnonzero(points >= xp[-1])
        # each node's total weight over the points (for the bound of smooth_ece_batch)
        share = self.offset / self.step
        share[self.end] = 1.0  # j = m - 2 there: all to the last node
        self.node_weights = (np.bincount(self.j, 1.0 - share, minlength=m)
                             + np.bincount(self.j + 1, share, minlength=m))

    def __call__(self, values: np.ndarray) -> np.ndarray:
        left = values[:, self.j]
        out = (values[:, self.j + 1] - left) / self.step * self.offset + left
        out[:, self.end] = values[:, -1:]
        return out


def smece_batch(scores: np.ndarray, weights: np.ndarray | None
                ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`locacal.metrics.smece` of each row of a ``(B, n)`` label matrix, the scores
    sorted ascending (unweighted only, as the metric)."""
    if weights is not None:
        raise ValueError("the smece metric does not take weights")
    nodes: dict[int, _Nodes] = {}
    at_sigma: dict[float, _Bandwidth] = {}

    def grid(m: int) -> _Nodes:
        if m not in nodes:
            nodes[m] = _Nodes(scores, m)
        return nodes[m]

    def bandwidth(sigma: float) -> _Bandwidth:
        if sigma not in at_sigma:
            at_sigma[sigma] = _Bandwidth(grid(_node_count(sigma)), sigma)
        return at_sigma[sigma]

    scaled_sums = ScaledScores(scores)

    def statistic(labels: np.ndarray, prefix: np.ndarray | None = None) -> np.ndarray:
        """The B values; ``prefix``: :func:`~locacal.localfit.event_prefix` of
        ``labels`` when the caller has it."""
        if prefix is None:
            prefix = event_prefix(labels)
        scaled = scaled_sums(prefix)
        size = labels.shape[0]
        # per node count, the masses and spectra of the rows that reached it (the last
        # steps' node counts serve some rows only)
        masses: dict[int, np.ndarray] = {}
        spectra: dict[int, np.ndarray] = {}
        computed: dict[tuple[str, int], np.ndarray] = {}

        def missing(kind: str, m: int, rows: np.ndarray) -> np.ndarray | None:
            """The rows of ``rows`` not yet computed (None: all of them, every row)."""
            have = computed.setdefault((kind, m), np.zeros(size, dtype=bool))
            todo = rows[~have[rows]]
            have[todo] = True
            return None if todo.size == size else todo

        def mass(m: int, rows: np.ndarray) -> np.ndarray:
            """The node masses of node count m, computed for ``rows`` at least."""
            todo = missing("mass", m, rows)
            if todo is None:
                masses[m] = grid(m).residual_masses(scaled, prefix)
            elif todo.size:
                if m not in masses:
                    masses[m] = np.empty((size, m))
                masses[m][todo] = grid(m).residual_masses(scaled, prefix, todo)
            return masses[m]

        def spectrum(m: int, rows: np.ndarray) -> np.ndarray:
            """The spectra of node count m, computed for ``rows`` at least."""
            todo = missing("spectra", m, rows)
            if todo is None:
                spectra[m] = grid(m).spectra(mass(m, rows))
            elif todo.size:
                new = grid(m).spectra(mass(m, todo)[todo])
                if m not in spectra:
                    spectra[m] = np.empty((size, new.shape[1]), dtype=new.dtype)
                spectra[m][todo] = new
            return spectra[m]

        def values(rows: np.ndarray, sigma: float) -> np.ndarray:
            """smECE_sigma of the label rows ``rows``."""
            at = bandwidth(sigma)
            g = at.nodes
            smoothed = g.smooth(spectrum(g.m, rows)[rows], at.kernel)
            return np.abs(at.interpolate(smoothed)).sum(axis=1) / at.density

        def too_small(rows: np.ndarray, sigma: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            """(sigma < smECE(sigma), smECE(sigma), whether evaluated) of the rows at their
            own sigma; rows whose bound decides the step are not evaluated."""
            small = sigma < _MIN_SIGMA
            value = np.full(rows.size, np.nan)
            known = np.zeros(rows.size, dtype=bool)
            for s in np.unique(sigma[~small]):
                at = np.flatnonzero(sigma == s)
                at_s = bandwidth(float(s))
                bound = at_s.bound(mass(at_s.nodes.m, rows[at])[rows[at]])
                at = at[~(bound < s * (1.0 - _BOUND_MARGIN))]
                if at.size == 0:  # the bound decided every row
                    continue
                value[at] = values(rows[at], float(s))
                known[at] = True
                small[at] = s < value[at]
            return small, value, known

        every = np.arange(labels.shape[0])
        upper = np.ones(every.size)
        small, result, known = too_small(every, upper)
        search = every[~small]
        lower = np.zeros(every.size)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lower[search] + upper[search])
            small, value, evaluated = too_small(search, mid)
            lower[search[small]] = mid[small]
            done = search[~small]
            upper[done] = mid[~small]
            result[done] = value[~small]
            known[done] = evaluated[~small]
        # relplot ends with smECE(upper) (upper < 0.001 cannot be returned: too small);
        # evaluated where a bound decided the last step that moved upper
        left = every[~known]
        for s in np.unique(upper[left]):
            at = left[upper[left] == s]
            result[at] = values(at, float(s))
        return result

    return statistic


class _Bandwidth:
    """What sigma alone fixes: the kernel's spectrum, the interpolation of the evaluation
    points, the sum D of the smoothed score density (plus the floor) at them and the node
    weights c of the bound U (None where there is none)."""

    def __init__(self, nodes: _Nodes, sigma: float) -> None:
        self.nodes = nodes
        points = np.linspace(0.0, 1.0, max(round(10.0 / sigma), _MIN_EVAL_POINTS))
        self.interpolate = _Interpolation(points, nodes.m)
        self.kernel = nodes.kernel_spectrum(sigma)
        self.weights = nodes.node_weights(self.kernel, self.interpolate.node_weights)
        # sum over the points of the interpolated smoothed score mass: the smoothed mass
        # against each node's total interpolation weight (the metric's
        # _smooth_masses(score_mass, sigma, points).sum() up to rounding, by this route's
        # transforms instead of a second convolution)
        smoothed = nodes.smooth(nodes.spectra(nodes.score_mass[None, :]), self.kernel)[0]
        self.density = (float(smoothed @ self.interpolate.node_weights)
                        + points.size * _MASS_FLOOR)

    def bound(self, mass: np.ndarray) -> np.ndarray:
        """U(sigma) = sum_j |r_j| c_j / D >= smECE(sigma) of the rows of node masses
        ``mass`` (inf without c)."""
        if self.weights is None:
            return np.full(mass.shape[0], np.inf)
        return np.abs(mass) @ self.weights / self.density
