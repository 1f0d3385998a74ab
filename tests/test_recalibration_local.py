"""LocalRegressionCalibrator: exact prediction at new scores, and parity with R's locfit
through the R backend."""

import pickle

import numpy as np
import pytest

from locacal.curves import LocalRegressionCalibrator
from locacal.curves.local import local_estimate

#: The core's parity tolerance with R's locfit (tests/test_local_parity_r.py).
R_TOL = 1e-12


def _study_calibration_split(seed=1, n=400, gamma=3.0):
    rng = np.random.default_rng(seed)
    eta = rng.uniform(size=(n, 4)) @ np.array([-0.1, 0.05, 0.2, -0.05])
    eta += rng.normal(0, 0.5, size=n)
    return 1 / (1 + np.exp(-gamma * eta)), (rng.uniform(size=n) < 1 / (1 + np.exp(-eta)))


def _exact(est, s, y, w, t):
    return np.clip(local_estimate(s, y, w, t, degree=est.degree, nn=est.nn, kernel=est.kernel,
                                  evaluation=est.evaluation), 0, 1)


@pytest.mark.parametrize("n", [400, 5000])
@pytest.mark.parametrize("case", ["plain", "ties", "weights"])
@pytest.mark.parametrize(("degree", "kernel"), [(0, "rect"), (1, "tricube"), (2, "rect")])
def test_predict_is_the_exact_fit_at_every_new_score(n, case, degree, kernel):
    """No interpolation: predict fits at every distinct new score (locacal 0.1 interpolated a
    4096-cell grid, off the exact fit by up to 6e-3)."""
    s, y = _study_calibration_split(seed=n, n=n)
    w = None
    if case == "ties":
        s = np.round(s, 2)
    elif case == "weights":
        w = np.random.default_rng(n).uniform(0.2, 3, size=n)
    est = LocalRegressionCalibrator(degree=degree, kernel=kernel).fit(s, y, sample_weight=w)
    rng = np.random.default_rng(0)
    t = np.concatenate([rng.uniform(size=3000), s[:500], [0, 1]])
    np.testing.assert_allclose(est.predict(t), _exact(est, s, y, w, t), rtol=0, atol=1e-9)


def test_locfit_evaluation_is_locfits_interpolant_exactly():
    s, y = _study_calibration_split()
    t = np.random.default_rng(2).uniform(size=5000)
    for degree in (0, 1, 2):
        est = LocalRegressionCalibrator(degree=degree, evaluation="locfit").fit(s, y)
        np.testing.assert_array_equal(est.predict(t), _exact(est, s, y, None, t))


def test_predictions_are_clipped_and_curve_matches():
    # Degree 2 on events that jump at the edges overshoots [0, 1] before clipping.
    s = np.linspace(0, 1, 300)
    y = ((s < 0.05) | (s > 0.95)).astype(int)
    for degree in (0, 1, 2):
        est = LocalRegressionCalibrator(degree=degree).fit(s, y)
        out = est.predict(np.linspace(0, 1, 2001))
        assert np.all((out >= 0) & (out <= 1))
        curve = est.curve(np.linspace(0, 1, 201))
        assert curve.method == "local"
        t = np.linspace(0, 1, 77)
        np.testing.assert_array_equal(curve(t), est.predict(t))  # the same map
        # the curve shows exact fits at its grid, as predict does
        np.testing.assert_allclose(curve.estimate, est.predict(curve.grid), atol=1e-12)
        assert np.all(curve.counts > 0) and np.all(curve.lower <= curve.upper)


def test_bad_local_hyperparameters():
    s, y = _study_calibration_split()
    for kwargs, match in [({"degree": 3}, "degree must be one of"),
                          ({"nn": 0}, "nn must lie in"),
                          ({"kernel": "box"}, "unknown kernel"),
                          ({"evaluation": "fast"}, "unknown evaluation"),
                          ({"backend": "julia"}, "unknown backend")]:
        with pytest.raises(ValueError, match=match):
            LocalRegressionCalibrator(**kwargs).fit(s, y)


# --- R backend -------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.parametrize("degree", [0, 1, 2])
def test_native_equals_r_locfit_backend(degree):
    s, y = _study_calibration_split(seed=degree + 10)
    w = np.random.default_rng(degree).integers(1, 4, size=s.size).astype(float)
    t = np.concatenate([np.random.default_rng(3).uniform(size=2000), s[:100], [0.0, 1.0]])
    grid = np.linspace(0, 1, 201)
    for weights in (None, w):
        # measured over degrees 0-2, with and without weights: native vs R 2.2e-16 (locfit's
        # evaluation), 1.1e-16 (exact fits at the curve's grid).
        # locfit's evaluation (R's predict): the 2024 study's recalibrated scores
        native = LocalRegressionCalibrator(degree=degree, evaluation="locfit")
        r = LocalRegressionCalibrator(degree=degree, evaluation="locfit", backend="locfit")
        native.fit(s, y, sample_weight=weights)
        r.fit(s, y, sample_weight=weights)
        np.testing.assert_allclose(native.predict(t), r.predict(t), rtol=0, atol=R_TOL)
        np.testing.assert_allclose(native.curve(grid).estimate, r.curve(grid).estimate,
                                   atol=R_TOL)
        # exact fits: equal at the curve's grid and at every new score (the 1e-8)
        native = LocalRegressionCalibrator(degree=degree).fit(s, y, sample_weight=weights)
        r = LocalRegressionCalibrator(degree=degree, backend="locfit").fit(
            s, y, sample_weight=weights)
        np.testing.assert_allclose(native.curve(grid).estimate, r.curve(grid).estimate,
                                   atol=R_TOL)
        np.testing.assert_allclose(native.predict(t), r.predict(t), rtol=0, atol=1e-8)


@pytest.mark.r
def test_r_backend_pickles_and_refits_in_r():
    s, y = _study_calibration_split()
    est = LocalRegressionCalibrator(backend="locfit").fit(s, y)
    again = pickle.loads(pickle.dumps(est))
    t = np.linspace(0, 1, 50)
    np.testing.assert_array_equal(again.predict(t), est.predict(t))
