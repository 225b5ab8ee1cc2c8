"""``train_loop``: the stages of ``training.loop`` run (or resumed) in order, each recorded when done.

``report`` (a function of one line of text, e.g. ``print``) hears one line per stage finished:
the games and positions made and how fast, the training's losses, each gate's results (wins in all
and per colour, the score's and the Elo difference's 95% intervals, the Elo on the run's scale).

>>> import tempfile
>>> from training.loop.config import LoopConfig
>>> config = LoopConfig(out=tempfile.mkdtemp(), size=5, generations=1, bootstrap_games=2,
...                     bootstrap_agent="uct:sims=20", games=2, games_per_shard=2, sims=4, channels=4, blocks=1,
...                     epochs=1, gate_games=2, gate_sims=4, progress=False, device="cpu")
>>> lines = []
>>> state = train_loop(config, report=lines.append)
>>> state["done"][-1], len(state["gates"]), lines[-1].startswith("gate 1 (gen 1 vs gen 0): ")
('gate-1', 1, True)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Optional, TypedDict

from agents.nets.export import load_model, save_model
from agents.nets.policy_value import PolicyValueNet

from training.data.policy_value import load_pv_dataset
from training.loop.config import LoopConfig, resolve_device
from training.loop.engines import bootstrap_player, gate_spec, shard_player, shard_settings
from training.loop.state import gate_line, gate_row, load_state, save_state
from training.optimize.policy_value import train_pv
from training.selfplay.policy_value import play_shards

__all__ = ["train_loop", "gen_dir"]


class _Where(TypedDict):
    """Where the loop's games run: the keywords that ``play_shards`` and ``match`` share."""

    workers: int
    backend: str
    address: Optional[str]


def gen_dir(out: Path, g: int) -> Path:
    """The folder of generation ``g`` (its net ``pv.*``, its ``selfplay/`` shards, its ``gate.json``)."""
    return out / f"gen-{g:03d}"


def train_loop(config: LoopConfig, report: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    """Run (or resume) the loop of ``training.loop``; the final state. ``report``: module docstring."""
    import torch

    from agents.arena.matches import match

    config.check()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    if config.threads:
        torch.set_num_threads(config.threads)
    state = load_state(out, config.fixed())
    device = resolve_device(config.device)
    size, gps = config.size, config.games_per_shard
    where: _Where = {"workers": config.workers, "backend": config.backend, "address": config.ray_address or None}
    say = report or (lambda line: None)
    if state["done"]:
        say(f"resuming {out}: done {', '.join(state['done'])}")

    def finish(stage: str) -> None:
        state["done"].append(stage)
        save_state(out, state)

    def model_path(g: int) -> Path:
        return gen_dir(out, g) / "pv"

    def play(folder: Path, settings: dict[str, Any], player: Any, games: int, label: str) -> None:
        start = time.perf_counter()
        manifest = play_shards(folder, settings, -(-games // gps), gps, player, config.progress, label, **where)
        seconds = time.perf_counter() - start
        say(
            f"{label}: {manifest['games']} games, {manifest['positions']:,} positions in {seconds:.0f} s "
            f"({manifest['positions'] / max(seconds, 1e-9):.1f} positions/s, data {manifest['data_hash']})"
        )

    def train_stage(g: int, start: Optional[Path], folders: list[Path]) -> None:
        began = time.perf_counter()
        data, data_hash = load_pv_dataset(folders)
        model = load_model(start)[0] if start is not None else PolicyValueNet(config.channels, config.blocks)
        history = train_pv(
            model,
            data,
            config.epochs,
            config.batch_size,
            config.lr,
            seed=config.seed + g,
            device=str(device),
            progress=config.progress,
            root_weight=config.root_weight,
        )
        recipe = {"generation": g, "positions": int(len(data["sides"])), "history": history, "loop": config.fixed()}
        save_model(model, model_path(g), board_size=size, recipe=recipe, data_hash=data_hash)
        say(
            f"train {g}: {len(data['sides']):,} positions, {config.epochs} epochs on {device}, "
            f"loss {history[0]['loss']:.3f} -> {history[-1]['loss']:.3f} in {time.perf_counter() - began:.0f} s"
        )

    if "bootstrap" not in state["done"]:
        play(
            out / "bootstrap",
            {"size": size, "agent": config.bootstrap_agent, "seed": config.seed},
            bootstrap_player(config),
            config.bootstrap_games,
            "bootstrap",
        )
        finish("bootstrap")
    if "train-0" not in state["done"]:
        train_stage(0, config.start_path() if config.start else None, [out / "bootstrap"])
        finish("train-0")
    for g in range(1, config.generations + 1):
        folder = gen_dir(out, g)
        best = state["best"]
        if f"selfplay-{g}" not in state["done"]:
            settings = shard_settings(config, g, best)
            play(folder / "selfplay", settings, shard_player(config, model_path(best)), config.games, f"self-play {g}")
            finish(f"selfplay-{g}")
        if f"train-{g}" not in state["done"]:
            recent = [gen_dir(out, h) / "selfplay" for h in range(max(1, g - config.window + 1), g + 1)]
            train_stage(g, model_path(best), [out / "bootstrap", *recent])
            finish(f"train-{g}")
        if f"gate-{g}" not in state["done"]:
            result = match(
                gate_spec(config, model_path(g)),
                gate_spec(config, model_path(best)),
                games=config.gate_games,
                size=size,
                seed=config.seed + g,
                opening=2,
                json_path=str(folder / "gate.json"),
                progress=config.progress,
                **where,
            )
            row = gate_row(g, best, result, state["gates"], config.gate)
            state["gates"].append(row)
            if row["accepted"]:
                state["best"] = g
            finish(f"gate-{g}")
            say(gate_line(row))
    return state
