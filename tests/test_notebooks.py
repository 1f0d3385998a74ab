"""The vignettes are executed notebooks: CI runs every ``vignettes/*.ipynb`` on a real kernel.

Each notebook is executed top to bottom by nbclient on an IPython kernel (``python3``) whose
working directory is ``vignettes/`` (notebooks open their data as ``data/...``), with
matplotlib's inline backend (CI's ``MPLBACKEND=Agg`` is removed from the kernel's environment,
or no figure would be captured), and must

* raise no error in any cell;
* show at least one inline figure (an ``image/png`` output);
* show no warning: no ``stderr`` stream output mentions "Warning" (a ``CalibrationWarning``
  raised inside locacal, or any library's FutureWarning, is printed there).

Each ``.ipynb`` is paired with a Jupytext percent-format ``.py`` of the same name, the text
form reviewers read: the two must hold the same cells, and the committed ``.ipynb`` must hold
its outputs (figures included) so that it reads without being run.

After editing a notebook's ``.py``, regenerate and execute its ``.ipynb`` with the same
runner the test uses (from the repository root)::

    python -m tests.test_notebooks vignettes/b_comparing_smoothing.py [...]

which prints each notebook's run time (wall clock, and the CPU time of the kernel and its
workers, which does not depend on how busy the machine is).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = ROOT / "vignettes"
NOTEBOOKS = sorted(VIGNETTES.glob("*.ipynb"))
#: Seconds allowed per cell (each notebook runs in well under a minute on 2 cores).
TIMEOUT = 180


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this checkout first on the path, matplotlib inline."""
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def execute(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell in place on a fresh ``python3`` kernel in ``vignettes/``."""
    # no per-cell timestamps: the committed notebooks change only when their content does
    client = NotebookClient(notebook, timeout=TIMEOUT, kernel_name="python3",
                            record_timing=False,
                            resources={"metadata": {"path": str(VIGNETTES)}})
    client.execute(env=kernel_env())
    return notebook


def outputs(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]


def warning_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    """Text of the stderr stream outputs that mention a warning."""
    return [out.text for out in outputs(notebook)
            if out.output_type == "stream" and out.name == "stderr" and "Warning" in out.text]


def png_count(notebook: nbformat.NotebookNode) -> int:
    return sum("image/png" in out.get("data", {}) for out in outputs(notebook))


def cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(cell.cell_type, cell.source.strip()) for cell in notebook.cells]


def test_every_notebook_is_found() -> None:
    # the glob above must not silently find nothing (wrong directory, renamed folder)
    assert NOTEBOOKS, f"no notebook in {VIGNETTES}"


def test_the_checks_see_a_warning_and_a_figure() -> None:
    # the checks below must be able to fail: a CalibrationWarning raised inside locacal in a
    # kernel shows on stderr, and an inline figure is an image/png output
    notebook = execute(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import locacal\nlocacal.ece([0.5] * 10, [0, 1] * 5)"),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nplt.plot([0, 1])\n"
                                  "plt.show()"),
    ]))
    assert any("CalibrationWarning" in text for text in warning_outputs(notebook))
    assert png_count(notebook) == 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_matches_its_text_form(path: Path) -> None:
    paired = path.with_suffix(".py")
    assert paired.exists(), f"{path.name} has no paired Jupytext file {paired.name}"
    committed = nbformat.read(path, as_version=4)
    assert cells(committed) == cells(jupytext.read(paired)), (
        f"{path.name} and {paired.name} differ: run `python -m tests.test_notebooks "
        f"vignettes/{paired.name}`")
    assert png_count(committed) >= 1, f"{path.name} is committed without its figures"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_cleanly(path: Path) -> None:
    notebook = execute(nbformat.read(path, as_version=4))  # raises CellExecutionError
    assert png_count(notebook) >= 1, f"{path.name} shows no inline figure"
    assert warning_outputs(notebook) == [], f"{path.name} shows warnings"


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the kernels)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(paths: list[str]) -> None:
    """Rebuild each ``.ipynb`` from its ``.py``, execute it and save it with its outputs."""
    for name in paths:
        source = Path(name).with_suffix(".py")
        notebook = jupytext.read(source)
        start, cpu = time.perf_counter(), _children_cpu()
        execute(notebook)
        elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
        nbformat.write(notebook, source.with_suffix(".ipynb"))
        print(f"{source.stem}: {elapsed:.1f} s wall, {cpu:.1f} s CPU (kernel and its "
              f"workers), {png_count(notebook)} figures, "
              f"{len(warning_outputs(notebook))} warning outputs")


if __name__ == "__main__":
    main(sys.argv[1:])
