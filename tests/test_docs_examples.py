"""The Python examples of the documentation site run as written.

Each page of ``docs/`` (the index and the user guide) is run block by block, its
```` ```python ```` blocks in one namespace per page, in a temporary folder (the Dask page writes
a Parquet data set there). A warning that locacal or the example itself raises is an error,
except :class:`locacal.CalibrationWarning`, the documented warning on weak but valid input
(tied scores that merge quantile bins, say); warnings from inside other libraries are left
to pytest's summary.
A block whose first line is ``# needs R ...`` runs only where R, locfit and rpy2 are
installed, and always under ``LOCACAL_REQUIRE_R`` or ``CI`` (as the ``r``-marked tests).
"""

from __future__ import annotations

import importlib.util
import os
import re
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

import locacal
from tests.rhelpers import r_available

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: The pages with examples: the landing page and the user guide's chapters.
PAGES = [DOCS / "index.md", *sorted(p for p in (DOCS / "guide").glob("*.md")
                                    if p.name != "index.md")]
BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
R_REQUIRED = bool(os.environ.get("LOCACAL_REQUIRE_R") or os.environ.get("CI"))


def _blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def test_every_page_has_examples():
    assert [page.stem for page in PAGES] == ["index", "compare_models", "fix", "from_r",
                                             "measure", "reproduce", "scale", "see"]
    assert all(_blocks(page) for page in PAGES)


def _run(blocks: list[str], name: str) -> None:
    """Run the blocks in one namespace, with the warning rules of the module docstring."""
    namespace: dict = {"__name__": f"docs_{name}"}
    try:
        with warnings.catch_warnings():
            for origin in (r"locacal(\.|$)", r"docs_"):
                warnings.filterwarnings("error", module=origin)
            warnings.simplefilter("ignore", locacal.CalibrationWarning)
            for number, block in enumerate(blocks, start=1):
                if block.startswith("# needs R") and not R_REQUIRED and not (
                        r_available() and importlib.util.find_spec("rpy2")):
                    pytest.skip(f"{name}, block {number}: R, locfit or rpy2 is missing")
                exec(compile(block, f"{name}, block {number}", "exec"), namespace)
    finally:
        plt.close("all")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_the_examples_of_a_page_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run(_blocks(page), page.name)


def test_a_warning_of_an_example_fails_it():
    _run(["import numpy as np, locacal\n",
          "locacal.lcs(np.full(20, 0.5), np.arange(20) % 2)\n"], "calibration_warning")
    with pytest.raises(UserWarning, match="an example that warns"):
        _run(["import warnings\nwarnings.warn('an example that warns')\n"], "warns")
