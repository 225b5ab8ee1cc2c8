"""Fixtures shared by the training tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

#: a toy expert-iteration run: 5x5 games, a net of 4 channels and one block, one epoch, two-game gates
TINY_LOOP = dict(
    size=5,
    generations=1,
    bootstrap_games=2,
    bootstrap_agent="uct:sims=20",
    games=2,
    games_per_shard=1,
    sims=4,
    channels=4,
    blocks=1,
    epochs=1,
    gate_games=2,
    gate_sims=4,
    progress=False,
)


@pytest.fixture
def tiny_loop():
    """``tiny_loop(out, **changes)``: the ``LoopConfig`` of the toy run (``TINY_LOOP``) writing to
    ``out``, with ``changes`` over its settings (the loop needs torch: imported when called)."""

    def make(out, **changes):
        from training.loop import LoopConfig

        return LoopConfig(**{"out": str(out), **TINY_LOOP, **changes})

    return make


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.fixture
def ray_workers():
    """``ray_workers(name, raylet=None)``: the pids of the Ray worker processes running a task of
    function ``name`` (Ray titles them ``ray::NAME``) whose parent is the raylet ``raylet`` (its
    pid), or without one, a raylet this process started (another session's Ray is left alone).
    Read from Linux's ``/proc``."""

    def find(name: str, raylet: Optional[int] = None) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if not (entry / "cmdline").read_bytes().startswith(f"ray::{name}".encode()):
                        continue
                    parent = _parent_of(int(entry.name))
                    if parent == raylet if raylet is not None else _parent_of(parent) == os.getpid():
                        found.append(int(entry.name))
                except (OSError, IndexError, ValueError):  # a process that ended meanwhile
                    continue
        return found

    return find
