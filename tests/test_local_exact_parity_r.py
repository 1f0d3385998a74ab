"""Parity of :class:`ExactLocalMap` with R's exact locfit fit, run for real (``Rscript``):
``predict(locfit(..., ev = points), where = "fitp")`` at random points in [0, 1] (with
duplicates; the data span [0.02, 0.98], so some points lie outside them), 4 kernels x
degrees 0-2 x nn in {0.05, 0.15, 0.5, 1} x weights / no weights, on continuous and on tied
scores. Points where a compact kernel gives every window score weight 0 are excluded (R's
value is undefined there, see test_local_parity_r.py).

Tolerances, next to the measurement (n = 1000, 250 points; R 4.2.2, x86-64): see
``TOLERANCE``; locfit's own Jacobi solver makes degree-2 answers depend on the last bits of
the sums (its two summation orders differ by as much, test_local.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from locacal.data.sample import sort_sample
from locacal.localfit._direct import LocalParams
from locacal.localfit._segment import ExactLocalMap
from tests.rhelpers import run_r
from tests.test_local_parity_r import NN, R_EXACT, R_KERNELS, _r_args, _undefined_in_r

pytestmark = pytest.mark.r

#: (dataset, degree) -> max |native - R| asserted (measured value in the comment).
TOLERANCE = {
    ("continuous", 0): 1e-13,  # measured 3.0e-15
    ("continuous", 1): 1e-12,  # measured 1.7e-14
    ("continuous", 2): 3e-8,   # measured 1.1e-8 (fit_points' pairwise sums: 1.3e-8)
    ("tied", 0): 1e-10,        # measured 2.7e-11 (tricube polynomial at the window's edge)
    ("tied", 1): 1e-8,         # measured 2.2e-9 (fit_points' pairwise sums: 2.4e-9)
    ("tied", 2): 3e-4,         # measured 6.4e-5: nearly singular windows (2-3 distinct scores)
}


def _datasets():
    rng = np.random.default_rng(11)
    n = 1000
    cont = 0.02 + 0.96 * rng.uniform(size=n)
    d = (rng.uniform(size=n) < cont).astype(float)
    leaves = np.sort(0.02 + 0.96 * rng.uniform(size=25))
    tied = leaves[rng.integers(0, 25, size=n)]
    pts = rng.uniform(size=200)
    pts = np.concatenate([pts, pts[:30], leaves[:10], [0.0, 0.01, 0.99, 1.0]])
    return {"continuous": cont, "tied": tied}, d, pts, rng.exponential(size=n)


DATA, LABELS, POINTS, WEIGHTS = _datasets()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", list(DATA))
def test_exact_map_matches_locfit_ev_points(name, weighted):
    sample = sort_sample(DATA[name], LABELS, WEIGHTS if weighted else None)
    ref = run_r(R_EXACT, pts=POINTS, nnvals=np.array(NN), **_r_args(sample))
    worst = {}
    for (kernel, rname), degree, nn in itertools.product(R_KERNELS.items(), (0, 1, 2), NN):
        got = ExactLocalMap(sample, LocalParams(degree, nn, None, kernel), clip=False)(POINTS)
        want = ref[f"{rname}_{degree}_{nn:g}"]
        keep = ~_undefined_in_r(sample, POINTS, nn, kernel)
        err = float(np.max(np.abs(got[keep] - want[keep])))
        worst[degree] = max(worst.get(degree, 0.0), err)
        assert err <= TOLERANCE[(name, degree)], (kernel, degree, nn, err)
    print(name, weighted, worst)
