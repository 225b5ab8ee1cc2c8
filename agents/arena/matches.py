"""The arena's games: agents play each other in matches and round robins, and the results are kept.

* ``play_game(white, black, board)``: one game between two agents; returns a ``GameResult``.
* ``match(a, b, games=N, ...)`` and ``tournament([a, b, c, ...], games=N, ...)``: games alternate
  colours (game ``2k``: ``a`` is White; game ``2k + 1``: the same pairing with colours swapped and
  the same opening), every random thing is derived from ``seed``, both cores play at once
  (``workers``), a progress bar runs, and with ``json_path`` every finished game is written out
  immediately: an interrupted run loses nothing, and rerunning the same command plays only the
  games still missing.
* The statistics of the games (score with its interval, Elo, per colour, time per move) are
  ``agents.arena.statistics``' ``summarize``, which ``match`` and ``tournament`` return.

Agents are given as spec strings (``"two-iteration:depth=2,eval=improved"``, or your own
``"my_agent.py:MyAgent"``) so that worker processes can rebuild them; every spec is checked before
the first game. Each game reseeds both agents from ``(seed, game)``; ``opening=k`` starts each
pair of games from ``k`` random plies (drawn from ``(seed, pair)``), which makes deterministic
agents play different games. The results file and the record files are ``agents.arena.files``'s.

**Worker processes** are ``agents.arena.processes``'s, as for self-play: spawned (a clean
interpreter each: no inherited threads of numba or torch), they ignore Ctrl-C (the parent stops
them) and exit when the parent dies. A script that calls
the arena at its top level without an ``if __name__ == "__main__":`` guard would be run again by
every spawned worker: such a call is detected and its games are played in this process instead
(with a one-line warning); a worker that dies stops the run with an error, it is never replaced.
With ``backend="ray"`` the games are Ray tasks instead (``agents.arena.backends``: a local Ray instance
or a cluster at ``address``), streamed into the same results file: the same seeds give the same
games, and a run started on one backend can be completed on the other.

>>> result = match("random", "random", games=2, size=6, seed=1, workers=1, progress=False)
>>> result["games"], sorted(result["per_colour"])
(2, ['a_black', 'a_white'])
"""

from __future__ import annotations

import math
import os
import warnings
import zlib
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError, describe

from agents.arena import statistics
from agents.arena.backends import check_backend, run_tasks
from agents.arena.files import check_paths, load_results, save_record, save_results
from agents.arena.statistics import pair_key, summarize
from agents.base import Agent
from agents.game import play_out
from agents.options import OptionError
from agents.registry import AGENTS, format_spec, make, parse_spec
from agents.search.agent import SearchAgent
from agents.search.clock import frozen_heap

__all__ = [
    "GameResult",
    "play_game",
    "match",
    "tournament",
    "with_option",
    "run_games",
    "load_results",
    "opening_board",
]

#: the statistics that lived here before they had their own module: still importable from here,
#: with a ``DeprecationWarning``, for one version (``summarize`` is imported above, for ``match``)
_MOVED_TO_STATISTICS = ("score_interval", "elo", "format_match", "format_tournament")


def __getattr__(name: str) -> Any:
    if name in _MOVED_TO_STATISTICS:
        warnings.warn(
            f"agents.arena.matches.{name} moved to agents.arena.statistics: import it from there or from "
            "agents.arena (the old name goes away in the next version)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(statistics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``winner``: 0 White, 1 Black. ``seconds``/``max_seconds``/``nodes``/
    ``moves``: per colour (White, Black), the thinking time in all and for the longest move, the
    search nodes reported by the agent and the moves made. ``values``: per ply of ``record``, the
    value the mover's search gave its move, for White (``amazons_env.move_values``), or ``None``
    (an opening ply, an agent that does not search)."""

    white: str
    black: str
    winner: int
    plies: int
    opening: int
    record: list[str]
    seconds: tuple[float, float]
    max_seconds: tuple[float, float]
    nodes: tuple[int, int]
    moves: tuple[int, int]
    size: int
    index: int = 0
    pair: str = ""
    values: tuple[Optional[float], ...] = ()


def _nodes_of(agent: Agent) -> int:
    """The nodes (or simulations) of ``agent``'s last move: 0 for an agent that does not search."""
    return agent.last_result.nodes if isinstance(agent, SearchAgent) and agent.last_result is not None else 0


def play_game(white: Agent, black: Agent, board: Board, opening: int = 0, index: int = 0, pair: str = "") -> GameResult:
    """Play ``board`` (which may already hold opening moves, ``opening`` of them) to the end, the
    objects that exist before it frozen (``clock.frozen_heap``: no full garbage collection in a
    timed move)."""
    with frozen_heap():
        return _play(white, black, board, opening, index, pair)


def _value_of(agent: Agent, move: Move, side: int) -> Optional[float]:
    """The value ``agent``'s search gave ``move`` (its last), for White; ``None`` for an agent that
    did not search for it or a value that is no finite number."""
    result = agent.last_result if isinstance(agent, SearchAgent) else None
    if result is None or result.move != move or not math.isfinite(result.value):
        return None
    return float(result.value) if side == 0 else -float(result.value)


def _play(white: Agent, black: Agent, board: Board, opening: int, index: int, pair: str) -> GameResult:
    players = (white, black)
    values: list[Optional[float]] = [None] * board.ply  # the opening's random plies
    seconds = [0.0, 0.0]
    longest = [0.0, 0.0]
    nodes = [0, 0]
    moves = [0, 0]

    def count(side: int, move: Move, spent: float) -> None:
        seconds[side] += spent
        longest[side] = max(longest[side], spent)
        nodes[side] += _nodes_of(players[side])
        moves[side] += 1
        values.append(_value_of(players[side], move, side))

    play_out(board, (white.select_move, black.select_move), on_move=count)
    winner = board.winner
    assert winner is not None, "play_out plays the game to its end"
    return GameResult(
        white.spec,
        black.spec,
        int(winner),
        board.ply,
        opening,
        [str(m) for m in board.move_stack],
        (seconds[0], seconds[1]),
        (longest[0], longest[1]),
        (nodes[0], nodes[1]),
        (moves[0], moves[1]),
        board.size,
        index,
        pair,
        tuple(values),
    )


def opening_board(size: int, plies: int, seed: Sequence[int]) -> Board:
    """The start position after ``plies`` uniformly random moves drawn from ``seed``."""
    rng = np.random.default_rng(list(seed))
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves_array()
        if len(moves) == 0:
            break
        frm, to, arrow = moves[rng.integers(len(moves))].tolist()
        board.push_unchecked(Move(frm, to, arrow, size))
    return board


# -- running many games --------------------------------------------------------------------------


def with_option(spec: str, key: str, value: Any) -> str:
    """``spec`` with ``key=value`` added, unless it already sets ``key`` or the agent takes no
    such option (e.g. ``--time`` for ``random``). Checked against the agent's options (an
    ``OptionError`` if the agent refuses the value); nothing is built."""
    name, options = parse_spec(spec)
    if key in options or key not in AGENTS.schema(name).options:
        return spec
    AGENTS.validate(spec, **{key: value})  # a value the agent refuses is an error, not a silent no-op
    return (
        format_spec(name, {**options, key: value})
        if ":" in name
        else f"{spec}{',' if ':' in spec else ':'}{key}={value}"
    )


def _with_time(specs: Sequence[str], time: Optional[float]) -> list[str]:
    """``specs`` with ``time=`` added where an agent takes one (``with_option``); ``time`` itself
    must be a finite number of seconds > 0, whichever agents take it."""
    if time is None:
        return list(specs)
    if isinstance(time, bool) or not isinstance(time, (int, float)) or not math.isfinite(time) or time <= 0:
        raise OptionError(f"time={describe(time)}: seconds per move must be a finite number > 0")
    return [with_option(spec, "time", time) for spec in specs]


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
    result = asdict(play_game(players[0], players[1], board, opening, index, pair))
    result["white"], result["black"] = white_spec, black_spec  # as the pairing names them, not normalised
    return result


def hash_pair(pair: str) -> int:
    """A stable (process-independent) number for a pairing key, for seeding."""
    return zlib.crc32(pair.encode())


def run_games(
    pairs: list[tuple[str, str]],
    games: int,
    size: int = 10,
    seed: int = 0,
    opening: int = 0,
    workers: Optional[int] = None,
    json_path: Optional[str] = None,
    records_dir: Optional[str] = None,
    progress: bool = True,
    extra: Optional[dict[str, Any]] = None,
    summary: Optional[Callable[[list], dict]] = None,
    records_format: str = "txt",
    backend: str = "local",
    address: Optional[str] = None,
) -> list[dict[str, Any]]:
    """Play ``games`` games for every pair (colours alternating), resuming from ``json_path``;
    returns the first ``games`` games of every pair. ``summary(results)`` builds the JSON's
    statistics (rewritten after every game). The file keeps every game it holds: a rerun with a
    smaller ``games`` reports fewer and deletes none."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise OptionError(f"games={games!r}: must be a whole number >= 1")
    for spec in {s for pair in pairs for s in pair}:
        AGENTS.validate(spec)  # a bad spec fails now, not in a worker after the first game
    check_paths(json_path, records_dir, records_format)
    check_backend(backend, address)
    config = {
        "pairs": [list(p) for p in pairs],
        "games": games,
        "size": size,
        "seed": seed,
        "opening": opening,
        **(extra or {}),
    }
    stored = load_results(json_path, config)
    done = {(r["pair"], r["index"]) for r in stored}
    tasks = []
    for a, b in pairs:
        key = pair_key(a, b)
        for index in range(games):
            if (key, index) not in done:
                white, black = (a, b) if index % 2 == 0 else (b, a)
                tasks.append((white, black, size, opening, seed, index, key))

    def finish(result: dict[str, Any]) -> None:
        stored.append(result)
        if json_path is not None:  # first: the game is kept even if writing its record fails
            stored.sort(key=lambda r: (r["pair"], r["index"]))
            held = max(games, *(r["index"] + 1 for r in stored))
            save_results(
                json_path,
                {"config": {**config, "games": held}, **(summary(stored) if summary else {}), "results": stored},
            )
        if records_dir is not None:
            save_record(records_dir, result, records_format)

    bar = _progress(len(tasks), games * len(pairs), progress)
    try:
        for result in _results(tasks, workers, backend, address):
            finish(result)
            bar.update(1)
    finally:
        bar.close()
    return sorted((r for r in stored if r["index"] < games), key=lambda r: (r["pair"], r["index"]))


def _results(
    tasks: list[tuple], workers: Optional[int], backend: str = "local", address: Optional[str] = None
) -> Iterator[dict[str, Any]]:
    """The played games of ``tasks``, in order of completion, in worker processes or here
    (``agents.arena.backends.run_tasks``; by default two local workers at most)."""
    if backend == "local" and workers is None:
        workers = min(os.cpu_count() or 1, 2)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise OptionError(f"workers={workers!r}: must be a whole number >= 1")
    yield from (result for _, result in run_tasks(_play_task, [(t,) for t in tasks], workers, backend, address))


def _progress(todo: int, total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, initial=total - todo, disable=not enabled, unit="game", dynamic_ncols=True)


def match(
    a: str,
    b: str,
    games: int = 20,
    size: int = 10,
    seed: int = 0,
    opening: int = 0,
    time: Optional[float] = None,
    workers: Optional[int] = None,
    json_path: Optional[str] = None,
    records_dir: Optional[str] = None,
    progress: bool = True,
    records_format: str = "txt",
    backend: str = "local",
    address: Optional[str] = None,
) -> dict[str, Any]:
    """``games`` games of ``a`` against ``b``; the summary (``summarize``) plus the game results.
    ``time``: seconds per move for each agent that takes a time and does not set one; ``backend``,
    ``address``: where the games run (``agents.arena.backends``)."""
    a, b = _with_time((a, b), time)
    results = run_games(
        [(a, b)],
        games,
        size,
        seed,
        opening,
        workers,
        json_path,
        records_dir,
        progress,
        {"time": time},
        lambda rs: summarize(rs, a, b),
        records_format,
        backend,
        address,
    )
    return {**summarize(results, a, b), "results": results}


def tournament(
    specs: Sequence[str],
    games: int = 10,
    size: int = 10,
    seed: int = 0,
    opening: int = 0,
    time: Optional[float] = None,
    workers: Optional[int] = None,
    json_path: Optional[str] = None,
    records_dir: Optional[str] = None,
    progress: bool = True,
    records_format: str = "txt",
    backend: str = "local",
    address: Optional[str] = None,
) -> dict[str, Any]:
    """A round robin: ``games`` games for every pair of ``specs``. Returns ``standings`` (total
    score per agent, best first), ``matches`` (one ``summarize`` per pair) and the results."""
    specs = _with_time(specs, time)
    if len(set(specs)) != len(specs) or len(specs) < 2:
        raise InvalidArgumentError(f"a tournament needs at least two different agents, got {list(specs)}")
    pairs = list(combinations(specs, 2))

    def build(results: list[dict[str, Any]]) -> dict[str, Any]:
        matches = [summarize(results, a, b) for a, b in pairs]
        points = {s: [0, 0] for s in specs}
        for m in matches:
            points[m["a"]][0] += m["a_wins"]
            points[m["b"]][0] += m["b_wins"]
            points[m["a"]][1] += m["games"]
            points[m["b"]][1] += m["games"]
        rows: list[dict[str, Any]] = [
            {"agent": s, "wins": w, "games": g, "score": w / g if g else 0.0} for s, (w, g) in points.items()
        ]
        standings = sorted(rows, key=lambda row: -row["score"])
        return {"standings": standings, "matches": matches}

    results = run_games(
        pairs,
        games,
        size,
        seed,
        opening,
        workers,
        json_path,
        records_dir,
        progress,
        {"time": time},
        build,
        records_format,
        backend,
        address,
    )
    return {**build(results), "results": results}
