"""Module-level lazy attributes (PEP 562), so that importing a package loads nothing heavy.

``attach(__name__, {"name": "module.path", ...})`` returns ``__getattr__`` and ``__dir__``
for a package's namespace: the first access to ``package.name`` imports ``module.path`` and
caches the attribute in the package, later accesses are plain lookups. A value naming a
module itself (``"locacal.simulate"`` for ``simulate``) gives the module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["attach"]


def attach(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any],
                                                             Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` resolving ``exports`` (name -> module) on first use."""

    def __getattr__(name: str) -> Any:
        try:
            where = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        module = importlib.import_module(where)
        value = module if where.rsplit(".", 1)[-1] == name else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(exports) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
