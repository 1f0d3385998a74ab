"""Native local polynomial regression of labels on scores: the embedded calibration curve.

The calibration curve g(p) = E[D | s(X) = p] is estimated by local polynomial regression as
in R's locfit. By default locally linear with the tricube kernel on 15 % nearest neighbours,
``locfit(d ~ lp(scores, nn = 0.15, deg = 1), kern = "tcub")`` (:data:`DEFAULT_LOCAL`); the
2024 slides (Machado, Charpentier et al., "Local regression" and "LCS" slides) used the local
mean, ``locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200)``
(:data:`SLIDES_LOCAL`, what :func:`locacal.lcs` and the seeds' studies pass). This module
reproduces locfit without R:

* **local fit** (Loader 1999, ch. 2): at a point t, weighted least squares of the labels on
  ``(1, s - t, (s - t)^2 / 2)`` truncated to ``degree + 1`` terms, with weights
  ``W(|s_i - t| / h(t)) * w_i`` (kernel x prior weight); ``g(t)`` is the intercept;
* **bandwidth**: ``h(t)`` = distance to the ``k = floor(n nn)``-th nearest score (rows are
  counted, prior weights are not: zero-weight rows count too, so integer weights are *not*
  the same as repeated rows for ``nn``), or ``max`` of that and a fixed ``h``; every score
  within ``h(t)`` is used (ties at the boundary all count); ``h(t) = 0`` keeps only the
  scores equal to t;
* **solution**: locfit's (one Newton step from the local mean, eigen-solver with its
  tolerance), which defines the answer in windows with fewer distinct scores than
  ``degree + 1``: one distinct score gives its mean at every degree; two distinct scores at
  degree 2 give locfit's scaled minimum-norm answer (see :mod:`locacal.localfit._solve`);
* ``evaluation="exact"`` fits at each requested point; ``evaluation="locfit"`` reproduces
  locfit's adaptive evaluation tree and its interpolation (:mod:`locacal.localfit._tree`), i.e. the
  numbers ``predict(locfit(...), newdata = grid)`` prints, without its crash on heavily tied
  scores.

Measured agreement with R locfit 1.5-9.7 (``tests/test_local_parity_r.py``,
``tests/test_local_tree.py``; locfit given the data sorted by score): exact evaluation within
2.2e-15 for degrees 0-2, the four kernels, with and without weights, on continuous scores,
decision-tree-like tied scores and scores with exact 0s and 1s; tree evaluation equal bit for
bit except degree 0 with the rectangular kernel (within 2e-15, locfit adds a rounding-level
Newton correction to the window mean). Beyond 1e6 rows read per call, sums switch from
locfit's order to faster pairwise sums and degree-2 answers move by locfit's own solver
error (~1e-10, see :mod:`locacal.localfit._direct`).

References
----------
C. Loader (1999), *Local Regression and Likelihood*, Springer (ch. 2-3 local regression,
section 2.3 variance of linear smoothers, ch. 12 computational methods).
A. F. Machado, A. Charpentier, E. Gallic et al. (2024), slides "Calibration curves and the
Local Calibration Score" (``seeds/machado-charpentier-2024-lcs-slides.md``).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

import numpy as np

from locacal._validation import check_choice, plain, warn
from locacal.curves._base import BaseCalibrator
from locacal.curves._likelihood_band import likelihood_band
from locacal.curves.bands import proportion_band
from locacal.curves.simultaneous import SupTNull, linear_smoother_null, local_fit_rows
from locacal.data.cells import ScoreStatistics
from locacal.data.grid import nn_bracket
from locacal.data.sample import sort_sample
from locacal.localfit import (
    BACKENDS,
    EVALUATIONS,
    FAMILIES,
    LocalFits,
    check_maxk,
    fit,
    local_params,
    resamples,
    warn_if_widened,
    warn_undefined,
)

__all__ = [
    "DEFAULT_LOCAL",
    "SLIDES_LOCAL",
    "LocalRegressionCalibrator",
    "local_estimate",
    "tabulate_local_fit",
]

#: Smoothing settings of ``LocalRegressionCalibrator()`` and ``calibration_curve(s, d)``:
#: local-linear, tricube kernel, 15 % nearest neighbours. Degree 1 has no boundary bias
#: of order h (at the lowest score the local mean averages g over a one-sided window: with
#: the rectangular kernel and uniform scores its bias is g'(t) h / 2; Fan & Gijbels 1996,
#: ch. 3), which is why its 95 % band covers g near the 1 % and 99 % score quantiles where
#: degree 0's does not (``benchmarks/coverage_bands.py``).
DEFAULT_LOCAL = MappingProxyType({"degree": 1, "kernel": "tricube", "nn": 0.15})
#: The 2024 slides' local regression (degree 0, rectangular kernel, nn = 0.15): the LCS's
#: definition and the settings of the seeds' studies and of ``recalibrate``'s ``"local"``.
SLIDES_LOCAL = MappingProxyType({"degree": 0, "kernel": "rect", "nn": 0.15})


class LocalRegressionCalibrator(BaseCalibrator):
    r"""Calibration curve and recalibration map by local polynomial regression (locfit's).

    :math:`\hat g(t)` is the intercept of the weighted least-squares fit of the labels on
    ``(1, s - t, (s - t)^2 / 2)`` (``degree + 1`` terms) with kernel weights
    :math:`W(|s_i - t| / h(t))` times the case weights, :math:`h(t)` the distance to the
    ``floor(n nn)``-th nearest score (or a fixed ``h``, or the larger of the two), clipped
    to [0, 1]. By default local-linear with the tricube kernel on 15 % nearest neighbours,
    ``locfit(d ~ lp(scores, nn = 0.15, deg = 1), kern = "tcub")``; the 2024 slides' estimator
    (and the LCS's) is ``LocalRegressionCalibrator(degree=0, kernel="rect")``,
    ``locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200)``. Reproduced
    natively (module docstring) or run in R (``backend="locfit"``).

    Parameters
    ----------
    degree : {0, 1, 2}, default 1
        Local polynomial degree (1: local line, free of the local mean's boundary bias at the
        ends of the scores; 0: local mean, the slides' and the LCS's choice).
    nn : float in (0, 1], None or {"gcv", "aic", "lcv", "cv", "aicc"}, default 0.15
        Nearest-neighbour fraction (rows are counted, as locfit does). None with ``h`` for a
        fixed bandwidth only. A criterion name chooses the span over
        :func:`~locacal.curves.selection.default_nn_grid` by
        :meth:`~locacal.curves.selection.SmoothingTable.best` (the smoothest span within one
        standard error of the minimum for gcv, aic and cv; kernels rect, tricube, epan).
    h : float > 0 or criterion name, optional
        Fixed bandwidth; with ``nn`` too, ``h(t) = max(nn distance, h)`` as ``lp(nn, h)``.
        A criterion name (with ``nn=None``) chooses it over
        :func:`~locacal.curves.selection.default_h_grid`.
    kernel : {"rect", "tricube", "gauss", "epan"}, default "tricube"
        locfit's kernels: ``rect`` 1, ``tricube`` ``(1 - |u|^3)^3``, ``epan`` ``1 - u^2`` on
        ``|u| <= 1``; ``gauss`` exp(-(2.5 u)^2 / 2).
    evaluation : {"exact", "locfit"}, default "exact"
        ``"exact"``: the local fit at every requested score. ``"locfit"``: locfit's adaptive
        tree of vertices and its interpolation, i.e. what ``predict(locfit(...), newdata)``
        returns (it differs from the exact fit by up to a few hundredths at some points).
    backend : {"native", "locfit"}, default "native"
        ``"native"``: no R needed. ``"locfit"``: R's locfit through rpy2 (``pip install
        'locacal[r]'`` and R with locfit); data that would crash R's tree raise
        :class:`~locacal.localfit.rlocfit.LocfitCrashError` instead of killing the process.
        Both check ``nn`` by the same rules: ``n * nn < 1`` raises the neighbourhood to the
        nearest score(s) with a warning, except that R refuses (ValueError) a single
        neighbour under the tricube or epan kernel, which would give it weight 0.
    maxk : int, default 200
        Vertex space of locfit's tree (``backend="locfit"``; the slides use 200), from 2 to
        10^6.
    clip : bool, default True
        Clip the map (and its band) to [0, 1], as the slides do (the binomial family's map
        and band are inside [0, 1] already).
    family : {"gaussian", "binomial"}, default "gaussian"
        ``"gaussian"``: local least squares (locfit's default family, the slides'), every
        number as above. ``"binomial"``: local likelihood with the logit link, ``locfit(d ~
        lp(s, ...), family = "binomial")``: at t, maximise
        :math:`\sum_i K_i w_i (y_i \theta_i - \log(1 + e^{\theta_i}))` with
        :math:`\theta_i` the local polynomial in ``s_i - t``, and
        :math:`\hat g(t) = \operatorname{expit}(\hat\theta(t))` (Loader 1999, ch. 4).
        It stays in (0, 1) without clipping and fits the tail of rare events, where least
        squares leaves [0, 1]. Natively by locfit's own Newton iteration
        (:mod:`locacal.localfit._likelihood`: agrees with R to ~1e-13; locfit stops before
        full convergence, 4e-7 to 2.3e-6 from the maximiser on 2 % prevalence data). Its
        band is the score (Wilson) interval of the local likelihood at the least-squares
        smoother's effective size (:mod:`locacal.curves._likelihood_band`).
        ``evaluation="exact"`` only on the native backend; not from cell statistics.

    Attributes
    ----------
    sample_ : SortedSample
        The fitted data sorted by score (labels and weights alongside).
    params_ : LocalParams
        The validated smoothing parameters.
    nn_, h_ : float or None
        The span and bandwidth used (the selected one when ``nn`` or ``h`` names a criterion).
    smoothing_table_ : SmoothingTable or None
        The criteria over the grid, when ``nn`` or ``h`` names a criterion.
    structures_ : dict
        What :func:`locacal.localfit.fit` prepared for this sample and reuses: locfit's
        evaluation tree (``evaluation="locfit"``, native backend), R's fit
        (``backend="locfit"``, made once; it pickles and refits in R when needed), the
        block sums and segment trees of the exact fit at many new scores (every distinct
        new score is fitted, nothing is interpolated).
    cells_ : ScoreStatistics or None
        The cells the map is read from when fitted by :meth:`from_statistics`, else None.

    Notes
    -----
    The pointwise band of :meth:`curve` is a binomial interval (Wilson's by default) for the
    clipped estimate observed on the effective size ``1 / sum_i l_i(t)^2``, with ``l_i(t)``
    the linear-smoother weights of the exact fit (Loader 1999, section 2.3:
    ``Var g(t) = sum_i l_i(t)^2 Var(D_i)``); it stays in [0, 1] and keeps a positive width
    where g is 0 or 1 (:mod:`locacal.curves.bands`). It is a band for the smoothed map
    ``E[g_hat(t)]``: with a fixed span the smoothing bias does not shrink with n. With the
    default local line the bias is second order and the 95 % band covered the true map at
    0.947-0.953 on average between the 5 % and 95 % score quantiles and 0.93-0.97 at the 1 %
    and 99 % quantiles (n = 2000 and 20000; calibrated, over- and under-confident scores;
    ``benchmarks/coverage_bands.py``, 400 samples); the slides' local mean (degree 0, rect)
    covered 0.00-0.12 at those edge quantiles. ``counts`` are the observations with positive
    weight within ``h(t)``.

    With ``family="binomial"`` the pointwise band is ``interval``'s binomial interval
    (Wilson's by default) for the likelihood's estimate :math:`\hat g(t)` at the effective
    size :math:`1 / \sum_i l_i(t)^2` of the least-squares smoother of the same degree,
    kernel and span: the score interval of the local likelihood when the window's
    probabilities are locally constant (:mod:`locacal.curves._likelihood_band`); a window
    without events gets :math:`[0, z^2 / (n_e + z^2)]`. At 2 % prevalence (logit-linear
    and wiggly maps, default span and kernel; ``benchmarks/coverage_binomial.py``, Monte
    Carlo standard errors in parentheses) the 95 % band covered the true map on average
    between the 5 % and 95 % score quantiles 0.962 / 0.960 (linear / wiggly; at most 0.004)
    at n = 2000 (2000 samples) and 0.950 / 0.946 (at most 0.011) at n = 20000 (400
    samples), and 0.920-0.973 at the 1 % and 99 % quantiles (0.004-0.012). The Wald band
    on the logit scale used before over-covered at n = 2000: 0.974 and 0.973 on average (at
    most 0.004; 2000 samples).

    From cell statistics (:meth:`from_statistics`, Dask input; ``degree`` 0 or 1, ``kernel``
    ``"rect"`` or ``"tricube"``, a span ``nn``, ``evaluation="exact"``, the native backend)
    the map at a point is the binned local fit
    :func:`locacal.localfit.fit` reads off the cells, within its stated bound of the
    exact fit with the same ``degree``, ``nn`` and ``kernel``, clipped with ``clip``. It
    costs O(cells in the window) per distinct point: meant for curves and moderate numbers
    of new scores. The pointwise band is the binomial interval above, at the effective size
    of the binned fit's smoother weights
    (its ``var_factor``), around the clipped
    estimate; ``counts`` are the rows within the window's cells, at most ``floor(n nn)``.

    Rows of weight zero are dropped before the fit (they are not in the sample). The other
    rows count one each among the ``floor(n nn)`` neighbours, as in locfit, so with ``nn`` an
    integer weight is not a duplicated row.

    References
    ----------
    Fan, J. & Gijbels, I. (1996). *Local Polynomial Modelling and Its Applications*.
    Chapman & Hall, ch. 3 (boundary behaviour of local constant and local linear fits).
    Loader, C. (1999). *Local Regression and Likelihood*. Springer, ch. 2-3, 12.
    Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides, "Local regression" and §4.

    Examples
    --------
    >>> import numpy as np
    >>> from locacal import LocalRegressionCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000); d = rng.uniform(size=2000) < s ** 2
    >>> local = LocalRegressionCalibrator().fit(s, d)
    >>> local.predict([0.2, 0.5, 0.8]).round(2)
    array([0.04, 0.3 , 0.66])
    """

    def __init__(self, degree: int = 1, nn: float | None = 0.15, h: float | None = None,
                 kernel: str = "tricube", evaluation: str = "exact", backend: str = "native",
                 maxk: int = 200, clip: bool = True, family: str = "gaussian") -> None:
        self.degree = degree
        self.nn = nn
        self.h = h
        self.kernel = kernel
        self.evaluation = evaluation
        self.backend = backend
        self.maxk = maxk
        self.clip = clip
        self.family = family

    @property
    def method(self) -> str:  # type: ignore[override]
        return "locfit" if self.backend == "locfit" else "local"

    _takes_frequency_weights = True

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        self.cells_ = None
        nn, h, self.smoothing_table_ = self.nn, self.h, None
        family = check_choice(self.family, FAMILIES, "family")
        if family == "binomial" and self.evaluation != "exact" and self.backend == "native":
            raise ValueError("family='binomial' is fitted at each point (evaluation='exact') "
                             "by the native backend; got evaluation="
                             f"{plain(self.evaluation)!r} (locfit's tree for it: "
                             "backend='locfit')")
        counts = getattr(self, "frequency_weights_", None)
        if isinstance(nn, str) or isinstance(h, str):  # a criterion: locacal.curves.selection
            from locacal.curves.selection import select_bandwidth

            nn, h, self.smoothing_table_ = select_bandwidth(s, y, w, self.degree, nn, h,
                                                            self.kernel, family=family,
                                                            counts=counts)
        self.params_ = local_params(self.degree, nn, h, self.kernel, family)
        self.nn_, self.h_ = self.params_.nn, self.params_.h
        check_choice(self.evaluation, EVALUATIONS, "evaluation")
        check_choice(self.backend, BACKENDS, "backend")
        check_maxk(self.maxk)
        if (counts is not None and self.params_.nn
                and (self.backend != "native" or self.evaluation != "exact")):
            raise ValueError("with frequency_weights and a nearest-neighbour span nn the "
                             "local fit is the native exact one (backend='native', "
                             "evaluation='exact'): locfit's nn counts rows, not their "
                             "weights, so R's fit (and its tree) with weights= is not the "
                             "expanded rows' (they differ by 0.01-0.14 on 80 rows); with a "
                             "fixed h alone (nn=None) every backend and evaluation take "
                             f"counts; got backend={plain(self.backend)!r}, "
                             f"evaluation={plain(self.evaluation)!r}")
        self.sample_ = sort_sample(s, y, w, counts)
        if self.backend == "native":  # R's locfit_fit checks the neighbourhood likewise
            warn_if_widened(self.sample_.observations, self.params_.nn, self.params_.h)
        self.structures_: dict = {}
        # builds the tree or R's fit once; R reports bad data here, at fit time
        _warn_unsplittable(self._fits(self.sample_.scores[:1]).unsplittable)

    def _check_statistics(self) -> None:
        if self.family == "binomial":
            raise ValueError(
                "family='binomial' is not available from cell statistics (Dask input): the "
                "local likelihood's Newton steps reweight each row by p(1 - p) at the current "
                "fit, which the cells' sums of w, wy and ws cannot give; fit the rows "
                "(in memory), or use family='gaussian' from cells")
        if self.degree not in (0, 1) or self.kernel not in ("rect", "tricube"):
            raise ValueError("from cell statistics (Dask input) the local fit has degree 0 or "
                             "1 and kernel 'rect' or 'tricube'; got "
                             f"degree={plain(self.degree)!r}, kernel={plain(self.kernel)!r}")
        if self.h is not None or self.evaluation != "exact" or self.backend != "native":
            raise ValueError("from cell statistics (Dask input) the local fit takes a span nn "
                             "and the native exact evaluation; got "
                             f"h={plain(self.h)!r}, evaluation={plain(self.evaluation)!r}, "
                             f"backend={plain(self.backend)!r}")

    def _fit_statistics(self, stats: ScoreStatistics) -> None:
        self.cells_ = stats

    def _fits(self, points: np.ndarray, outputs: tuple[str, ...] = ("value",),
              many_points: bool = False) -> LocalFits:
        return fit(self.sample_, points, self.params_, outputs=outputs,
                   structure="tree" if self.evaluation == "locfit" else "exact",
                   backend=self.backend, maxk=self.maxk, many_points=many_points,
                   cache=self.structures_)

    def _cell_fits(self, points: np.ndarray, outputs: tuple[str, ...]) -> LocalFits:
        """The binned fit from the cells (:meth:`from_statistics`)."""
        return fit(self.cells_, points, local_params(self.degree, self.nn, None, self.kernel),
                   outputs=outputs)

    def _raw(self, s: np.ndarray) -> np.ndarray:
        """Unclipped fitted map at validated scores."""
        if self.cells_ is not None:
            points, inverse = np.unique(s, return_inverse=True)
            return self._cell_fits(points, ("value",)).value[inverse]
        return self._fits(s, many_points=True).value

    def _finish(self, raw: np.ndarray) -> np.ndarray:
        warn_undefined(raw)
        return np.clip(raw, 0.0, 1.0) if self.clip else raw

    def _predict(self, s: np.ndarray) -> np.ndarray:
        if self.cells_ is not None:
            raw = self._raw(s)
            return np.clip(raw, 0.0, 1.0) if self.clip else raw
        return self._finish(self._raw(s))

    def _has_pointwise_band(self) -> bool:
        return True

    def _resampled_draws(self, grid: np.ndarray, kind: str, n_boot: int,
                         rng: np.random.Generator) -> np.ndarray | None:
        """All resamples at once (:mod:`locacal.localfit._resample`) for the native exact fit
        with a fixed span; a span chosen by a criterion is re-chosen per resample (refits)."""
        if (self.backend != "native" or self.evaluation != "exact"
                or self.smoothing_table_ is not None or self.params_.family != "gaussian"
                or self.sample_.counts is not None):
            return None
        raw = np.concatenate([fit(self.sample_, grid, self.params_, copies=copies,
                                  events=events).value
                              for copies, events in resamples(self.sample_, kind, n_boot, rng)])
        return np.clip(raw, 0.0, 1.0) if self.clip else raw

    def _pointwise_band(self, grid: np.ndarray, estimate: np.ndarray, level: float,
                        interval: str) -> tuple[np.ndarray, np.ndarray]:
        """The band of the fit from cells (the base class's ``_tabulate``)."""
        var_factor = self._cell_fits(grid, ("var_factor",)).var_factor
        return proportion_band(estimate, var_factor, level, interval)

    def _sup_null(self, grid: np.ndarray, critical: str, seed: Any) -> SupTNull:
        """The sup-t law of the simultaneous band: the exact fit's smoother weights (also
        with locfit's tree or R, as for the pointwise band); a span chosen by a criterion is
        taken as fixed."""
        if self.cells_ is not None:
            raise ValueError("band='simultaneous' needs the fitted rows (the smoother "
                             "weights), and this calibrator was fitted from cell statistics "
                             "(Dask input); use band='pointwise' or None")
        sample = self.sample_
        return linear_smoother_null(local_fit_rows(sample, self.params_), sample.scores,
                                    lambda: self._predict(sample.scores), self._predict(grid),
                                    grid, critical, seed)

    def _counts(self, grid: np.ndarray) -> np.ndarray:
        """The rows within the window's cells, at most floor(n nn) (fit from cells)."""
        st = self.cells_
        k = float(max(int(st.n * self.nn + 1e-12), 1))
        cum = np.concatenate([[0.0], np.cumsum(st.count)])
        _, _, _, outer = nn_bracket(grid, k, cum)
        return np.minimum(cum[outer[1]] - cum[outer[0]], k)

    def _tabulate(self, grid: np.ndarray, band: str | None, level: float,
                  interval: str) -> tuple[np.ndarray, ...]:
        if self.cells_ is not None:
            return super()._tabulate(grid, band, level, interval)
        if self.params_.family == "binomial":
            fits = self._fits(grid, ("value", "logit", "se", "var_factor", "count"))
            warn_undefined(fits.value)
            if band is None:
                nan = np.full(grid.shape, np.nan)
                return fits.value, nan, nan, fits.count
            # the score interval at the least-squares smoother's effective size
            least_squares = replace(self.params_, family="gaussian")
            var_factor = fit(self.sample_, grid, least_squares,
                             outputs=("var_factor",)).var_factor
            lower, upper = likelihood_band(fits.value, var_factor, level, interval)
            return fits.value, lower, upper, fits.count
        fits = self._fits(grid, ("value", "var_factor", "count"))
        return tabulate_local_fit(fits, grid, band, level, clip=self.clip, interval=interval)

    def _curve_params(self) -> dict[str, Any]:
        if self.cells_ is not None:
            return {"degree": self.degree, "nn": self.nn, "kernel": self.kernel,
                    "evaluation": "binned"}
        params = {"degree": self.params_.degree, "nn": self.params_.nn, "h": self.params_.h,
                  "kernel": self.params_.kernel, "evaluation": self.evaluation}
        if self.backend == "locfit":
            params["maxk"] = self.maxk
        if self.params_.family != "gaussian":
            params["family"] = self.params_.family
        return params


def local_estimate(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                   points: np.ndarray, *, degree: int = 0, nn: float | None = 0.15,
                   h: float | None = None, kernel: str = "rect",
                   evaluation: str = "exact",
                   counts: np.ndarray | None = None) -> np.ndarray:
    """Raw (unclipped) local-regression estimate of E[D | s = t] at ``points``
    (``counts``: frequency weights, with ``weights`` the combined ``w f``).

    Parameters
    ----------
    scores, labels, weights : ndarray
        Validated by :func:`locacal._validation.check_scores_labels` (``weights`` None for
        unit weights).
    points : ndarray
        Validated evaluation points in [0, 1].
    degree, nn, h, kernel
        See :class:`LocalRegressionCalibrator`.
    evaluation : {"exact", "locfit"}
        Fit at each point, or interpolate locfit's adaptive tree as ``predict`` does.

    Returns
    -------
    ndarray
        ``g(t)`` at each point; NaN where no observation with positive weight lies within the
        bandwidth (possible only with a small fixed ``h`` or all-zero weights there).
    """
    params = local_params(degree, nn, h, kernel)
    evaluation = check_choice(evaluation, EVALUATIONS, "evaluation")
    return fit(sort_sample(scores, labels, weights, counts), points, params,
               structure="tree" if evaluation == "locfit" else "exact").value


def tabulate_local_fit(fits: LocalFits, grid: np.ndarray, band: str | None, level: float, *,
                       clip: bool = True,
                       interval: str = "wilson") -> tuple[np.ndarray, ...]:
    """Estimate, pointwise band and neighbourhood counts at ``grid`` from the local fits
    there (value, variance factor and counts: :func:`locacal.localfit.fit`).

    The band's effective size is always the exact fit's, also when the value is locfit's
    tree or R's (see :class:`LocalRegressionCalibrator`, Notes). ``interval``: see
    :func:`locacal.curves.bands.proportion_band`.
    """
    raw = fits.value
    warn_undefined(raw)
    estimate = np.clip(raw, 0.0, 1.0) if clip else raw
    if band is None:
        nan = np.full(grid.shape, np.nan)
        return estimate, nan, nan, fits.count
    lower, upper = proportion_band(raw, fits.var_factor, level, interval)
    return estimate, lower, upper, fits.count


def _warn_unsplittable(cells: tuple[float, ...]) -> None:
    if cells:
        warn(f"R's locfit would split its evaluation tree forever near score {cells[0]!r} "
             "(a tied value holding at least floor(n nn) copies) and crash; the native tree "
             "stops at floating-point resolution there")
