"""scikit-learn's estimator checks on every calibrator: all pass except those that feed
input the contract refuses, which locacal.testing declares with their reason."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from locacal.curves import (
    BetaCalibrator,
    BinningCalibrator,
    IsotonicCalibrator,
    KernelCalibrator,
    LocalRegressionCalibrator,
    LowessCalibrator,
    PlattCalibrator,
)
from locacal.testing import expected_failed_checks

CALIBRATORS = [BinningCalibrator(), LocalRegressionCalibrator(), LowessCalibrator(),
               KernelCalibrator(), IsotonicCalibrator(), PlattCalibrator(), BetaCalibrator()]


@parametrize_with_checks(CALIBRATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_no_expected_failures_for_other_estimators():
    from sklearn.linear_model import LogisticRegression

    assert expected_failed_checks(LogisticRegression()) == {}


@pytest.mark.parametrize("estimator", CALIBRATORS, ids=lambda e: type(e).__name__)
def test_declared_failures_are_the_contract_ones(estimator):
    """Each declared check really fails on its data for the stated reason (so the list cannot
    hide a real defect): several columns or values outside [0, 1] are refused by name."""
    rng = np.random.default_rng(0)
    y = (rng.uniform(size=20) < 0.5).astype(int)
    with pytest.raises(ValueError, match="must be 1-D"):
        clone(estimator).fit(rng.uniform(size=(20, 3)), y)
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        clone(estimator).fit(3 * rng.uniform(size=(20, 1)), y)


@pytest.mark.parametrize("estimator", CALIBRATORS, ids=lambda e: type(e).__name__)
def test_one_column_input_works_like_the_checks_ask(estimator):
    """The checks' own requests, on input the contract accepts: keyword y, pandas and list
    sample weights, NaN/inf named, zero weights named, predict_proba rows sum to one."""
    import pandas as pd

    rng = np.random.default_rng(1)
    s = rng.uniform(size=(60, 1))
    y = (rng.uniform(size=60) < s[:, 0]).astype(int)
    fitted = clone(estimator).fit(X=s, y=y, sample_weight=pd.Series(np.ones(60)))
    np.testing.assert_allclose(fitted.predict(s), clone(estimator).fit(s, y, [1.0] * 60)
                               .predict(s))
    proba = fitted.predict_proba(s)
    assert proba.shape == (60, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    for bad in (np.nan, np.inf):
        x = s.copy()
        x[0, 0] = bad
        with pytest.raises(ValueError, match="NaN or infinite"):
            clone(estimator).fit(x, y)
        with pytest.raises(ValueError, match="NaN or infinite"):
            fitted.predict(x)
    with pytest.raises(ValueError, match=r"weight.*zero"):
        clone(estimator).fit(s, y, sample_weight=np.zeros(60))
