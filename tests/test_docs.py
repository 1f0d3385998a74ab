"""The documentation site: its API reference covers the public names, and headless Chromium
opens the built pages.

``docs/api.rst`` must list every name of ``locacal.__all__`` (and no other), so a new public
name cannot be left out of the reference; the built site must hold a page documenting each.

``.ci/run`` builds the site (``python -m sphinx -W --keep-going -b html docs docs/_build/html``)
before the tests; here Chromium opens its index and the quick-start notebook and checks that

* the browser reports no error: no uncaught exception, no ``console.error`` or
  ``console.warn``, no resource that failed to load (a missing script, style sheet, image or
  MathJax component: the site must work with no network);
* the notebook's figures, rendered from the stored ``image/png`` outputs, are loaded images
  of their natural size, and the screenshot of the first one holds the coloured curves;
* the formulas are typeset by the local MathJax (SVG in the page, no raw TeX left);
* every other page written by hand or rendered from a notebook loads as cleanly.

Chromium is driven through its DevTools protocol on a pipe (``--remote-debugging-pipe``):
its ``--enable-logging=stderr`` log, which ``test_report_browser.py`` reads, gives every
console message the same level (the theme logs its colour mode with ``console.log``) and
does not list failed loads. A broken page checks that these checks can fail.

Skipped when the site is not built, unless ``LOCACAL_REQUIRE_DOCS`` or ``CI`` is set (then a
failure); Chromium is found, or its absence skips or fails, as in ``test_report_browser.py``.
With ``LOCACAL_ARTIFACTS`` set, the screenshots are copied there (``docs-*.png``).
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import locacal
from tests.test_report_browser import MIN_COLOURED, WINDOW, _browser, _picture

DOCS = Path(__file__).resolve().parent.parent / "docs"
SITE = DOCS / "_build" / "html"
DOCS_REQUIRED = bool(os.environ.get("LOCACAL_REQUIRE_DOCS") or os.environ.get("CI"))
NOTEBOOK = "notebooks/a_quick_start.html"
TIMEOUT = 60.0  # seconds for one page: load, MathJax, screenshot (about 2 s when idle)


class DevTools:
    """Chromium over ``--remote-debugging-pipe``: JSON messages ending in a NUL byte, written
    to the browser's fd 3 and read from its fd 4; one page, attached in flat mode."""

    def __init__(self, browser: str, profile: Path) -> None:
        to_browser, self._in = os.pipe()
        self._out, from_browser = os.pipe()

        def wire() -> None:  # in the child: the pipes become fds 3 and 4
            read_end, write_end = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--hide-scrollbars", "--remote-debugging-pipe",
                   f"--user-data-dir={profile}", "about:blank"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, preexec_fn=wire,
                                        pass_fds=(3, 4), start_new_session=True)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, *, session: str | None = None, **params: Any) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._in, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._message(deadline)
            if answer.get("id") != self._next_id:
                self.events.append(answer)
                continue
            if "error" in answer:
                raise RuntimeError(f"{method}: {answer['error']}")
            return answer["result"]

    def page(self, method: str, **params: Any) -> dict:
        return self.call(method, session=self.session, **params)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        result = self.page("Runtime.evaluate", expression=expression, awaitPromise=True,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, event: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._message(deadline))

    def close(self) -> None:
        try:
            self.call("Browser.close")
            self.process.wait(timeout=30)
        except (OSError, RuntimeError, TimeoutError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        finally:
            os.close(self._in)
            os.close(self._out)


def _problems(events: list[dict[str, Any]]) -> list[str]:
    """What the browser reported as an error or a warning, one line each."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.append(f"exception: {details.get('exception', {}).get('description')} "
                         f"({details.get('url')}:{details.get('lineNumber')})")
        elif method == "Runtime.consoleAPICalled" and params["type"] in {"error", "warning",
                                                                          "assert"}:
            text = " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
            found.append(f"console.{params['type']}: {text}")
        elif method == "Log.entryAdded" and params["entry"]["level"] in {"error", "warning"}:
            entry = params["entry"]
            found.append(f"{entry['source']} {entry['level']}: {entry['text']} "
                         f"({entry.get('url', '')})")
    return found


#: Every <img> of the page: loaded (complete, a natural width) and its box on the page.
IMAGES = """Array.from(document.images).map(img => {
  const box = img.getBoundingClientRect();
  return {src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0,
          natural: [img.naturalWidth, img.naturalHeight], box: [box.width, box.height],
          output: img.closest(".cell_output") !== null,
          top: box.top + window.scrollY, left: box.left + window.scrollX};
})"""
#: MathJax 3 has typeset the page (or the page has no MathJax); then what it left.
MATH = """(window.MathJax && MathJax.startup ? MathJax.startup.promise : Promise.resolve())
  .then(() => ({svg: document.querySelectorAll("mjx-container svg").length,
                raw: document.querySelectorAll(".math").length
                     - document.querySelectorAll(".math mjx-container").length}))"""


def _load(tools: DevTools, page: Path) -> dict[str, Any]:
    """Load ``page`` and wait for MathJax: its images, its formulas, the problems reported."""
    for domain in ("Runtime", "Log", "Page"):
        tools.page(f"{domain}.enable")
    tools.page("Emulation.setDeviceMetricsOverride", width=WINDOW[0], height=WINDOW[1],
               deviceScaleFactor=1, mobile=False)
    tools.events.clear()
    tools.page("Page.navigate", url=page.as_uri())
    tools.wait_for("Page.loadEventFired")
    math = tools.evaluate(MATH)
    images = tools.evaluate(IMAGES)
    return {"images": images, "math": math, "problems": _problems(tools.events),
            "title": tools.evaluate("document.title")}


def _open(tools: DevTools, page: Path, shot: Path) -> dict[str, Any]:
    """:func:`_load`, and a screenshot of the first notebook figure (or of the top of the
    page) into ``shot``."""
    opened = _load(tools, page)
    figure = next((img for img in opened["images"] if img["output"] and min(img["box"]) > 0),
                  None)
    clip = ({"x": figure["left"], "y": figure["top"], "width": figure["box"][0],
             "height": figure["box"][1], "scale": 1} if figure else
            {"x": 0, "y": 0, "width": WINDOW[0], "height": WINDOW[1], "scale": 1})
    data = tools.page("Page.captureScreenshot", format="png", clip=clip,
                      captureBeyondViewport=True)["data"]
    shot.write_bytes(base64.b64decode(data))
    artifacts = os.environ.get("LOCACAL_ARTIFACTS")
    if artifacts and shot.name.startswith("docs-"):
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / shot.name)
    return opened


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "index.html").is_file() or not (SITE / NOTEBOOK).is_file():
        reason = (f"the documentation site is not built in {SITE}: "
                  "`python -m sphinx -W --keep-going -b html docs docs/_build/html`")
        if DOCS_REQUIRED:
            pytest.fail(f"LOCACAL_REQUIRE_DOCS is set but {reason}")
        pytest.skip(reason)
    return SITE


def _api_entries() -> list[str]:
    """The names listed in the ``autosummary`` directives of ``docs/api.rst``."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    blocks = re.findall(r"^\.\. autosummary::\n((?:   .*\n|\n)+)", text, flags=re.MULTILINE)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.strip().startswith(":")]


def test_the_api_reference_lists_every_public_name():
    entries = _api_entries()
    assert len(entries) == len(set(entries)), "a name is listed twice in docs/api.rst"
    assert set(locacal.__all__) - set(entries) == set(), "add these to docs/api.rst"
    assert set(entries) - set(locacal.__all__) == set(), "not public: remove from docs/api.rst"


def test_the_site_documents_every_public_name(site):
    for name in locacal.__all__:
        page = site / "generated" / f"locacal.{name}.html"
        assert page.is_file(), f"no page for locacal.{name}"
        # autodoc wrote the object's description (its anchor), not an empty stub
        html = page.read_text(encoding="utf-8")
        assert f'id="locacal.{name}"' in html or f'id="module-locacal.{name}"' in html, page


@pytest.fixture
def tools(tmp_path):
    browser = _browser()
    tools = DevTools(browser, tmp_path / "profile")
    yield tools
    tools.close()


def test_the_index_loads_with_no_error(site, tools, tmp_path):
    opened = _open(tools, site / "index.html", tmp_path / "docs-index.png")
    assert opened["problems"] == []
    assert opened["title"].startswith("locacal")
    assert all(img["loaded"] for img in opened["images"]), opened["images"]
    picture = _picture(tmp_path / "docs-index.png")
    assert picture["not_white"] > 0.02, picture  # text is drawn: not an empty page


def test_the_notebook_page_shows_its_figures(site, tools, tmp_path):
    shot = tmp_path / "docs-notebook-figure.png"
    opened = _open(tools, site / NOTEBOOK, shot)
    assert opened["problems"] == []
    figures = [img for img in opened["images"] if img["output"]]
    # the quick start stores three figures (image/png outputs); each is a loaded image,
    # shown at a readable size
    assert len(figures) == 3, opened["images"]
    for img in figures:
        assert img["loaded"], img
        assert min(img["natural"]) > 100 and min(img["box"]) > 100, img
    assert opened["math"]["raw"] == 0, opened["math"]  # every formula typeset
    picture = _picture(shot)
    assert picture["shape"] == (round(figures[0]["box"][1]), round(figures[0]["box"][0]))
    assert picture["coloured"] > MIN_COLOURED, picture  # the curves, not a blank box


def test_every_written_page_loads_cleanly(site, tools):
    """The pages written by hand or rendered from the notebooks (not the API stubs, which
    share one template with the index's checks): no problem, every image and formula shown."""
    pages = [p for p in sorted(site.rglob("*.html"))
             if p.relative_to(site).parts[0] not in {"generated", "_static", "_sources"}]
    assert len(pages) >= 20, pages  # index, api, references, 7 guide and 7 notebook pages...
    for page in pages:
        opened = _load(tools, page)
        name = page.relative_to(site).as_posix()
        assert opened["problems"] == [], name
        assert all(img["loaded"] for img in opened["images"]), (name, opened["images"])
        assert opened["math"]["raw"] == 0, (name, opened["math"])
    guide = _load(tools, site / "guide" / "measure.html")
    assert guide["math"]["svg"] > 50, guide["math"]  # its formulas are there, as SVG


def test_the_checks_catch_a_broken_page(tools, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><div class="cell_output">'
                    '<img alt="" src="missing.png"></div><script src="missing.js"></script>'
                    '<span class="math notranslate nohighlight">\\(x^2\\)</span>'
                    '<script>console.error("drawn wrong"); notDefinedAnywhere();</script>'
                    "</body></html>", encoding="utf-8")
    opened = _open(tools, page, tmp_path / "broken.png")
    problems = "\n".join(opened["problems"])
    assert "missing.js" in problems and "missing.png" in problems, problems
    assert "console.error: drawn wrong" in problems, problems
    assert "notDefinedAnywhere" in problems, problems
    assert not any(img["loaded"] for img in opened["images"])
    assert opened["math"]["raw"] == 1  # a formula left as TeX (no MathJax on the page)
