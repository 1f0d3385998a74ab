r"""Local likelihood for 0/1 labels: local logistic regression, locfit's ``family="binomial"``.

At a point t the local log-likelihood (Loader 1999, ch. 4, eq. 4.2)

.. math::

    \ell_t(a) = \sum_i K_i w_i \bigl(y_i \theta_i - \log(1 + e^{\theta_i})\bigr),
    \qquad \theta_i = a_0 + a_1 (s_i - t) + a_2 (s_i - t)^2 / 2,

(``degree + 1`` terms, ``K_i = W(|s_i - t| / h(t))`` locfit's kernel weight on the window of
:mod:`locacal.localfit._window`, ``w_i`` the case weight) is maximised by Newton's method;
the fitted map is :math:`\hat g(t) = \operatorname{expit}(\hat a_0)` and the slope on the
logit scale :math:`\hat a_1`.

**locfit's iteration, reproduced** (``reginit``, ``likereg``, ``max_nr`` in its C sources):

* start at :math:`a = (\operatorname{logit}(\bar y_K), 0, 0)`, the logit of the kernel-
  weighted window mean; a window without events (:math:`\sum K w y = 0`) is not iterated
  (locfit's "initial value problem": :math:`a_0 = -1000`, so :math:`\hat g = 0`), nor one
  made of events only (:math:`a_0 = 1000`, :math:`\hat g = 1`);
* a Newton step :math:`\delta = J^{-} U` (gradient :math:`U = \sum K w (y - p) X`,
  information :math:`J = \sum K w p(1-p) X X'`, solved by locfit's scaled eigen-solver of
  :mod:`locacal.localfit._solve`), shortened tenfold while the log-likelihood falls by more
  than 1e-3;
* stop after the step whose log-likelihood change is below ``1e-6 * sum_i K_i w_i``, at
  most 20 steps; stop also when the fit is nearly perfect (:math:`\ell > -10^{-5} \sum K w`)
  or :math:`|a_0| > 700` (separation in the window).

So locfit's answer stops short of the maximiser: on the rare-event data of
``tests/test_local_binomial_parity_r.py`` (2 % prevalence) its values sit 4e-7 to 2.3e-6
from the converged local likelihood (relative: 2e-5 to 1e-1, more in the far low tail).
``converge=True`` iterates instead until the Newton step is below 1e-12 in every
coefficient (at most 100 steps). The default reproduces locfit (R parity ~1e-13); both
differences are measured in that test. Where locfit stops at
:math:`|a_0| > 700` ("parameters out of bounds") it sets every coefficient to 0 and reports
0.5; this engine reports :math:`\operatorname{expit}(a_0)` there (0 or 1), the limit of the
maximiser.

**Standard error** of :math:`\hat a_0` (logit scale), the sandwich of locfit's ``lf_vcov``:
:math:`V = J^{-1} M_2 J^{-1}`, :math:`M_2 = \sum K^2 w^2 p(1-p) X X'` at the fit (Loader 1999,
section 4.3). With unit weights it is locfit's ``predict(fit, se.fit = TRUE)$se.fit``;
with case weights locfit takes ``weights`` as binomial trial counts (its :math:`M_2` has
:math:`w` where this has :math:`w^2`), while here :math:`V` depends on :math:`w / \sum w`
only, like every result of locacal. NaN where the logit is infinite (no events or events
only in the window).

**Frequency weights** (``sample.counts``: row i stands for :math:`f_i` identical
observations, ``sample.weights`` the combined :math:`w_i f_i`): the fit of the expanded rows.
The span counts observations (the window of the :math:`\lfloor N\,nn \rfloor` nearest, by
the cumulative counts), the likelihood, gradient and information take :math:`K w f` (a row's
copies share :math:`\theta_i`), and the sums of squared weights run over the copies:
:math:`M_2 = \sum K^2 f w^2 p(1-p) X X'` and the variance factor
:math:`\sum K^2 f w^2 / (\sum K f w)^2`; ``count`` counts observations.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, ch. 4 (local
likelihood, section 4.3 variance) and appendix C (locfit's Newton-Raphson).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from locacal.data.sample import SortedSample
from locacal.localfit._solve import _apply, _decompose
from locacal.localfit._window import (
    effective_count,
    fixed_or_nn_bandwidth,
    kernel_reach,
    kernel_weights,
    window_bounds,
)

__all__ = ["LOCFIT_START", "STATUS", "BinomialFits", "fit_binomial"]

#: How each point's iteration ended (``BinomialFits.status``), locfit's names: 0 converged by
#: its rule, 1 one label in the window (not iterated), 2 nearly perfect fit, 3 |a_0| > 700
#: (locfit then reports 0.5), 4 the likelihood fell (step-halving failed), 5 step limit.
STATUS = ("ok", "one_label", "perfect_fit", "out_of_bounds", "diverged", "not_converged")

#: locfit's starting logit for a window without events (minus) or of events only (plus).
LOCFIT_START = 1000.0
#: locfit's bound on |a_0| ("parameters out of bounds").
OUT_OF_BOUNDS = 700.0
MAX_STEPS = 20
CONVERGE_STEPS = 100
CONVERGE_TOL = 1e-12
#: Padded window cells per batch of points (memory ~ 8 arrays of this many doubles).
_BATCH_CELLS = 1 << 20


@dataclass(frozen=True)
class BinomialFits:
    r"""Local logistic fits at a batch of points.

    ``value``: :math:`\operatorname{expit}(\hat a_0)` (NaN where the window has no weight);
    ``logit``: :math:`\\hat a_0` (+-inf for windows of one label); ``slope``: :math:`\\hat
    a_1`; ``se``: standard error of :math:`\\hat a_0`; ``var_factor``:
    :math:`\\sum (K w)^2 / (\\sum K w)^2`, one over the window's effective size;
    ``events``: :math:`\\sum K w y / \\sum K w`; ``count``: rows within h(t);
    ``bandwidth``: h(t); ``steps``: Newton steps taken; ``inverse_info``: :math:`(J^{-1})_{00}`
    at the fit, so that a row at t of case weight :math:`w` has influence
    :math:`w\,\hat g (1 - \hat g) (J^{-1})_{00}` on the fit there (NaN where not iterated);
    ``status``: index into :data:`STATUS`.
    """

    value: np.ndarray
    logit: np.ndarray
    slope: np.ndarray
    se: np.ndarray
    var_factor: np.ndarray
    events: np.ndarray
    count: np.ndarray
    bandwidth: np.ndarray
    steps: np.ndarray
    inverse_info: np.ndarray
    status: np.ndarray


def fit_binomial(sample: SortedSample, points: np.ndarray, degree: int, nn: float | None,
                 h: float | None, kernel: str, *, converge: bool = False) -> BinomialFits:
    """Local logistic fit at every point (module docstring); windows by locfit's rules."""
    s = sample.scores
    t = np.ascontiguousarray(points, dtype=np.float64)
    k = effective_count(sample.observations, nn, h)
    bw = fixed_or_nn_bandwidth(s, t, k, h, sample.cumulative_counts)
    lo, hi = window_bounds(s, t, bw * kernel_reach(kernel))
    count_lo, count_hi = window_bounds(s, t, bw)
    if sample.counts is not None:  # observations (counts are positive)
        count = sample.range_sum("f", count_lo, count_hi)
    else:
        count = (count_hi - count_lo).astype(np.float64)
        if sample.weights is not None:
            count -= sample.range_sum("zero", count_lo, count_hi)
    m = t.shape[0]
    out = {name: np.full(m, np.nan) for name in
           ("value", "logit", "slope", "se", "var_factor", "events", "inverse_info")}
    steps = np.zeros(m, dtype=np.int64)
    status = np.zeros(m, dtype=np.int64)
    width = np.maximum(hi - lo, 1)
    start = 0
    while start < m:  # batches of points whose padded windows fit in _BATCH_CELLS
        stop = start + 1
        longest = int(width[start])
        while stop < m and max(longest, int(width[stop])) * (stop - start + 1) <= _BATCH_CELLS:
            longest = max(longest, int(width[stop]))
            stop += 1
        batch = slice(start, stop)
        _fit_batch(sample, t[batch], bw[batch], lo[batch], hi[batch], longest, degree,
                   kernel, converge, {name: arr[batch] for name, arr in out.items()},
                   steps[batch], status[batch])
        start = stop
    return BinomialFits(count=count, bandwidth=bw, steps=steps, status=status, **out)


def _fit_batch(sample: SortedSample, t: np.ndarray, bw: np.ndarray, lo: np.ndarray,
               hi: np.ndarray, width: int, degree: int, kernel: str, converge: bool,
               out: dict[str, np.ndarray], steps: np.ndarray, status: np.ndarray) -> None:
    """Pad the batch's windows to ``width`` rows (weight 0), then iterate all at once."""
    b = t.shape[0]
    p = degree + 1
    dx = np.zeros((b, width))
    y = np.zeros((b, width))
    kw = np.zeros((b, width))  # kernel x case weight (x count)
    copies = np.ones((b, width))  # frequency weights (1 in the padding)
    for j in range(b):
        a, z = int(lo[j]), int(hi[j])
        d = sample.scores[a:z] - t[j]
        weight = kernel_weights(np.abs(d), float(bw[j]), kernel, libm=True)
        if d.size and not (weight > 0).any():
            weight = np.ones_like(d)  # all tied at distance h: uniform (see _direct)
        if sample.weights is not None:
            weight = weight * sample.weights[a:z]
        if sample.counts is not None:
            copies[j, :z - a] = sample.counts[a:z]
        dx[j, :z - a] = d
        y[j, :z - a] = sample.labels[a:z]
        kw[j, :z - a] = weight
    x = np.stack([np.ones_like(dx), dx, (dx * dx) / 2][:p])  # (p, b, width)
    total = kw.sum(axis=1)
    events = (kw * y).sum(axis=1)
    ok = total > 0
    safe = np.where(ok, total, 1.0)
    out["events"][:] = np.where(ok, events / safe, np.nan)
    # squared weights summed over the copies: (K w f)^2 / f = f (K w)^2
    out["var_factor"][:] = np.where(ok, (kw * kw / copies).sum(axis=1) / (safe * safe),
                                    np.nan)
    none, every = ok & ~(events > 0), ok & ~(events < total)
    iterate = ok & ~none & ~every
    coef = np.zeros((b, p))
    coef[none, 0], coef[every, 0] = -LOCFIT_START, LOCFIT_START
    status[none | every] = 1
    if iterate.any():
        sel = np.flatnonzero(iterate)
        fitted, n_steps, ended = _newton(x[:, sel], y[sel], kw[sel], total[sel],
                                         events[sel], converge)
        coef[sel] = fitted
        steps[sel] = n_steps
        status[sel] = ended
        out["se"][sel], out["inverse_info"][sel] = _standard_error(x[:, sel], kw[sel],
                                                                   fitted, copies[sel])
    logit = coef[:, 0].copy()
    logit[none], logit[every] = -np.inf, np.inf
    out["logit"][:] = np.where(ok, logit, np.nan)
    out["value"][:] = np.where(ok, expit(logit), np.nan)
    out["slope"][:] = np.where(ok & iterate, coef[:, 1] if p > 1 else 0.0, np.nan)


def _linear(x: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``theta_i = sum_a coef_a X_ia`` per window (``x``: (p, b, width))."""
    theta = coef[:, 0, None] * x[0]
    for a in range(1, x.shape[0]):
        theta = theta + coef[:, a, None] * x[a]
    return theta


def _gram(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``sum_i weight_i X_i X_i'`` per window, (b, p, p)."""
    p = x.shape[0]
    out = np.empty((weight.shape[0], p, p))
    for a in range(p):
        xa = x[a] * weight
        for c in range(a, p):
            out[:, a, c] = out[:, c, a] = (xa * x[c]).sum(axis=1)
    return out


def _likelihood(x: np.ndarray, y: np.ndarray, kw: np.ndarray, coef: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """locfit's ``likereg`` for the logit link: log-likelihood, gradient, information."""
    theta = _linear(x, coef)
    # y theta - log(1 + e^theta) = y theta - max(theta, 0) - log(1 + e^-|theta|): one exp,
    # no overflow (locfit's fambino takes the same two branches)
    mean = expit(theta)
    lik = theta * y - np.maximum(theta, 0.0) - np.log1p(np.exp(-np.abs(theta)))
    lk = (kw * lik).sum(axis=1)
    resid = kw * (y - mean)
    grad = np.stack([(xa * resid).sum(axis=1) for xa in x], axis=1)
    return lk, grad, _gram(x, kw * mean * (1 - mean))


def _newton(x: np.ndarray, y: np.ndarray, kw: np.ndarray, total: np.ndarray,
            events: np.ndarray, converge: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """locfit's ``max_nr`` on every window at once (module docstring), or to convergence."""
    p, b, _ = x.shape
    coef = np.zeros((b, p))
    mean0 = events / total
    coef[:, 0] = np.log(mean0 / (1 - mean0))
    tol = 0.0 if converge else 1e-6 * total
    max_steps = CONVERGE_STEPS if converge else MAX_STEPS
    f, grad, info = _likelihood(x, y, kw, coef)
    active = np.ones(b, dtype=bool)
    steps = np.zeros(b, dtype=np.int64)
    ended = np.full(b, 5, dtype=np.int64)
    for _ in range(max_steps):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        old_coef, old_f = coef[idx].copy(), f[idx].copy()
        delta = _apply(*_decompose(info[idx]), grad[idx])
        nc = np.einsum("bp,bp->b", old_coef, old_coef)
        nd = np.einsum("bp,bp->b", delta, delta)
        with np.errstate(divide="ignore", invalid="ignore"):
            cut = np.minimum(np.sqrt(nc / nd), 1.0) * 1e-4
        lam = np.ones(idx.size)
        trying = np.ones(idx.size, dtype=bool)
        new_f = old_f.copy()
        reduce = np.zeros(idx.size, dtype=bool)
        why = np.zeros(idx.size, dtype=np.int64)
        while trying.any():  # step-halving loop of max_nr
            sel = np.flatnonzero(trying)
            rows = idx[sel]
            coef[rows] = old_coef[sel] + lam[sel, None] * delta[sel]
            f_rows, grad[rows], info[rows] = _likelihood(x[:, rows], y[rows], kw[rows],
                                                         coef[rows])
            f[rows] = new_f[sel] = f_rows
            perfect = f_rows > -1e-5 * total[rows]
            oob = np.abs(coef[rows, 0]) > OUT_OF_BOUNDS
            reduce[sel] = perfect | oob
            why[sel] = np.where(perfect, 2, np.where(oob, 3, 0))
            lam[sel] = np.where(reduce[sel], lam[sel] / 2, lam[sel] / 10)
            trying[sel] = (lam[sel] > cut[sel]) & (f_rows <= old_f[sel] - 1e-3)
        steps[idx] += 1
        diverged = new_f < old_f - 1e-3
        if converge:
            small = np.abs(delta).max(axis=1) <= CONVERGE_TOL * np.maximum(
                1.0, np.abs(coef[idx]).max(axis=1))
            done = diverged | reduce | small
        else:
            done = diverged | reduce | (np.abs(new_f - old_f) < tol[idx])
        ended[idx[done]] = np.where(diverged, 4, why)[done]
        active[idx[done]] = False
    return coef, steps, ended


def _standard_error(x: np.ndarray, kw: np.ndarray, coef: np.ndarray,
                    copies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sqrt(e0' J^- M2 J^- e0)`` at the fit (module docstring) and ``(J^-)_00``;
    ``copies``: frequency weights (M2 sums the squared weights over the copies)."""
    mean = expit(_linear(x, coef))
    v = kw * mean * (1 - mean)
    info = _gram(x, v)
    m2 = _gram(x, kw * v / copies)
    e0 = np.zeros(coef.shape)
    e0[:, 0] = 1.0
    a = _apply(*_decompose(info), e0)
    return np.sqrt(np.maximum(np.einsum("bp,bpq,bq->b", a, m2, a), 0.0)), a[:, 0]
