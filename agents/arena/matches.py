"""The arena's games: agents play each other in matches and round robins, and the results are kept.

* ``play_game(white, black, board)``: one game between two agents; returns a ``GameResult``
  (``agents.arena.games``, imported here).
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

import os
import zlib
from dataclasses import asdict
from itertools import combinations
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence, TypedDict

import numpy as np

from amazons_env.errors import InvalidArgumentError, describe

from agents.arena.backends import check_backend, run_tasks
from agents.arena.files import check_paths, load_results, save_record, save_results
from agents.arena.games import GameResult, opening_board, play_game
from agents.arena.statistics import pair_key, summarize
from agents.base import Agent
from agents.options import OptionError
from agents.registry import AGENTS, format_spec, make, parse_spec
from agents.time.control import TimeControl
from agents.time.limit import Limit

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's from Python 3.11

__all__ = [
    "GameResult",
    "play_game",
    "match",
    "tournament",
    "ArenaOptions",
    "with_option",
    "run_games",
    "load_results",
    "opening_board",
]

# -- running many games --------------------------------------------------------------------------


def with_option(spec: str, key: str, value: Any) -> str:
    """``spec`` with ``key=value`` added, unless it already sets ``key`` or the agent takes no
    such option (e.g. ``threads`` for ``random``). Checked against the agent's options (an
    ``OptionError`` if the agent refuses the value); nothing is built. A move's time is no option
    to add: the arena passes it as the move's ``Limit``."""
    name, options = parse_spec(spec)
    if key in options or key not in AGENTS.schema(name).options:
        return spec
    AGENTS.validate(spec, **{key: value})  # a value the agent refuses is an error, not a silent no-op
    return (
        format_spec(name, {**options, key: value})
        if ":" in name
        else f"{spec}{',' if ':' in spec else ':'}{key}={value}"
    )


def _move_limit(time: Optional[float], tc: Optional[str] = None) -> Optional[Limit]:
    """The limit of every move for ``time`` seconds per move (``None``: each agent's own), not given
    with a game clock ``tc`` (which sets every move's time); errors name the input."""
    if time is not None and tc is not None:
        raise OptionError(
            f"time={describe(time)} and tc={describe(tc)}: give seconds per move or a game clock, not both"
        )
    return None if time is None else Limit(time=time)


_AGENTS: dict[tuple[str, int], Agent] = {}


def _agent(spec: str, slot: int = 0) -> Agent:
    """One agent object per spec (and ``slot``) and process (searches keep their buffers, nets
    their weights); pondering players take a slot per colour, so that an agent against itself is
    two objects, each thinking on the other's time."""
    if (spec, slot) not in _AGENTS:
        _AGENTS[spec, slot] = make(spec)
    return _AGENTS[spec, slot]


def _play_task(task: tuple[str, str, int, int, int, int, str, Optional[str], bool, Optional[float]]) -> dict[str, Any]:
    white_spec, black_spec, size, opening, seed, index, pair, tc, ponder, time = task
    pair_number = index // 2
    board = opening_board(size, opening, (seed, hash_pair(pair), pair_number))
    players = []
    for colour, spec in enumerate((white_spec, black_spec)):
        agent = _agent(spec, colour if ponder else 0)
        agent.seed(int(np.random.SeedSequence([seed, hash_pair(pair), index, colour]).generate_state(1)[0]))
        agent.reset()
        players.append(agent)
    clock = None if tc is None else TimeControl.parse(tc)
    limit = None if time is None else Limit(time=time)
    result = asdict(play_game(players[0], players[1], board, opening, index, pair, clock, ponder, limit))
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
    tc: Optional[str] = None,
    ponder: bool = False,
    limit: Optional[Limit] = None,
) -> list[dict[str, Any]]:
    """Play ``games`` games for every pair (colours alternating), resuming from ``json_path``;
    returns the first ``games`` games of every pair. ``summary(results)`` builds the JSON's
    statistics (rewritten after every game). The file keeps every game it holds: a rerun with a
    smaller ``games`` reports fewer and deletes none. ``tc``: a time control (``"1+0.1"``,
    ``TimeControl.parse``) for game clocks; ``ponder``: players that can think on the opponent's
    time do (``agents.arena.games``); both are recorded in the results' config. ``limit``: every
    move's (``Limit(time=...)``, as ``match``'s ``time`` gives it; ``None``: each agent's own)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise OptionError(f"games={games!r}: must be a whole number >= 1")
    clock = _time_control(tc, ponder)
    if limit is not None and set(limit.bounds()) != {"time"}:
        raise OptionError(f"limit={limit!r}: the arena gives every move a time only (Limit(time=...))")
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
        # only when set, so that the files of runs without them still resume
        **({"tc": str(clock)} if clock is not None else {}),
        **({"ponder": True} if ponder else {}),
    }
    stored = load_results(json_path, config)
    done = {(r["pair"], r["index"]) for r in stored}
    tasks = []
    for a, b in pairs:
        key = pair_key(a, b)
        for index in range(games):
            if (key, index) not in done:
                white, black = (a, b) if index % 2 == 0 else (b, a)
                tc_text = str(clock) if clock else None
                tasks.append(
                    (white, black, size, opening, seed, index, key, tc_text, ponder, limit.time if limit else None)
                )

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


def _time_control(tc: Optional[str], ponder: bool) -> Optional[TimeControl]:
    """``tc`` as a ``TimeControl`` (``None``: none), ``ponder`` checked; errors name the input."""
    if not isinstance(ponder, bool):
        raise OptionError(f"ponder={describe(ponder)}: must be True or False")
    return None if tc is None else TimeControl.parse(tc)


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


class ArenaOptions(TypedDict, total=False):
    """The options of ``match`` and ``tournament`` beside their agents and games (``run_games``'
    defaults where not given): ``size``, ``seed``, ``opening``; ``time``: seconds per move, every
    move's ``Limit(time=...)`` in place of its agent's own limit (an agent that searches without a
    time, or does not search, keeps its own); ``tc`` instead: game clocks (``"MINUTES+INC"``),
    ``ponder``: think on the opponent's time; ``workers``, ``backend``, ``address``: where the games
    run (``agents.arena.backends``); ``json_path``, ``records_dir``, ``records_format``,
    ``progress``: what is written and shown."""

    size: int
    seed: int
    opening: int
    time: Optional[float]
    workers: Optional[int]
    json_path: Optional[str]
    records_dir: Optional[str]
    progress: bool
    records_format: str
    backend: str
    address: Optional[str]
    tc: Optional[str]
    ponder: bool


def match(a: str, b: str, games: int = 20, **options: Unpack[ArenaOptions]) -> dict[str, Any]:
    """``games`` games of ``a`` against ``b`` (``ArenaOptions``); the summary (``summarize``) plus
    the game results."""
    results = _games([(a, b)], games, lambda rs: summarize(rs, a, b), options)
    return {**summarize(results, a, b), "results": results}


def tournament(specs: Sequence[str], games: int = 10, **options: Unpack[ArenaOptions]) -> dict[str, Any]:
    """A round robin: ``games`` games for every pair of ``specs`` (``ArenaOptions``).
    Returns ``standings`` (total score per agent, best first), ``matches`` (one ``summarize`` per
    pair) and the results."""
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

    results = _games(pairs, games, build, options)
    return {**build(results), "results": results}


def _games(
    pairs: list[tuple[str, str]], games: int, summary: Callable[[list], dict], options: ArenaOptions
) -> list[dict[str, Any]]:
    """``run_games`` of ``pairs`` with ``options``, the time per move as every move's limit (and
    the results' config)."""
    rest: dict[str, Any] = dict(options)  # run_games' own options, once the time is out
    time = rest.pop("time", None)
    limit = _move_limit(time, options.get("tc"))
    return run_games(pairs, games, extra={"time": time}, summary=summary, limit=limit, **rest)
