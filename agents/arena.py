"""The arena: agents play each other in matches and round robins, with honest statistics.

* ``play_game(white, black, board)``: one game between two agents; returns a ``GameResult``.
* ``match(a, b, games=N, ...)`` and ``tournament([a, b, c, ...], games=N, ...)``: games alternate
  colours (game ``2k``: ``a`` is White; game ``2k + 1``: the same pairing with colours swapped and
  the same opening), every random thing is derived from ``seed``, both cores play at once
  (``workers``), a progress bar runs, and with ``json_path`` every finished game is written out
  immediately: an interrupted run loses nothing, and rerunning the same command plays only the
  games still missing.
* ``summarize``: the first agent's score (wins / games; Amazons has no draws) with a 95% Wilson
  interval, the Elo difference ``400 log10(s / (1 - s))`` with the interval mapped the same way (a
  score of 0 or 1 is clamped to 0.5 / games or 1 - 0.5 / games so the Elo stays finite), and the
  results per colour.

Agents are given as spec strings (``"two-iteration:depth=2,eval=improved"``) so that worker
processes can rebuild them. Each game reseeds both agents from ``(seed, game)``; ``opening=k``
starts each pair of games from ``k`` random plies (drawn from ``(seed, pair)``), which makes
deterministic agents play different games.

>>> result = match("random", "random", games=2, size=6, seed=1, workers=1, progress=False)
>>> result["games"], sorted(result["per_colour"])
(2, ['a_black', 'a_white'])
"""

from __future__ import annotations

import json
import math
import os
import time
import zlib
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from amazons_env import Board, GameRecord, Move

from .base import Agent
from .registry import make, parse_spec

__all__ = ["GameResult", "play_game", "match", "tournament", "summarize", "score_interval", "elo",
           "with_option", "format_match", "format_tournament"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``winner``: 0 White, 1 Black. ``seconds``/``nodes``/``moves``: per colour
    (White, Black), the thinking time, the search nodes reported by the agent and the moves made."""

    white: str
    black: str
    winner: int
    plies: int
    opening: int
    record: list[str]
    seconds: tuple[float, float]
    nodes: tuple[int, int]
    moves: tuple[int, int]
    size: int
    index: int = 0
    pair: str = ""


def _nodes_of(agent: Agent) -> int:
    result = getattr(agent, "last_result", None)
    return int(getattr(result, "nodes", 0) or 0)


def play_game(white: Agent, black: Agent, board: Board, opening: int = 0, index: int = 0,
              pair: str = "") -> GameResult:
    """Play ``board`` (which may already hold opening moves, ``opening`` of them) to the end."""
    players = (white, black)
    seconds = [0.0, 0.0]
    nodes = [0, 0]
    moves = [0, 0]
    while not board.is_game_over():
        side = int(board.turn)
        start = time.perf_counter()
        move = players[side].select_move(board)
        seconds[side] += time.perf_counter() - start
        if not board.is_legal(move):
            raise ValueError(f"agent {players[side]!r} chose illegal move {move} in {board.text()!r}")
        nodes[side] += _nodes_of(players[side])
        moves[side] += 1
        board.push(move)
    return GameResult(white.spec, black.spec, int(board.winner), board.ply, opening,
                      [str(m) for m in board.move_stack], (seconds[0], seconds[1]), (nodes[0], nodes[1]),
                      (moves[0], moves[1]), board.size, index, pair)


def opening_board(size: int, plies: int, seed: Sequence[int]) -> Board:
    """The start position after ``plies`` uniformly random moves drawn from ``seed``."""
    rng = np.random.default_rng(list(seed))
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves_array()
        if len(moves) == 0:
            break
        board.push_unchecked(Move(*moves[rng.integers(len(moves))].tolist(), size))
    return board


# -- statistics ------------------------------------------------------------------------------------

def score_interval(wins: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a score ``wins / games``."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + Z95 ** 2 / games
    centre = (p + Z95 ** 2 / (2 * games)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95 ** 2 / (4 * games ** 2)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(score: float, games: int) -> float:
    """Elo difference for ``score``, clamped to ``[0.5/games, 1 - 0.5/games]`` to stay finite."""
    low = 0.5 / max(games, 1)
    s = min(max(score, low), 1 - low)
    return 400.0 * math.log10(s / (1 - s))


def summarize(results: Iterable[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """Statistics of the games between specs ``a`` and ``b`` from ``a``'s side (see module doc)."""
    results = [r for r in results if {r["white"], r["black"]} <= {a, b}]
    n = len(results)
    wins = sum(1 for r in results if (r["white"], r["black"])[r["winner"]] == a)
    per = {}
    for key, colour in (("a_white", 0), ("a_black", 1)):
        games = [r for r in results if (r["white"], r["black"])[colour] == a]
        a_wins = sum(1 for r in games if r["winner"] == colour)
        per[key] = {"games": len(games), "a_wins": a_wins, "b_wins": len(games) - a_wins}
    score = wins / n if n else 0.0
    low, high = score_interval(wins, n)
    seconds = [sum(r["seconds"][c] for r in results if (r["white"], r["black"])[c] == who)
               for who in (a, b) for c in (0, 1)]
    nodes = [sum(r["nodes"][c] for r in results if (r["white"], r["black"])[c] == who)
             for who in (a, b) for c in (0, 1)]
    return {
        "a": a, "b": b, "games": n, "a_wins": wins, "b_wins": n - wins,
        "score": score, "score_ci95": [low, high],
        "elo": elo(score, n), "elo_ci95": [elo(low, n), elo(high, n)],
        "per_colour": per,
        "white_wins": sum(1 for r in results if r["winner"] == 0),
        "mean_plies": sum(r["plies"] for r in results) / n if n else 0.0,
        "mean_game_seconds": sum(sum(r["seconds"]) for r in results) / n if n else 0.0,
        "nodes_per_second": {"a": _rate(nodes[0] + nodes[1], seconds[0] + seconds[1]),
                             "b": _rate(nodes[2] + nodes[3], seconds[2] + seconds[3])},
    }


def _rate(nodes: int, seconds: float) -> float:
    return nodes / seconds if seconds > 0 else 0.0


# -- running many games --------------------------------------------------------------------------

def with_option(spec: str, key: str, value: Any) -> str:
    """``spec`` with ``key=value`` added, unless it already sets ``key`` or the agent takes no
    such option (e.g. ``--time`` for ``random``)."""
    name, options = parse_spec(spec)
    if key in options:
        return spec
    try:
        make(spec, **{key: value})
    except ValueError:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{key}={value}"


_AGENTS: dict[str, Agent] = {}


def _agent(spec: str) -> Agent:
    """One agent object per spec and process (searches keep their buffers, nets their weights)."""
    if spec not in _AGENTS:
        _AGENTS[spec] = make(spec)
    return _AGENTS[spec]


def _play_task(task: tuple[str, str, int, int, int, int, str]) -> dict[str, Any]:
    white_spec, black_spec, size, opening, seed, index, pair = task
    pair_number = index // 2
    board = opening_board(size, opening, (seed, hash_pair(pair), pair_number))
    players = []
    for colour, spec in enumerate((white_spec, black_spec)):
        agent = _agent(spec)
        agent.seed(int(np.random.SeedSequence([seed, hash_pair(pair), index, colour]).generate_state(1)[0]))
        agent.reset()
        players.append(agent)
    return asdict(play_game(players[0], players[1], board, opening, index, pair))


def hash_pair(pair: str) -> int:
    """A stable (process-independent) number for a pairing key, for seeding."""
    return zlib.crc32(pair.encode())


def _worker_init() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per worker, also for torch


def _save(path: str, payload: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=1)
    os.replace(tmp, path)


def _load(path: Optional[str], config: dict[str, Any]) -> list[dict[str, Any]]:
    if path is None or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        try:
            payload = json.load(handle)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}: not a results file ({error})") from None
    old = payload.get("config", {})
    differs = sorted(k for k in config if k != "games" and old.get(k) != config[k])
    if differs:
        raise ValueError(f"{path} holds results of a different run (its {', '.join(differs)} differ); "
                         "use another --json path")
    return list(payload.get("results", []))


def run_games(pairs: list[tuple[str, str]], games: int, size: int = 10, seed: int = 0, opening: int = 0,
              workers: Optional[int] = None, json_path: Optional[str] = None,
              records_dir: Optional[str] = None, progress: bool = True,
              extra: Optional[dict[str, Any]] = None, summary=None) -> list[dict[str, Any]]:
    """Play ``games`` games for every pair (colours alternating), resuming from ``json_path``.
    ``summary(results)`` builds the JSON's statistics (rewritten after every game)."""
    if games < 1:
        raise ValueError(f"games={games!r}: must be >= 1")
    config = {"pairs": [list(p) for p in pairs], "games": games, "size": size, "seed": seed,
              "opening": opening, **(extra or {})}
    results = _load(json_path, config)
    done = {(r["pair"], r["index"]) for r in results}
    results = [r for r in results if r["index"] < games]
    tasks = []
    for a, b in pairs:
        key = f"{a} vs {b}"
        for index in range(games):
            if (key, index) not in done:
                white, black = (a, b) if index % 2 == 0 else (b, a)
                tasks.append((white, black, size, opening, seed, index, key))

    def finish(result: dict[str, Any]) -> None:
        results.append(result)
        if records_dir is not None:
            os.makedirs(records_dir, exist_ok=True)
            name = f"{result['pair']}_{result['index']:04d}".replace(" ", "_").replace(":", "-").replace(",", "_")
            GameRecord(tuple(result["record"]), size=size,
                       headers={"White": result["white"], "Black": result["black"]}).save(
                os.path.join(records_dir, name.replace("/", "_") + ".txt"))
        if json_path is not None:
            results.sort(key=lambda r: (r["pair"], r["index"]))
            payload = {"config": config, **(summary(results) if summary else {}), "results": results}
            _save(json_path, payload)

    workers = min(os.cpu_count() or 1, 2) if workers is None else max(1, workers)
    bar = _progress(len(tasks), games * len(pairs), progress)
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            finish(_play_task(task))
            bar.update(1)
    else:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(min(workers, len(tasks)), _worker_init) as pool:
            for result in pool.imap_unordered(_play_task, tasks):
                finish(result)
                bar.update(1)
    bar.close()
    results.sort(key=lambda r: (r["pair"], r["index"]))
    return results


def _progress(todo: int, total: int, enabled: bool):
    from tqdm import tqdm
    return tqdm(total=total, initial=total - todo, disable=not enabled, unit="game", dynamic_ncols=True)


def match(a: str, b: str, games: int = 20, size: int = 10, seed: int = 0, opening: int = 0,
          time: Optional[float] = None, workers: Optional[int] = None, json_path: Optional[str] = None,
          records_dir: Optional[str] = None, progress: bool = True) -> dict[str, Any]:
    """``games`` games of ``a`` against ``b``; the summary (``summarize``) plus the game results."""
    if time is not None:
        a, b = with_option(a, "time", time), with_option(b, "time", time)
    results = run_games([(a, b)], games, size, seed, opening, workers, json_path, records_dir, progress,
                        {"time": time}, lambda rs: summarize(rs, a, b))
    return {**summarize(results, a, b), "results": results}


def tournament(specs: Sequence[str], games: int = 10, size: int = 10, seed: int = 0, opening: int = 0,
               time: Optional[float] = None, workers: Optional[int] = None, json_path: Optional[str] = None,
               records_dir: Optional[str] = None, progress: bool = True) -> dict[str, Any]:
    """A round robin: ``games`` games for every pair of ``specs``. Returns ``standings`` (total
    score per agent, best first), ``matches`` (one ``summarize`` per pair) and the results."""
    specs = [with_option(s, "time", time) if time is not None else s for s in specs]
    if len(set(specs)) != len(specs) or len(specs) < 2:
        raise ValueError(f"a tournament needs at least two different agents, got {list(specs)}")
    pairs = list(combinations(specs, 2))

    def build(results: list[dict[str, Any]]) -> dict[str, Any]:
        matches = [summarize([r for r in results if r["pair"] == f"{a} vs {b}"], a, b) for a, b in pairs]
        points = {s: [0, 0] for s in specs}
        for m in matches:
            points[m["a"]][0] += m["a_wins"]
            points[m["b"]][0] += m["b_wins"]
            points[m["a"]][1] += m["games"]
            points[m["b"]][1] += m["games"]
        standings = sorted(({"agent": s, "wins": w, "games": g, "score": w / g if g else 0.0}
                            for s, (w, g) in points.items()), key=lambda row: -row["score"])
        return {"standings": standings, "matches": matches}

    results = run_games(pairs, games, size, seed, opening, workers, json_path, records_dir, progress,
                        {"time": time}, build)
    return {**build(results), "results": results}


# -- printing ------------------------------------------------------------------------------------

def format_match(m: dict[str, Any]) -> str:
    """A few lines: score with interval, Elo, wins per colour, time and speed."""
    per = m["per_colour"]
    low, high = m["score_ci95"]
    elo_low, elo_high = m["elo_ci95"]
    return "\n".join([
        f"{m['a']}  vs  {m['b']}: {m['games']} games, {m['a_wins']}-{m['b_wins']}",
        f"  score {m['score']:.3f} (95% CI {low:.3f}-{high:.3f}), Elo {m['elo']:+.0f} "
        f"(95% CI {elo_low:+.0f} to {elo_high:+.0f})",
        f"  first agent as White {per['a_white']['a_wins']}/{per['a_white']['games']}, "
        f"as Black {per['a_black']['a_wins']}/{per['a_black']['games']}; White won {m['white_wins']}",
        f"  {m['mean_plies']:.1f} plies and {m['mean_game_seconds']:.2f} s per game; nodes/s "
        f"{m['nodes_per_second']['a']:,.0f} vs {m['nodes_per_second']['b']:,.0f}",
    ])


def format_tournament(t: dict[str, Any]) -> str:
    """The standings, then a cross table of wins (row's wins against column, both colours)."""
    names = [row["agent"] for row in t["standings"]]
    width = max(len(n) for n in names)
    lines = [f"{'agent':<{width}}  wins/games  score  95% CI"]
    for row in t["standings"]:
        low, high = score_interval(row["wins"], row["games"])
        lines.append(f"{row['agent']:<{width}}  {row['wins']:>4}/{row['games']:<5}  {row['score']:.3f}"
                     f"  {low:.2f}-{high:.2f}")
    cell = {}
    for m in t["matches"]:
        cell[m["a"], m["b"]] = f"{m['a_wins']}/{m['b_wins']}"
        cell[m["b"], m["a"]] = f"{m['b_wins']}/{m['a_wins']}"
    lines += ["", "wins/losses of the row against the column:"]
    short = [f"#{i + 1}" for i in range(len(names))]
    lines.append(" " * (width + 5) + "".join(f"{s:>8}" for s in short))
    for i, name in enumerate(names):
        lines.append(f"#{i + 1:<3} {name:<{width}}" + "".join(f"{cell.get((name, other), '-'):>8}"
                                                       for other in names))
    return "\n".join(lines)
