"""Parity of the metrics with the 2024 R formulas (r_scripts/calibration_metrics_2024.R).

R's numbers are committed in tests/reference/metrics_parity_r/ (see tests/rreference.py);
tests/test_r_references.py re-runs R to prove them.
"""

import numpy as np
import pytest

from locacal import metrics
from locacal.data.sample import sort_sample
from locacal.density import reflected_bandwidth, reflected_kde
from locacal.localfit._knn import knn_means
from tests.rreference import r_reference

SOURCE = 'source("r_scripts/calibration_metrics_2024.R")\n'


def _labelled_sample(n, seed, ties=False):
    """Scores made by bit-stable operations only, so that the 10^4- and 10^5-row references
    need not store them (tests/rreference.py): Beta(2, 3), the second smallest of four
    uniforms (rounded to 0.1 for ties). Labels from P(D = 1 | s) = s^1.3 (stored)."""
    rng = np.random.default_rng(seed)
    s = np.sort(rng.random((n, 4)), axis=1)[:, 1]
    if ties:
        s = np.round(s, 1)
    return {"s": s, "d": (rng.random(n) < s**1.3).astype(float)}


BINNED_CASES = [(40, 0, False), (2000, 1, False), (2000, 2, True), (30000, 3, False)]
R_BINNED = (SOURCE + "out <- list(ece = ece_2024(d, s), std = ece_standard_2024_bins(d, s), "
            "qmse = qmse_2024(d, s))")
BINNED = {(n, seed, ties): r_reference(
    f"metrics_parity_r/binned_n{n}_seed{seed}", R_BINNED,
    lambda n=n, seed=seed, ties=ties: _labelled_sample(n, seed, ties), stable=("s",))
    for n, seed, ties in BINNED_CASES}

DENSITY_CASES = [(50, 4), (2000, 5), (100_000, 6)]
DENSITY = {(n, seed): r_reference(
    f"metrics_parity_r/density_n{n}_seed{seed}",
    SOURCE + "d <- lcs_density_2024(s); out <- list(y = d$y, bw = d$bw)",
    lambda n=n, seed=seed: {"s": _labelled_sample(n, seed)["s"]}, stable=("s",))
    for n, seed in DENSITY_CASES}

KNN_TAUS = np.linspace(0, 1, 101)
KNN = {(n, seed): r_reference(
    f"metrics_parity_r/knn_n{n}_seed{seed}",
    SOURCE + "out <- list(means = knn_means_2024(d, s, taus), wmse = wmse_2024(d, s))",
    lambda n=n, seed=seed: {**_labelled_sample(n, seed), "taus": KNN_TAUS}, stable=("s",))
    for n, seed in [(60, 7), (2000, 8)]}

# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "seed", "ties"), BINNED_CASES)
def test_binned_metrics_match_r(n, seed, ties):
    arrays, r = BINNED[n, seed, ties].inputs_and_output()
    s, y = arrays["s"], arrays["d"]
    # Same formula, same bins: agreement to rounding (measured: <= 1.2e-16).
    assert metrics.ece_thresholded(s, y) == pytest.approx(r["ece"][0], abs=1e-14)
    assert metrics.ece(s, y) == pytest.approx(r["std"][0], abs=1e-14)
    assert metrics.qmse(s, y) == pytest.approx(r["qmse"][0], abs=1e-14)


def test_density_weights_match_r_density():
    """Bandwidth to rounding; kernel sum within R 4.2's binned-FFT approximation error.

    Measured on these Beta(2, 3) samples (n = 50 ... 1e5): bandwidth within 2 ulps;
    |exact - R density()| <= 5.3e-4 absolute and <= 0.34 % relative on [0, 1], R's values
    larger everywhere (its binned approximation). Earlier beta(2, 3) and beta(2, 5) samples
    gave up to 7.3e-4 and 0.6 %; the tolerances below add ~50 % room to those.
    """
    grid = np.linspace(0, 1, 100)
    for n, seed in DENSITY_CASES:
        arrays, r = DENSITY[n, seed].inputs_and_output()
        s = arrays["s"]
        assert reflected_bandwidth(s) == pytest.approx(r["bw"][0], rel=1e-14)
        mine = reflected_kde(s, grid)
        np.testing.assert_allclose(mine, r["y"], rtol=1e-2, atol=1.1e-3)
        assert np.max(np.abs(mine - r["y"])) <= 1.1e-3


@pytest.mark.parametrize(("n", "seed"), list(KNN))
def test_knn_means_and_wmse_match_r(n, seed):
    arrays, r = KNN[n, seed].inputs_and_output()
    # continuous scores: no tied distances, R's rule is exact
    s, y, taus = arrays["s"], arrays["d"], arrays["taus"]
    k = float(np.round(n * 0.15))
    np.testing.assert_allclose(knn_means(sort_sample(s, y, None), taus, k), r["means"], rtol=0,
                               atol=1e-15)
    # only the density weights differ (R's binned density, see above): measured relative
    # difference <= 3.6e-4 on these samples (<= 3e-3 on earlier ones)
    assert metrics.wmse(s, y) == pytest.approx(r["wmse"][0], rel=1e-2)
