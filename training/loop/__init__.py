"""Expert iteration in one command: ``amazons train-loop OUT --size 8 --generations 5``.

Stages, each finished before the next starts and recorded in ``OUT/loop-state.json``:

1. ``bootstrap``: games of the strongest engine (``--bootstrap-agent``, default ``uct``) against
   itself; its chosen moves are the policy targets, the results the value targets
   (``OUT/bootstrap/``, ``training.selfplay.policy_value.engine_games``).
2. ``train-0``: a fresh ``PolicyValueNet`` trained on them, or with ``--start W`` the net ``W``
   (committed policy-value weights by name or a model path: e.g. one made by ``amazons
   train-policy``): generation 0 (``OUT/gen-000/pv.*``).
3. For each generation ``g`` = 1, 2, ...:
   ``selfplay-g``: the generation's self-play engine (``training.loop.engines``) plays ``--games``
   games with the current best net (``OUT/gen-g/selfplay/``): by default Gumbel AlphaZero's
   batched search on torch tensors (``agents.search.gumbel``: the shard's games in lock-step on
   the device, the improved policy as the target); or with ``--expert SPEC`` (an agent guided by a
   policy-value net, e.g. ``uct-net:sims=800``) the expert with the best net (``weights=``)
   against itself from 2-ply random openings, its root visit shares the policy targets and its
   root values kept;
   ``train-g``: the best net trained further on the replay window, the last ``--window``
   generations' games and the bootstrap games, into ``OUT/gen-g/pv.*``, the value target the
   result or, with ``--root-weight W``, ``(1 - W) * result + W * root value``;
   ``gate-g``: an arena match (``agents.arena.matches.match``, colours alternating, 2-ply random
   openings) of the engine's agent with the new net against it with the best one (``gumbel`` at
   ``--gate-sims``, the expert at its own budget); the new net
   becomes the best if it scores at least ``--gate``. Its results (wins in all and per colour,
   the 95% intervals, the Elo by generation) are kept in the sealed state, ``OUT/elo.csv`` and
   ``OUT/elo.png`` (``training.loop.state``) and printed, one line a stage.

**Where it runs.** ``--device auto|cpu|cuda|cuda:N``: training, self-play's nets (and with
``gumbel`` its whole search and its gates) on that device (``auto``: the GPU when torch sees one);
the same code runs on the CPU. The nets are saved as every committed net is (safetensors and a
checked JSON config, ``agents.nets.export``), so ``uct-net``, ``pvmcts`` and ``gumbel`` play them on
any CPU (through ONNX Runtime where installed). Games run in ``--workers`` processes of this machine, or as Ray
tasks on a cluster with ``--backend ray [--ray-address ADDR]`` (``agents.arena.backends``; the nets
are read from ``OUT``, so every node must see it at the same path): bootstrap and self-play shards
and gating games; the same seeds give the same games on any backend and worker count, and a shard
whose worker or node is lost is played again, with the same seed, elsewhere.

**Resuming.** Every stage writes its outputs first (model files, shards with their manifest, the
arena's checked JSON), then the state file (atomically, with its own SHA-256; an edited state is
refused). A rerun of the same command skips finished stages; inside a stage, finished self-play
shards, bootstrap shards and arena games are kept; an interrupted training runs again from its
start. Settings other than ``--generations`` and where the run goes (``--device``, ``--workers``,
``--backend``) must match the first run's (a different ``--size`` into the same folder is
refused). Ctrl-C stops cleanly (``amazons`` prints one line).

The modules: ``config`` (the settings, checked), ``engines`` (the self-play seam), ``state`` (the
record), ``run`` (the stages).
"""

from typing import Any

from training.loop.config import LoopConfig, config_fields
from training.loop.state import STATE, LoopStateError, read_state

__all__ = ["LoopConfig", "train_loop", "STATE", "LoopStateError", "read_state", "config_fields"]


def __getattr__(name: str) -> Any:
    """``train_loop`` on first use: it imports torch, which the settings (``amazons train-loop --help``
    on the base install) do without."""
    if name == "train_loop":
        from training.loop.run import train_loop

        return train_loop
    raise AttributeError(f"module 'training.loop' has no attribute {name!r}")
