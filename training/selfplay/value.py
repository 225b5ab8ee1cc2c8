"""Self-play data for the value nets: games of one of our search agents against itself.

Each game starts with ``random_plies`` uniformly random moves (a random count between the two
bounds, for diversity: the searches are deterministic), then the agent plays both sides. Every
position reached is recorded with

* ``cells``: the padded board (``uint8[W*W]``, the rules core's array) and ``sides``: the side to move,
* ``results``: the game result for the side to move (+1 won, -1 lost),
* ``values``: the agent's search value for the side to move (in [-1, 1]), a denser second label.

Once the amazons are separated and ``agents.search.endgame`` counts the filling phase exactly, the game
is decided: that position is recorded with its exact value and the game stops (the rest would be
filling moves that teach nothing). The 8 board symmetries are applied at training time
(``training.optimize.value``), so shards hold each position once.

Output: ``shard-00000.npz`` ... (``games_per_shard`` games each, shard ``i`` plays the games
seeded ``seed + i * games_per_shard + j``) and ``manifest.json`` (settings, and per shard its
games, positions, size and SHA-256; written and read back checked by ``training.data.shards``).
Shards are played in parallel (``backend``: processes of this machine that end with this one, or
Ray tasks on a cluster, ``agents.arena.backends``) and written here as each one finishes, so the same
settings give the same files on either backend; a rerun with the same settings skips the shards
the manifest already lists (after checking their sizes and hashes), so an interrupted run resumes
where it stopped, on either backend. ``data_hash`` (in the manifest) identifies the whole data set;
``training.data.shards.load_dataset`` reads the data back.

>>> import tempfile
>>> manifest = selfplay(tempfile.mkdtemp(), games=2, size=6, agent="two-iteration:depth=1,eval=improved",
...                     games_per_shard=1, workers=1, progress=False)
>>> manifest["games"], len(manifest["shards"]), manifest["positions"] > 10
(2, 2, True)
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.arena.backends import check_backend, run_tasks
from agents.game import ENDGAME_BUDGET, endgame_winner, play_out

from training.data.shards import MANIFEST, ShardError, read_manifest, shard_path, write_manifest, write_shard

__all__ = ["play_game", "selfplay", "DEFAULT_AGENT"]

DEFAULT_AGENT = "two-iteration:depth=1,eval=territory"


def _make_agent(spec: str):
    import agents
    import agents.evaluation.territory  # noqa: F401  (registers the territory evaluator)

    return agents.make(spec)


def play_game(
    size: int, agent: Any, seed: int, random_plies: Sequence[int] = (2, 6), endgame_budget: int = ENDGAME_BUDGET
) -> dict[str, np.ndarray]:
    """One self-play game (``agents.game.play_out``): the arrays of the module docstring, plus
    ``plies`` (the ply of each position). ``agent`` must have ``search(board)`` returning a result
    with ``.move``/``.value``."""
    rng = np.random.default_rng(seed)
    agent.seed(int(rng.integers(1 << 31)))
    agent.reset()
    opening = int(rng.integers(random_plies[0], random_plies[1] + 1))
    cells, sides, values = [], [], []

    def decided(board: Board) -> Optional[int]:
        # every position reached is recorded; a decided one with its exact value, and the game ends
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
        winner = endgame_winner(board, endgame_budget)
        if winner is not None:
            values.append(1.0 if winner == int(board.turn) else -1.0)
        return winner

    def choose(board: Board) -> Move:
        # the search's value is recorded for every position, its move played after the random opening
        result = agent.search(board)
        values.append(float(result.value))
        if board.ply < opening:
            moves = board.legal_moves_array()
            from_square, to_square, arrow = (int(x) for x in moves[rng.integers(len(moves))])
            return Move(from_square, to_square, arrow, size)
        return result.move

    winner = play_out(Board(size), (choose, choose), decided, check=False)
    sides_array = np.array(sides, dtype=np.int8)
    return {
        "cells": np.array(cells, dtype=np.uint8),
        "sides": sides_array,
        "results": np.where(sides_array == winner, 1, -1).astype(np.int8),
        "values": np.clip(np.array(values, dtype=np.float32), -1, 1),
        "plies": np.arange(len(sides), dtype=np.int16),
    }


def _play_shard(
    index: int, first_seed: int, games: int, size: int, agent_spec: str, random_plies: tuple[int, int]
) -> tuple[dict[str, np.ndarray], int]:
    """The arrays of shard ``index`` and its White wins (written by the caller: a Ray worker may
    run on another machine)."""
    agent = _make_agent(agent_spec)
    parts = [play_game(size, agent, first_seed + j, random_plies) for j in range(games)]
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    data["games"] = np.concatenate(
        [np.full(len(p["sides"]), first_seed + j, dtype=np.int64) for j, p in enumerate(parts)]
    )
    white_wins = int(sum(p["results"][0] == 1 for p in parts))  # position 0 has White to move
    return data, white_wins


def _whole(name: str, value: Any, low: int, high: float = math.inf) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        bound = f">= {low}" if high == math.inf else f"from {low} to {high}"
        raise InvalidArgumentError(f"selfplay option {name}={value!r}: give an integer {bound}")
    return int(value)


def _kept_shards(folder: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The shards a previous run left in ``folder`` that are intact (the others are played again)."""
    if not os.path.lexists(folder / MANIFEST):
        return []
    old = read_manifest(folder)
    if old["settings"] != settings:
        raise InvalidArgumentError(f"{folder} holds self-play data made with {old['settings']}, not {settings}")
    kept = []
    for entry in old["shards"]:
        try:
            shard_path(folder, entry)
        except ShardError:  # missing, truncated or edited: play it again
            continue
        kept.append(entry)
    return kept


def selfplay(
    folder: "str | os.PathLike",
    games: int,
    size: int = 8,
    agent: str = DEFAULT_AGENT,
    games_per_shard: int = 50,
    workers: Optional[int] = None,
    seed: int = 0,
    random_plies: Sequence[int] = (2, 6),
    progress: bool = True,
    backend: str = "local",
    address: Optional[str] = None,
) -> dict[str, Any]:
    """Play ``games`` self-play games into ``folder`` (resuming a previous run); the manifest.
    Every option is checked (and ``agent`` built once) before any game starts; ``backend`` and
    ``address``: where the shards are played (``agents.arena.backends.run_tasks``)."""
    games, games_per_shard = _whole("games", games, 1), _whole("games_per_shard", games_per_shard, 1, 99_999)
    size, seed = _whole("size", size, core.MIN_SIZE, core.MAX_SIZE), _whole("seed", seed, 0)
    if workers is not None:
        workers = _whole("workers", workers, 1, 1024)
    if not isinstance(random_plies, (list, tuple)) or len(random_plies) != 2:
        raise InvalidArgumentError(f"selfplay option random_plies={random_plies!r}: give two integers LOW HIGH")
    lo, hi = (_whole("random_plies", x, 0, size * size) for x in random_plies)
    if lo > hi:
        raise InvalidArgumentError(f"selfplay option random_plies={random_plies!r}: need LOW <= HIGH")
    if -(-games // games_per_shard) > 100_000:
        raise InvalidArgumentError(
            f"selfplay: {games} games of {games_per_shard} per shard make more than 100,000 shards"
        )
    check_backend(backend, address)
    if not isinstance(agent, str):
        raise InvalidArgumentError(f"selfplay option agent={agent!r}: give an agent spec")
    _make_agent(agent)  # a bad spec fails here, once, not in every worker
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    settings = {
        "size": size,
        "agent": agent,
        "games_per_shard": games_per_shard,
        "seed": seed,
        "random_plies": [lo, hi],
    }
    shards = _kept_shards(folder, settings)
    done = {s["index"] for s in shards}
    jobs = []
    for index in range((games + games_per_shard - 1) // games_per_shard):
        count = min(games_per_shard, games - index * games_per_shard)
        if index not in done:
            jobs.append((index, seed + index * games_per_shard, count, size, agent, (lo, hi)))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(j[2] for j in jobs), unit="game", desc=f"self-play {size}x{size}")

    try:
        for (index, _, count, *_), (data, white_wins) in run_tasks(_play_shard, jobs, workers, backend, address):
            shards.append(write_shard(folder, index, data, count, white_wins))
            write_manifest(folder, settings, shards)
            if bar is not None:
                bar.update(count)
    finally:
        if bar is not None:
            bar.close()
    return write_manifest(folder, settings, shards)
