"""Policy-value data from recorded games: the moves of an engine in arena results files.

The arena keeps every game of a match in its JSON results file (``amazons match ... --json``,
checked by ``agents.arena.files.load_results``): who played White and Black, the moves and the
winner. The engines' matches at 1 s per move are free training data: ``record_games`` replays
each game and keeps the positions where a chosen agent (by spec prefix, e.g. ``"uct"``, which also
takes ``uct:time=0.5``) was to move, the move it played as a one-hot policy target and the game
result for the side to move as the value target, in the arrays of ``training.selfplay.policy_value``'s
games; ``write_record_shards`` writes them as ``training.data.policy_value`` shards with a manifest.

Leave out the games that a later test plays: the arena draws a match's openings from its seed, so
a results file with the seed of an evaluation match holds that match's openings.

>>> import tempfile
>>> from agents.arena.matches import match
>>> path = tempfile.mkdtemp() + "/m.json"
>>> _ = match("uct:sims=30", "random", games=2, size=5, seed=3, json_path=path, progress=False)
>>> games = record_games([path], "uct", 5)
>>> len(games), all(g["pi_counts"].sum() == len(g["sides"]) for g in games)
(2, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from amazons_env import Board, Move

from agents.arena.files import read_results

from training.data.policy_value import write_manifest, write_pv_shard
from training.data.shards import PathLike

__all__ = ["record_games", "write_record_shards"]


def _plays(spec: str, prefix: str) -> bool:
    return spec == prefix or spec.startswith(prefix + ":")


def record_games(paths: Sequence[PathLike], agent: str, size: int) -> list[dict[str, np.ndarray]]:
    """The ``size`` x ``size`` games of the results files ``paths`` in which ``agent`` (a spec
    prefix) played a side: the positions where it moved, its moves (one-hot) and the results."""
    games = []
    for path in paths:
        for result in read_results(str(path)):
            sides = [s for s, spec in enumerate((result["white"], result["black"])) if _plays(spec, agent)]
            if result["size"] != size or not sides:
                continue
            board, rows = Board(size), []
            for text in result["record"]:
                move = Move.parse(text, size)
                if int(board.turn) in sides:
                    rows.append(
                        (board.cells.copy(), int(board.turn), board.ply, (move.from_square, move.to_square, move.arrow))
                    )
                board.push(move)
            if rows:
                turn = np.array([r[1] for r in rows], np.int8)
                games.append(
                    {
                        "cells": np.stack([r[0] for r in rows]),
                        "sides": turn,
                        "results": np.where(turn == result["winner"], 1, -1).astype(np.int8),
                        "values": np.zeros(len(rows), np.float32),
                        "plies": np.array([r[2] for r in rows], np.int16),
                        "pi_counts": np.ones(len(rows), np.int16),
                        "pi_moves": np.array([r[3] for r in rows], np.uint8),
                        "pi_probs": np.ones(len(rows), np.float32),
                    }
                )
    return games


def write_record_shards(
    folder: PathLike, paths: Sequence[PathLike], agent: str, size: int, games_per_shard: int = 100
) -> dict[str, Any]:
    """``record_games`` of ``paths`` as shards of ``folder`` (a new folder); returns the manifest."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=False)
    games = record_games(paths, agent, size)
    entries = [
        write_pv_shard(folder, i, games[start : start + games_per_shard], first_game=start)
        for i, start in enumerate(range(0, len(games), games_per_shard))
    ]
    settings = {"size": size, "kind": "policy-value", "agent": agent, "records": sorted(Path(p).name for p in paths)}
    return write_manifest(folder, settings, entries)
