"""Policy-value training data: the self-play shards of ``training.data.shards`` plus policy targets.

A policy-value shard holds the arrays of a value shard (``cells``, ``sides``, ``results``,
``values``, ``plies``, ``games``) and, per position, its policy target as moves:

* ``pi_counts``: ``int16[n]``, how many moves the target of each position has (>= 1);
* ``pi_moves``: ``uint8[K, 3]``, those moves as public squares (from, to, arrow), position by position;
* ``pi_probs``: ``float32[K]``, their probabilities (each position's sum to 1): MCTS visit
  shares, or 1 for the move an engine chose.

Targets are moves, not indices into a move list, so a board symmetry transforms them by mapping
squares (``agents.nets.policy_value.symmetry_permutation``), and ``policy_batch`` matches them to
the legal moves of the transformed position. Shards and manifests are written and checked by
``training.data.shards`` (sizes, SHA-256, the manifest's own hash); ``load_pv_dataset`` checks the
policy arrays too (``ShardError`` naming the file).

>>> import tempfile
>>> from amazons_env import Board
>>> folder = tempfile.mkdtemp()
>>> board = Board(6)
>>> game = {"cells": board.cells[None], "sides": np.zeros(1, np.int8), "results": np.ones(1, np.int8),
...         "values": np.zeros(1, np.float32), "plies": np.zeros(1, np.int16), "pi_counts": np.ones(1, np.int16),
...         "pi_moves": board.legal_moves_array()[:1].astype(np.uint8), "pi_probs": np.ones(1, np.float32)}
>>> entry = write_pv_shard(folder, 0, [game], first_game=0)
>>> _ = write_manifest(folder, {"size": 6, "kind": "policy-value"}, [entry])
>>> data, _ = load_pv_dataset(folder)
>>> len(data["sides"]), data["pi_moves"].tolist()
(1, [[1, 2, 3]])
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from amazons_env import core

from training.data.shards import (
    SHARD_ARRAYS,
    PathLike,
    ShardError,
    check_arrays,
    positions_in_range,
    read_arrays,
    read_manifest,
    shard_path,
    write_manifest,
    write_shard,
)

__all__ = ["PV_ARRAYS", "write_pv_shard", "load_pv_shard", "load_pv_dataset", "write_manifest", "target_starts"]

PV_ARRAYS = {**SHARD_ARRAYS, "pi_counts": np.int16, "pi_moves": np.uint8, "pi_probs": np.float32}


def write_pv_shard(
    folder: PathLike, index: int, games: Sequence[dict[str, np.ndarray]], first_game: int
) -> dict[str, Any]:
    """Write the positions of ``games`` (dicts of the arrays above, without ``games``) as shard
    ``index``; game ``j`` is numbered ``first_game + j``. Returns the manifest entry."""
    data = {
        key: np.concatenate([g[key] for g in games]).astype(kind) for key, kind in PV_ARRAYS.items() if key != "games"
    }
    data["games"] = np.concatenate([np.full(len(g["sides"]), first_game + j, np.int64) for j, g in enumerate(games)])
    white_wins = sum(int(g["results"][0] == 1) == int(g["sides"][0] == 0) for g in games)
    return write_shard(folder, index, data, len(games), white_wins)


def load_pv_shard(path: Path, entry: dict[str, Any], size: int) -> dict[str, np.ndarray]:
    """The checked arrays of one policy-value shard (``path`` from ``shard_path``)."""
    n, width = entry["positions"], size + 2
    most = n * core.max_moves(size, core.MAX_QUEENS)
    limit = n * (width * width + 32) + most * 7 + 16 * 1024
    data = read_arrays(path, PV_ARRAYS, limit, "policy-value shard")
    k = int(data["pi_counts"].astype(np.int64).sum()) if data["pi_counts"].shape == (n,) else -1
    shapes = {
        key: (n, width * width)
        if key == "cells"
        else (k, 3)
        if key == "pi_moves"
        else (k,)
        if key == "pi_probs"
        else (n,)
        for key in PV_ARRAYS
    }
    check_arrays(data, PV_ARRAYS, shapes, f"policy-value shard {path}")
    probs = data["pi_probs"]
    sums = np.add.reduceat(probs, target_starts(data["pi_counts"])[:-1]) if n else np.zeros(0)
    if not (
        positions_in_range(data)
        and (data["pi_counts"] >= 1).all()
        and (data["pi_moves"] < size * size).all()
        and np.isfinite(probs).all()
        and (probs >= 0).all()
        and np.allclose(sums, 1.0, atol=1e-3)
    ):
        raise ShardError(
            f"policy-value shard {path}: values out of range (sides, results, values, plies, cells or policy targets)"
        )
    return data


def target_starts(counts: np.ndarray) -> np.ndarray:
    """``int64[n+1]``: where each position's target moves begin in ``pi_moves`` (and the end)."""
    return np.concatenate([[0], np.cumsum(counts.astype(np.int64))])


def load_pv_dataset(folders: "Sequence[PathLike] | PathLike") -> tuple[dict[str, np.ndarray], str]:
    """All policy-value shards of one or more folders, concatenated (game numbers made distinct
    per folder), and their combined data hash."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    parts, hashes, sizes = [], [], set()
    for number, folder in enumerate(folders):
        manifest = read_manifest(folder)
        size = manifest["settings"]["size"]
        if manifest["settings"].get("kind") != "policy-value":
            raise ShardError(f"{folder}: not policy-value self-play data (amazons train-loop writes it)")
        sizes.add(size)
        hashes.append(manifest["data_hash"])
        for entry in manifest["shards"]:
            part = load_pv_shard(shard_path(folder, entry), entry, size)
            part["games"] = part["games"] + (number << 40)
            parts.append(part)
    if len(sizes) != 1:
        raise ShardError(f"policy-value folders mix board sizes {sorted(sizes)}")
    if not parts:
        raise ShardError(f"no shards in {[str(f) for f in folders]}")
    data = {key: np.concatenate([p[key] for p in parts]) for key in PV_ARRAYS}
    data_hash = hashlib.sha256("".join(hashes).encode()).hexdigest()[:16]
    return data, data_hash
