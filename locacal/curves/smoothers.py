"""Calibration curves by statsmodels' smoothers: LOWESS and kernel regression (KernelReg).

These are the tools a Python user would reach for first; locacal wraps them so that their
curves compare directly with the local-regression and binning ones (same grid, same result
type). Neither statsmodels smoother takes observation weights: with ``weights`` they raise,
and the error points to ``method="local"``, which does.
"""

from __future__ import annotations

import numpy as np

from locacal._validation import check_choice, check_fraction, check_int, check_positive
from locacal.curves.curve import CalibrationCurve, slides_grid
from locacal.density import bw_nrd0

__all__ = ["kernel_curve", "lowess_curve"]


def _no_weights(weights: np.ndarray | None, method: str, alternative: str) -> None:
    if weights is not None:
        raise ValueError(
            f"weights: statsmodels' {method} does not take observation weights; use "
            f"method='local' ({alternative}), which does"
        )


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
    weights : None
        Not supported by statsmodels (raises ``ValueError``).
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

    _no_weights(weights, "lowess", "degree=1, kernel='tricube' is a weighted lowess")
    frac = check_fraction(frac, "frac")
    it = check_int(it, "it", minimum=0)
    delta = 0.0 if delta == 0 else check_positive(delta, "delta")
    points = slides_grid(scores) if grid is None else grid

    def evaluate(new_scores: np.ndarray) -> np.ndarray:
        values = sm.nonparametric.lowess(labels, scores, frac=frac, it=it, delta=delta,
                                         xvals=new_scores)
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
    weights : None
        Not supported by statsmodels (raises ``ValueError``).
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

    _no_weights(weights, "KernelReg", "kernel='gauss' with a fixed h")
    check_choice(reg_type, ("lc", "ll"), "reg_type")
    if isinstance(bw, str):
        check_choice(bw, ("nrd0", "cv_ls", "aic"), "bw")
        bandwidth = [bw_nrd0(scores)] if bw == "nrd0" else bw
    else:
        bandwidth = [check_positive(bw, "bw")]
    # rng only seeds statsmodels' optional sub-sampling of the bandwidth search (unused here)
    model = KernelReg(labels, scores, var_type="c", reg_type=reg_type, bw=bandwidth,
                      rng=np.random.default_rng(0))
    points = slides_grid(scores) if grid is None else grid

    def evaluate(new_scores: np.ndarray) -> np.ndarray:
        values = model.fit(new_scores)[0]
        return np.clip(values, 0.0, 1.0) if clip else values

    params = {"reg_type": reg_type, "bw": float(model.bw[0])}
    return _curve(points, evaluate(points), "kernel", params, evaluate)
