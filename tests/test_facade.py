"""The lazy façade ``locacal.NAME`` gives the documented object for every public name."""

import subprocess
import sys
import types

import locacal

#: Public names that are modules (the rest are functions, classes or constants).
MODULES = {"curves", "density", "metrics", "plotting", "simulate", "studies", "testing"}


def test_every_public_name_is_a_module_only_when_documented_as_one():
    # `split` once resolved to the module locacal/recalibration/split.py, so the README's
    # `locacal.split(data, seed=0)` raised "'module' object is not callable"
    for name in locacal.__all__:
        value = getattr(locacal, name)
        assert isinstance(value, types.ModuleType) == (name in MODULES), name


def test_split_is_the_function_in_a_fresh_interpreter():
    code = ("from locacal import split; import pandas as pd; "
            "parts = split(pd.DataFrame({'a': range(10)}), seed=0); "
            "print([len(p) for p in parts])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[6, 2, 2]"
