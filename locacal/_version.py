"""locacal's version, the one place it is written (PEP 440).

pyproject.toml reads it (``[tool.setuptools.dynamic]``) into the distribution's metadata and
``locacal.__version__`` re-exports it. Between releases it is the next release with ``.dev0``;
CHANGELOG.md lists what each version changed.
"""

__version__ = "0.2.0.dev0"
