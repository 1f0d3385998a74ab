"""Shared test configuration.

R-backed tests are marked ``r``. They are skipped when R or its locfit package is missing,
except when the environment variable ``LOCACAL_REQUIRE_R`` is set (``.ci/run`` sets it) or
``CI`` is set: there a missing R is a failure, so parity with R is proven on every CI run.
"""

from __future__ import annotations

import os
import warnings

import pytest

from tests.rhelpers import r_available

R_REQUIRED = bool(os.environ.get("LOCACAL_REQUIRE_R") or os.environ.get("CI"))

# a script run by hand (it needs R), not a module for --doctest-modules to import
collect_ignore = ["reference/regenerate.py"]


def pytest_collection_modifyitems(config, items):
    if R_REQUIRED or r_available():
        return
    skip = pytest.mark.skip(reason="R with locfit is not installed (set LOCACAL_REQUIRE_R=1 "
                                   "to make this an error)")
    for item in items:
        if "r" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _no_stray_warnings():
    """Make RuntimeWarnings (overflow, invalid value) errors: they mean a silent NaN/inf."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield
