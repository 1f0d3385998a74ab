"""The R interface (r_scripts/locacal.R): Rscript on a data.frame gives Python's numbers.

One Rscript run (reticulate, the Python running these tests, this checkout's locacal) computes
every function of the interface on a data.frame read from CSV and writes the results with 17
significant digits; each test compares one of them with the direct Python call, to 1e-12.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from locacal import calibration_curve, calibration_report, lcs
from locacal.recalibration import recalibrate
from tests.conftest import R_REQUIRED
from tests.rhelpers import REPO_ROOT, RSCRIPT

pytestmark = pytest.mark.r

#: Relative and absolute tolerance of R against Python. The numbers should agree exactly (the
#: doubles cross as Python floats); 1e-12 leaves room for nothing but formatting.
TOL = 1e-12

R_CODE = r"""
source(file.path(Sys.getenv("LOCACAL_ROOT"), "r_scripts", "locacal.R"))
out <- Sys.getenv("LOCACAL_OUT")
save <- function(df, name) {
  stopifnot(identical(class(df), "data.frame"))
  df[] <- lapply(df, function(v) if (is.double(v)) sprintf("%.17g", v) else v)
  write.csv(df, file.path(out, paste0(name, ".csv")), row.names = FALSE)
}
d <- read.csv(file.path(out, "data.csv"))
caught <- character()
keep <- function(w) { caught <<- c(caught, conditionMessage(w)); invokeRestart("muffleWarning") }
withCallingHandlers({
  save(locacal_calibration_curve(d$score, d$label, weights = d$w, nn = 0.3), "curve")
  save(locacal_calibration_report(d$score, d$label, ci = TRUE, n_boot = 20, seed = 3),
       "report_ci")
  save(locacal_calibration_report(d[c("score", "other")], d$label), "report_two")
  r <- locacal_recalibrate(d[1:200, ], d[201:400, ], methods = c("platt", "local"))
  save(r$metrics, "recal_metrics")
  save(r$maps, "recal_maps")
  save(r$scores$test, "recal_test")
  classes <- factor(ifelse(d$label == 1, "sick", "well"))
  save(data.frame(
    lcs = locacal_lcs(d$score, d$label, degree = 1L),
    lcs_named = locacal_lcs(d$score, classes, pos_label = "sick", degree = 1L),
    lcs_one = locacal_lcs(0.5, TRUE),  # one observation: still a list in Python
    tiny_curve_rows = nrow(locacal_calibration_curve(c(0.2, 0.7, 0.4), c(0, 1, 1),
                                                     method = "binning")),
    python = reticulate::import("sys")$executable,
    error = tryCatch(locacal_lcs(c(0.2, 1.5), c(0, 1)), error = conditionMessage)
  ), "misc")
}, warning = keep)
writeLines(caught, file.path(out, "warnings.txt"))
"""


def _reticulate_available() -> bool:
    if RSCRIPT is None:
        return False
    done = subprocess.run([RSCRIPT, "-e", "library(reticulate)"], capture_output=True,
                          timeout=60)
    return done.returncode == 0


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(6)
    n = 400
    p = np.round(rng.uniform(0.01, 0.99, n), 4)  # four decimals: R and pandas parse alike
    return pd.DataFrame({"score": p, "other": np.round(p**2, 4),
                         "label": rng.binomial(1, p), "w": rng.integers(1, 4, n)})


@pytest.fixture(scope="module")
def from_r(data, tmp_path_factory) -> Path:
    if not _reticulate_available():
        if R_REQUIRED:
            pytest.fail("R's reticulate package is missing: `apt-get install r-cran-reticulate` "
                        "(.ci/install-test-env.sh does)")
        pytest.skip("R's reticulate package is not installed (r-cran-reticulate)")
    out = tmp_path_factory.mktemp("r_interface")
    data.to_csv(out / "data.csv", index=False)
    script = out / "run.R"
    script.write_text(R_CODE)
    env = {**os.environ, "RETICULATE_PYTHON": sys.executable, "LOCACAL_ROOT": str(REPO_ROOT),
           "LOCACAL_OUT": str(out),
           "PYTHONPATH": os.pathsep.join(
               p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([RSCRIPT, "--vanilla", str(script)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _read(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=["NaN", "NA"])


def _same(r: pd.DataFrame, py: pd.DataFrame) -> None:
    py = py.reset_index(drop=True)
    assert list(r.columns) == list(py.columns)
    for name in py.columns:
        if py[name].dtype.kind in "iufb":
            np.testing.assert_allclose(r[name].to_numpy(np.float64),
                                       py[name].to_numpy(np.float64), rtol=TOL, atol=TOL,
                                       err_msg=name)
        else:
            assert r[name].astype(str).tolist() == py[name].astype(str).tolist(), name


def test_the_r_side_runs_the_python_it_was_given(from_r):
    misc = _read(from_r, "misc")
    assert misc.loc[0, "python"] == sys.executable


def test_calibration_curve(from_r, data):
    py = calibration_curve(data["score"], data["label"], weights=data["w"], nn=0.3)
    _same(_read(from_r, "curve"), py.to_frame())


def test_calibration_report_with_intervals(from_r, data):
    py = calibration_report(data["score"], data["label"], ci=True, n_boot=20, seed=3)
    _same(_read(from_r, "report_ci"), py.reset_index())


def test_calibration_report_compares_models(from_r, data):
    py = calibration_report({"score": data["score"], "other": data["other"]}, data["label"])
    _same(_read(from_r, "report_two"), py)


@pytest.mark.filterwarnings("ignore:tied scores leave", "ignore:1 bin")  # as in R: small data
def test_recalibrate(from_r, data):
    py = recalibrate(None, data.iloc[:200], data.iloc[200:], methods=["platt", "local"])
    _same(_read(from_r, "recal_metrics"), py.metrics)
    _same(_read(from_r, "recal_maps"), py.maps)
    _same(_read(from_r, "recal_test"), py.scores["test"])


@pytest.mark.filterwarnings("ignore:labels hold a single class", "ignore:all scores equal")
def test_lcs_with_numbers_and_named_classes(from_r, data):
    misc = _read(from_r, "misc")
    expected = lcs(data["score"], data["label"], degree=1)
    assert misc.loc[0, "lcs"] == pytest.approx(expected, rel=TOL, abs=TOL)
    assert misc.loc[0, "lcs_named"] == pytest.approx(expected, rel=TOL, abs=TOL)
    assert misc.loc[0, "lcs_one"] == pytest.approx(lcs([0.5], [1]), rel=TOL, abs=TOL)


def test_warnings_and_errors_reach_r(from_r):
    misc = _read(from_r, "misc")
    # three scores: three bins of one observation each, and a CalibrationWarning in R
    assert misc.loc[0, "tiny_curve_rows"] == 3
    warned = (from_r / "warnings.txt").read_text()
    assert "CalibrationWarning: " in warned
    assert "fewer than 10 observations" in warned
    assert misc.loc[0, "error"].startswith("ValueError: scores must lie in [0, 1]")
