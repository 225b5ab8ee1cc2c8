"""Expert iteration in one command: ``amazons train-loop OUT --size 8 --generations 5``.

Stages, each finished before the next starts and recorded in ``OUT/loop-state.json``:

1. ``bootstrap``: games of the strongest engine (``--bootstrap-agent``, default ``uct``) against
   itself; its chosen moves are the policy targets, the results the value targets
   (``OUT/bootstrap/``, ``training.selfplay.policy_value.engine_games``).
2. ``train-0``: a fresh ``PolicyValueNet`` trained on them, or with ``--start W`` the net ``W``
   (committed policy-value weights by name or a model path: e.g. one made by ``amazons
   train-policy``): generation 0 (``OUT/gen-000/pv.*``).
3. For each generation ``g`` = 1, 2, ...:
   ``selfplay-g``: the current best net plays ``--games`` games in lock-step batches through
   ``agents.search.pvmcts`` (Dirichlet noise, temperature; ``OUT/gen-g/selfplay/``), or with
   ``--expert SPEC`` (an agent guided by a policy-value net, e.g. ``uct-net:sims=800``) the
   expert with the best net (``weights=``) plays them against itself from 2-ply random openings,
   its root visit shares the policy targets (``engine_games``) and its root values kept;
   ``train-g``: the best net trained further on the last ``--window`` generations' games (and the
   bootstrap games) into ``OUT/gen-g/pv.*``, the value target the result or, with
   ``--root-weight W``, ``(1 - W) * result + W * root value``;
   ``gate-g``: an arena match (``agents.arena.matches.match``, colours alternating, 2-ply random
   openings) of ``pvmcts`` with the new net against ``pvmcts`` with the best one, at equal
   simulations (with ``--expert``: the expert with each net, at its own budget); the new net
   becomes the best if it scores at least ``--gate``. Its Elo (with the
   95% interval) is the opponent's plus the measured difference (intervals add in quadrature):
   ``OUT/elo.csv`` and ``OUT/elo.png``.

**Where games run.** ``--workers`` processes of this machine, or Ray tasks on a cluster with
``--backend ray [--ray-address ADDR]`` (``agents.arena.backends``; the nets are read from ``OUT``, so
every node must see it at the same path): bootstrap and self-play shards and gating games; the
same seeds give the same games on any backend and worker count.

**Resuming.** Every stage writes its outputs first (model files, shards with their manifest, the
arena's checked JSON), then the state file (atomically, with its own SHA-256; an edited state is
refused). A rerun of the same command skips finished stages; inside a stage, finished self-play
shards, bootstrap shards and arena games are kept; an interrupted training runs again from its
start. Settings other than ``--generations`` must match the first run's (a different ``--size``
into the same folder is refused). Ctrl-C stops cleanly (``amazons`` prints one line).

>>> import tempfile
>>> config = LoopConfig(out=tempfile.mkdtemp(), size=5, generations=1, bootstrap_games=2,
...                     bootstrap_agent="uct:sims=20", games=2, games_per_shard=2, sims=4, channels=4, blocks=1,
...                     epochs=1, gate_games=2, gate_sims=4, progress=False)
>>> state = train_loop(config)
>>> state["done"][-1], len(state["gates"])
('gate-1', 1)
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any, Optional, TypedDict

from amazons_env import core
from amazons_env.errors import InvalidArgumentError, InvalidFileError
from amazons_env.files import is_sealed, read_json, seal, write_json

from agents.arena.backends import check_backend
from agents.nets.export import load_model, save_model
from agents.nets.policy_value import PolicyValueNet
from agents.registry import format_spec, parse_spec

from training.data.policy_value import load_pv_dataset
from training.optimize.policy_value import start_net, train_pv
from training.selfplay.policy_value import engine_shard, mcts_shard, play_shards

__all__ = ["LoopConfig", "train_loop", "STATE", "LoopStateError"]

STATE = "loop-state.json"
STATE_VERSION = 1


#: settings recorded in a state only when set: their defaults are what a state without them ran
_ONLY_WHEN_SET: dict[str, Any] = {"expert": "", "root_weight": 0.0, "start": ""}


class LoopStateError(InvalidFileError):
    """A loop state file that cannot be used (edited, malformed, or from other settings)."""


class _Where(TypedDict):
    """Where the loop's games run: the keywords that ``play_shards`` and ``match`` share."""

    workers: int
    backend: str
    address: Optional[str]


@dataclass
class LoopConfig:
    """The settings of ``train_loop`` (see the module docstring and ``amazons train-loop --help``)."""

    out: str
    size: int = 8
    generations: int = 5
    bootstrap_games: int = 64
    bootstrap_agent: str = "uct:sims=400"
    expert: str = ""
    root_weight: float = 0.0
    start: str = ""
    games: int = 64
    games_per_shard: int = 32
    sims: int = 64
    batch: int = 8
    temperature_plies: int = 10
    channels: int = 32
    blocks: int = 3
    epochs: int = 4
    batch_size: int = 256
    lr: float = 2e-3
    window: int = 3
    gate_games: int = 20
    gate_sims: int = 64
    gate: float = 0.5
    seed: int = 0
    device: str = ""
    threads: int = 1
    workers: int = 1
    backend: str = "local"
    ray_address: str = ""
    progress: bool = True

    def check(self) -> None:
        """``ValueError`` naming the first bad setting."""
        whole = {
            "size": (core.MIN_SIZE, core.MAX_SIZE),
            "generations": (0, 999),
            "bootstrap_games": (1, 10**6),
            "games": (1, 10**6),
            "games_per_shard": (1, 10**5),
            "sims": (1, 10**6),
            "batch": (1, 4096),
            "temperature_plies": (0, 10**4),
            "channels": (1, 512),
            "blocks": (0, 64),
            "epochs": (1, 10**4),
            "batch_size": (1, 10**6),
            "window": (1, 999),
            "gate_games": (1, 10**5),
            "gate_sims": (1, 10**6),
            "seed": (0, 2**62),
            "threads": (0, 1024),
            "workers": (1, 1024),
        }
        for name, (low, high) in whole.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidArgumentError(
                    f"train-loop --{name.replace('_', '-')}={value!r}: give an integer from {low} to {high}"
                )
        for name, least, most in (("lr", 0.0, 1.0), ("gate", 0.0, 1.0), ("root_weight", 0.0, 1.0)):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not least <= value <= most
                or not math.isfinite(value)
                or name == "lr"
                and value == 0
            ):
                flag, bracket = name.replace("_", "-"), "(" if name == "lr" else "["
                raise InvalidArgumentError(f"train-loop --{flag}={value!r}: give a number in {bracket}{least}, {most}]")
        if not isinstance(self.out, (str, os.PathLike)) or not str(self.out):
            raise InvalidArgumentError(f"train-loop OUT={self.out!r}: give a folder")
        check_backend(self.backend, self.ray_address or None)
        from agents.registry import AGENTS

        AGENTS.validate(self.bootstrap_agent)
        if self.expert:
            if "weights" not in AGENTS.schema(parse_spec(self.expert)[0]).options:
                raise InvalidArgumentError(
                    f"train-loop --expert={self.expert!r}: give an agent guided by a policy-value net "
                    "(one with a weights option), e.g. uct-net:sims=800"
                )
            AGENTS.validate(self.expert, weights="net")
        if self.start != "":
            self.start_path()

    def start_path(self) -> Path:
        """The model file (no suffix) of ``start``: committed policy-value weights by name, or a path."""
        return start_net(self.start, self.size, "train-loop --start")

    def expert_spec(self, weights: "str | os.PathLike") -> str:
        """``expert`` guided by the net in the model file ``weights``."""
        name, options = parse_spec(self.expert)
        return format_spec(name, {**options, "weights": str(weights)})

    def fixed(self) -> dict[str, Any]:
        """The settings a resumed run must share (all but ``generations``, ``out``, ``progress``,
        ``device``, ``threads`` and where the games run; ``expert`` and ``root_weight`` only when
        set, so that the state of a run made before they existed still resumes)."""
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in ("generations", "out", "progress", "device", "threads", "workers", "backend", "ray_address")
            and not (k in _ONLY_WHEN_SET and v == _ONLY_WHEN_SET[k])
        }


def _save_state(out: Path, state: dict[str, Any]) -> None:
    write_json(out / STATE, seal(state), indent=2)


def _load_state(out: Path, config: LoopConfig) -> dict[str, Any]:
    path = out / STATE
    if not path.exists():
        return {"version": STATE_VERSION, "settings": config.fixed(), "done": [], "best": 0, "gates": []}
    state = read_json(path, "loop state", error=LoopStateError)
    keys = {"version", "settings", "done", "best", "gates", "sha256"}
    if set(state) != keys:
        raise LoopStateError(f"loop state {path} is malformed (expected the keys {sorted(keys)})")
    if not is_sealed(state):
        raise LoopStateError(f"loop state {path} was edited: its sha256 does not match its content")
    if state["version"] != STATE_VERSION:
        raise LoopStateError(f"loop state {path} has version {state['version']!r}, this code reads {STATE_VERSION}")
    if state["settings"] != config.fixed():
        changed = sorted(k for k in config.fixed() if state["settings"].get(k) != config.fixed()[k])
        raise LoopStateError(
            f"{out} holds a loop run with other settings ({', '.join(changed)}); "
            "rerun with the same settings or use another folder"
        )
    return state


def _gen_dir(out: Path, g: int) -> Path:
    return out / f"gen-{g:03d}"


def _write_elo(out: Path, gates: list[dict[str, Any]]) -> None:
    """``elo.csv`` (one row per gated generation) and ``elo.png`` (when matplotlib is installed)."""
    with open(out / "elo.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(gates[0]))
        writer.writeheader()
        writer.writerows(gates)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    gens = [0] + [row["generation"] for row in gates]
    elo = [0.0] + [row["elo"] for row in gates]
    err = [0.0] + [row["elo_pm"] for row in gates]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(gens, elo, yerr=err, marker="o", capsize=3)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (generation 0 = 0), 95% interval")
    ax.set_title("train-loop: Elo by generation (gating matches)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "elo.png", dpi=100)
    plt.close(fig)


def train_loop(config: LoopConfig) -> dict[str, Any]:
    """Run (or resume) the loop of the module docstring; the final state."""
    import torch

    from agents.arena.matches import match

    config.check()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    if config.threads:
        torch.set_num_threads(config.threads)
    state = _load_state(out, config)
    size, gps = config.size, config.games_per_shard
    where: _Where = {"workers": config.workers, "backend": config.backend, "address": config.ray_address or None}

    def finish(stage: str) -> None:
        state["done"].append(stage)
        _save_state(out, state)

    def model_path(g: int) -> Path:
        return _gen_dir(out, g) / "pv"

    def train_stage(g: int, start: Optional[Path], folders: list[Path]) -> None:
        data, data_hash = load_pv_dataset(folders)
        model = load_model(start)[0] if start is not None else PolicyValueNet(config.channels, config.blocks)
        history = train_pv(
            model,
            data,
            config.epochs,
            config.batch_size,
            config.lr,
            seed=config.seed + g,
            device=config.device,
            progress=config.progress,
            root_weight=config.root_weight,
        )
        recipe = {"generation": g, "positions": int(len(data["sides"])), "history": history, "loop": config.fixed()}
        save_model(model, model_path(g), board_size=size, recipe=recipe, data_hash=data_hash)

    if "bootstrap" not in state["done"]:
        play_shards(
            out / "bootstrap",
            {"size": size, "agent": config.bootstrap_agent, "seed": config.seed},
            -(-config.bootstrap_games // gps),
            gps,
            partial(engine_shard, config.bootstrap_agent, gps, size),
            config.progress,
            "bootstrap",
            **where,
        )
        finish("bootstrap")
    if "train-0" not in state["done"]:
        train_stage(0, config.start_path() if config.start else None, [out / "bootstrap"])
        finish("train-0")
    for g in range(1, config.generations + 1):
        folder = _gen_dir(out, g)
        best = state["best"]
        if f"selfplay-{g}" not in state["done"]:
            settings: dict[str, Any] = {"size": size, "net": best, "seed": config.seed + 1000 * g}
            if config.expert:
                settings["expert"] = config.expert
                play = partial(engine_shard, config.expert_spec(model_path(best)), gps, size)
            else:
                play = partial(
                    mcts_shard, str(model_path(best)), gps, size, config.sims, config.batch, config.temperature_plies
                )
            play_shards(
                folder / "selfplay",
                settings,
                -(-config.games // gps),
                gps,
                play,
                config.progress,
                f"self-play gen {g}",
                **where,
            )
            finish(f"selfplay-{g}")
        if f"train-{g}" not in state["done"]:
            recent = [_gen_dir(out, h) / "selfplay" for h in range(max(1, g - config.window + 1), g + 1)]
            train_stage(g, model_path(best), [out / "bootstrap", *recent])
            finish(f"train-{g}")
        if f"gate-{g}" not in state["done"]:
            if config.expert:
                new, old = (config.expert_spec(model_path(h)) for h in (g, best))
            else:
                spec = "pvmcts:sims={},batch={},weights={}"
                new, old = (spec.format(config.gate_sims, config.batch, model_path(h)) for h in (g, best))
            result = match(
                new,
                old,
                games=config.gate_games,
                size=size,
                seed=config.seed + g,
                opening=2,
                json_path=str(folder / "gate.json"),
                progress=config.progress,
                **where,
            )
            base = next((row for row in state["gates"] if row["generation"] == best), None)
            low, high = result["elo_ci95"]
            half = (high - low) / 2
            row = {
                "generation": g,
                "opponent": best,
                "games": result["games"],
                "wins": result["a_wins"],
                "score": round(result["score"], 4),
                "score_low": round(result["score_ci95"][0], 4),
                "score_high": round(result["score_ci95"][1], 4),
                "elo_diff": round(result["elo"], 1),
                "elo": round((base["elo"] if base else 0.0) + result["elo"], 1),
                "elo_pm": round(math.hypot(base["elo_pm"] if base else 0.0, half), 1),
                "accepted": bool(result["score"] >= config.gate),
            }
            state["gates"].append(row)
            if row["accepted"]:
                state["best"] = g
            _write_elo(out, state["gates"])
            finish(f"gate-{g}")
    return state


def config_fields() -> list[str]:
    """The names of ``LoopConfig``'s settings (for the command line)."""
    return [f.name for f in fields(LoopConfig)]
