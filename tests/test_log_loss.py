"""Log loss: closed forms, clipping at the boundary, parity with scikit-learn."""

import inspect

import numpy as np
import pytest
from sklearn.metrics import log_loss as sk_log_loss

from locacal import CalibrationWarning, metrics
from locacal.metrics.log_score import LOG_LOSS_EPS


def _sklearn(y, s, w):
    # scikit-learn 1.9 renamed y_pred to y_proba; older versions only know y_pred
    key = "y_proba" if "y_proba" in inspect.signature(sk_log_loss).parameters else "y_pred"
    return sk_log_loss(y, **{key: s}, sample_weight=w, labels=[0, 1])


def test_closed_forms():
    with pytest.warns(CalibrationWarning, match="all scores equal"):
        assert metrics.log_loss([0.5] * 4, [0, 1, 1, 0]) == pytest.approx(np.log(2), abs=1e-15)
    assert metrics.log_loss([0.2, 0.9], [0, 1], weights=[3, 1]) == pytest.approx(
        -(3 * np.log(0.8) + np.log(0.9)) / 4, abs=1e-15)


def test_boundary_scores_are_clipped_not_infinite():
    with np.errstate(all="raise"):
        wrong = metrics.log_loss([0.0, 1.0], [1, 0])
        right = metrics.log_loss([0.0, 1.0, 1e-7, 1 - 1e-7], [0, 1, 0, 1])
    assert wrong == pytest.approx(-np.log(LOG_LOSS_EPS), rel=1e-15)  # about 36.04
    assert 0 < right < 1e-6


@pytest.mark.parametrize("seed", [0, 1])
def test_parity_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = 60
    s = np.round(rng.uniform(size=n), 1)  # ties
    s[:6] = [0.0, 1.0, 1e-7, 1 - 1e-7, 0.0, 1.0]
    y = (rng.uniform(size=n) < s).astype(float)
    y[4], y[5] = 1.0, 0.0  # scores 0 and 1 on the wrong side: clipped
    w = rng.uniform(0.2, 3.0, size=n)
    for weights in (None, w):
        ours = metrics.log_loss(s, y, weights=weights)
        # measured difference <= 4e-15
        assert ours == pytest.approx(_sklearn(y, s, weights), abs=1e-12)


def test_validation():
    with pytest.raises(ValueError, match="scores"):
        metrics.log_loss([1.2, 0.3], [0, 1])
    with pytest.raises(ValueError, match="labels has length"):
        metrics.log_loss([0.2, 0.3], [0])
