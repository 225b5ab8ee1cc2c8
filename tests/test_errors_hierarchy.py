"""One error root (see ``amazons_env.errors``): every error class of the packages is bad input
(``AmazonsError``, a ``ValueError``) or a run-time failure (``AmazonsRuntimeError``, a
``RuntimeError``), never both and never neither, and no module raises a bare ``ValueError`` or
``RuntimeError`` that a caller could not tell apart from a bug."""

import ast
import importlib
import os
import sys
from pathlib import Path

import pytest

from amazons_env.errors import AmazonsError, AmazonsRuntimeError, InvalidArgumentError, InvalidFileError

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("amazons_env", "agents", "training", "amazons_cli")
BARE = {"ValueError", "RuntimeError"}  # what our modules raise only through a subclass under a root


def package_modules():
    """``(module name, syntax tree)`` of every module of the packages (``__main__`` runs the
    command line when imported, and defines nothing)."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "__main__.py":
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def error_classes():
    """Every public exception class defined at the top level of a module of the packages.
    Warnings are not errors (a DeprecationWarning is neither family), and a private class
    (``_OutOfBudget``) is a signal its module raises and catches itself: no caller sees it."""
    found = []
    for name, tree in package_modules():
        defined = [node.name for node in tree.body if isinstance(node, ast.ClassDef) and not node.name.startswith("_")]
        if not defined:
            continue
        module = importlib.import_module(name)
        for class_name in defined:
            cls = getattr(module, class_name)
            if isinstance(cls, type) and issubclass(cls, BaseException) and not issubclass(cls, Warning):
                found.append(cls)
    return found


ERRORS = error_classes()


def test_the_walk_finds_the_errors_of_every_package():
    names = {cls.__name__ for cls in ERRORS}
    assert {
        "AmazonsError",
        "AmazonsRuntimeError",
        "InvalidMoveError",
        "OptionError",
        "TorchMissingError",
        "ModelFileError",
        "ResultsFileError",
        "ShardError",
        "LoopStateError",
        "BackendError",
        "WorkerError",
        "EngineError",
        "EngineOptionError",
    } <= names


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_every_error_is_in_exactly_one_family(cls):
    input_error, failure = issubclass(cls, AmazonsError), issubclass(cls, AmazonsRuntimeError)
    assert input_error != failure, f"{cls.__module__}.{cls.__name__} is in {'both' if failure else 'neither'} family"
    # the families are what they say: an input error is a ValueError, a failure is not
    assert issubclass(cls, ValueError) == input_error
    assert issubclass(cls, RuntimeError) == failure


def test_the_families_named_in_the_errors_docstring():
    from agents.arena.backends import BackendError, WorkerError
    from agents.arena.files import ResultsFileError
    from agents.nets import TorchMissingError
    from agents.nets.safefiles import ModelFileError
    from agents.options import OptionError
    from agents.protocols.uci_client import EngineError, EngineOptionError

    from training.data.shards import ShardError
    from training.loop import LoopStateError

    for cls in (ModelFileError, ResultsFileError, ShardError, LoopStateError):
        assert issubclass(cls, InvalidFileError), cls
    for cls in (OptionError, EngineOptionError, BackendError):
        assert issubclass(cls, InvalidArgumentError), cls
    assert issubclass(TorchMissingError, ImportError) and issubclass(TorchMissingError, AmazonsError)
    for cls in (EngineError, WorkerError):
        assert issubclass(cls, AmazonsRuntimeError), cls


def bare_raises():
    """``module:line`` of every ``raise ValueError(...)`` or ``raise RuntimeError`` in the packages."""
    found = []
    for name, tree in package_modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(raised, ast.Name) and raised.id in BARE:
                    found.append(f"{name}:{node.lineno} raises {raised.id}")
    return sorted(found)


def test_no_module_raises_a_bare_value_error_or_runtime_error():
    assert bare_raises() == []


def test_the_bare_raise_check_can_fail(monkeypatch):
    tree = ast.parse("def f(x):\n    if x:\n        raise ValueError(f'x={x!r}')\n    raise RuntimeError\n")
    monkeypatch.setattr(sys.modules[__name__], "package_modules", lambda: [("m", tree)])
    assert bare_raises() == ["m:3 raises ValueError", "m:4 raises RuntimeError"]


def test_an_engine_that_dies_is_a_runtime_failure_and_a_bad_engine_path_is_input():
    from amazons_env import Board

    from agents.protocols.uci_client import EngineError, UCIAgent

    agent = UCIAgent(engine=f"{sys.executable} -c pass")  # starts, then exits at once
    with pytest.raises(EngineError, match="exited") as info:
        agent.select_move(Board(6))
    assert isinstance(info.value, RuntimeError) and not isinstance(info.value, ValueError)
    with pytest.raises(AmazonsError, match="not an executable"):
        UCIAgent(engine=os.devnull + "/no-such-engine")


def _die(code: int) -> None:
    os._exit(code)  # a worker killed from outside looks the same to its pool


def test_a_worker_process_that_dies_is_a_runtime_failure():
    from agents.arena.backends import WorkerError, run_tasks

    with pytest.raises(WorkerError, match="worker process of _die died"):
        list(run_tasks(_die, [(1,), (1,)], workers=2))
