r"""statsmodels' data-driven kernel bandwidths (``cv_ls``, ``aic``) of grouped rows.

Row i (score :math:`x_i`, label :math:`y_i`) stands for :math:`f_i` identical observations,
:math:`N = \sum_i f_i`. statsmodels' ``KernelReg(bw="cv_ls" | "aic")`` on the N expanded
observations (read to follow it, not copied) minimises, by Nelder-Mead (``scipy.optimize.
fmin``, ``maxiter = maxfun = 1000``) from the normal reference
:math:`b_0 = 1.06\,\hat\sigma\,N^{-1/5}` (:math:`\hat\sigma` the standard deviation of the
scores, divisor N), one of two criteria. With the Gaussian kernel :math:`K_{ij} =
\phi((x_j - x_i) / b)` and the sums at row i's score over all observations

.. math::

    S_k(i) = \sum_j f_j K_{ij} (x_j - x_i)^k, \qquad T_k(i) = \sum_j f_j K_{ij} y_j
    (x_j - x_i)^k,

* **least-squares cross-validation**: leaving out one copy of row i (the row keeps
  :math:`f_i - 1` copies) removes :math:`K(0) = \phi(0)` from :math:`S_0` and
  :math:`\phi(0) y_i` from :math:`T_0` and nothing from the sums with
  :math:`(x_j - x_i)^k`, k > 0 (the left-out copy sits at :math:`x_i`), so

  .. math::

      g_{-i} = \frac{T_0 - \phi(0) y_i}{S_0 - \phi(0)} \ \text{(lc)}, \qquad
      g_{-i} = \frac{S_2 (T_0 - \phi(0) y_i) - S_1 T_1}
                    {(S_0 - \phi(0)) S_2 - S_1^2} \ \text{(ll)},

  the same for each of the row's copies, and :math:`CV(b) = N^{-1} \sum_i f_i
  (y_i - g_{-i})^2`;
* **AIC** of Hurvich, Simonoff & Tsai (1998) as statsmodels computes it:
  :math:`\log \hat\sigma^2 + (1 + \operatorname{tr} H / N) / (1 - (\operatorname{tr} H + 2)
  / N)` with :math:`\hat\sigma^2 = N^{-1} \sum_i f_i (y_i - \hat g(x_i))^2` (the fit of
  ``reg_type`` at the data) and the trace of the local-constant hat matrix, whatever
  ``reg_type``, :math:`\operatorname{tr} H = \sum_i f_i \phi(0) / S_0(i)`.

The common factors of statsmodels' kernel (1 / b, 1 / N) cancel in every ratio. The
criteria equal the expanded rows' up to rounding, so the optimiser takes the same steps and
returns the same bandwidth (tested to 1e-10).

Reference: Hurvich, C. M., Simonoff, J. S. and Tsai, C.-L. (1998). Smoothing parameter
selection in nonparametric regression using an improved Akaike information criterion.
JRSS B 60, 271-293; Racine, J. and Li, Q. (2004), as implemented in statsmodels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["grouped_bandwidth"]

#: Rows of the kernel matrix computed at a time (memory ~ 8 x this x rows doubles).
_BLOCK = 512
_PHI0 = 1.0 / np.sqrt(2.0 * np.pi)


def grouped_bandwidth(scores: np.ndarray, labels: np.ndarray, counts: np.ndarray,
                      rule: str, reg_type: str) -> float:
    """statsmodels' ``KernelReg(bw=rule)`` bandwidth of the expanded rows (module
    docstring); ``counts`` positive whole numbers."""
    from scipy import optimize

    x = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    f = np.asarray(counts, dtype=np.float64)
    total = float(f.sum())
    mean = float(f @ x) / total
    sd = np.sqrt(float(f @ (x - mean) ** 2) / total)
    start = 1.06 * np.array([sd]) * total ** (-1.0 / 5.0)
    criterion: Callable[[np.ndarray], float] = (
        (lambda b: _cv_ls(float(b[0]), x, y, f, reg_type)) if rule == "cv_ls" else
        (lambda b: _aic(float(b[0]), x, y, f, reg_type)))
    # as in statsmodels, trial bandwidths may empty windows (0 / 0, log 0): NaN or inf
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        found = optimize.fmin(criterion, x0=start, maxiter=1e3, maxfun=1e3, disp=0)
    return float(found[0])


def _sums(b: float, x: np.ndarray, y: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, ...]:
    """:math:`S_0, S_1, S_2, T_0, T_1` at each row's score (module docstring)."""
    out = np.empty((5, x.size))
    for start in range(0, x.size, _BLOCK):
        d = x[None, :] - x[start:start + _BLOCK, None]  # x_j - x_i
        k = _PHI0 * np.exp(-d * d / (b * b * 2.0)) * f
        ky = k * y
        out[:, start:start + _BLOCK] = (k.sum(1), (k * d).sum(1), (k * d * d).sum(1),
                                        ky.sum(1), (ky * d).sum(1))
    return tuple(out)


def _local(reg_type: str, s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, t0: np.ndarray,
           t1: np.ndarray) -> np.ndarray:
    """The local constant or local linear intercept from the sums."""
    if reg_type == "lc":
        return t0 / s0
    det = s0 * s2 - s1 * s1
    with np.errstate(invalid="ignore", divide="ignore"):
        # a window with one distinct score has no slope: its mean (statsmodels' pinv)
        return np.where(det > 0, (s2 * t0 - s1 * t1) / np.where(det > 0, det, 1.0), t0 / s0)


def _cv_ls(b: float, x: np.ndarray, y: np.ndarray, f: np.ndarray, reg_type: str) -> float:
    s0, s1, s2, t0, t1 = _sums(b, x, y, f)
    with np.errstate(invalid="ignore", divide="ignore"):
        left_out = _local(reg_type, s0 - _PHI0, s1, s2, t0 - _PHI0 * y, t1)
    return float(f @ (y - left_out) ** 2) / float(f.sum())


def _aic(b: float, x: np.ndarray, y: np.ndarray, f: np.ndarray, reg_type: str) -> float:
    s0, s1, s2, t0, t1 = _sums(b, x, y, f)
    total = float(f.sum())
    sigma = float(f @ (y - _local(reg_type, s0, s1, s2, t0, t1)) ** 2) / total
    trace = float(f @ (_PHI0 / s0))
    return float(np.log(sigma) + (1.0 + trace / total) / (1.0 - (trace + 2.0) / total))
