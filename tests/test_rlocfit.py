"""The rpy2 bridge to R's locfit: lazy import, clear errors, fits kept in R, and no crash of
this process. Calls from other threads and processes: test_rlocfit_threads.py."""

import gc
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import locacal
from locacal.localfit import _rthread, rlocfit
from locacal.localfit._tree import locfit_tree_would_crash
from tests.rhelpers import run_r

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def _data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s).astype(float)


def test_import_locacal_does_not_load_r():
    code = "import sys, locacal; print('rpy2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_missing_rpy2_raises_an_import_error_saying_what_to_install():
    # in a fresh process: R, once loaded, stays loaded
    code = textwrap.dedent("""
        import sys
        import numpy as np, locacal
        from locacal.localfit.rlocfit import RBackendUnavailable
        sys.modules["rpy2.rinterface"] = None  # import fails
        s = np.linspace(0, 1, 100)
        try:
            locacal.calibration_curve(s, s > 0.5, method="locfit", evaluation="exact")
        except ImportError as exc:
            print(type(exc).__name__, exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=ENV)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("RBackendUnavailable") and "r-cran-locfit" in out.stdout


@pytest.mark.r
def test_exact_evaluation_is_the_window_mean():
    # degree 0, rect kernel: the mean label of the scores within the k-th nearest distance,
    # k = floor(n nn) (Loader 1999, nearest-neighbour bandwidth). Exact in R: 1e-15.
    rng = np.random.default_rng(1)
    s = rng.uniform(size=500)
    y = (rng.uniform(size=500) < s).astype(float)
    grid = np.linspace(0.05, 0.95, 10)
    curve = locacal.calibration_curve(s, y, method="locfit", evaluation="exact", grid=grid,
                                      degree=0, kernel="rect")
    k = int(500 * 0.15)
    expected = []
    for t in grid:
        d = np.abs(s - t)
        expected.append(y[d <= np.sort(d)[k - 1]].mean())
    np.testing.assert_allclose(curve.estimate, expected, rtol=0, atol=1e-15)


@pytest.mark.r
def test_loading_r_leaves_child_python_processes_working():
    rlocfit.locfit_fit(*_data(50, 0))
    out = subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]


@pytest.mark.r
def test_r_errors_become_python_exceptions_with_r_message():
    s, y = _data(50, 2)
    # too little vertex space for the tree: an R error, not a crash (maxk = 1 would abort R,
    # so the Python side refuses maxk < 2). Built directly, the fit skips the crash check.
    fit = rlocfit.LocfitFit(s, y, None, rlocfit.locfit_settings(maxk=20))
    with pytest.raises(RuntimeError, match=r"(?s)R's locfit failed.*out of vertex space"):
        fit.predict([0.5])
    with pytest.raises(ValueError, match="maxk must be >= 2"):
        locacal.calibration_curve(s, y, method="locfit", maxk=1)


@pytest.mark.r
def test_predict_is_rs_predict_at_every_point():
    """Unsorted queries with repeats (asked of R once each, scattered back) give exactly what
    one R session returns for the same queries in their order (17 digits: exact)."""
    s, y = _data(2000, 7)
    rng = np.random.default_rng(8)
    q = np.concatenate([rng.uniform(size=300), s[:100], s[:100], [0.0, 1.0]])
    rng.shuffle(q)
    code = """
library(locfit)
fit <- locfit(d ~ lp(s, nn = 0.3, deg = 1), kern = "tricube", maxk = 200)
out <- list(tree = predict(fit, newdata = q),
            exact = predict(locfit(d ~ lp(s, nn = 0.3, deg = 1), kern = "tricube",
                                   ev = sort(unique(q))), where = "fitp"))
"""
    ref = run_r(code, s=s, d=y, q=q)
    tree = rlocfit.locfit_fit(s, y, degree=1, nn=0.3, kernel="tricube")
    np.testing.assert_array_equal(tree.predict(q), ref["tree"])
    exact = rlocfit.locfit_fit(s, y, degree=1, nn=0.3, kernel="tricube", evaluation="exact")
    unique, inverse = np.unique(q, return_inverse=True)
    np.testing.assert_array_equal(exact.predict(q), ref["exact"][inverse])
    assert unique.size == ref["exact"].size


def test_predict_checks_its_points():
    fit = rlocfit.LocfitFit(*_data(50, 3), None, rlocfit.locfit_settings())
    with pytest.raises(ValueError, match="points must lie in"):
        fit.predict([0.5, 1.5])
    with pytest.raises(ValueError, match="points contains NaN"):
        fit.predict([np.nan])


def _fits_in_r() -> list[str]:
    def names():
        bridge = rlocfit._bridge()
        return list(bridge.ri.evalr("ls(locacal_fits)"))
    return _rthread.run(names)


@pytest.mark.r
def test_pickled_fit_predicts_the_same_and_r_frees_dropped_fits():
    s, y = _data(500, 4)
    fit = rlocfit.locfit_fit(s, y, degree=2)
    key = fit._key
    q = np.linspace(0, 1, 101)
    clone = pickle.loads(pickle.dumps(fit))
    assert clone._key is None  # rebuilt in R on first use
    np.testing.assert_array_equal(clone.predict(q), fit.predict(q))
    assert {key, clone._key} <= set(_fits_in_r())
    del fit, clone
    gc.collect()
    assert key not in _fits_in_r()  # the R thread ran the queued drops first


@pytest.mark.r
def test_crashing_ties_raise_instead_of_killing_the_process():
    # a single value holding 20 % of the scores (like a decision tree's leaf) crashes R's
    # locfit with a C stack overflow when it sits on a vertex of the evaluation tree. Run in
    # a subprocess: if the guard failed, only the child would die.
    code = textwrap.dedent("""
        import numpy as np, locacal
        from locacal.localfit.rlocfit import LocfitCrashError
        rng = np.random.default_rng(3)
        s = np.r_[np.full(400, 0.5), rng.uniform(size=1600)]
        y = (rng.uniform(size=2000) < s).astype(float)
        try:
            locacal.calibration_curve(s, y, method="locfit")
        except LocfitCrashError as exc:
            print("refused:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=ENV)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused:" in out.stdout and "method='local'" in out.stdout


UNGUARDED_TIE = textwrap.dedent("""
    import sys
    import numpy as np
    from locacal.localfit.rlocfit import LocfitFit, locfit_settings
    rng = np.random.default_rng(1)
    s = np.concatenate([[0.0, 1.0], np.full(400, 0.5), rng.uniform(size=598)])
    y = (rng.uniform(size=1000) < s).astype(float)
    fit = LocfitFit(s, y, None, locfit_settings(maxk=int(sys.argv[1])))  # no crash check
    try:
        fit.predict([0.5])
    except RuntimeError as exc:
        print(exc)
""")


@pytest.mark.r
@pytest.mark.parametrize(("maxk", "outcome"), [(2000, "vertex"), (3000, "stack")])
def test_stack_overflow_depth_on_the_r_thread_is_predicted(maxk, outcome):
    """On the R thread's 256 MiB stack, a tie that makes locfit split forever reaches depth
    ~1645 at maxk = 2000 before the vertex space runs out (an R error), and ~2495 at
    maxk = 3000, where the stack overflows first (measured: depth 2027 finishes, 2070
    segfaults). The predictor, given the R thread's stack, says which; R, run without the
    check in a child process, agrees."""
    s = np.concatenate([[0.0, 1.0], np.full(400, 0.5),
                        np.random.default_rng(1).uniform(size=598)])
    reason = locfit_tree_would_crash(
        s, nn=0.15, maxk=maxk,
        stack_bytes=_rthread.STACK_BYTES - rlocfit.STACK_RESERVE_BYTES)
    assert reason is not None and outcome in reason
    out = subprocess.run([sys.executable, "-c", UNGUARDED_TIE, str(maxk)], capture_output=True,
                         text=True, timeout=300, env=ENV)
    if outcome == "vertex":
        assert out.returncode == 0, out.stderr[-2000:]
        assert "out of vertex space" in out.stdout
    else:
        assert out.returncode == -11, (out.returncode, out.stdout, out.stderr[-2000:])
        with pytest.raises(rlocfit.LocfitCrashError, match="overflows the C stack"):
            rlocfit.locfit_fit(s, (s > 0.5).astype(float), maxk=maxk)
