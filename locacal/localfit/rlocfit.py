"""R's locfit through rpy2: ``calibration_curve(..., method="locfit")`` and the
``backend="locfit"`` calibrators.

Nothing here is imported until a locfit method is asked for, so ``import locacal`` never needs R.
The R side is ``r_scripts/locfit_bridge.R`` (installed as ``locacal/r_scripts``); this module
loads rpy2, R's locfit and that script once per process, and calls its functions with plain
numeric vectors. Every call into R, from rpy2's import on, runs on locacal's single R thread
(:mod:`locacal.localfit._rthread`), whatever thread the user calls from.

:func:`locfit_fit` fits once and returns a :class:`LocfitFit`, whose ``predict`` asks R at new
scores: at their sorted unique values only (R's cost), scattered back (O(m log m) here).

Safety: R's locfit recurses without end, and dies with "segfault from C stack overflow", when a
group of tied scores larger than the nearest-neighbour count sits on a vertex of its evaluation
tree (decision-tree or isotonic scores). Through rpy2 that would kill the Python process, the
user's Jupyter kernel. Before fitting, the bridge replays locfit's tree construction in
Python (:func:`locacal.localfit._tree.locfit_tree_would_crash`, with the R thread's stack
size) and raises :class:`LocfitCrashError` instead, pointing to ``method="local"``, whose
``evaluation="locfit"`` gives the same numbers without R and a defined answer on such ties.
"""

from __future__ import annotations

import functools
import itertools
import os
import warnings
import weakref
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from locacal._validation import (
    check_choice,
    check_fraction,
    check_scores,
    check_scores_labels,
)
from locacal.localfit import _rthread
from locacal.localfit._params import EVALUATIONS, check_maxk, local_params
from locacal.localfit._window import (
    KERNELS,
    effective_count,
    kernel_weights,
    warn_if_widened,
)

__all__ = ["LocfitCrashError", "LocfitFit", "RBackendUnavailable", "locfit_fit"]

INSTALL_HINT = (
    "The locfit method needs R with the locfit package and rpy2 3.5.x: "
    "`pip install 'locacal[r]'` and, on Debian/Ubuntu, "
    "`apt-get install r-base-core r-cran-locfit` (or, with conda, "
    "`conda install -c conda-forge r-base r-locfit rpy2`). rpy2 3.6 does not load against "
    "R 4.2 (undefined symbol R_getVar); rpy2 3.5.17 does. Without R, use method='local' "
    "(evaluation='locfit' reproduces locfit's numbers)."
)

#: C stack below locfit's recursion on the R thread (Python, rpy2 and R's evaluator frames),
#: kept out of the depth budget given to the crash predictor: (256 - 4) MiB / 133,000 bytes
#: = depth 1986. Measured on the R thread (R 4.2.2, locfit 1.5-9.7, x86-64): depth 2027
#: finishes, 2070 dies with SIGSEGV, so the limit errs by ~40 levels on the safe side
#: (tests/test_rlocfit.py::test_stack_overflow_depth_on_the_r_thread_is_predicted).
STACK_RESERVE_BYTES = 4 * 1024 * 1024


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


@dataclass(frozen=True)
class _Bridge:
    """The R functions of ``locfit_bridge.R`` and rpy2's low-level pieces (R thread only)."""

    fit: Any
    predict: Any
    drop: Any
    ri: Any  # rpy2.rinterface
    error: type[Exception]  # rpy2's RRuntimeError


@functools.cache
def _bridge() -> _Bridge:
    """Initialise R through rpy2 and load locfit and the bridge script, once (R thread only).

    Only rpy2's low-level ``rinterface`` is used: it needs none of ``rpy2.robjects``'
    per-thread conversion rules, and numeric vectors cross by a single memory copy.
    """
    saved = os.environ.get("LD_LIBRARY_PATH")
    try:
        import rpy2.rinterface as ri
        from rpy2.rinterface_lib.embedded import RRuntimeError

        # rpy2 warns that R initialised off the main thread keeps SIGINT; it does not: rpy2
        # sets R_SignalHandlers = 0 and Ctrl-C still reaches Python (checked by hand).
        warnings.filterwarnings("ignore", message="R is not initialized by the main thread",
                                category=UserWarning)
        ri.initr_simple()
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
        ri.evalr("suppressPackageStartupMessages(library(locfit))")
        ri.baseenv["source"](ri.StrSexpVector([str(_bridge_file())]))
    except RRuntimeError as exc:
        raise RBackendUnavailable(f"{INSTALL_HINT} (R said: {exc})") from exc
    env = ri.globalenv
    return _Bridge(env.find("locacal_locfit_fit"), env.find("locacal_locfit_predict"),
                   env.find("locacal_locfit_drop"), ri, RRuntimeError)


def _r_failure(exc: Exception) -> RuntimeError:
    """R's error as a RuntimeError carrying R's message (nothing of R attached)."""
    return RuntimeError(f"R's locfit failed: {str(exc).strip()}")


@dataclass(frozen=True)
class LocfitSettings:
    """Validated settings of one locfit call (see :func:`locfit_fit`)."""

    degree: int
    nn: float
    h: float
    kernel: str
    maxk: int
    evaluation: str
    family: str = "gaussian"


#: Families of the R backend: locfit's default local least squares, or ``"binomial"``.
R_FAMILIES = ("gaussian", "binomial")


def locfit_settings(degree: int = 0, nn: float = 0.15, h: float = 0.0, kernel: str = "rect",
                    maxk: int = 200, evaluation: str = "locfit",
                    family: str = "gaussian") -> LocfitSettings:
    """Check locfit's settings with the native engine's rules; ``h = 0`` means no fixed part,
    ``nn`` None or 0 no nearest-neighbour part (R's ``lp(nn = 0, h = h)``; ``h`` needed)."""
    if not (nn is None or (isinstance(nn, (int, float)) and nn == 0 and h)):
        check_fraction(nn, "nn")  # locfit needs nn unless a fixed h alone is the span
    params = local_params(degree, nn or None, h or None, kernel)  # the native engine's checks
    maxk = check_maxk(maxk)
    check_choice(evaluation, EVALUATIONS, "evaluation")
    family = check_choice(family, R_FAMILIES, "family")
    return LocfitSettings(params.degree, float(params.nn or 0.0), params.h or 0.0, params.kernel,
                          maxk, evaluation, family)


_keys = itertools.count()


class LocfitFit:
    """R's locfit fitted to calibration data once; :meth:`predict` asks R at new scores.

    Made by :func:`locfit_fit`. The R object lives in R (``locacal_fits`` in the bridge) under
    a key and is freed when this object is garbage collected. Pickling keeps the data and the
    settings; an unpickled fit rebuilds its R side on first use (same numbers: locfit is
    deterministic). With ``evaluation="exact"`` the fit is evaluated at the requested scores
    themselves (``ev = points``), so each :meth:`predict` fits again in R.

    Attributes
    ----------
    scores, labels : ndarray
    weights : ndarray or None
    settings : LocfitSettings
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 settings: LocfitSettings):
        self.scores, self.labels, self.weights = scores, labels, weights
        self.settings = settings
        self._key: str | None = None  # touched on the R thread only

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_key"] = None
        return state

    def predict(self, points: Any) -> np.ndarray:
        """locfit's estimate at ``points`` (raw, unclipped), as R's ``predict`` returns it.

        R is asked only at the sorted unique points; their values are scattered back.
        """
        x = check_scores(points, "points")
        unique, inverse = np.unique(x, return_inverse=True)
        return _rthread.run(self._predict_sorted, unique)[inverse]

    def _ensure_in_r(self) -> None:
        """Fit in R unless done already in this process (R thread only)."""
        if self._key is not None:
            return
        bridge = _bridge()
        ri, s = bridge.ri, self.settings
        w = np.ones_like(self.scores) if self.weights is None else self.weights
        # binomial: locfit reads weights as trial counts, so the case-weighted likelihood
        # sum_i w_i (y_i theta_i - log(1 + e^theta_i)) is y_i w_i successes out of w_i
        binomial = s.family == "binomial"
        d = self.labels * w if binomial else self.labels
        key = f"fit{next(_keys)}"
        try:
            bridge.fit(ri.StrSexpVector([key]), _floats(ri, d),
                       _floats(ri, self.scores), _floats(ri, w), _floats(ri, [s.nn]),
                       _floats(ri, [s.h]), _floats(ri, [s.degree]),
                       ri.StrSexpVector([KERNELS[s.kernel]]), _floats(ri, [s.maxk]),
                       ri.BoolSexpVector([s.evaluation == "exact"]),
                       ri.StrSexpVector(["binomial" if binomial else "default"]))
        except bridge.error as exc:
            raise _r_failure(exc) from None
        self._key = key
        weakref.finalize(self, _rthread.post, _drop, key).atexit = False

    def _predict_sorted(self, points: np.ndarray) -> np.ndarray:
        """R's prediction at sorted unique ``points`` (R thread only)."""
        self._ensure_in_r()
        bridge = _bridge()
        try:
            out = bridge.predict(bridge.ri.StrSexpVector([self._key]),
                                 _floats(bridge.ri, points))
        except bridge.error as exc:
            raise _r_failure(exc) from None
        return np.array(out.memoryview(), dtype=np.float64)


def _floats(ri: Any, values: Any) -> Any:
    """An R double vector holding ``values`` (one memory copy for arrays)."""
    return ri.FloatSexpVector(np.ascontiguousarray(values, dtype=np.float64))


def _drop(key: str) -> None:
    """Free a fit's R object (R thread only; from :class:`LocfitFit`'s finalizer)."""
    bridge = _bridge()
    bridge.drop(bridge.ri.StrSexpVector([key]))


def locfit_fit(scores: Any, labels: Any, weights: Any = None, *, degree: int = 0,
               nn: float = 0.15, h: float = 0.0, kernel: str = "rect", maxk: int = 200,
               evaluation: str = "locfit", family: str = "gaussian") -> LocfitFit:
    """Fit ``locfit(d ~ lp(s, nn = nn, h = h, deg = degree), kern = kernel, maxk = maxk,
    weights = w, ev = ...)`` in R, once (with ``family = "binomial"`` for the local
    logistic likelihood).

    Parameters
    ----------
    scores, labels, weights : array-like
        Calibration data (scores in [0, 1], 0/1 labels, optional non-negative weights).
    degree : {0, 1, 2}, default 0
    nn : float in (0, 1], default 0.15
        Nearest-neighbour fraction (``lp(nn = )``).
    h : float, default 0
        Constant bandwidth component (``lp(h = )``); locfit uses the larger of the two.
    kernel : {"rect", "tricube", "gauss", "epan"}, default "rect"
    maxk : int >= 2, default 200
        Vertex space of the evaluation tree (the 2024 slides use 200).
    evaluation : {"locfit", "exact"}, default "locfit"
        ``"locfit"``: locfit's default adaptive tree (``ev = rbox()``) and its interpolation,
        what ``predict(fit, newdata = )`` returns; ``"exact"``: the fit at the requested
        points themselves (``ev = points``).
    family : {"gaussian", "binomial"}, default "gaussian"
        locfit's default local least squares, or its local logistic likelihood
        (``family = "binomial"``; the labels are sent as ``d * w`` successes out of ``w``
        trials, so that the weights act as case weights). ``predict`` then returns
        ``expit`` of the local logit.

    Returns
    -------
    LocfitFit
        Its ``predict(points)`` gives the raw (unclipped) estimate.

    Raises
    ------
    RBackendUnavailable
        R, rpy2 or locfit missing (an ImportError; the message says what to install).
    LocfitCrashError
        The tied scores would crash R's locfit (or exhaust its vertex space, ``maxk``);
        nothing was sent to R.
    ValueError
        Bad settings, checked by the native engine's rules; also a single neighbour
        (``nn < 2 / n``) under a kernel that gives it weight 0 (:func:`_native_neighbourhood`).
        ``n * nn < 1`` otherwise warns and fits with ``nn = 1 / n``, as the native engine.
    RuntimeError
        R's locfit stopped with an error; the message is R's.
    """
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False)
    settings = locfit_settings(degree, nn, h, kernel, maxk, evaluation, family)
    settings = _native_neighbourhood(settings, s.size)
    if settings.evaluation == "locfit":
        _refuse_crashing_ties(s, settings)
    fit = LocfitFit(s, y, w, settings)
    _rthread.run(fit._ensure_in_r)
    return fit


def _native_neighbourhood(settings: LocfitSettings, n: int) -> LocfitSettings:
    """The settings with which R's locfit fits what the native engine fits, checked by the
    native engine's rules before R sees them.

    * ``n * nn < 1`` without ``h``: locfit stops with "vector size cannot be NA"; the native
      engine raises the neighbour count to 1
      (:func:`~locacal.localfit._window.effective_count`, with its warning), and so does
      this, by passing ``nn = 1 / n``.
    * One neighbour and a kernel that vanishes at the window's edge (tricube, epan): that
      neighbour has weight 0, locfit reports "no points with non-zero weight" and returns
      the previous point's coefficients, an undefined fit, where the native engine weights
      the nearest scores uniformly. Refused with a ValueError naming ``nn``.
    """
    h = settings.h or None
    k = effective_count(n, settings.nn or None, h)
    edge = float(kernel_weights(np.ones(1), 1.0, settings.kernel)[0])
    if h is None and k == 1 and edge == 0.0:
        raise ValueError(
            f"nn = {settings.nn!r} leaves one neighbour in each window of the n = {n} "
            f"observations, and the {settings.kernel} kernel gives it weight 0: R's locfit then "
            f"returns an undefined fit. Give nn >= {2.0 / n:.3g} or h, kernel='rect', or "
            "backend='native' (which weights the nearest scores uniformly)")
    if warn_if_widened(n, settings.nn or None, h):
        return replace(settings, nn=1.0 / n)
    return settings


def _refuse_crashing_ties(scores: np.ndarray, settings: LocfitSettings) -> None:
    from locacal.localfit._tree import locfit_tree_would_crash

    reason = locfit_tree_would_crash(
        scores, nn=settings.nn or None, h=settings.h or None, cut=0.8, maxk=settings.maxk,
        stack_bytes=_rthread.STACK_BYTES - STACK_RESERVE_BYTES)
    if reason is not None:
        raise LocfitCrashError(
            f"R's locfit would crash on these scores ({reason}), killing this Python "
            "process. Use method='local' (add evaluation='locfit' for locfit's "
            "interpolation), which handles tied scores without jitter."
        )
