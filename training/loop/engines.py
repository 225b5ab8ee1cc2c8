"""The self-play engine of a generation: the one seam between the loop and whatever plays its games.

An engine turns the loop's settings and a net's model file into a shard player, a picklable
``play(index, seed) -> games``, and into the agent spec that plays the net in the gating match.
``training.selfplay.policy_value.play_shards`` writes the player's shards, on this machine's
processes or on Ray tasks (``agents.arena.backends``). The same settings and seed give the same
games wherever a shard runs, so a shard lost with its worker or node is played again with the
same result.

* ``gumbel`` (the default, ``--selfplay gumbel``): Gumbel AlphaZero's batched search on torch
  tensors (``agents.search.gumbel``, ``gumbel_games``): the shard's games in lock-step on
  ``device``, one forward pass of the net per simulation for all of them, ``gumbel_m`` root
  actions sampled, ``gumbel_k`` children per node; the targets its improved policy and root
  value; gated as the ``gumbel`` agent at ``gate_sims`` on the same device.
* ``expert`` (``--expert SPEC``): an agent guided by the best net plays against itself
  (``engine_games``: its root visit shares the targets, its root values kept); gated as itself.

On Ray (``--backend ray``) a shard's device is the one its task is given: with ``--ray-gpus F``
each self-play task asks for ``F`` of a GPU (so it runs on a GPU node, ``F`` = 0.25: four to a
GPU), else for a CPU only, on any node; the nets then run on what the task sees (``auto``), as do
the gates' ``gumbel`` agents (their games are CPU tasks).

Another search plugs in as one more entry of ``ENGINES``: its shard player and its agent spec.

>>> from training.loop.config import LoopConfig
>>> play = shard_player(LoopConfig(out="run", size=6, games_per_shard=4), "run/gen-000/pv")
>>> play.func.__name__, play.args[:3]
('device_gumbel_shard', ('run/gen-000/pv', 'auto', 4))
>>> gate_spec(LoopConfig(out="run", device="cpu"), "run/gen-001/pv")
'gumbel:sims=64,m=16,k=16,device=cpu,weights=run/gen-001/pv'
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from training.loop.config import LoopConfig, resolve_device
from training.selfplay.policy_value import engine_shard, gumbel_shard

__all__ = [
    "Engine",
    "ENGINES",
    "engine_name",
    "shard_player",
    "gate_spec",
    "shard_settings",
    "task_device",
    "device_gumbel_shard",
    "bootstrap_player",
]

Player = Callable[[int, int], Sequence[dict[str, np.ndarray]]]


def task_device(config: LoopConfig) -> str:
    """The device setting a shard or gate game resolves where it runs: ``auto`` for a Ray task, which
    sees a GPU only when it asked for one (``ray_gpus``), else ``config.device``."""
    return "auto" if config.backend == "ray" else config.device


def device_gumbel_shard(
    weights: str, device: str, games: int, size: int, sims: int, m: int, k: int, index: int, seed: int
) -> list[dict[str, np.ndarray]]:
    """``gumbel_shard`` on ``device`` resolved where the shard runs (a Ray task may land on a node
    without a GPU)."""
    return gumbel_shard(weights, str(resolve_device(device)), games, size, sims, m, k, index, seed)


def _gumbel(config: LoopConfig, weights: Path) -> Player:
    return partial(
        device_gumbel_shard,
        str(weights),
        task_device(config),
        config.games_per_shard,
        config.size,
        config.sims,
        config.gumbel_m,
        config.gumbel_k,
    )


def _gumbel_gate(config: LoopConfig, weights: Path) -> str:
    device = "cuda" if task_device(config).startswith("cuda") else task_device(config)  # the agent's choices
    return f"gumbel:sims={config.gate_sims},m={config.gumbel_m},k={config.gumbel_k},device={device},weights={weights}"


def _expert(config: LoopConfig, weights: Path) -> Player:
    return partial(engine_shard, config.expert_spec(weights), config.games_per_shard, config.size)


class Engine(NamedTuple):
    """A self-play engine: from the settings and a net's model file, its shard player and its agent spec."""

    player: Callable[[LoopConfig, Path], Player]
    gate_spec: Callable[[LoopConfig, Path], str]


#: the engines by name
ENGINES: dict[str, Engine] = {
    "gumbel": Engine(_gumbel, _gumbel_gate),
    "expert": Engine(_expert, lambda config, weights: config.expert_spec(weights)),
}


def engine_name(config: LoopConfig) -> str:
    """The engine that plays ``config``'s generations (an ``expert``, when given, instead of ``selfplay``)."""
    return "expert" if config.expert else config.selfplay


def shard_player(config: LoopConfig, weights: "str | Path") -> Player:
    """The shard player of a generation whose best net is the model file ``weights`` (asking Ray for
    ``ray_gpus`` of a GPU per task when set)."""
    player = ENGINES[engine_name(config)].player(config, Path(weights))
    if config.ray_gpus:
        player.ray_resources = {"num_gpus": config.ray_gpus}  # type: ignore[attr-defined]
    return player


def gate_spec(config: LoopConfig, weights: "str | Path") -> str:
    """The agent spec that plays the net in the model file ``weights`` in a gating match."""
    return ENGINES[engine_name(config)].gate_spec(config, Path(weights))


def bootstrap_player(config: LoopConfig) -> Player:
    """The shard player of the bootstrap games (``bootstrap_agent`` against itself)."""
    return partial(engine_shard, config.bootstrap_agent, config.games_per_shard, config.size)


def shard_settings(config: LoopConfig, generation: int, best: int) -> dict[str, Any]:
    """What a generation's self-play folder records (and a rerun must match to keep its shards)."""
    settings: dict[str, Any] = {"size": config.size, "net": best, "seed": config.seed + 1000 * generation}
    if config.expert:
        settings["expert"] = config.expert
    else:
        settings.update(selfplay=config.selfplay, m=config.gumbel_m, k=config.gumbel_k)
    return settings
