"""The method names of the calibrator family and ``calibration_curve`` (fit + tabulate)."""


from __future__ import annotations

from typing import Any

from locacal._validation import (
    check_aligned,
    check_choice,
    check_frequency_weights,
    check_scores_labels,
    check_seed,
    has_dask,
    plain,
    public_api,
)
from locacal.curves._base import BaseCalibrator
from locacal.curves.bands import DEFAULT_N_BOOT
from locacal.curves.beta import BetaCalibrator
from locacal.curves.binning import BinningCalibrator
from locacal.curves.curve import CalibrationCurve
from locacal.curves.grouped import CurvesByGroup
from locacal.curves.isotonic import IsotonicCalibrator
from locacal.curves.kernel import KernelCalibrator
from locacal.curves.local import LocalRegressionCalibrator
from locacal.curves.lowess import LowessCalibrator
from locacal.curves.platt import PlattCalibrator
from locacal.data.groups import split_by

__all__ = ["METHODS", "calibration_curve", "make_calibrator"]

#: Method names, each with its calibrator class and the settings the name implies.
METHODS: dict[str, tuple[type[BaseCalibrator], dict[str, Any]]] = {
    "local": (LocalRegressionCalibrator, {}),
    "binning": (BinningCalibrator, {}),
    "lowess": (LowessCalibrator, {}),
    "kernel": (KernelCalibrator, {}),
    "locfit": (LocalRegressionCalibrator, {"backend": "locfit", "evaluation": "locfit"}),
    "isotonic": (IsotonicCalibrator, {}),
    "platt": (PlattCalibrator, {}),
    "beta": (BetaCalibrator, {}),
}


def make_calibrator(method: str, **params: Any) -> BaseCalibrator:
    """An unfitted calibrator for a method name and its options.

    Raises ``ValueError`` for an unknown method and ``TypeError`` naming the options the
    method does not have.
    """
    check_choice(method, tuple(METHODS), "method")
    cls, implied = METHODS[method]
    known = cls._get_param_names()
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise TypeError(f"method={plain(method)!r} has no option(s) {unknown}; its options are "
                        f"{known}")
    return cls(**{**implied, **params})


@public_api
def calibration_curve(
    scores: Any,
    labels: Any,
    *,
    method: str = "local",
    weights: Any = None,
    frequency_weights: Any = None,
    grid: Any = None,
    band: str | None = "pointwise",
    level: float = 0.95,
    interval: str = "wilson",
    n_boot: int = DEFAULT_N_BOOT,
    seed: Any = None,
    critical: str = "bootstrap",
    by: Any = None,
    **params: Any,
) -> CalibrationCurve | CurvesByGroup:
    """Estimate the calibration curve g(p) = E[D | s(X) = p] of binary-classifier scores.

    ``calibration_curve(s, d, method=m, **params)`` is
    ``make_calibrator(m, **params).fit(s, d, sample_weight=weights).curve(grid, band=band,
    level=level, interval=interval, n_boot=n_boot, seed=seed, critical=critical)``.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities, in [0, 1].
    labels : array-like of shape (n,)
        Observed events, 0/1 or bool.
    method : str, default "local"
        ``"local"``, ``"binning"``, ``"lowess"``, ``"kernel"``, ``"locfit"``,
        ``"isotonic"``, ``"platt"`` or ``"beta"`` (table in :mod:`locacal.curves`).
        ``"local"`` (and ``"locfit"``) default to local-linear regression with the tricube
        kernel on 15 % nearest neighbours (``degree=1, kernel="tricube", nn=0.15``); the
        2024 slides' curve is ``degree=0, kernel="rect"``
        (:data:`locacal.curves.local.SLIDES_LOCAL`).
    weights : array-like of shape (n,), optional
        Non-negative relative case weights (exposure, survey weights).
    frequency_weights : array-like of shape (n,), optional
        Counts (a row stands for that many identical observations): the curve and its band
        equal those of the expanded rows, never built (every method but "locfit";
        :mod:`locacal.data.frequency`).
    grid : array-like, optional
        Points in [0, 1] where the curve is tabulated. By default the 2024 slides' grid: 100
        equally spaced points restricted to the observed score range (bin centres for
        binning).
    band : {"pointwise", "bootstrap", "consistency", "simultaneous", None}, default \
"pointwise"
        The band (:mod:`locacal.curves.bands`): the method's analytic pointwise band
        (bootstrap for isotonic), a bootstrap band, the consistency band of a calibrated
        model with these scores, or a simultaneous band (sup-t band of the smoothers on the
        5-95 % score quantiles, Šidák over bins, Scheffé for Platt and beta, for isotonic a
        monotone window band at a bootstrap-calibrated level, or with
        ``simultaneous="honest"`` the honest monotone band (:mod:`locacal.curves.monotone`;
        no relative weights);
        :mod:`locacal.curves.simultaneous`). Its dual test is
        ``calibration_test(scores, labels, statistic="sup")``.
    level : float in (0, 1), default 0.95
        Confidence level of the band.
    interval : {"wilson", "jeffreys", "clopper-pearson", "normal"}, default "wilson"
        Binomial interval of the pointwise band of the linear smoothers.
    n_boot : int, default 200
        Resamples of the bootstrap and consistency bands, from 10 to 10^6.
    seed : int, Generator or None
        Seed of those resamples (and of the multiplier draws of ``critical="bootstrap"``
        and of the isotonic simultaneous band's parametric draws).
    critical : {"bootstrap", "tube"}, default "bootstrap"
        Critical value of the smoothers' simultaneous band: Bernoulli multiplier draws
        (seeded by ``seed``, 0 when None) or the volume-of-tube formula
        (:mod:`locacal.curves.simultaneous`).
    by : array-like of shape (n,), optional
        A group per row (sex, age band, region...): one curve per group, each equal to this
        call on that group's rows with the same arguments and ``seed``
        (:func:`locacal.data.groups.split_by` gives the groups' order).
    **params
        Options of the chosen calibrator (its ``__init__`` parameters).

    Returns
    -------
    CalibrationCurve
        With the fitted calibrator as ``.estimator``. With ``by``: a
        :class:`~locacal.curves.grouped.CurvesByGroup` (a mapping group -> curve, with
        ``to_frame()``, ``summary()`` and a faceted ``plot()``).

    Examples
    --------
    >>> import numpy as np, locacal
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000); d = rng.uniform(size=2000) < s
    >>> curve = locacal.calibration_curve(s, d)
    >>> curve.method, len(curve)  # the 100-point grid, restricted to the score range
    ('local', 98)

    Dask input (arrays, Series or one-column DataFrames; :mod:`locacal.data.dask`): methods
    ``"binning"`` (quantile or uniform bins) and ``"local"`` (degree 0/1, kernel rect or
    tricube, the binned fit of :meth:`LocalRegressionCalibrator.from_statistics
    <locacal.curves._base.BaseCalibrator.from_statistics>`) from cell statistics merged
    partition by partition, with ``band="pointwise"`` or None.
    """
    seed = check_seed(seed)
    if by is not None:
        return _curves_by_group(scores, labels, weights, frequency_weights, by, dict(
            method=method, grid=grid, band=band, level=level, interval=interval,
            n_boot=n_boot, seed=seed, critical=critical, **params))
    if has_dask(scores, labels, weights, frequency_weights):
        check_choice(method, tuple(METHODS), "method")
        return _dask_curve(scores, labels, weights, method, grid, band, level, interval,
                           params, frequency_weights)
    estimator = make_calibrator(method, **params)
    s, y, w = check_scores_labels(scores, labels, weights)
    check_aligned({"scores": scores, "labels": labels, "frequency_weights": frequency_weights})
    fitted = estimator.fit(s, y, sample_weight=w, frequency_weights=frequency_weights)
    return fitted.curve(grid, band=band, level=level, interval=interval, n_boot=n_boot,
                        seed=seed, critical=critical)


def _curves_by_group(scores: Any, labels: Any, weights: Any, frequency_weights: Any, by: Any,
                     options: dict[str, Any]) -> CurvesByGroup:
    """``calibration_curve`` on each group's rows (validated as a whole first, so that an error
    names the row in the full sample)."""
    if has_dask(scores, labels, weights, frequency_weights, by):
        raise ValueError("by= is not available with Dask input; compute the groups' curves "
                         "from their own Dask collections")
    s, y, w = check_scores_labels(scores, labels, weights, warn_one_class=False)
    f = check_frequency_weights(frequency_weights, s.size)
    groups = split_by(by, s.size)
    curves = {group: calibration_curve(s[rows], y[rows],
                                       weights=None if w is None else w[rows],
                                       frequency_weights=None if f is None else f[rows],
                                       **options)
              for group, rows in groups}
    sizes = {g: int(r.size if f is None else f[r].sum()) for g, r in groups}
    return CurvesByGroup(curves, sizes, groups.name)


#: The options of the methods a Dask input can take (curves from cell statistics).
_DASK_OPTIONS = {"binning": ["strategy", "bins"], "local": ["degree", "nn", "kernel", "clip"]}


def _dask_curve(scores: Any, labels: Any, weights: Any, method: str, grid: Any, band: Any,
                level: float, interval: str, params: dict[str, Any],
                frequency_weights: Any = None) -> CalibrationCurve:
    """``calibration_curve`` of Dask input: the calibrator of ``method="binning"`` (quantile
    or uniform bins) or ``method="local"`` (degree 0/1, rect/tricube, by default the
    in-memory default :data:`locacal.curves.local.DEFAULT_LOCAL`) fitted from the merged cell
    statistics (:func:`locacal.data.dask.statistics`, :meth:`BaseCalibrator.from_statistics`),
    with the pointwise band or none. ``frequency_weights`` multiply into the cell sums: the
    curve of the expanded rows' statistics."""
    from locacal.curves.bands import check_band
    from locacal.curves.local import DEFAULT_LOCAL
    from locacal.data.dask import statistics

    if method not in _DASK_OPTIONS:
        raise ValueError(f"method={plain(method)!r} is not available for Dask input; use 'binning' "
                         "or 'local' (curves from cell statistics)")
    if check_band(band) == "simultaneous":
        raise ValueError("band='simultaneous' needs the fitted rows (the smoother weights), "
                         "which Dask input does not keep; use band='pointwise' or None")
    if check_band(band) not in ("pointwise", None):
        raise ValueError(f"band={plain(band)!r} resamples rows, which Dask input does not "
                         "keep; use band='pointwise' or None")
    unknown = sorted(set(params) - set(_DASK_OPTIONS[method]))
    if unknown:
        raise TypeError(f"method={plain(method)!r} with Dask input has no option(s) {unknown}; "
                        f"its options are {_DASK_OPTIONS[method]}")
    cls = METHODS[method][0]
    if method == "local":
        params = {**DEFAULT_LOCAL, **params}  # the in-memory default curve
    cls(**params)._check_statistics()  # before the pass over the data
    calibrator = cls.from_statistics(
        statistics(scores, labels, weights, frequency_weights=frequency_weights), **params)
    return calibrator.curve(grid, band=band, level=level, interval=interval)
