"""locfit's solution of the local least-squares equations, batched over evaluation points.

For the quasi-Gaussian family with identity link (what ``locfit(d ~ lp(s, ...))`` fits to 0/1
labels), locfit does not call a least-squares routine. It starts from the local weighted mean
and takes one Newton step (``reginit``, ``max_nr`` and ``likereg`` in its C sources):

    c0    = (sum_i w_i y_i) / (sum_i w_i),               theta = (c0, 0, 0)
    Z     = sum_i w_i X_i X_i',   f = sum_i w_i X_i (y_i - c0),   X_i = (1, dx_i, dx_i^2 / 2)
    theta = theta + Z^(-) f,

where ``dx_i = s_i - t`` and ``w_i`` = kernel weight x prior weight. ``Z^(-) f`` is locfit's
``jacob_solve`` with method ``JAC_EIGD``: scale Z to a correlation matrix
``C_ab = Z_ab (d_a d_b)`` with ``d_a = Z_aa^(-1/2)`` (0 when ``Z_aa = 0``), diagonalise
``C = Q diag(lambda) Q'`` by cyclic Jacobi rotations, divide the rotated right-hand side by
``lambda_j`` only where ``lambda_j > 1e-8 * max(lambda)`` and **leave the other components
unchanged** (they are not zeroed), rotate back and unscale (``m_jacob.c``, ``m_eigen.c``).
The fitted value is ``theta_0`` and the slope ``theta_1``.

Consequences, all reproduced here:

* a window holding one distinct score gives the window's mean for every degree (f lies in
  the range of Z, and the Newton step from the mean has no component there);
* a window with two distinct scores and degree 2 gives the mean plus the minimum-norm
  correction *in the correlation-scaled coordinates*: neither the line through the two group
  means nor an unscaled minimum-norm least-squares fit (which differ by up to 0.03);
* locfit's Jacobi iteration stops at ``a_ij^2 <= 1e-15 |a_ii a_jj|`` and computes its
  rotations with half-angle formulas, ``sin phi = sqrt((1 - cos 2phi) / 2)``, which cancel
  for small angles: its degree-2 answers carry errors of ~1e-9 that depend on the last bits
  of Z. :func:`jacobi_eigen` runs the same iteration, so given the same Z (summed in the same
  order, see :mod:`locacal.localfit._direct`) the answers agree to rounding.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, section 2.1
(local least squares) and appendix C (numerical methods of locfit); G. H. Golub and
C. F. Van Loan, *Matrix Computations*, section 8.5 (the Jacobi method).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "EIGEN_TOL",
    "LocalSolution",
    "design_from_moments",
    "jacobi_eigen",
    "newton_step",
    "newton_step_and_unit",
    "solve_newton",
]

#: Relative eigenvalue threshold of locfit's ``eig_solve`` (``E_TOL`` in ``m_eigen.c``).
EIGEN_TOL = 1.0e-8
#: Diagonal entries of Z at or below this count as 0 (locfit: exactly 0). Only scores a few
#: 1e-150 apart reach it; locfit's scaling then overflows to inf/NaN.
NEGLIGIBLE = 1.0e-300
#: Off-diagonal threshold and sweep limit of locfit's ``eig_dec``.
JACOBI_TOL = 1.0e-15
JACOBI_SWEEPS = 20


class LocalSolution:
    """Value, slope and variance factor of the local fit at a batch of points.

    Attributes
    ----------
    value, slope : ndarray
        ``theta_0`` and ``theta_1`` (slope 0 for degree 0); NaN where the window has no
        weight.
    var_factor : ndarray
        ``sum_i l_i(t)^2`` for the linear-smoother weights ``l_i(t)`` of the value, so that
        ``Var g(t) = sum_i l_i(t)^2 Var(y_i)`` (Loader 1999, section 2.3).
    unit : ndarray or None
        ``a_0 + kappa``: the smoother weight of the value at an observation at ``t`` itself
        per unit of its prior weight (the influence ``L_ii = p_i (a_0 + kappa)`` at
        ``t = s_i``, :mod:`locacal.localfit._influence`); None where not computed.
    """

    __slots__ = ("slope", "unit", "value", "var_factor")

    def __init__(self, value: np.ndarray, slope: np.ndarray, var_factor: np.ndarray,
                 unit: np.ndarray | None = None):
        self.value = value
        self.slope = slope
        self.var_factor = var_factor
        self.unit = unit


def design_from_moments(moments: np.ndarray, degree: int) -> np.ndarray:
    """``sum_i w_i X_i X_i'`` from power sums ``moments[:, j] = sum_i w_i dx_i^j``."""
    p = degree + 1
    scale = np.array([1.0, 1.0, 0.5])[:p]
    idx = np.add.outer(np.arange(p), np.arange(p))
    return moments[:, idx] * np.multiply.outer(scale, scale)


def solve_newton(z: np.ndarray, rhs: np.ndarray, c0: np.ndarray, total: np.ndarray,
                 z_sq: np.ndarray) -> LocalSolution:
    """locfit's one Newton step from the local mean, and the smoother's variance factor.

    Parameters
    ----------
    z : ndarray (m, p, p)
        ``sum_i w_i X_i X_i'`` (as locfit accumulates it, possibly asymmetric in the last bit).
    rhs : ndarray (m, p)
        ``sum_i w_i X_i (y_i - c0)``.
    c0 : ndarray (m,)
        Local weighted mean (the starting value).
    total : ndarray (m,)
        ``sum_i w_i``; points with ``total <= 0`` get NaN.
    z_sq : ndarray (m, p, p)
        ``sum_i w_i^2 X_i X_i'`` for the variance factor.
    """
    empty = ~(total > 0)
    scale, lam, vec = _decompose(z)
    coef = _newton(scale, lam, vec, rhs, c0)
    value = coef[:, 0].copy()
    slope = coef[:, 1].copy() if z.shape[1] > 1 else np.zeros_like(value)
    e0 = np.zeros_like(rhs)
    e0[:, 0] = 1.0
    a = _apply(scale, lam, vec, e0)
    safe = np.where(empty, 1.0, total)
    var_factor = _variance_factor(a, z, z_sq, safe)
    unit = a[:, 0] + (1.0 - np.einsum("mi,mi->m", a, z[:, :, 0])) / safe
    for arr in (value, slope, var_factor, unit):
        arr[empty] = np.nan
    return LocalSolution(value, slope, var_factor, unit)


def newton_step(z: np.ndarray, rhs: np.ndarray, c0: np.ndarray) -> np.ndarray:
    """All coefficients ``(c0, 0, 0) + Z^(-) f`` of locfit's Newton step, shape (m, p)."""
    return _newton(*_decompose(z), rhs, c0)


def newton_step_and_unit(z: np.ndarray, rhs: np.ndarray,
                         c0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`newton_step` and ``a = Z^(-) e_0`` (the smoother's weights, see
    :func:`_variance_factor`) from one decomposition of ``Z``."""
    parts = _decompose(z)
    e0 = np.zeros_like(rhs)
    e0[:, 0] = 1.0
    return _newton(*parts, rhs, c0), _apply(*parts, e0)


def _newton(scale: np.ndarray, lam: np.ndarray, vec: np.ndarray, rhs: np.ndarray,
            c0: np.ndarray) -> np.ndarray:
    start = np.zeros_like(rhs)
    start[:, 0] = c0
    return start + 1.0 * _apply(scale, lam, vec, rhs)


def _decompose(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``jacob_dec`` with ``JAC_EIGD``: diagonal scaling then Jacobi eigen-decomposition."""
    diag = np.diagonal(z, axis1=1, axis2=2)
    positive = diag > NEGLIGIBLE
    scale = np.where(positive, 1.0 / np.sqrt(np.where(positive, diag, 1.0)), 0.0)
    corr = z * (scale[:, :, None] * scale[:, None, :])
    lam, vec = jacobi_eigen(corr)
    return scale, lam, vec


def _apply(scale: np.ndarray, lam: np.ndarray, vec: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``jacob_solve``: scale, rotate, divide by the large eigenvalues, rotate back, scale.

    Inner products are accumulated in locfit's order (``eig_solve``), so that the result
    agrees to the last bit when the inputs do.
    """
    p = v.shape[1]
    x = v * scale
    tol = EIGEN_TOL * lam.max(axis=1)
    w = np.zeros_like(x)
    for i in range(p):
        for j in range(p):
            w[:, i] = w[:, i] + vec[:, j, i] * x[:, j]
        big = lam[:, i] > tol
        w[big, i] = w[big, i] / lam[big, i]
    out = np.zeros_like(x)
    for i in range(p):
        for j in range(p):
            out[:, i] = out[:, i] + vec[:, i, j] * w[:, j]
    return out * scale


def jacobi_eigen(a: np.ndarray, max_sweeps: int = JACOBI_SWEEPS) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """Eigenvalues and eigenvectors (columns) of small symmetric matrices by cyclic Jacobi.

    The iteration locfit runs (``eig_dec``): sweep the pairs ``i < j`` in order; rotate a pair
    only when ``a_ij^2 > 1e-15 |a_ii a_jj|``, with ``cos 2phi = (a_jj - a_ii) / (2 r)``,
    ``r = sqrt(((a_jj - a_ii) / 2)^2 + a_ij^2)``, ``cos phi = sqrt((1 + cos 2phi) / 2)`` and
    ``sin phi = sign(-a_ij) sqrt((1 - cos 2phi) / 2)``; set the rotated pair to 0; stop after
    a sweep without rotation or after 20 sweeps. Batched over the first axis; the entries are
    held entry-major, ``(p, p, m)``, so that every operation runs over contiguous arrays of the
    m matrices (the same arithmetic, element by element, as on ``(m, p, p)``).
    """
    x = np.ascontiguousarray(a.transpose(1, 2, 0))
    p, _, m = x.shape
    vec = np.zeros((p, p, m))
    for i in range(p):
        vec[i, i] = 1.0
    for _ in range(max_sweeps):
        moved = np.zeros(m, dtype=bool)
        for i in range(p):
            for j in range(i + 1, p):
                moved |= _jacobi_rotate(x, vec, i, j)
        if not moved.any():
            break
    lam = np.array([x[i, i] for i in range(p)]).T.copy()
    return lam, np.ascontiguousarray(vec.transpose(2, 0, 1))


def _jacobi_rotate(x: np.ndarray, vec: np.ndarray, i: int, j: int) -> np.ndarray:
    """One rotation of the pair (i, j) of every matrix that needs it (entry-major arrays,
    ``x[a, b]`` the (a, b) entries of all matrices); returns the mask.

    Matrices that need no rotation keep their entries exactly (``np.where``); the others get
    the rotation's arithmetic, the same operations in the same order as one matrix alone.
    """
    aij = x[i, j]
    need = aij * aij > JACOBI_TOL * np.abs(x[i, i] * x[j, j])
    if not need.any():
        return need
    every = bool(need.all())
    with np.errstate(divide="ignore", invalid="ignore"):  # only where no rotation is needed
        half = (x[j, j] - x[i, i]) / 2
        off = -aij
        r = np.sqrt(half * half + off * off)
        cos2 = half / r
        sin = np.sqrt((1 - cos2) / 2) * np.where(off > 0, 1.0, -1.0)
        cos = np.sqrt((1 + cos2) / 2)

    def rotate(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        new_a, new_b = a * cos + b * sin, b * cos - a * sin
        if every:
            return new_a, new_b
        return np.where(need, new_a, a), np.where(need, new_b, b)

    x[i], x[j] = rotate(x[i].copy(), x[j].copy())
    x[:, i], x[:, j] = rotate(x[:, i].copy(), x[:, j].copy())
    x[i, j] = np.where(need, 0.0, x[i, j])
    x[j, i] = np.where(need, 0.0, x[j, i])
    vec[:, i], vec[:, j] = rotate(vec[:, i].copy(), vec[:, j].copy())
    return need


def _variance_factor(a: np.ndarray, z: np.ndarray, z_sq: np.ndarray,
                     total: np.ndarray) -> np.ndarray:
    """``sum_i l_i^2`` for the fitted value ``c0 + e0' A X' W (y - c0)``.

    With ``a = A e0`` (A symmetric) and ``kappa = (1 - a' Z e0) / sum_i w_i``, the smoother
    weights are ``l_i = w_i (a' X_i + kappa)``, hence ``sum_i l_i^2 = b' Z_2 b`` with
    ``b = a + kappa e0`` and ``Z_2 = sum_i w_i^2 X_i X_i'``. (For a full-rank Z, ``kappa = 0``
    and ``l_i = w_i e0' Z^-1 X_i``.)
    """
    kappa = (1.0 - np.einsum("mi,mi->m", a, z[:, :, 0])) / total
    b = a.copy()
    b[:, 0] += kappa
    return np.maximum(np.einsum("mi,mij,mj->m", b, z_sq, b), 0.0)
