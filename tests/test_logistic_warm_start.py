"""The logistic fit of large samples, started from a subsample, lands where the cold start does."""

import numpy as np
import pytest

from locacal.curves import _logistic
from locacal.curves._logistic import fit_logistic


@pytest.mark.parametrize("extreme", [False, True])
def test_warm_start_gives_the_cold_start_coefficients(monkeypatch, extreme):
    rng = np.random.default_rng(7)
    n = _logistic.WARM_MIN_ROWS
    s = rng.beta(2, 3, size=n)
    y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
    if extreme:  # scores of exactly 0 and 1: features at log(eps) = -36
        s[:500], s[500:1000] = 0.0, 1.0
    c = np.clip(s, _logistic.EPS, 1 - _logistic.EPS)
    x = np.column_stack([np.log(c), -np.log1p(-c)])
    w = rng.uniform(0.5, 2.0, size=n)
    warm = fit_logistic(x, y, w)
    monkeypatch.setattr(_logistic, "WARM_MIN_ROWS", n + 1)
    cold = fit_logistic(x, y, w)
    # measured 5e-15 (smooth scores) and 9e-13 (scores at 0 and 1)
    np.testing.assert_allclose(warm, cold, rtol=0, atol=2e-12)
