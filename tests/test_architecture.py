"""The shape of the code, checked so it stays one a maintainer can live in (CONTRIBUTING.md):

* the import contracts of ``[tool.importlinter]`` in pyproject.toml hold (``lint-imports``):
  the four packages are layers (amazons_cli > training > agents > amazons_env), the
  independent siblings stay apart, and no sibling modules or packages import each other in a
  cycle;
* importing any module of ``amazons_env`` loads nothing of the layers above it;
* no folder of the packages holds more than ``MAX_MODULES`` modules, and no module is longer
  than ``MAX_LINES`` lines (a longer file is a sign of two concepts in one).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("amazons_env", "agents", "training", "amazons_cli")
MAX_MODULES = 15  # per folder, not counting __init__.py
MAX_LINES = 500
# Modules allowed past MAX_LINES for now, each with the reason; empty it as they are split.
LONG_MODULES: dict[str, str] = {}


def _python_files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def test_import_contracts_hold():
    """``lint-imports`` (import-linter) keeps every contract of pyproject.toml."""
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    # --no-cache: the cache folder would be written into the checkout
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        report = run.stdout[run.stdout.find("Contracts\n") :]  # past the banner
        pytest.fail(f"broken import contracts (lint-imports):\n{report}\n{run.stderr}", pytrace=False)


def test_amazons_env_loads_nothing_above_it():
    """The rules and envs run without agents, training or the command line: importing every
    module of ``amazons_env`` in a fresh interpreter loads none of them."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import amazons_env\n"
        "for info in pkgutil.walk_packages(amazons_env.__path__, 'amazons_env.'):\n"
        "    try:\n"
        "        importlib.import_module(info.name)\n"
        # an adapter whose library (or that library's own dependency) is not installed: nothing of ours is missing
        "    except ModuleNotFoundError as error:\n"
        "        if (error.name or '').split('.')[0] in ('amazons_env', 'agents', 'training', 'amazons_cli'):\n"
        "            raise\n"
        "above = sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'training', 'amazons_cli'))\n"
        "print(' '.join(above))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [], f"importing amazons_env loaded modules of the layers above it: {run.stdout}"


def test_no_folder_has_too_many_modules():
    crowded = {}
    for package in PACKAGES:
        folders = {p.parent for p in _python_files(package)}
        for folder in folders:
            modules = [p.name for p in folder.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > MAX_MODULES:
                crowded[str(folder.relative_to(ROOT))] = len(modules)
    assert not crowded, f"folders with more than {MAX_MODULES} modules (make a subpackage by concept): {crowded}"


def test_no_module_is_too_long():
    long = {}
    # the packages, and the code beside them that maintainers read as much
    for package in (*PACKAGES, "tests", "benchmarks", "fuzz", "examples", "experiments"):
        for path in _python_files(package):
            name = path.relative_to(ROOT).as_posix()
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES and name not in LONG_MODULES:
                long[name] = lines
    assert not long, f"modules over {MAX_LINES} lines (split them by concept): {long}"
    stale = [
        name
        for name in LONG_MODULES
        if not (ROOT / name).is_file() or len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= MAX_LINES
    ]
    assert not stale, f"LONG_MODULES lists modules that are gone or short now; remove them: {stale}"
