"""Fixtures shared by the training tests."""

from __future__ import annotations

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
