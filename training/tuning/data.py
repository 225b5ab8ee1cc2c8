"""Labelled positions for fitting the territory weights: uct self-play and a deeper search's values.

Two stages in one folder, each written a shard at a time and resumed where it stopped (a rerun
with the same settings checks the shards already written, by size and SHA-256, and skips them):

1. ``FOLDER/selfplay/``: ``games`` games of ``uct:sims=SIMS`` against itself from random openings
   (``training.selfplay.value.selfplay``: ``random_plies`` uniformly random moves first, every
   position recorded with the game's outcome, the game stopped once the filling phase is counted
   exactly).
2. ``FOLDER/labels/``: for each self-play shard, ``per_game`` positions drawn from each of its
   games (seeded by the game), searched afresh by ``uct:sims=DEEP_SIMS``. A labels shard has the
   self-play shard's format (``training.data.shards``: checked on reading, the folder's
   ``data_hash`` names the whole set): ``results`` the game's outcome and ``values`` the deeper
   search's root value, both for the side to move. Positions whose side to move has no move are
   not drawn (the evaluation is exact there: -1).

The labels' settings name the self-play data they were drawn from, so labels of other games are
never mixed in.

>>> import tempfile
>>> manifest = labelled_positions(tempfile.mkdtemp(), size=6, games=2, sims=20, deep_sims=40,
...                               per_game=3, games_per_shard=1, progress=False)
>>> manifest["positions"], manifest["settings"]["deep_agent"]
(6, 'uct:sims=40')
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from amazons_env import Board, core
from amazons_env.errors import InvalidArgumentError

from training.data.shards import load_shard, shard_path, write_manifest, write_shard
from training.selfplay.value import _kept_shards, selfplay

__all__ = [
    "DataSettings",
    "data_settings",
    "labelled_positions",
    "selfplay_positions",
    "draw_positions",
    "board_of",
    "SELFPLAY",
    "LABELS",
]

SELFPLAY, LABELS = "selfplay", "labels"  # the two stages' sub-folders


@dataclass(frozen=True)
class DataSettings:
    """What the data is made of (module docstring), the one home of its defaults: ``games``
    self-play games of ``uct:sims=SIMS`` on ``size`` x ``size`` boards, each from a number of random
    moves drawn from ``random_plies`` (low, high), ``games_per_shard`` to a shard; ``per_game``
    positions of each game labelled by ``uct:sims=DEEP_SIMS``; every draw seeded by ``seed``."""

    size: int = 8
    games: int = 300
    sims: int = 1000
    deep_sims: int = 10000
    per_game: int = 4
    seed: int = 0
    random_plies: tuple[int, int] = (2, 8)
    games_per_shard: int = 20


def data_settings(**options: Any) -> DataSettings:
    """``DataSettings`` from keyword options, the labelling ones checked here (the self-play ones
    by ``training.selfplay.value.selfplay``); ``InvalidArgumentError`` naming a bad or unknown one.

    >>> data_settings(size=6, games=4).games
    4
    """
    names = [f.name for f in fields(DataSettings)]
    for name in options:
        if name not in names:
            raise InvalidArgumentError(f"tuning data option {name}: unknown ({', '.join(names)})")
    for name in ("sims", "deep_sims", "per_game"):
        value = options.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidArgumentError(f"tuning data option {name}={value!r}: give an integer >= 1")
    if "random_plies" in options:
        options["random_plies"] = tuple(options["random_plies"])
    return DataSettings(**options)


def board_of(cells: np.ndarray, side: int, size: int) -> Board:
    """The position of a shard row: padded ``cells`` (the rules core's array) and the side to move.

    >>> board = Board(6)
    >>> board_of(board.cells, 0, 6) == board
    True
    """
    public = np.asarray(cells)[core.padded_index(size)]
    return Board.from_squares(
        size,
        np.flatnonzero(public == core.WHITE_QUEEN),
        np.flatnonzero(public == core.BLACK_QUEEN),
        np.flatnonzero(public == core.ARROW),
        int(side),
    )


def draw_positions(games: np.ndarray, playable: np.ndarray, per_game: int, seed: int) -> np.ndarray:
    """Row indices: ``per_game`` rows of each game (all of them where it has fewer), drawn among the
    ``playable`` rows by a generator seeded with ``seed`` and the game, so a shard's draw does not
    depend on the shards before it. Sorted.

    >>> draw_positions(np.array([5, 5, 5, 7, 7]), np.array([True, True, False, True, True]), 1, 0).size
    2
    """
    chosen = []
    for game in np.unique(games):
        rows = np.flatnonzero((games == game) & playable)
        rng = np.random.default_rng([seed, int(game)])
        chosen.append(rng.choice(rows, size=min(per_game, len(rows)), replace=False))
    return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)


def _label_shard(data: dict[str, np.ndarray], size: int, deep_agent: Any, per_game: int, seed: int):
    """The labels shard drawn from one self-play shard's arrays (module docstring)."""
    boards = [board_of(c, s, size) for c, s in zip(data["cells"], data["sides"], strict=True)]
    playable = np.array([not b.is_game_over() for b in boards])
    rows = draw_positions(data["games"], playable, per_game, seed)
    values = np.empty(len(rows), dtype=np.float32)
    for k, row in enumerate(rows):
        deep_agent.reset()  # a fresh tree: the value is this position's own search
        deep_agent.seed(int(np.random.default_rng([seed, int(data["games"][row]), int(row)]).integers(1 << 31)))
        values[k] = np.clip(deep_agent.search(boards[row]).value, -1.0, 1.0)
    out = {key: data[key][rows] for key in ("cells", "sides", "results", "plies", "games")}
    out["values"] = values
    return out


def selfplay_positions(folder: "str | os.PathLike", progress: bool = True, **options: Any) -> dict[str, Any]:
    """The first stage alone (module docstring): the self-play games in ``FOLDER/selfplay``; their
    manifest. ``options``: ``DataSettings``' fields."""
    data = data_settings(**options)
    return selfplay(
        Path(folder) / SELFPLAY,
        data.games,
        data.size,
        f"uct:sims={int(data.sims)}",
        data.games_per_shard,
        workers=1,
        seed=data.seed,
        random_plies=data.random_plies,
        progress=progress,
    )


def labelled_positions(folder: "str | os.PathLike", progress: bool = True, **options: Any) -> dict[str, Any]:
    """Play and label (module docstring); the labels' manifest. ``options``: ``DataSettings``'
    fields, every one checked before a game starts (``InvalidArgumentError`` naming it)."""
    spec = data_settings(**options)
    size, per_game, seed = spec.size, spec.per_game, spec.seed
    folder = Path(folder)
    played = selfplay_positions(folder, progress, **options)
    settings = {
        "size": int(size),
        "selfplay_hash": played["data_hash"],
        "deep_agent": f"uct:sims={int(spec.deep_sims)}",
        "per_game": int(per_game),
        "seed": int(seed),
    }
    out = folder / LABELS
    out.mkdir(parents=True, exist_ok=True)
    shards = _kept_shards(out, settings)  # what an interrupted run wrote, checked
    done = {entry["index"] for entry in shards}
    todo = [entry for entry in played["shards"] if entry["index"] not in done]
    import agents

    deep_agent = agents.make(settings["deep_agent"])
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(e["games"] for e in todo), unit="game", desc=f"deep labels {size}x{size}")
    try:
        for entry in todo:
            data = load_shard(shard_path(folder / SELFPLAY, entry), entry, size)
            labels = _label_shard(data, size, deep_agent, per_game, seed)
            shards.append(write_shard(out, entry["index"], labels, entry["games"], entry["white_wins"]))
            write_manifest(out, settings, shards)
            if bar is not None:
                bar.update(entry["games"])
    finally:
        if bar is not None:
            bar.close()
    return write_manifest(out, settings, shards)
