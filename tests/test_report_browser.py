"""report.html in a real browser: headless Chromium renders what ``locacal report`` wrote.

The page must show something (the screenshot is not blank and holds the coloured figure) and
log nothing to the browser console (no script error, no console message). A second page with
a script error and a broken image checks that these two checks can fail.

Skipped only when no Chromium binary exists (``chromium``, ``chromium-browser``,
``google-chrome``, or the one ``LOCACAL_CHROMIUM`` names); with ``LOCACAL_REQUIRE_BROWSER``
(``.ci/run`` sets it) or ``CI`` set, a missing browser is a failure. With
``LOCACAL_ARTIFACTS`` set, the report and its screenshot are copied into that folder
(``report-screenshot.png``).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from locacal.cli import main

BROWSER_REQUIRED = bool(os.environ.get("LOCACAL_REQUIRE_BROWSER") or os.environ.get("CI"))
#: Chromium's names on Debian/Ubuntu and Google's; ``LOCACAL_CHROMIUM`` names another binary.
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WINDOW = (1200, 1600)
#: Chromium's console lines on stderr (``--enable-logging=stderr``): "...:INFO:CONSOLE:1] ..."
#: (or "CONSOLE(1)" in older versions), and uncaught exceptions.
CONSOLE_LINE = re.compile(r"^\[[^\]]*CONSOLE[:(]|Uncaught", re.MULTILINE)

# What "not blank" means, measured on 1200 x 1600 screenshots (Chromium 150, Debian 12):
# the report of the test's data: grey-level sd 0.125, 7.0 % of pixels not white, 1.9 % coloured
# (max - min of RGB > 0.25: the curves and histograms; text and tables are grey); a page with
# a script error and a broken image: sd 0.0105, 0.06 % not white, 0.007 % coloured.
MIN_GREY_SD = 0.05
MIN_NOT_WHITE = 0.02
MIN_COLOURED = 0.003


def _browser() -> str:
    explicit = os.environ.get("LOCACAL_CHROMIUM")
    names = (explicit,) if explicit else CANDIDATES
    found = next((p for p in map(shutil.which, names) if p), None)
    if found is None:
        reason = (f"no Chromium binary ({', '.join(names)}; or set LOCACAL_CHROMIUM): "
                  "`apt-get install chromium` (.ci/install-test-env.sh tries it)")
        if BROWSER_REQUIRED:
            pytest.fail(f"LOCACAL_REQUIRE_BROWSER is set but there is {reason}")
        pytest.skip(f"there is {reason}")
    return found


def _render(browser: str, page: Path, shot: Path, profile: Path) -> str:
    """Screenshot ``page`` into ``shot``; return Chromium's stderr (its log)."""
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--hide-scrollbars", "--force-device-scale-factor=1",
               f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
               "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", page.as_uri()]
    # its own session: on a hang the whole process group (renderer, GPU process) is ended
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        _, log = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    assert process.returncode == 0, log[-3000:]
    assert shot.is_file(), f"Chromium wrote no screenshot:\n{log[-3000:]}"
    return log


def _console_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if CONSOLE_LINE.search(line)]


def _picture(shot: Path) -> dict[str, float]:
    rgb = matplotlib.image.imread(shot)[..., :3].astype(np.float64)
    grey = rgb.mean(axis=-1)
    return {"grey_sd": float(grey.std()), "not_white": float((grey < 0.95).mean()),
            "coloured": float((rgb.max(axis=-1) - rgb.min(axis=-1) > 0.25).mean()),
            "shape": rgb.shape[:2]}


@pytest.fixture(scope="module")
def browser() -> str:
    return _browser()


def test_the_report_renders_and_logs_nothing(browser, tmp_path):
    rng = np.random.default_rng(4)
    p = rng.uniform(0.02, 0.98, 300)
    data = tmp_path / "scores.csv"
    pd.DataFrame({"model": p, "squared": p**2, "y": rng.binomial(1, p)}).to_csv(
        data, index=False)
    out = tmp_path / "report"
    assert main(["report", str(data), "--score", "model", "--score", "squared", "--label", "y",
                 "--n-boot", "20", "--seed", "1", "--quiet", "--out", str(out)]) == 0

    shot = tmp_path / "report-screenshot.png"
    log = _render(browser, out / "report.html", shot, tmp_path / "profile")
    artifacts = os.environ.get("LOCACAL_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / shot.name)
        shutil.copy(out / "report.html", Path(artifacts) / "report.html")

    assert _console_lines(log) == []
    picture = _picture(shot)
    assert picture["shape"] == (WINDOW[1], WINDOW[0])
    assert picture["grey_sd"] > MIN_GREY_SD, picture
    assert picture["not_white"] > MIN_NOT_WHITE, picture
    assert picture["coloured"] > MIN_COLOURED, picture  # the figure is drawn


def test_the_checks_catch_a_broken_page(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img alt="" src="missing.png">'
                    '<script>notDefinedAnywhere();</script></body></html>', encoding="utf-8")
    shot = tmp_path / "broken.png"
    log = _render(browser, page, shot, tmp_path / "profile")
    lines = _console_lines(log)
    assert any("notDefinedAnywhere" in line for line in lines), log[-3000:]
    picture = _picture(shot)
    assert picture["grey_sd"] < MIN_GREY_SD
    assert picture["not_white"] < MIN_NOT_WHITE
    assert picture["coloured"] < MIN_COLOURED
