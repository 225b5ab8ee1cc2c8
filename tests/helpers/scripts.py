"""Scripts outside the packages (the examples, the benchmarks, the docs' build hooks) loaded as
modules, so that their tests call their functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["ROOT", "load_script"]

#: the repository's root
ROOT = Path(__file__).resolve().parents[2]


def load_script(path: str | Path) -> ModuleType:
    """The script at ``path`` (from the repository's root, or absolute) run as the module
    ``script_STEM``, registered in ``sys.modules`` as an import does (a dataclass looks its module
    up there).

    >>> load_script("benchmarks/strength/sprt.py").sprt_path("runs/c0.8.json")
    'runs/c0.8.sprt.json'
    """
    path = ROOT / path
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    assert spec is not None and spec.loader is not None  # a .py file path always has a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
