"""The native local-regression engine (locfit's rules, NumPy only).

Empty for now: the engine's modules still live in :mod:`locacal.curves` (``_local_*.py``)
and move here with one entry point in the next step of the package's layout.
"""
