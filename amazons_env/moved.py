"""Old module names that still import, with a ``DeprecationWarning``, for one version.

A package that moves a public module registers the old dotted name with ``alias_moved_modules``:
``import agents.uct`` then returns the module now at ``agents.search.uct`` (the same module object,
so monkeypatching through either name acts on both) and warns once.

>>> import importlib, warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     module = importlib.import_module("amazons_env.env")
>>> module.__name__, caught[0].category.__name__
('amazons_env.envs.gym_env', 'DeprecationWarning')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Mapping, Optional, Sequence

__all__ = ["alias_moved_modules", "MOVED"]

#: every old module name registered so far, with its new home
MOVED: dict[str, str] = {}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names in ``MOVED`` and loads them as the module at the new name."""

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Optional[ModuleType] = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"module {spec.name} moved to {new}: import it from there (the old name goes away in the next version)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module was executed when it was imported."""


_FINDER = _MovedModules()


def alias_moved_modules(moved: Mapping[str, str]) -> None:
    """Let each old dotted module name in ``moved`` import the module at its new name."""
    MOVED.update(moved)
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
