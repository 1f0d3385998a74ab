"""The rpy2 bridge to R's locfit: lazy import, clear errors, and no crash of this process."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import locacal
from locacal.curves import rlocfit


def test_import_locacal_does_not_load_r():
    code = "import sys, locacal; print('rpy2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_missing_rpy2_raises_an_import_error_saying_what_to_install(monkeypatch):
    rlocfit._r_function.cache_clear()
    monkeypatch.setitem(sys.modules, "rpy2.robjects", None)  # import fails
    rng = np.random.default_rng(0)
    s = rng.uniform(size=100)
    y = (rng.uniform(size=100) < s).astype(float)
    with pytest.raises(ImportError, match="r-cran-locfit") as info:
        locacal.calibration_curve(s, y, method="locfit", evaluation="exact")
    assert isinstance(info.value, rlocfit.RBackendUnavailable)
    rlocfit._r_function.cache_clear()


@pytest.mark.r
def test_exact_evaluation_is_the_window_mean():
    # degree 0, rect kernel: the mean label of the scores within the k-th nearest distance,
    # k = floor(n nn) (Loader 1999, nearest-neighbour bandwidth). Exact in R: 1e-15.
    rng = np.random.default_rng(1)
    s = rng.uniform(size=500)
    y = (rng.uniform(size=500) < s).astype(float)
    grid = np.linspace(0.05, 0.95, 10)
    curve = locacal.calibration_curve(s, y, method="locfit", evaluation="exact", grid=grid)
    k = int(500 * 0.15)
    expected = []
    for t in grid:
        d = np.abs(s - t)
        expected.append(y[d <= np.sort(d)[k - 1]].mean())
    np.testing.assert_allclose(curve.estimate, expected, rtol=0, atol=1e-15)


@pytest.mark.r
def test_loading_r_leaves_child_python_processes_working():
    rlocfit._r_function()
    out = subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]


@pytest.mark.r
def test_r_errors_become_python_exceptions_with_r_message():
    rng = np.random.default_rng(2)
    s = rng.uniform(size=50)
    y = (rng.uniform(size=50) < s).astype(float)
    # too little vertex space for the tree: an R error, not a crash (maxk = 1 would abort R,
    # so the Python side refuses maxk < 2)
    with pytest.raises(RuntimeError, match=r"(?s)R's locfit failed.*out of vertex space"):
        rlocfit._call_r(s, y, None, np.array([0.5]), nn=0.15, h=0.0, degree=0,
                        kernel="rect", maxk=20, exact=False)
    with pytest.raises(ValueError, match="maxk must be >= 2"):
        locacal.calibration_curve(s, y, method="locfit", maxk=1)


@pytest.mark.r
def test_crashing_ties_raise_instead_of_killing_the_process():
    # a single value holding 20 % of the scores (like a decision tree's leaf) crashes R's
    # locfit with a C stack overflow when it sits on a vertex of the evaluation tree. Run in
    # a subprocess: if the guard failed, only the child would die.
    code = textwrap.dedent("""
        import numpy as np, locacal
        from locacal.curves.rlocfit import LocfitCrashError
        rng = np.random.default_rng(3)
        s = np.r_[np.full(400, 0.5), rng.uniform(size=1600)]
        y = (rng.uniform(size=2000) < s).astype(float)
        try:
            locacal.calibration_curve(s, y, method="locfit")
        except LocfitCrashError as exc:
            print("refused:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused:" in out.stdout and "method='local'" in out.stdout
