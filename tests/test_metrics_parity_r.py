"""Parity of the metrics with the 2024 R formulas (r_scripts/calibration_metrics_2024.R)."""

from pathlib import Path

import numpy as np
import pytest

from locacal import metrics
from locacal.density import reflected_bandwidth, reflected_kde
from locacal.metrics.local import _knn_means
from tests.rhelpers import run_r

pytestmark = pytest.mark.r

R_FILE = Path(__file__).resolve().parents[1] / "r_scripts" / "calibration_metrics_2024.R"
SOURCE = f'source("{R_FILE}")\n'


def _sample(n, seed, ties=False):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, size=n)
    if ties:
        s = np.round(s, 1)
    y = (rng.uniform(size=n) < s**1.3).astype(float)
    return s, y


@pytest.mark.parametrize(("n", "seed", "ties"), [(40, 0, False), (2000, 1, False),
                                                 (2000, 2, True), (30000, 3, False)])
def test_binned_metrics_match_r(n, seed, ties):
    s, y = _sample(n, seed, ties)
    r = run_r(SOURCE + "out <- list(ece = ece_2024(d, s), std = ece_standard_2024_bins(d, s), "
              "qmse = qmse_2024(d, s))", s=s, d=y)
    # Same formula, same bins: agreement to rounding (measured: <= 3e-17).
    assert metrics.ece_thresholded(s, y) == pytest.approx(r["ece"][0], abs=1e-14)
    assert metrics.ece(s, y) == pytest.approx(r["std"][0], abs=1e-14)
    assert metrics.qmse(s, y) == pytest.approx(r["qmse"][0], abs=1e-14)


def test_density_weights_match_r_density():
    """Bandwidth to rounding; kernel sum within R 4.2's binned-FFT approximation error.

    Measured (beta(2,3) and beta(2,5) scores, n = 50 ... 1e5): bandwidth identical to the last
    digit; |exact - R density()| <= 7.3e-4 absolute and <= 0.6 % relative on [0, 1], the
    binned approximation making R's values slightly larger. Tolerances below add ~50 % room.
    """
    grid = np.linspace(0, 1, 100)
    for n, seed in [(50, 4), (2000, 5), (100_000, 6)]:
        s, _ = _sample(n, seed)
        r = run_r(SOURCE + "d <- lcs_density_2024(s); out <- list(y = d$y, bw = d$bw)", s=s)
        assert reflected_bandwidth(s) == pytest.approx(r["bw"][0], rel=1e-14)
        mine = reflected_kde(s, grid)
        np.testing.assert_allclose(mine, r["y"], rtol=1e-2, atol=1.1e-3)
        assert np.max(np.abs(mine - r["y"])) <= 1.1e-3


@pytest.mark.parametrize(("n", "seed"), [(60, 7), (2000, 8)])
def test_knn_means_and_wmse_match_r(n, seed):
    s, y = _sample(n, seed)  # continuous scores: no tied distances, R's rule is exact
    taus = np.linspace(0, 1, 101)
    r = run_r(SOURCE + "out <- list(means = knn_means_2024(d, s, taus), "
              "wmse = wmse_2024(d, s))", s=s, d=y, taus=taus)
    k = float(np.round(n * 0.15))
    np.testing.assert_allclose(_knn_means(s, y, None, taus, k), r["means"], rtol=0,
                               atol=1e-15)
    # only the density weights differ (R's binned density, see above): measured relative
    # difference <= 3e-3 on these samples
    assert metrics.wmse(s, y) == pytest.approx(r["wmse"][0], rel=1e-2)
