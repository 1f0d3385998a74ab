"""Data-generating processes of the source studies, each reproducible from a seed.

Every generator returns a :class:`pandas.DataFrame` with one row per observation and the
same column names, so that results stack and feed the metrics directly:

``x1, x2, ...``
    the features (when the process has any);
``true_p``
    the true probability of the event, p = P(D = 1 | x) (the slides' p_i);
``score``
    the score a model would report (the slides' distorted probability p^u, the thesis's
    prediction q); equal to ``true_p`` for a calibrated process;
``label``
    the observed event, D ~ Bernoulli(true_p), as 0/1 integers (the slides' d_i).

Seeds
-----
``seed`` may be an int, a :class:`numpy.random.SeedSequence`, a
:class:`numpy.random.Generator` or ``None`` (fresh entropy): anything
:func:`numpy.random.default_rng` accepts. The study drivers spawn one
:class:`~numpy.random.SeedSequence` child per sample, so that sample i's draws do not depend
on how samples are shared among workers.

The processes are those of [MC24]_ (after [GKS22]_) and [N15]_.

References
----------
.. [MC24] Machado, A. F., Charpentier, A., Flachaire, E., Gallic, E. and Hu, F. (2024).
   "From Uncertainty to Precision: Enhancing Binary Classifier Performance through
   Calibration", slides §3 (eqs. 6–7) and §5.1 (eq. 10).
.. [GKS22] Gutman, R., Karavani, E. and Shimoni, Y. (2022). Propensity score models are
   better when post-calibrated. arXiv:2211.01221.
.. [N15] Nguyen, K. X. (2015). *Calibration for natural language processing systems*,
   honors thesis, §4.3.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from locacal._validation import (
    as_1d_float,
    check_fraction,
    check_int,
    check_positive,
    check_scores,
    check_seed,
)

__all__ = [
    "LOGISTIC_A",
    "TREE_A",
    "distort",
    "logistic_dgp",
    "synthetic_pairs",
    "tree_dgp",
]

#: Coefficients (a1, a2, a3, a4) of the slides' logistic process. The slides print a1 = 0.1
#: on the "Data Generating Process" slide and a1 = -0.1 in eq. 7; the published R code of the
#: study (``sim_data``) uses -0.1, which is kept here.
LOGISTIC_A: tuple[float, float, float, float] = (-0.1, 0.05, 0.2, -0.05)

#: Coefficients (a1, a2) of the slides' tree process, eq. 10.
TREE_A: tuple[float, float] = (4.0, 3.0)


def _sigmoid(eta: np.ndarray) -> np.ndarray:
    # exp(-|eta|) never overflows; the two branches agree where both are finite.
    e = np.exp(-np.abs(eta))
    return np.where(eta >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _coefficients(a: Any, size: int | None, name: str = "a") -> np.ndarray:
    coef = as_1d_float(a, name)
    if size is not None and coef.size != size:
        raise ValueError(f"{name} must hold {size} coefficients, got {coef.size}")
    return coef


def logistic_dgp(
    n_obs: int = 2000,
    *,
    alpha: float = 1.0,
    gamma: float = 1.0,
    a: Sequence[float] = LOGISTIC_A,
    noise_sd: float = 0.5,
    seed: Any = None,
) -> pd.DataFrame:
    r"""The slides' logistic process with a distorted score (Machado et al. 2024, §3).

    After Gutman, Karavani & Shimoni (2022):

    .. math::

        x_{j} \sim \mathcal U(0, 1),\quad \varepsilon \sim \mathcal N(0, \sigma^2),\quad
        \eta = a^\top x + \varepsilon,\quad p = \frac{1}{1 + e^{-\eta}},\quad
        D \sim \mathcal B(p),

    and the score is the distorted probability

    .. math::

        p^u = \left(\frac{1}{1 + e^{-\gamma\eta}}\right)^{\alpha}

    (eq. 6 for α, eq. 7 for γ). With α = γ = 1 the score is the true probability; α < 1
    pushes scores up, α > 1 down; γ > 1 spreads them towards 0 and 1 (over-confidence),
    γ < 1 squeezes them towards 1/2 (under-confidence). The label is always drawn from the
    *true* probability p, so ``score`` is miscalibrated whenever α ≠ 1 or γ ≠ 1.

    Parameters
    ----------
    n_obs : int, default 2000
        Number of observations.
    alpha, gamma : float, default 1
        Distortions of the probability (eq. 6) and of the linear predictor (eq. 7); positive.
    a : sequence of float, default ``LOGISTIC_A`` = (-0.1, 0.05, 0.2, -0.05)
        Coefficients of the features; their number sets the number of features. The slides
        write a1 = 0.1 on one slide and a1 = -0.1 in eq. 7; the default follows eq. 7 and the
        published R code. The sign barely matters: the noise (σ = 0.5) dominates a^T x.
    noise_sd : float, default 0.5
        Standard deviation σ of ε.
    seed : int, SeedSequence, Generator or None
        Source of randomness.

    Returns
    -------
    DataFrame
        Columns ``x1 … xk, eta, true_p, score, label``.

    Examples
    --------
    >>> from locacal import simulate
    >>> df = simulate.logistic_dgp(5, gamma=3, seed=1)
    >>> list(df.columns)
    ['x1', 'x2', 'x3', 'x4', 'eta', 'true_p', 'score', 'label']
    """
    n = check_int(n_obs, "n_obs", minimum=1)
    alpha = check_positive(alpha, "alpha")
    gamma = check_positive(gamma, "gamma")
    sd = check_positive(noise_sd, "noise_sd")
    coef = _coefficients(a, None)
    rng = np.random.default_rng(check_seed(seed))
    x = rng.uniform(size=(n, coef.size))
    eps = rng.normal(0.0, sd, size=n)
    eta = x @ coef + eps
    p = _sigmoid(eta)
    score = _sigmoid(gamma * eta) ** alpha
    label = (rng.uniform(size=n) < p).astype(np.int64)
    frame = pd.DataFrame(x, columns=[f"x{j + 1}" for j in range(coef.size)])
    frame["eta"] = eta
    frame["true_p"] = p
    frame["score"] = score
    frame["label"] = label
    return frame


def tree_dgp(
    n_obs: int = 200_000,
    *,
    a: Sequence[float] = TREE_A,
    seed: Any = None,
) -> pd.DataFrame:
    r"""The slides' two-feature process for the tree case study (Machado et al. 2024, §5.1).

    Eq. 10 of the slides:

    .. math::

        x_1, x_2 \sim \mathcal U(0, 1),\quad
        \eta = a_1 x_1 + a_2 x_2 - \frac{a_1 + a_2}{2},\quad
        p = \frac{1}{1 + e^{-\eta}},\quad D \sim \mathcal B(p),

    with (a1, a2) = (4, 3). Centring by (a1 + a2)/2 puts E[η] = 0, so p is spread
    symmetrically around 1/2 (about 0.03 to 0.97). There is no score: a model has to be
    fitted (:mod:`locacal.studies.tree_models`); ``score`` is absent from the frame.

    Parameters
    ----------
    n_obs : int, default 200_000
        Number of observations (the slides split them 100k / 50k / 50k).
    a : sequence of two floats, default (4, 3)
    seed : int, SeedSequence, Generator or None

    Returns
    -------
    DataFrame
        Columns ``x1, x2, eta, true_p, label``.
    """
    n = check_int(n_obs, "n_obs", minimum=1)
    coef = _coefficients(a, 2)
    rng = np.random.default_rng(check_seed(seed))
    x = rng.uniform(size=(n, 2))
    eta = x @ coef - coef.sum() / 2.0
    p = _sigmoid(eta)
    label = (rng.uniform(size=n) < p).astype(np.int64)
    return pd.DataFrame(
        {"x1": x[:, 0], "x2": x[:, 1], "eta": eta, "true_p": p, "label": label}
    )


def distort(p: Any, k: float) -> np.ndarray:
    r"""The thesis's distortion t(p) with parameter k (Nguyen 2015, §4.3.1), read as

    .. math::

        t(p) = \begin{cases} \max(0,\ p - k), & 0 \le p \le 0.5,\\
                             \min(1,\ p + k), & \text{otherwise,} \end{cases}
        \qquad k \in [0, 0.5].

    The thesis prints ``min(0, p + k)`` and conditions on ``x``: ``min(0, ·)`` would make
    every probability above 1/2 equal to 0 (not a small distortion, and not what "k" is said
    to control), so it can only mean ``min(1, p + k)`` (keep t(p) a probability), and ``x``
    is the prediction p. With k = 0, t is the identity.

    Used as the *true* probability behind a prediction p, t makes p under-confident: events
    predicted at p < 1/2 happen less often than p, those above 1/2 more often.
    """
    q = check_scores(p, "p")
    k = check_fraction(k, "k", low_open=False)
    if k > 0.5:
        raise ValueError(f"k must lie in [0, 0.5], got {k!r}")
    return np.where(q <= 0.5, np.maximum(0.0, q - k), np.minimum(1.0, q + k))


def synthetic_pairs(
    n_obs: int = 100_000,
    *,
    k: float = 0.0,
    beta: Sequence[float] = (0.5, 0.5),
    seed: Any = None,
) -> pd.DataFrame:
    r"""The thesis's synthetic prediction–observation pairs (Nguyen 2015, §4.3.1).

    .. math::

        q \sim \mathrm{Beta}(a, b),\qquad y \sim \mathcal B\big(t_k(q)\big),

    where :func:`distort` gives t_k; k = 0 yields perfectly calibrated pairs (t is the
    identity), k > 0 under-confident ones (the thesis uses k = 0.1).

    Parameters
    ----------
    n_obs : int, default 100_000
    k : float in [0, 0.5], default 0
        Distortion; 0 for calibrated pairs.
    beta : (a, b), default (0.5, 0.5)
        Shape parameters of the predictions' beta distribution. The thesis does not give
        them; the default is U-shaped, with mass near 0 and 1 as for the NLP taggers the
        thesis studies (§3.2.1: predictions "often skewed toward 0 and 1").
    seed : int, SeedSequence, Generator or None

    Returns
    -------
    DataFrame
        Columns ``score`` (the prediction q), ``true_p`` (t_k(q)) and ``label``.
    """
    n = check_int(n_obs, "n_obs", minimum=1)
    shape = _coefficients(beta, 2, "beta")
    for value in shape:
        check_positive(float(value), "beta")
    rng = np.random.default_rng(check_seed(seed))
    q = rng.beta(shape[0], shape[1], size=n)
    true_p = distort(q, k)
    label = (rng.uniform(size=n) < true_p).astype(np.int64)
    return pd.DataFrame({"score": q, "true_p": true_p, "label": label})
