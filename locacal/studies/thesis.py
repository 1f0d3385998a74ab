"""The thesis's experiments on synthetic pairs (Nguyen 2015, §4.3): how the MSE calibration
score responds to the bin size and to the sample size.

Both use :func:`locacal.simulate.synthetic_pairs` (beta-distributed predictions, labels drawn
from the identity or from the distortion t_k) and the adaptive-binning score
:func:`locacal.metrics.calib_mse` (computed by
:func:`locacal.metrics.binned.calib_mse_from_bins` on a sample sorted once for every bin size).

Why the score cannot increase when the bin size doubles (§4.3.2): with adaptive binning, the
bins of size 2b are unions of consecutive bins of size b (a short last bin is merged into the
one before at both sizes, so the last 2b-bin is the union of the last two or three b-bins). If
bins B_1 and B_2 with gaps δ_j = q̂_j − p̂_j merge, the merged gap is their size-weighted mean,
and by Jensen's inequality for the convex square,

.. math::

    (|B_1| + |B_2|) \\left(\\frac{|B_1| δ_1 + |B_2| δ_2}{|B_1| + |B_2|}\\right)^2
    \\le |B_1| δ_1^2 + |B_2| δ_2^2 .

Summing over the merged pairs, CalibMSE(2b) ≤ CalibMSE(b) on the same sample.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal import simulate
from locacal._validation import CalibrationWarning, as_1d_float, check_fraction, check_int, plain
from locacal.metrics._prepared import PreparedSample, prepare
from locacal.metrics.binned import calib_mse_from_bins
from locacal.studies._parallel import child_seeds

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "bin_size_study",
    "plot_bin_size_study",
    "plot_sample_size_study",
    "sample_size_study",
]


def _condition(k: float) -> str:
    return "calibrated" if k == 0 else f"distorted (k = {k:g})"


def _ks(ks: Sequence[float]) -> list[float]:
    values = [check_fraction(k, "ks", low_open=False) for k in ks]
    if not values:
        raise ValueError("ks is empty: give at least one distortion (0 for calibrated pairs)")
    if max(values) > 0.5:
        raise ValueError(f"ks must lie in [0, 0.5], got {plain(max(values))!r}")
    return values


def _calib_mse_quiet(sample: PreparedSample, bin_size: int) -> float:
    """:func:`locacal.metrics.calib_mse` of a sample prepared (validated, sorted) once for
    every bin size."""
    # The experiment uses bins of 2 or 4 points on purpose: the "tiny bins" warning that a
    # user should see for one call would be noise here, so it is silenced for this call only.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalibrationWarning)
        return calib_mse_from_bins(sample.bin_statistics("adaptive", bin_size=bin_size))


def bin_size_study(
    *,
    n_obs: int = 100_000,
    bin_sizes: Sequence[int] | None = None,
    ks: Sequence[float] = (0.0, 0.1),
    beta: Sequence[float] = (0.5, 0.5),
    seed: int | np.random.SeedSequence = 2015,
) -> pd.DataFrame:
    """The MSE calibration score against the bin size (thesis §4.3.2, Figures 4.7–4.9).

    One sample of ``n_obs`` pairs is drawn per distortion k, and its score is computed for
    every bin size, so the curve shows the effect of the bin size alone. For nested bin sizes
    (each the double of the previous one, as the default 2^1 … 2^16) the score cannot increase
    (module docstring). For other steps — the thesis's 10^3 … 5·10^4 by 10^3 — the bins are
    not nested and the score need not decrease monotonically (Figures 4.8, 4.9).

    Parameters
    ----------
    n_obs : int, default 100_000
    bin_sizes : sequence of int, optional
        Default ``2**1, 2**2, …, 2**16``.
    ks : sequence of float in [0, 0.5], default (0, 0.1)
        Distortions t_k (0: calibrated pairs).
    beta : (a, b), default (0.5, 0.5)
        Beta law of the predictions (:func:`locacal.simulate.synthetic_pairs`).
    seed : int or SeedSequence, default 2015
        The pairs for every k share their predictions (child 0 of the seed).

    Returns
    -------
    DataFrame
        Columns ``condition``, ``k``, ``bin_size``, ``n_bins`` (number of bins after merging
        the short last one) and ``calib_mse``.

    References
    ----------
    Nguyen, K. X. (2015). *Calibration for natural language processing systems*, §4.3.2.
    """
    n = check_int(n_obs, "n_obs", minimum=2)
    if bin_sizes is None:
        sizes = [2**j for j in range(1, 17)]
    else:
        sizes = [check_int(b, "bin_sizes", minimum=1) for b in bin_sizes]
        if not sizes:
            raise ValueError("bin_sizes is empty")
    ks = _ks(ks)
    sample_seed = child_seeds(seed, 1)[0]
    rows = []
    for k in ks:
        df = simulate.synthetic_pairs(n, k=k, beta=beta, seed=sample_seed)
        sample = prepare(df["score"], df["label"])
        for b in sizes:
            rows.append({"condition": _condition(k), "k": k, "bin_size": b,
                         "n_bins": max(n // b, 1), "calib_mse": _calib_mse_quiet(sample, b)})
    return pd.DataFrame(rows)


def sample_size_study(
    *,
    sizes: Sequence[int] | None = None,
    ks: Sequence[float] = (0.0, 0.1),
    beta: Sequence[float] = (0.5, 0.5),
    n_repeats: int = 1,
    seed: int | np.random.SeedSequence = 2015,
) -> pd.DataFrame:
    """The MSE calibration score against the sample size (thesis §4.3.3, Figures 4.10–4.11).

    For each size n, ``n_repeats`` samples of n pairs are drawn and scored with bins of
    round(√n) points. The score of calibrated pairs tends to 0 as n grows (Foster 1998): with
    bins of √n points, each bin's gap is noise of variance about p(1 − p)/√n. Distorted
    pairs (k = 0.1) converge to their positive miscalibration instead.

    Parameters
    ----------
    sizes : sequence of int, optional
        Default ``10_000, 11_000, …, 50_000`` (the thesis's range, step 1000 as its bin-size
        sweep).
    ks : sequence of float in [0, 0.5], default (0, 0.1)
    beta : (a, b), default (0.5, 0.5)
    n_repeats : int, default 1
        Samples per size.
    seed : int or SeedSequence, default 2015
        Sample (size, repeat) draws from its own child seed, shared by every k.

    Returns
    -------
    DataFrame
        Columns ``condition``, ``k``, ``n_obs``, ``repeat``, ``bin_size``, ``calib_mse``.

    References
    ----------
    Nguyen, K. X. (2015), §4.3.3. Foster, D. P. (1998), calibration of forecasts.
    """
    if sizes is None:
        ns = list(range(10_000, 50_001, 1_000))
    else:
        ns = [check_int(v, "sizes", minimum=2) for v in as_1d_float(sizes, "sizes")]
    ks = _ks(ks)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    seeds = child_seeds(seed, len(ns) * n_repeats)
    rows = []
    for k in ks:
        for i, n in enumerate(ns):
            b = max(round(np.sqrt(n)), 1)
            for r in range(n_repeats):
                df = simulate.synthetic_pairs(n, k=k, beta=beta, seed=seeds[i * n_repeats + r])
                rows.append({"condition": _condition(k), "k": k, "n_obs": n, "repeat": r,
                             "bin_size": b,
                             "calib_mse": _calib_mse_quiet(prepare(df["score"], df["label"]),
                                                           b)})
    return pd.DataFrame(rows)


def _check_frame(frame: Any, x: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame) or not {"condition", x, "calib_mse"} <= set(frame):
        raise TypeError(f"frame must be the DataFrame returned by the study (columns "
                        f"'condition', '{x}', 'calib_mse')")
    return frame


def plot_bin_size_study(frame: pd.DataFrame, ax: Axes | None = None, *,
                        log: bool = True) -> Axes:
    """Figures 4.7–4.9 of the thesis: CalibMSE against the bin size, one line per condition
    (log-scaled bin size by default). Returns the Axes."""
    import matplotlib.pyplot as plt

    frame = _check_frame(frame, "bin_size")
    ax = plt.gca() if ax is None else ax
    for condition, sub in frame.groupby("condition", sort=False):
        ax.plot(sub["bin_size"], sub["calib_mse"], marker="o", markersize=3, label=condition)
    if log:
        ax.set_xscale("log", base=2)
    ax.set_xlabel("bin size (points per bin)")
    ax.set_ylabel("MSE calibration score")
    ax.legend()
    return ax


def plot_sample_size_study(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Figures 4.10–4.11 of the thesis: CalibMSE (bins of √n points) against the sample
    size, one line per condition (the mean over repeats, repeats as dots). Returns the Axes."""
    import matplotlib.pyplot as plt

    frame = _check_frame(frame, "n_obs")
    ax = plt.gca() if ax is None else ax
    for condition, sub in frame.groupby("condition", sort=False):
        mean = sub.groupby("n_obs")["calib_mse"].mean()
        (line,) = ax.plot(mean.index, mean.to_numpy(), label=condition)
        if sub["repeat"].nunique() > 1:
            ax.scatter(sub["n_obs"], sub["calib_mse"], s=4, color=line.get_color(), alpha=0.4)
    ax.set_xlabel("sample size n (bins of √n points)")
    ax.set_ylabel("MSE calibration score")
    ax.legend()
    return ax
