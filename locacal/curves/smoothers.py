"""Calibration curves by statsmodels' smoothers: LOWESS and kernel regression (KernelReg).

These are the tools a Python user would reach for first; locacal wraps them so that their
curves compare directly with the local-regression and binning ones (same grid, same result
type). Neither statsmodels smoother takes observation weights; with ``weights``, locacal
computes the same estimator with the weights in it (see each function), and checks in its
tests that unit weights give statsmodels' numbers.
"""

from __future__ import annotations

import numpy as np

from locacal._validation import check_choice, check_fraction, check_int, check_positive
from locacal.curves.curve import CalibrationCurve, slides_grid
from locacal.density import bw_nrd0

__all__ = ["kernel_curve", "lowess_curve"]


def _curve(points, estimate, method, params, evaluate) -> CalibrationCurve:
    nan = np.full(points.size, np.nan)
    return CalibrationCurve(grid=points, estimate=estimate, lower=nan, upper=nan, counts=nan,
                            method=method, params=params, evaluator=evaluate)


def lowess_curve(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, *,
                 grid: np.ndarray | None = None, frac: float = 0.15, it: int = 0,
                 delta: float = 0.0, clip: bool = True) -> CalibrationCurve:
    """Calibration curve by LOWESS (Cleveland 1979), via ``statsmodels`` ``lowess``.

    Locally weighted linear regression with tricube weights on the ``frac`` nearest scores.

    Parameters
    ----------
    scores, labels : ndarray
        Validated data.
    weights : ndarray, optional
        statsmodels' lowess takes none. With weights, the fit is locacal's local regression
        of degree 1 with the tricube kernel on the ``frac`` nearest scores
        (:func:`locacal.curves.local.local_estimate`), which is the same estimator: with
        unit weights it reproduces statsmodels' lowess to rounding (tested). Robustness
        iterations are not available with weights.
    grid : ndarray, optional
        Evaluation points; default the slides' grid.
    frac : float, default 0.15
        Share of the data in each local fit (the same neighbourhood size as the LCS's
        ``nn = 0.15``; statsmodels' own default is 2/3).
    it : int, default 0
        Robustness iterations. **Off by default**: the robustness weights of Cleveland's
        method down-weight observations with large residuals, and with 0/1 outcomes the large
        residuals are those of the minority class, so robust iterations pull the curve
        towards the majority class and bias g. statsmodels' default (3) is meant for
        continuous outcomes with outliers.
    delta : float, default 0
        statsmodels' speed-up (skip fits closer than ``delta``); 0 is exact. The exact fit
        costs O(n^2 frac): about 14 s at n = 1e5 on the reference machine.
    clip : bool, default True
        Clip to [0, 1].

    References
    ----------
    Cleveland, W. S. (1979). Robust locally weighted regression and smoothing scatterplots.
    JASA 74, 829-836.
    """
    import statsmodels.api as sm

    from locacal.curves.local import local_estimate

    frac = check_fraction(frac, "frac")
    it = check_int(it, "it", minimum=0)
    delta = 0.0 if delta == 0 else check_positive(delta, "delta")
    if weights is not None and it > 0:
        raise ValueError("it: robustness iterations are not available with weights")
    points = slides_grid(scores) if grid is None else grid

    def evaluate(new_scores: np.ndarray) -> np.ndarray:
        if weights is None:
            values = sm.nonparametric.lowess(labels, scores, frac=frac, it=it, delta=delta,
                                             xvals=new_scores)
        else:
            values = local_estimate(scores, labels, weights, new_scores, degree=1, nn=frac,
                                    kernel="tricube")
        return np.clip(values, 0.0, 1.0) if clip else values

    params = {"frac": frac, "it": it, "delta": delta}
    return _curve(points, evaluate(points), "lowess", params, evaluate)


def kernel_curve(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, *,
                 grid: np.ndarray | None = None, reg_type: str = "lc",
                 bw: float | str = "nrd0", clip: bool = True) -> CalibrationCurve:
    """Calibration curve by kernel regression, via ``statsmodels`` ``KernelReg``.

    Nadaraya-Watson (``reg_type="lc"``, local constant) or local linear (``"ll"``) regression
    with a Gaussian kernel of standard deviation ``bw``.

    Parameters
    ----------
    scores, labels : ndarray
        Validated data.
    weights : ndarray, optional
        KernelReg takes none. With weights, the same estimators are computed directly:
        sum w K y / sum w K (local constant) or the weighted least-squares line through the
        kernel-weighted window (local linear), K the Gaussian kernel of standard deviation
        ``bw``; with unit weights they equal KernelReg's numbers (tested). ``bw`` must then
        be a number or ``"nrd0"``.
    grid : ndarray, optional
        Evaluation points; default the slides' grid.
    reg_type : {"lc", "ll"}, default "lc"
    bw : float or {"nrd0", "cv_ls", "aic"}, default "nrd0"
        Bandwidth. ``"nrd0"``: R's rule of thumb on the scores (:func:`bw_nrd0`), instant;
        ``"cv_ls"`` (statsmodels' default) and ``"aic"``: data-driven choices that cost
        O(n^2) per optimiser step (about 8 s at n = 2000, minutes beyond 1e4).
    clip : bool, default True
        Clip to [0, 1].

    References
    ----------
    Nadaraya (1964); Watson (1964); Racine & Li (2004), as implemented in statsmodels.
    """
    from statsmodels.nonparametric.kernel_regression import KernelReg

    check_choice(reg_type, ("lc", "ll"), "reg_type")
    if isinstance(bw, str):
        check_choice(bw, ("nrd0", "cv_ls", "aic"), "bw")
        if weights is not None and bw != "nrd0":
            raise ValueError(f"bw: {bw!r} bandwidth selection is statsmodels' and takes no "
                             "weights; give a number or 'nrd0'")
        bandwidth = [bw_nrd0(scores, weights)] if bw == "nrd0" else bw
    else:
        bandwidth = [check_positive(bw, "bw")]
    points = slides_grid(scores) if grid is None else grid
    if weights is None:
        # rng only seeds statsmodels' optional sub-sampling of the bandwidth search (unused)
        model = KernelReg(labels, scores, var_type="c", reg_type=reg_type, bw=bandwidth,
                          rng=np.random.default_rng(0))
        chosen = float(model.bw[0])

        def fit(new_scores: np.ndarray) -> np.ndarray:
            return model.fit(new_scores)[0]
    else:
        chosen = float(bandwidth[0])

        def fit(new_scores: np.ndarray) -> np.ndarray:
            return _weighted_kernel_fit(scores, labels, weights, new_scores, chosen, reg_type)

    def evaluate(new_scores: np.ndarray) -> np.ndarray:
        values = fit(new_scores)
        return np.clip(values, 0.0, 1.0) if clip else values

    params = {"reg_type": reg_type, "bw": chosen}
    return _curve(points, evaluate(points), "kernel", params, evaluate)


def _weighted_kernel_fit(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                         points: np.ndarray, bw: float, reg_type: str) -> np.ndarray:
    """Weighted Nadaraya-Watson or local linear fit with a Gaussian kernel, in chunks.

    Local linear: with sums S_j = sum w K (s - t)^j and T_j = sum w K y (s - t)^j, the
    intercept (S_2 T_0 - S_1 T_1) / (S_0 S_2 - S_1^2).
    """
    out = np.empty(points.size)
    chunk = max(1, 4_000_000 // scores.size)
    for start in range(0, points.size, chunk):
        t = points[start:start + chunk, None]
        dist = scores[None, :] - t
        k = weights[None, :] * np.exp(-0.5 * (dist / bw) ** 2)
        s0, t0 = k.sum(axis=1), k @ labels
        if reg_type == "lc":
            out[start:start + chunk] = t0 / s0
        else:
            kd = k * dist
            s1, s2, t1 = kd.sum(axis=1), (kd * dist).sum(axis=1), kd @ labels
            out[start:start + chunk] = (s2 * t0 - s1 * t1) / (s0 * s2 - s1 * s1)
    return out
