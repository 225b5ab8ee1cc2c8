"""Collection without the optional extras: a test module or a package module (its doctests) that
cannot be imported because an optional dependency is missing is reported as skipped, naming the
extra that brings it, instead of failing the whole collection. Any other import error still fails.

This file sits at the root so that it covers the doctests of the packages as well as ``tests/``
(``tests/conftest.py`` has the markers).
"""

from __future__ import annotations

import pytest

# top-level module -> the extra of pyproject.toml that installs it
OPTIONAL_EXTRAS = {
    "torch": "nn",
    "safetensors": "nn",
    "onnx": "onnx",
    "onnxruntime": "onnx",
    "ray": "ray",
    "pygame": "render",
    "pyspiel": "test (open_spiel)",
    "pyffish": "test (pyffish)",
    "matplotlib": "bench",
    "stable_baselines3": "rl",
    "sb3_contrib": "rl",
    "torchrl": "rl",
    "tensordict": "rl",
    "tianshou": "rl",
    "supersuit": "rl",
    "pandas": "rl",  # Tianshou's and RLlib's
    # RLlib's own dependencies (ray alone is the ray extra)
    "tree": "rllib",
    "lz4": "rllib",
    "pyarrow": "rllib",
}


def _missing_extra(error: BaseException) -> str | None:
    """The optional module whose absence caused ``error`` (a collection error), else None."""
    cause = error
    while cause is not None:
        if isinstance(cause, ModuleNotFoundError) and cause.name:
            top = cause.name.split(".")[0]
            return top if top in OPTIONAL_EXTRAS else None
        cause = cause.__cause__ or cause.__context__
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport | None:
    if not isinstance(collector, pytest.Module):  # doctest modules are Modules too
        return None
    try:
        _ = collector.obj  # imports the module once; pytest's own report below reuses it
    except pytest.skip.Exception:  # the module skips itself: pytest reports that
        return None
    except Exception as error:  # pytest wraps import errors in CollectError
        missing = _missing_extra(error)
        if missing is not None:
            reason = f"needs {missing}: pip install -e '.[{OPTIONAL_EXTRAS[missing].split()[0]}]'"
            return pytest.CollectReport(collector.nodeid, "skipped", (str(collector.path), 0, f"Skipped: {reason}"), [])
    return None
