"""The 2024 slides' recalibration study, and the setting where Platt scaling's caveat bites.

Two drivers, each returning a tidy table (one row per sample, method and split) that
:func:`study_summary` condenses into medians:

* :func:`slides_recalibration_study`: the slides' §3-4 study (their Figure 7). The logistic
  process of §3 with the over-confident distortion γ = 3 (:func:`locacal.simulate.logistic_dgp`),
  n = 2000 rows split 60 / 20 / 20 %, every recalibrator fitted on the calibration split. As in
  the study's published R code, the "classifier" is the distorted probability itself: the
  scores are :math:`\\operatorname{expit}(\\gamma\\eta)` and the train split plays no part in
  the fit. With γ = 1 the scores are the true probabilities (calibrated).
* :func:`calibrated_scores_study`: scores that are already calibrated and spread over [0, 1]
  (Beta(a, b) scores, labels Bernoulli(score), :func:`locacal.simulate.synthetic_pairs`), with
  calibration and test splits of chosen sizes. Platt scaling cannot return the identity
  there; beta calibration can.

Seeds: sample i uses the i-th child of ``numpy.random.SeedSequence(seed)``, for its data and for
its split, so a run of 20 samples reproduces the first 20 of a run of 200.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from locacal import simulate
from locacal._validation import check_int, check_positive, check_seed, plain
from locacal.recalibration.split import SLIDES_PROPORTIONS, split
from locacal.recalibration.workflow import recalibrate

__all__ = ["calibrated_scores_study", "slides_recalibration_study", "study_summary"]

DEFAULT_METHODS = ("platt", "isotonic", "beta", "local")


def _children(seed: Any, n: int) -> list[np.random.SeedSequence]:
    return np.random.SeedSequence(check_seed(seed, kind="int")).spawn(n)


def _rows(result: Any, sample: int) -> pd.DataFrame:
    table = result.metrics.copy()
    table.insert(0, "sample", sample)
    return table


def slides_recalibration_study(
    n_samples: int = 40,
    *,
    seed: int = 2024,
    gamma: float = 3.0,
    n_obs: int = 2000,
    proportions: Sequence[float] = SLIDES_PROPORTIONS,
    methods: Sequence[str] | Mapping[str, Any] = DEFAULT_METHODS,
) -> pd.DataFrame:
    """Rerun the slides' recalibration study (§3-4, Figure 7) on ``n_samples`` samples.

    Parameters
    ----------
    n_samples : int, default 40
        Number of simulated samples (the slides use 200).
    seed : int, default 2024
        Root seed; sample i uses child i of ``SeedSequence(seed)``.
    gamma : float, default 3
        Distortion of the linear predictor (eq. 7); 1 gives calibrated scores.
    n_obs : int, default 2000
        Rows per sample.
    proportions : (train, calibration, test), default :data:`SLIDES_PROPORTIONS` (60/20/20 %)
    methods : names or {name: estimator}
        Passed to :func:`~locacal.recalibration.recalibrate`.

    Returns
    -------
    DataFrame
        ``sample`` followed by the columns of :attr:`RecalibrationResult.metrics` (with
        ``true_mse``), for every sample, method and split.
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    gamma = check_positive(gamma, "gamma")
    tables = []
    for i, child in enumerate(_children(seed, n_samples)):
        rng = np.random.default_rng(child)
        data = simulate.logistic_dgp(n_obs, gamma=gamma, seed=rng)
        train, calibration, test = split(data, proportions, seed=rng)
        result = recalibrate(train, calibration, test, methods=methods, true_p="true_p")
        tables.append(_rows(result, i))
    return pd.concat(tables, ignore_index=True)


def calibrated_scores_study(
    n_samples: int = 20,
    *,
    seed: int = 2017,
    n_calibration: int = 20_000,
    n_test: int = 20_000,
    beta: Sequence[float] = (0.5, 0.5),
    methods: Sequence[str] | Mapping[str, Any] = ("platt", "beta"),
) -> pd.DataFrame:
    """Recalibrate scores that are calibrated already: where Platt scaling's caveat bites.

    Scores are drawn from Beta(``beta``) and labels from Bernoulli(score), so the identity is
    the true calibration map. A logistic curve in s cannot be the identity (the slides'
    caveat, §4), and over the whole of [0, 1] it is far from it; beta calibration's family
    contains the identity (Kull et al., 2017).

    Parameters
    ----------
    n_samples : int, default 20
    seed : int, default 2017
    n_calibration, n_test : int, default 20 000 each
        Split sizes (there is no train split: the scores are given).
    beta : (a, b), default (0.5, 0.5)
        Shape of the score distribution (U-shaped by default: mass near 0 and 1).
    methods : names or {name: estimator}, default ("platt", "beta")

    Returns
    -------
    DataFrame
        As :func:`slides_recalibration_study` (splits ``calibration`` and ``test``).
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_cal = check_int(n_calibration, "n_calibration", minimum=2)
    n_test = check_int(n_test, "n_test", minimum=2)
    tables = []
    for i, child in enumerate(_children(seed, n_samples)):
        rng = np.random.default_rng(child)
        data = simulate.synthetic_pairs(n_cal + n_test, k=0.0, beta=beta, seed=rng)
        calibration, test = data.iloc[:n_cal], data.iloc[n_cal:]
        result = recalibrate(None, calibration, test, methods=methods, true_p="true_p")
        tables.append(_rows(result, i))
    return pd.concat(tables, ignore_index=True)


def study_summary(table: pd.DataFrame, *, split: str = "test",
                  metrics: Sequence[str] = ("lcs", "ece", "true_mse", "brier", "auc"),
                  reference: str = "uncalibrated") -> pd.DataFrame:
    """Medians over samples of a study table, one row per method, for one split.

    Adds, for each metric, the number of samples where the method's value is above the
    ``reference`` method's value in the same sample (column ``<metric>_above_<reference>``).
    """
    part = table[table["split"] == split]
    if part.empty:
        raise ValueError(f"the table has no rows for split {plain(split)!r}")
    missing = [m for m in metrics if m not in part.columns]
    if missing:
        raise ValueError(f"the table has no metric columns {missing}")
    medians = part.groupby("method", sort=False)[list(metrics)].median()
    wide = {m: part.pivot(index="sample", columns="method", values=m) for m in metrics}
    for m in metrics:
        above = wide[m].gt(wide[m][reference], axis=0).sum()
        medians[f"{m}_above_{reference}"] = above.reindex(medians.index)
    medians["samples"] = part.groupby("method", sort=False)["sample"].nunique()
    return medians
