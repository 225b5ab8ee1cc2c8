"""The fuzz targets' registry and hostile inputs for ``fuzz/fuzz.py``: each target, for one public
parser, loader or constructor, is a function that turns a seeded ``random.Random`` into one hostile
``Case``; the targets themselves live in ``fuzz_targets_rules.py`` (the rules core and its notations),
``fuzz_targets_envs.py`` and ``fuzz_targets_files.py``.

A target is registered with ``@target(name, weight, setup)``: ``setup(folder)`` runs once per
worker process (it may write valid files under ``folder`` to mutate), and the target function
``(rng, ctx) -> Case`` builds one input. Inputs are mutations of valid ones (so they get past the
first checks) or hostile values (wrong types, NaN, huge numbers, Unicode digits, 100,000-character
texts, deep nesting, missing or non-UTF-8 files).
"""

from __future__ import annotations

import itertools
import math
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from amazons_env import Color
from amazons_env.errors import describe

__all__ = ["Case", "TARGETS", "target", "names_input", "hostile", "size_or_hostile", "mutate", "short"]


@dataclass
class Case:
    """One input: ``call()`` runs it; ``shown`` describes it in the report; a refusal must name
    one of ``names``; ``check()`` (after a refusal) raises ``AssertionError`` if state changed;
    ``edited``: the input is an edited file, so a success means it was trusted; ``accept``: other
    documented exceptions that count as clean (gymnasium's ``ResetNeeded``)."""

    call: Callable[[], Any]
    shown: str
    names: tuple = ()
    check: Optional[Callable[[], None]] = None
    edited: bool = False
    accept: tuple = ()


@dataclass
class Target:
    name: str
    weight: float
    setup: Optional[Callable[[Path], Any]]
    make: Callable[[random.Random, Any], Case]


TARGETS: dict[str, Target] = {}


def target(name: str, weight: float = 1.0, setup: Optional[Callable[[Path], Any]] = None):
    def register(fn: Callable[[random.Random, Any], Case]) -> Callable[[random.Random, Any], Case]:
        TARGETS[name] = Target(name, weight, setup, fn)
        return fn

    return register


def names_input(message: str, names: tuple) -> bool:
    """Whether ``message`` names one of ``names``: its short description, or (for text) its first
    characters as written or escaped, (for a number) its digits, (for a path) the path, (for a
    dict) a key or value, (for a short list or array) an element."""
    lowered = message.lower()
    todo = list(names)  # first the inputs themselves, then what is inside them (breadth first)
    for value in itertools.islice(todo, len(names) + 50):  # a few levels in, not 3,000 into a nested list
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        fragments = {describe(value)[:24]}
        if isinstance(value, str):
            stripped = value.strip()
            fragments |= {stripped[:16], repr(stripped)[1:-1][:16]} if stripped else {"''"}
        elif isinstance(value, (int, float, np.generic)) and not describe(value).startswith("<"):
            fragments.add(str(value))
        elif isinstance(value, dict) and len(value) <= 10:
            todo += [*value, *value.values()]
        elif isinstance(value, (list, tuple)) and len(value) <= 10:
            todo += list(value)
        elif isinstance(value, np.ndarray) and value.size <= 10:
            todo += value.ravel().tolist()
        if any(f and f.lower() in lowered for f in fragments):
            return True
    return False


# -- hostile values and text mutations ---------------------------------------------------------


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: list[Callable[[], Any]] = [
    lambda: None,
    lambda: True,
    lambda: False,
    lambda: 0,
    lambda: -1,
    lambda: -5,
    lambda: 1,
    lambda: 2,
    lambda: 7,
    lambda: 10**20,
    lambda: 10**5000,
    lambda: -(10**5000),
    lambda: 1.5,
    lambda: 10.0,
    lambda: math.nan,
    lambda: math.inf,
    lambda: -math.inf,
    lambda: "",
    lambda: "10",
    lambda: "x",
    lambda: "٨",
    lambda: "²",
    lambda: b"10",
    lambda: [],
    lambda: [1],
    lambda: (0, 1),
    lambda: {},
    lambda: {"a": 1},
    lambda: np.int64(3),
    lambda: np.int32(-1),
    lambda: np.float64(2.0),
    lambda: np.array([0, 1]),
    lambda: np.array(5),
    lambda: np.zeros((2, 2)),
    lambda: object(),
    lambda: _nested(3000),
    lambda: "a" * 100_000,
    lambda: Color.BLACK,
    lambda: complex(1, 1),
    lambda: "9" * 5000,
    lambda: iter(range(10**12)),
]
ODD = [
    "٣",
    "²",
    "¹",
    "\u212a",
    "ａ",
    "１",
    "\x00",
    "\u200b",
    "\u00a0",
    "\ufeff",
    "\U0001f600",
    "\r",
    "\n",
    "\t",
    "\\",
    "]",
    "[",
    "(",
    ")",
    ";",
    ":",
    ",",
    "=",
    "/",
    "-",
    "x",
    '"',
    "{",
    "}",
    "#",
    "e",
    "inf",
    "nan",
    "-1",
    "0",
    "999",
    "1e9",
    "9" * 5000,
    "1" * 400,
    "\udcff",
]


def hostile(rng: random.Random) -> Any:
    return rng.choice(HOSTILE)()


def size_or_hostile(rng: random.Random, size: int, p: float = 0.1) -> Any:
    return hostile(rng) if rng.random() < p else size


def mutate(rng: random.Random, text: str, alphabet: str) -> str:
    """1 to 4 random edits of ``text``: odd characters, deletions, repeats, truncation, runs of
    spaces; 1 in 40 grows it past 100,000 characters."""
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randint(0, len(text))
        j = min(len(text), i + rng.randint(1, 8))
        if op == 0:
            text = text[:i] + rng.choice(ODD) + text[i:]
        elif op == 1:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif op == 2:
            text = text[:i] + text[j:]
        elif op == 3:
            text = text[:i] + text[i:j] * rng.choice([2, 3, 50, 2000]) + text[j:]
        elif op == 4 and i < len(text):
            text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
        elif op == 5:
            text = text[:i]
        elif op == 6:
            text = text.upper() if rng.random() < 0.5 else text.swapcase()
        else:
            text = text[:i] + rng.choice([" ", "\n", "\t"]) * rng.choice([1, 100, 50_000]) + text[i:]
    if rng.random() < 1 / 40:
        chunk = text[: rng.randint(1, 40)] or "x"
        text = text + chunk * (100_000 // len(chunk) + 1)
    return text


def short(value: Any) -> str:
    return describe(value, 50)
