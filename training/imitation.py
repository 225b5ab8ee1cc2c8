"""Imitation: a policy-value net trained to play a search's moves, from its recorded games.

The engines' own games are training data (``training.data.records``): every arena results file
(``amazons match ... --json``) keeps the moves of both sides, so the positions where one engine
moved, the move it chose (a one-hot policy target) and the game's result (the value target) teach a
net to predict that engine. ``imitate`` trains (from committed weights, a model file or scratch) on
the games of results files and on policy-value shard folders (``amazons train-loop``'s data, or
``write_record_shards``'), then writes the net with its recipe and the data's hash.

This is how the 10x10 net of ``experiments/pv-10x10`` was made: expert iteration's 8x8 net,
fine-tuned on uct's 1 s moves on 8x8, then on 10x10. Train on games the evaluation will not
replay: an arena match draws its openings from its seed.

>>> import tempfile
>>> from agents.arena.matches import match
>>> folder = tempfile.mkdtemp()
>>> _ = match("uct:sims=30", "random", games=2, size=5, seed=3, json_path=folder + "/m.json", progress=False)
>>> config = ImitationConfig(sources=[folder + "/m.json"], out=folder + "/net", size=5, player="uct",
...                          start="scratch", channels=4, blocks=1, epochs=1)
>>> report = imitate(config, progress=False)
>>> report["out"].name, report["positions"] > 0, len(report["history"])
('net', True, 1)
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from amazons_env.errors import InvalidArgumentError
from amazons_env.files import file_sha256

from agents.nets.export import load_model, save_model
from agents.nets.models import PolicyValueNet
from agents.nets.store import POLICY_VALUE_WEIGHTS

from training.data.policy_value import PV_ARRAYS, load_pv_dataset
from training.data.records import record_games
from training.imitation_config import ImitationConfig
from training.optimize.policy_value import start_net

__all__ = ["ImitationConfig", "load_sources", "agreement", "imitate"]


def load_sources(sources: list[str], size: int, player: str) -> tuple[dict[str, np.ndarray], str]:
    """The positions of ``sources`` in the order given, as one ``load_pv_dataset`` dict, and the
    data's hash: the results files' games where ``player`` (a spec prefix) moved on ``size`` x ``size``
    boards, and every position of the policy-value folders (which must be of that size)."""
    parts: list[dict[str, np.ndarray]] = []
    hashes = []
    for number, source in enumerate(sources):
        if Path(source).is_dir():
            data, data_hash = load_pv_dataset(source)
            found = int(round(math.sqrt(data["cells"].shape[1]))) - 2
            if found != size:
                raise InvalidArgumentError(
                    f"train-policy source {source!r}: {found}x{found} positions, not {size}x{size}"
                )
            parts.append(data)
            hashes.append(data_hash)
            continue
        games = record_games([source], player, size)
        for index, game in enumerate(games):
            game["games"] = np.full(len(game["sides"]), (number << 40) + index, np.int64)
        parts.extend(games)
        hashes.append(f"{file_sha256(Path(source))}:{player}:{size}")
    if not parts:
        raise InvalidArgumentError(f"train-policy: no {size}x{size} positions of {player!r} in {sources}")
    data = {key: np.concatenate([p[key] for p in parts]) for key in PV_ARRAYS}
    return data, hashlib.sha256("\n".join(hashes).encode()).hexdigest()[:16]


def agreement(
    model: PolicyValueNet, cells: np.ndarray, sides: np.ndarray, played: np.ndarray, size: int, batch: int = 512
) -> dict[str, float]:
    """How often ``model``'s first choice is the move ``played`` (``int[k, 3]``, public squares) at
    the positions ``cells``/``sides``: ``slide``, the share where its most probable queen move (the
    factorised policy summed over its arrows) is the one played; ``move``, where its most probable
    whole move is; ``nll``, the mean negative log-probability of the moves played (nats), beside
    ``uniform_nll``, a uniform policy's (``log`` of the legal moves). A move not legal at its
    position is refused, naming the position."""
    import torch

    from agents.nets.planes import make_planes
    from agents.nets.policy_value import legal_moves_batch, move_log_probs

    slides = hits = nll = uniform = 0.0
    model.eval()
    for lo in range(0, len(sides), batch):
        part = slice(lo, lo + batch)
        rows, moves = legal_moves_batch(cells[part], sides[part], size)
        with torch.no_grad():
            _, slide, arrow = model(torch.from_numpy(make_planes(cells[part], sides[part], "relative")))
            logp = move_log_probs(slide, arrow, rows, moves, size).numpy()
        starts = np.searchsorted(rows, np.arange(len(sides[part]) + 1))
        for k, want in enumerate(played[part]):
            m, lp = moves[starts[k] : starts[k + 1]], logp[starts[k] : starts[k + 1]]
            j = np.flatnonzero((m == want).all(axis=1))
            if len(j) != 1:
                raise InvalidArgumentError(f"position {lo + k}: the move played {want.tolist()} is not legal there")
            hits += bool((m[np.argmax(lp)] == want).all())
            keys, inverse = np.unique(m[:, 0] * 256 + m[:, 1], return_inverse=True)
            mass = np.zeros(len(keys))
            np.add.at(mass, inverse, np.exp(lp))
            slides += keys[np.argmax(mass)] == want[0] * 256 + want[1]
            nll -= lp[j[0]]
            uniform += np.log(len(m))
    n = len(sides)
    shares = {"slide": slides / n, "move": hits / n, "nll": nll / n, "uniform_nll": uniform / n}
    return {"positions": n, **{key: float(value) for key, value in shares.items()}}  # plain floats: JSON


def _held_out(config: ImitationConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    player = config.held_out_player or config.player
    games = record_games(list(config.held_out), player, config.size)
    if not games:
        raise InvalidArgumentError(f"train-policy --held-out: no {config.size}x{config.size} moves of {player!r}")
    return (
        np.concatenate([g["cells"] for g in games]),
        np.concatenate([g["sides"] for g in games]).astype(np.int64),
        np.concatenate([g["pi_moves"] for g in games]).astype(np.int64),
    )


def _start(config: ImitationConfig) -> PolicyValueNet:
    if config.start == "scratch":
        import torch

        torch.manual_seed(config.seed)  # the initial weights: the same net from the same settings
        return PolicyValueNet(config.channels, config.blocks)
    model = load_model(start_net(config.start, config.size, "train-policy --start"))[0]
    assert isinstance(model, PolicyValueNet), "start_net read its config"
    return model


def imitate(config: ImitationConfig, progress: bool = True) -> dict[str, Any]:
    """Train a policy-value net on ``config.sources`` and save it at ``config.out`` (module
    docstring). Returns the saved base path (``out``), the number of ``positions``, the per-epoch
    mean losses (``history``), the ``data_hash`` and, with ``held_out`` results files, the
    ``agreement`` with the player's moves in them of the net ``before`` and ``after`` training
    (also in the recipe). Nothing is written before training ends
    (Ctrl-C leaves no file; a rerun starts over: minutes on one core for tens of thousands of positions)."""
    config.check()
    import torch

    from training.optimize.policy_value import train_pv

    if config.threads:
        torch.set_num_threads(config.threads)
    data, data_hash = load_sources(config.sources, config.size, config.player)
    held_out = _held_out(config) if config.held_out else None
    model = _start(config)
    scores = {}
    if held_out is not None:
        scores["before"] = agreement(model, *held_out, config.size)
    history = train_pv(
        model,
        data,
        config.epochs,
        config.batch_size,
        config.lr,
        weight_decay=config.weight_decay,
        seed=config.seed,
        device=config.device,
        value_weight=config.value_weight,
        progress=progress,
    )
    if held_out is not None:
        scores["after"] = agreement(model, *held_out, config.size)
    # the recipe: what the net was made of (file names without their folders; the start's shape is its own)
    unused = ("out", "overwrite", "device", "threads") + (("channels", "blocks") if config.start != "scratch" else ())
    recipe = {k: v for k, v in asdict(config).items() if k not in unused}
    for key in ("sources", "held_out"):
        recipe[key] = [os.path.basename(os.path.normpath(s)) for s in getattr(config, key)]
    if config.start not in POLICY_VALUE_WEIGHTS and config.start != "scratch":
        recipe["start"] = os.path.basename(os.path.normpath(config.start))
    recipe.update(positions=int(len(data["sides"])), history=history, agreement=scores)
    out = save_model(model, config.out, board_size=config.size, recipe=recipe, data_hash=data_hash)
    positions = int(len(data["sides"]))
    return {"out": out, "positions": positions, "history": history, "data_hash": data_hash, "agreement": scores}
