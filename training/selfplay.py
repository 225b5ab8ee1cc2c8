"""Self-play data for the value nets: games of one of our search agents against itself.

Each game starts with ``random_plies`` uniformly random moves (a random count between the two
bounds, for diversity: the searches are deterministic), then the agent plays both sides. Every
position reached is recorded with

* ``cells``: the padded board (``uint8[W*W]``, the rules core's array) and ``sides``: the side to move,
* ``results``: the game result for the side to move (+1 won, -1 lost),
* ``values``: the agent's search value for the side to move (in [-1, 1]), a denser second label.

Once the amazons are separated and ``agents.endgame`` counts the filling phase exactly, the game
is decided: that position is recorded with its exact value and the game stops (the rest would be
filling moves that teach nothing). The 8 board symmetries are applied at training time
(``training.train``), so shards hold each position once.

Output: ``shard-00000.npz`` ... (``games_per_shard`` games each, shard ``i`` plays the games
seeded ``seed + i * games_per_shard + j``) and ``manifest.json`` (settings, and per shard its
games, positions and SHA-256). Shards run in parallel processes; a rerun with the same settings
skips the shards the manifest already lists (after checking their hashes), so an interrupted run
resumes where it stopped. ``data_hash`` (in the manifest) identifies the whole data set.

>>> import tempfile
>>> manifest = selfplay(tempfile.mkdtemp(), games=2, size=6, agent="two-iteration:depth=1,eval=improved",
...                     games_per_shard=1, workers=1, progress=False)
>>> manifest["games"], len(manifest["shards"]), manifest["positions"] > 10
(2, 2, True)
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from amazons_env import Board, Move

__all__ = ["play_game", "selfplay", "load_dataset", "read_manifest", "DEFAULT_AGENT"]

DEFAULT_AGENT = "two-iteration:depth=1,eval=territory"
MANIFEST = "manifest.json"


def _make_agent(spec: str):
    import agents
    import agents.territory  # noqa: F401  (registers the territory evaluator)
    return agents.make(spec)


def play_game(size: int, agent: Any, seed: int, random_plies: Sequence[int] = (2, 6),
              endgame_budget: int = 20_000) -> dict[str, np.ndarray]:
    """One self-play game: the arrays of the module docstring, plus ``plies`` (the ply of each
    position). ``agent`` must have ``search(board)`` returning a result with ``.move``/``.value``."""
    from agents.endgame import analyse

    rng = np.random.default_rng(seed)
    agent.seed(int(rng.integers(1 << 31)))
    agent.reset()
    board = Board(size)
    opening = int(rng.integers(random_plies[0], random_plies[1] + 1))
    cells, sides, values = [], [], []
    winner: Optional[int] = None
    while winner is None:
        if board.is_game_over():
            winner = 1 - int(board.turn)
            break
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
        decided = analyse(board, endgame_budget).outcome()
        if decided:
            values.append(float(decided))
            winner = int(board.turn) if decided > 0 else 1 - int(board.turn)
            break
        result = agent.search(board)
        values.append(float(result.value))
        if board.ply < opening:
            moves = board.legal_moves_array()
            move = Move(*(int(x) for x in moves[rng.integers(len(moves))]), size)
        else:
            move = result.move
        board.push_unchecked(move)
    sides_array = np.array(sides, dtype=np.int8)
    return {"cells": np.array(cells, dtype=np.uint8), "sides": sides_array,
            "results": np.where(sides_array == winner, 1, -1).astype(np.int8),
            "values": np.clip(np.array(values, dtype=np.float32), -1, 1),
            "plies": np.arange(len(sides), dtype=np.int16)}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _play_shard(folder: str, index: int, first_seed: int, games: int, size: int, agent_spec: str,
                random_plies: tuple[int, int]) -> dict[str, Any]:
    agent = _make_agent(agent_spec)
    parts = [play_game(size, agent, first_seed + j, random_plies) for j in range(games)]
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    data["games"] = np.concatenate([np.full(len(p["sides"]), first_seed + j, dtype=np.int64)
                                    for j, p in enumerate(parts)])
    path = Path(folder) / f"shard-{index:05d}.npz"
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **data)
    os.replace(tmp, path)
    white_wins = int(sum(p["results"][0] == 1 for p in parts))  # position 0 has White to move
    return {"file": path.name, "index": index, "games": games, "positions": int(len(data["sides"])),
            "white_wins": white_wins, "sha256": _sha256(path)}


def read_manifest(folder: "str | os.PathLike") -> dict[str, Any]:
    """The manifest of a self-play folder; ``ValueError`` if missing or unreadable."""
    path = Path(folder) / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"no self-play manifest at {path}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"self-play manifest {path} is not valid JSON: {error}") from None


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    shards = sorted(manifest["shards"], key=lambda s: s["index"])
    manifest["shards"] = shards
    manifest["games"] = sum(s["games"] for s in shards)
    manifest["positions"] = sum(s["positions"] for s in shards)
    manifest["data_hash"] = hashlib.sha256("".join(s["sha256"] for s in shards).encode()).hexdigest()[:16]
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, folder / MANIFEST)


def selfplay(folder: "str | os.PathLike", games: int, size: int = 8, agent: str = DEFAULT_AGENT,
             games_per_shard: int = 50, workers: Optional[int] = None, seed: int = 0,
             random_plies: Sequence[int] = (2, 6), progress: bool = True) -> dict[str, Any]:
    """Play ``games`` self-play games into ``folder`` (resuming a previous run); the manifest."""
    if games < 1 or games_per_shard < 1:
        raise ValueError(f"games={games} and games_per_shard={games_per_shard} must be >= 1")
    lo, hi = (int(x) for x in random_plies)
    if not 0 <= lo <= hi:
        raise ValueError(f"random_plies={random_plies!r}: need 0 <= low <= high")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    settings = {"size": int(size), "agent": agent, "games_per_shard": int(games_per_shard),
                "seed": int(seed), "random_plies": [lo, hi]}
    manifest = {"settings": settings, "shards": []}
    if (folder / MANIFEST).exists():
        old = read_manifest(folder)
        if old.get("settings") != settings:
            raise ValueError(f"{folder} holds self-play data made with {old.get('settings')}, not {settings}")
        manifest["shards"] = [s for s in old["shards"]
                              if (folder / s["file"]).exists() and _sha256(folder / s["file"]) == s["sha256"]]
    done = {s["index"] for s in manifest["shards"]}
    jobs = []
    for index in range((games + games_per_shard - 1) // games_per_shard):
        count = min(games_per_shard, games - index * games_per_shard)
        if index not in done:
            jobs.append((str(folder), index, seed + index * games_per_shard, count, int(size), agent, (lo, hi)))
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=sum(j[3] for j in jobs), unit="game", desc=f"self-play {size}x{size}")
    try:
        if workers == 1:
            for job in jobs:
                manifest["shards"].append(_play_shard(*job))
                _write_manifest(folder, manifest)
                if bar is not None:
                    bar.update(job[3])
        else:
            with ProcessPoolExecutor(workers) as pool:
                futures = {pool.submit(_play_shard, *job): job for job in jobs}
                for future in as_completed(futures):
                    manifest["shards"].append(future.result())
                    _write_manifest(folder, manifest)
                    if bar is not None:
                        bar.update(futures[future][3])
    finally:
        if bar is not None:
            bar.close()
    _write_manifest(folder, manifest)
    return manifest


def load_dataset(folders: "Sequence[str | os.PathLike] | str | os.PathLike") -> tuple[dict[str, np.ndarray], str]:
    """All shards of one or more self-play folders, concatenated, and their combined data hash.
    Shard hashes are checked against the manifests."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    parts, hashes, sizes = [], [], set()
    for folder in folders:
        manifest = read_manifest(folder)
        sizes.add(manifest["settings"]["size"])
        hashes.append(manifest["data_hash"])
        for shard in manifest["shards"]:
            path = Path(folder) / shard["file"]
            if _sha256(path) != shard["sha256"]:
                raise ValueError(f"shard {path} does not match its manifest hash")
            with np.load(path, allow_pickle=False) as data:
                parts.append({key: data[key] for key in data.files})
    if len(sizes) != 1:
        raise ValueError(f"self-play folders mix board sizes {sorted(sizes)}")
    if not parts:
        raise ValueError(f"no shards in {list(map(str, folders))}")
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    data_hash = hashes[0] if len(hashes) == 1 else hashlib.sha256("".join(hashes).encode()).hexdigest()[:16]
    return data, data_hash
