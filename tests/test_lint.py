"""Lint, format and type checks of the code (configured in pyproject.toml): each runs the tool
over the packages, the tests, the benchmarks, the fuzz targets and the examples and fails with its findings.

Run one by hand with the same command (CONTRIBUTING.md lists them); ``ruff check --fix`` and
``ruff format`` fix most of what the first two report.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = [
    "amazons_env",
    "agents",
    "training",
    "amazons_cli",
    "tests",
    "benchmarks",
    "fuzz",
    "examples",
    "docs",
    "conftest.py",
]


def _run(tool: str, *args: str) -> None:
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed (pip install -c constraints.txt -e '.[test]')")
    run = subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        pytest.fail(f"{tool} {' '.join(args)}:\n{run.stdout}\n{run.stderr}", pytrace=False)


def test_ruff_check():
    _run("ruff", "check", "--no-cache", *PATHS)


def test_ruff_format():
    _run("ruff", "format", "--check", "--no-cache", *PATHS)


@pytest.mark.slow  # minutes: mypy reads torch's and numpy's stubs on a cold cache
def test_mypy():
    _run("mypy")  # the files and options of [tool.mypy]
