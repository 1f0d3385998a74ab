"""The parameters of the local fit, checked: locfit's smoothing parameters and ``maxk``.

Kept apart from :mod:`locacal.localfit` so that the R backend (:mod:`locacal.localfit.rlocfit`),
which the entry point calls, does not import the entry point back.
"""

from __future__ import annotations

from locacal._validation import check_choice, check_fraction, check_int, check_positive
from locacal.localfit._direct import LocalParams
from locacal.localfit._window import KERNELS

__all__ = ["EVALUATIONS", "FAMILIES", "MAX_MAXK", "check_maxk", "local_params"]

#: Local-fit families: local least squares (locfit's default), local logistic likelihood.
FAMILIES = ("gaussian", "binomial")

#: Public vocabulary of ``evaluation`` (the LCS, LocalRegressionCalibrator): the fit at every
#: point, or locfit's tree (``structure="tree"``).
EVALUATIONS = ("exact", "locfit")
#: Largest ``maxk``: R's locfit allocates its vertex space for ``maxk`` up front (6.3 GB at
#: 1e9); 10^6 allows 5000 times the default budget of 200.
MAX_MAXK = 10**6


def check_maxk(maxk: int) -> int:
    """Validate locfit's ``maxk``: from 2 (``maxk = 1`` aborts R, and this process) to
    :data:`MAX_MAXK`."""
    return check_int(maxk, "maxk", minimum=2, maximum=MAX_MAXK,
                     why="R allocates the vertex space for maxk up front")


def local_params(degree: int = 0, nn: float | None = 0.15, h: float | None = None,
                 kernel: str = "rect", family: str = "gaussian") -> LocalParams:
    """Validate the smoothing parameters; errors name the argument.

    ``nn`` in (0, 1] (None: no nearest-neighbour part), ``h > 0`` (None: none); at least one
    of them. Both given: ``h(t) = max(nn distance, h)``, as in ``lp(nn =, h =)``.
    ``family`` in :data:`FAMILIES`.
    """
    degree = check_int(degree, "degree", allowed=(0, 1, 2))
    nn = None if nn is None else check_fraction(nn, "nn")
    h = None if h is None else check_positive(h, "h")
    if nn is None and h is None:
        raise ValueError("give at least one of nn (nearest-neighbour fraction) and h "
                         "(fixed bandwidth); both are None")
    kernel = check_choice(kernel, tuple(KERNELS), "kernel")
    family = check_choice(family, FAMILIES, "family")
    return LocalParams(degree, nn, h, kernel, family)
