"""Sphinx configuration of locacal's documentation site.

Build (from the repository root, with ``pip install -e ".[docs]"``)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Two things are brought in at build time, into git-ignored folders of ``docs/``, so that nothing
is copied by hand: the executed notebooks of ``vignettes/`` (rendered from their stored
outputs, never re-run: ``nb_execution_mode = "off"``) into ``docs/notebooks/``, and MathJax 3
(from the ``django-static-mathjax`` wheel, which ships MathJax's own build) into
``docs/_mathjax/``, so that formulas render with no network.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import mathjax

import locacal

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# -- the notebooks: vignettes/*.ipynb -> docs/notebooks/ (git-ignored) ---------------------------
NOTEBOOKS = HERE / "notebooks"
NOTEBOOKS.mkdir(exist_ok=True)
_sources = sorted((ROOT / "vignettes").glob("*.ipynb"))
for stale in set(NOTEBOOKS.glob("*.ipynb")) - {NOTEBOOKS / s.name for s in _sources}:
    stale.unlink()
for source in _sources:
    target = NOTEBOOKS / source.name
    # copy only when changed, so that Sphinx rebuilds only the notebooks that changed
    if not target.exists() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)

# -- MathJax 3, served from _static/mathjax/ -----------------------------------------------------
_MATHJAX_ES5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
MATHJAX = HERE / "_mathjax"
_mathjax_copy = MATHJAX / "mathjax"
if not (_mathjax_copy / "tex-svg.js").exists():
    _mathjax_copy.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_MATHJAX_ES5 / "tex-svg.js", _mathjax_copy / "tex-svg.js")
    # the components tex-svg.js loads on demand: TeX extensions (autoload), menu, a11y
    for part in ("input/tex/extensions", "ui", "a11y"):
        shutil.copytree(_MATHJAX_ES5 / part, _mathjax_copy / part, dirs_exist_ok=True)

# -- project ---------------------------------------------------------------------------------------
project = "locacal"
author = "the locacal developers"
copyright = "the locacal developers"
release = version = locacal.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

exclude_patterns = ["_build", "_mathjax", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static", str(MATHJAX)]
html_css_files = ["locacal.css"]

# -- API reference -------------------------------------------------------------------------------
autosummary_generate = True
autosummary_ignore_module_all = False
# the module pages list only what the top level does not already document
autosummary_context = {"toplevel": sorted(locacal.__all__)}
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

# -- notebooks and Markdown pages -----------------------------------------------------------------
nb_execution_mode = "off"  # render the stored outputs; never run a notebook here
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- HTML ------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"locacal {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
# the guide's and the notebooks' pages hold wide formulas, code and figures: no section
# navigation beside them (the guide's and the notebooks' own pages list them, and each page
# links the previous and the next one)
html_sidebars = {"index": [], "guide/**": [], "notebooks/**": [], "references": []}
# without it the theme writes an empty mode and logs "Got invalid theme mode" as an error
html_context = {"default_mode": "auto"}
mathjax_path = "mathjax/tex-svg.js"
html_show_sourcelink = False


def _escape_generated_notes(app, what, name, obj, options, lines) -> None:
    """``calibration_report``'s Notes are written at import time from the plain-text meanings
    of the metric registry (shared with ``explain_report`` and the HTML report), in which
    ``|x|`` is an absolute value; in reST it would be a substitution, so escape the bars."""
    if name == "locacal.calibration_report":
        notes = next(i for i, line in enumerate(lines) if line.strip().endswith("Notes"))
        lines[notes:] = [line.replace("|", "\\|") for line in lines[notes:]]


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _escape_generated_notes)
