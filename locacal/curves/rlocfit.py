"""R's locfit through rpy2: ``calibration_curve(..., method="locfit")``.

Nothing here is imported until a locfit method is asked for, so ``import locacal`` never needs R.
The R side is ``r_scripts/locfit_bridge.R`` (installed as ``locacal/r_scripts``); this module
sources it once per session and calls its one function with numeric vectors.

Safety: R's locfit recurses without end, and dies with "segfault from C stack overflow", when a
group of tied scores larger than the nearest-neighbour count sits on a vertex of its evaluation
tree (decision-tree or isotonic scores). Through rpy2 that would kill the Python process, the
user's Jupyter kernel. Before calling R, the bridge replays locfit's tree construction in
Python (:func:`locacal.curves._locfit_tree.locfit_tree_would_crash`) and raises
:class:`LocfitCrashError` instead, pointing to ``method="local"``, whose
``evaluation="locfit"`` gives the same numbers without R and a defined answer on such ties.
"""

from __future__ import annotations

import functools
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from locacal._validation import check_choice, check_fraction, check_int
from locacal.curves._local_window import KERNELS
from locacal.curves.curve import CalibrationCurve
from locacal.curves.local import EVALUATIONS, local_params

__all__ = ["LocfitCrashError", "RBackendUnavailable", "locfit_curve", "locfit_estimate"]

INSTALL_HINT = (
    "The locfit method needs R with the locfit package and rpy2 3.5.x: "
    "`pip install 'locacal[r]'` and, on Debian/Ubuntu, "
    "`apt-get install r-base-core r-cran-locfit` (or, with conda, "
    "`conda install -c conda-forge r-base r-locfit rpy2`). rpy2 3.6 does not load against "
    "R 4.2 (undefined symbol R_getVar); rpy2 3.5.17 does. Without R, use method='local' "
    "(evaluation='locfit' reproduces locfit's numbers)."
)


class RBackendUnavailable(ImportError):
    """R, rpy2 or the locfit package is missing; the message says what to install."""


class LocfitCrashError(ValueError):
    """The data would crash R's locfit (and the Python process with it); nothing was run."""


def _bridge_file() -> Path:
    try:
        path = Path(str(resources.files("locacal.r_scripts") / "locfit_bridge.R"))
    except ModuleNotFoundError:
        path = Path(__file__).resolve().parents[2] / "r_scripts" / "locfit_bridge.R"
    if not path.is_file():  # source checkout: the top-level r_scripts/
        path = Path(__file__).resolve().parents[2] / "r_scripts" / "locfit_bridge.R"
    return path


@functools.cache
def _r_function():
    """Load rpy2, R's locfit and the bridge script once.

    Returns the R function, rpy2's vector constructor and its R error class.
    """
    saved = os.environ.get("LD_LIBRARY_PATH")
    try:
        import rpy2.robjects as ro
        from rpy2.rinterface_lib.embedded import RRuntimeError
    except Exception as exc:  # ImportError, or rpy2 failing to find/load libR
        raise RBackendUnavailable(f"{INSTALL_HINT} (rpy2 failed: {exc})") from exc
    finally:
        # rpy2 prepends R's library folders to LD_LIBRARY_PATH for the whole process; child
        # Python processes (joblib workers) would then load the system's libpython instead
        # of their own and fail to import anything installed. R is loaded already: restore.
        if saved is None:
            os.environ.pop("LD_LIBRARY_PATH", None)
        else:
            os.environ["LD_LIBRARY_PATH"] = saved
    try:
        ro.r('suppressPackageStartupMessages(library(locfit))')
        ro.r["source"](str(_bridge_file()))
    except RRuntimeError as exc:
        raise RBackendUnavailable(f"{INSTALL_HINT} (R said: {exc})") from exc
    return ro.globalenv["locacal_locfit"], ro.FloatVector, RRuntimeError


def _call_r(scores, labels, weights, points, *, nn, h, degree, kernel, maxk, exact):
    fn, vector, RRuntimeError = _r_function()
    w = np.ones_like(scores) if weights is None else weights
    try:
        out = fn(vector(labels), vector(scores), vector(w), vector(points), nn, h, degree,
                 KERNELS[kernel], maxk, exact)
    except RRuntimeError as exc:
        raise RuntimeError(f"R's locfit failed: {str(exc).strip()}") from exc
    return np.asarray(out, dtype=np.float64)


def locfit_estimate(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                    points: np.ndarray, *, degree: int = 0, nn: float = 0.15,
                    h: float = 0.0, kernel: str = "rect", maxk: int = 200,
                    evaluation: str = "locfit") -> np.ndarray:
    """Raw locfit estimate at ``points`` (unclipped), from R.

    Calls ``locfit(d ~ lp(s, nn = nn, h = h, deg = degree), kern = kernel, maxk = maxk,
    weights = w, ev = ...)`` and ``predict`` at ``points``: with ``evaluation="locfit"`` the
    default adaptive tree (``ev = rbox()``), with ``"exact"`` the points themselves.
    """
    check_fraction(nn, "nn")  # locfit always needs nn (the native engine allows None)
    params = local_params(degree, nn, h or None, kernel)  # the native engine's checks
    degree, nn, h = params.degree, params.nn, params.h or 0.0
    maxk = check_int(maxk, "maxk", minimum=2)  # maxk = 1 aborts R (and this process)
    check_choice(evaluation, EVALUATIONS, "evaluation")
    if evaluation == "locfit":
        from locacal.curves._locfit_tree import locfit_tree_would_crash

        reason = locfit_tree_would_crash(scores, weights, nn=nn, h=params.h, degree=degree,
                                         kernel=kernel, maxk=maxk)
        if reason is not None:
            raise LocfitCrashError(
                f"R's locfit would crash on these scores ({reason}), killing this Python "
                "process. Use method='local' (add evaluation='locfit' for locfit's "
                "interpolation), which handles tied scores without jitter."
            )
    return _call_r(scores, labels, weights, points, nn=nn, h=h, degree=degree, kernel=kernel,
                   maxk=maxk, exact=evaluation == "exact")


def locfit_curve(scores: Any, labels: Any, weights: Any = None, *, grid: Any = None,
                 **params: Any) -> CalibrationCurve:
    """``calibration_curve(scores, labels, method="locfit", ...)`` (kept for locacal 0.1
    code): ``LocalRegressionCalibrator(backend="locfit", evaluation="locfit", **params)``
    fitted and tabulated."""
    from locacal.curves import calibration_curve

    return calibration_curve(scores, labels, method="locfit", weights=weights, grid=grid,
                             **params)
