"""Resampled local fits from multinomial counts (locacal.localfit._resample) equal refits
on the resampled rows; the local calibrator's bands use them."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

import locacal
from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams, fit_points
from locacal.localfit._resample import resample_counts, resampled_fits
from locacal.simulate import logistic_dgp

# (degree, kernel, nn, h): spans, a fixed bandwidth (empty windows: NaN), both, h = 0
CASES = [(deg, kern, nn, h) for deg in (0, 1, 2) for kern in ("rect", "tricube", "gauss")
         for nn, h in ((0.15, None), (None, 0.08), (0.1, 0.2), (None, 0.0))]


def _refit(sample, counts_b, events_b, grid, params):
    """The fit on the resampled rows themselves: row i repeated counts_b[i] times, events_b[i]
    of its copies labelled 1."""
    rows = np.repeat(np.arange(sample.n), counts_b)
    labels = np.concatenate([np.r_[np.ones(e), np.zeros(c - e)]
                             for c, e in zip(counts_b, events_b, strict=True)])
    w = None if sample.weights is None else sample.weights[rows]
    return fit_points(sort_sample(sample.scores[rows], labels, w), grid, params).value


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_counts_give_the_refit_on_the_resampled_rows(tied, weighted):
    rng = np.random.default_rng(5 + 2 * tied + weighted)
    n = 100
    s = rng.uniform(size=n)
    if tied:  # tree-like scores: ties at every window boundary
        s = np.round(s * 9) / 9
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.exponential(size=n) if weighted else None
    sample = sort_sample(s, y, w)
    counts = resample_counts(rng, n, 3)
    assert np.all(counts.sum(axis=1) == n)
    events = rng.binomial(counts, sample.scores[None, :])
    grid = np.concatenate([np.linspace(s.min(), s.max(), 6), [s.min() - 0.03, s.max() + 0.02]])
    for degree, kernel, nn, h in CASES:
        params = LocalParams(degree, nn, h, kernel)
        fast = resampled_fits(sample, params, grid, counts, events)
        for b in range(counts.shape[0]):
            ref = _refit(sample, counts[b], events[b], grid, params)
            np.testing.assert_array_equal(np.isnan(fast[b]), np.isnan(ref))
            # summation order only: measured <= 7e-9 in degrees 0-1 (Gaussian, ties) and
            # <= 7e-4 in degree 2, whose solver amplifies it in near-singular windows
            tol = 1e-8 if degree < 2 else 1e-3
            np.testing.assert_allclose(fast[b], ref, rtol=0, atol=tol,
                                       err_msg=f"{degree} {kernel} nn={nn} h={h}")


@pytest.mark.parametrize("kind", ["bootstrap", "consistency"])
def test_local_band_draws_are_those_of_refitted_clones_in_distribution(kind):
    # The same resampling scheme as the generic refit path, from other random numbers: the
    # two bands' quantiles agree to Monte Carlo error. With 300 roughly normal draws the
    # 2.5 % quantile has s.e. 0.16 sd, a difference of two 0.22 sd; the bound, half of the
    # 50-97.5 % half-width (~1 sd), is 4.5 s.e.
    from locacal.curves._base import _refitted_draws

    df = logistic_dgp(400, gamma=2.0, seed=8)
    model = locacal.LocalRegressionCalibrator().fit(df.score, df.label)
    grid = np.array([0.2, 0.5, 0.8])
    fast = model._resampled_draws(grid, kind, 300, np.random.default_rng(1))
    slow = _refitted_draws(model, grid, kind, 300, np.random.default_rng(2))
    for q in (0.025, 0.5, 0.975):
        a, b = np.quantile(fast, q, axis=0), np.quantile(slow, q, axis=0)
        half = np.quantile(slow, 0.975, axis=0) - np.quantile(slow, 0.5, axis=0)
        assert np.all(np.abs(a - b) < 0.5 * half), (q, a, b)


def test_criterion_span_and_locfit_tree_refit_clones():
    df = logistic_dgp(300, gamma=2.0, seed=9)
    rng = np.random.default_rng(0)
    tree = locacal.LocalRegressionCalibrator(evaluation="locfit").fit(df.score, df.label)
    assert tree._resampled_draws(np.array([0.5]), "bootstrap", 10, rng) is None
    chosen = locacal.LocalRegressionCalibrator(nn="gcv").fit(df.score, df.label)
    assert chosen._resampled_draws(np.array([0.5]), "bootstrap", 10, rng) is None
    fixed = clone(chosen).set_params(nn=0.3).fit(df.score, df.label)
    assert fixed._resampled_draws(np.array([0.5]), "bootstrap", 10, rng).shape == (10, 1)
