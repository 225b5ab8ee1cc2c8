"""The wheel ships the four packages' code, their ``py.typed`` markers and the committed default
weights, and nothing else: no experiment results, curves or scripts (those live in ``experiments/``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("amazons_env", "agents", "training", "amazons_cli")
WEIGHTS = "agents/nets/weights/"
EVALUATION_WEIGHTS = "agents/evaluation/weights/"  # the territory evaluation's fitted sets, per board size
# what a build never reads: version control, caches, earlier builds (numba's caches are large)
IGNORED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.pyc",
    "*.nbi",
    "*.nbc",
    "build",
    "dist",
    "*.egg-info",
    ".*cache*",
    ".hypothesis",
    ".benchmarks",
)


def shipped(name: str) -> bool:
    """Whether a wheel entry is one the package may ship."""
    top = name.split("/", 1)[0]
    if top.endswith(".dist-info"):
        return True
    if top not in PACKAGES:
        return False
    if name.startswith(WEIGHTS) and name.endswith((".json", ".safetensors")):
        return True
    if name.startswith(EVALUATION_WEIGHTS) and name.endswith(".json"):
        return True
    return name.endswith(".py") or name.rsplit("/", 1)[-1] == "py.typed"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the working tree (a build writes beside its sources)."""
    source = tmp_path_factory.mktemp("source") / "amazons"
    shutil.copytree(ROOT, source, ignore=IGNORED)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = out.glob("amazons-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_holds_only_code_type_markers_and_default_weights(wheel):
    names = wheel.namelist()
    assert [name for name in names if not shipped(name)] == []
    assert not any(name.startswith("experiments/") for name in names)


def test_the_wheel_holds_every_module_and_the_default_weights(wheel):
    names = set(wheel.namelist())
    expected = {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.suffix == ".py" or path.name == "py.typed"
        if "__pycache__" not in path.parts
    }
    expected |= {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / WEIGHTS).glob("*")
        if path.suffix in (".json", ".safetensors")
    }
    expected |= {path.relative_to(ROOT).as_posix() for path in (ROOT / EVALUATION_WEIGHTS).glob("*.json")}
    assert sorted(expected - names) == []
    assert any(name.endswith(".safetensors") for name in names)
