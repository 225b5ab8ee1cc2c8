"""How much of its time each searching agent uses: seconds per move over whole games, at a fixed
time per move or on a game clock.

**At ``time=T``** (issue 28's target): while the game is open, mean thinking time >= 0.95 T, and
no move over T + 0.05 s, at T = 0.1, 1 and 5 s on 8x8 and 10x10. Each agent plays ``--games``
self-play games per board size and T (two instances of the spec, one per colour, from 2-ply
random openings), or with ``--against`` games against that opponent (colours alternating; only
the agent's moves are timed); every move is timed around ``select_move``, as the arena times it,
with tree reuse between moves as in a match.

    python3 benchmarks/search/clock.py --agents uct --times 0.1 1 --sizes 8 10 --games 2
    python3 benchmarks/search/clock.py                               # every searching agent, T = 0.1, 1, 5
    python3 benchmarks/search/clock.py --agents uct mcts --against "alphabeta:time=1,clock=predict" --times 1

Columns: ``moves`` timed, then how many of them were ``open``, ``decided`` (the filling phase,
played without search), ``proven`` (the search proved a win or loss) and ``settled`` (the move
could no longer change): from the search's ``stopped`` stat where it reports one, else from the
position (separated: decided) and the value (magnitude >= 1, alpha-beta's +-2 and the others' +-1:
proven). ``mean``/``p95``/``max`` seconds over all moves; ``queued``: how long the longest move
was ready to run but waiting for a core (Linux ``/proc/thread-self/schedstat``; ``-`` elsewhere):
a busy machine, not the agent, made that part of it; ``ran``: the most any move ran, its seconds
less its wait (a lower bound on its time on an idle machine); ``over``: moves above T + 0.05 s;
``open mean``/``open max`` over the open moves; ``cold``: the agent's first move in this process
(numba cache loads, the net's first forward pass; not in the other columns: each instance plays
one warm-up move first). PASS: ``open mean`` >= 0.95 T and ``max`` <= T + 0.05 s; ``busy``: FAIL
on ``max`` alone, with ``ran`` <= T + 0.05 s: on a shared machine, run again when it is quiet.

**On a game clock** (``--tc MINUTES+INC``, e.g. ``--tc 1+0.1``): whole games on the arena's game
clocks (``agents.arena.games.ClockedGame``: each move's limit from the time manager, the measured
time charged to the clock), self-play or ``--against``. Columns: ``games``, ``moves`` and their
kinds as above, ``clock used``: the time used over the time the clocks gave (the game's seconds
plus the increments of the moves made; the rest was left on the clock at the end), ``mean``/
``max`` seconds per move, ``lost on time`` (PASS: none).

    python3 benchmarks/search/clock.py --agents uct --tc 1+0.1 --sizes 8 10 --games 1
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Optional

import numpy as np

from amazons_env import Board

from agents import make
from agents.arena import opening_board
from agents.arena.games import ClockedGame, OutOfTime
from agents.base import Agent
from agents.game import play_out
from agents.search.agent import SearchAgent
from agents.search.endgame import analyse
from agents.search.result import SearchResult
from agents.time.control import TimeControl
from agents.time.heap import frozen_heap

AGENTS = (
    "alphabeta",
    "alphabeta:clock=predict",
    "mcts",
    "uct",
    "two-iteration",
    "classic",
    "move-then-arrow",
    "uct-net",
    "alphabeta:eval=value-net",
    "two-iteration:eval=value-net",
    "pvmcts",
)
#: the kinds of moves, in the columns' order: ``open`` is the one the time targets are about
KINDS = ("open", "decided", "proven", "settled")
#: the most a move may overrun T (issue 28's target)
OVERRUN = 0.05
#: the least share of T the open moves must use on average
OPEN_SHARE = 0.95


def with_time(spec: str, seconds: float) -> str:
    """``spec`` with ``time=seconds`` added."""
    return f"{spec}{',' if ':' in spec else ':'}time={seconds:g}"


def queued_seconds() -> Optional[float]:
    """Seconds this thread has spent ready to run but waiting for a core (None where the kernel
    does not tell)."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def kind_of(result: Optional[SearchResult], separated: bool) -> str:
    """The kind of a move (``KINDS``): the search's ``stopped`` stat when it reports one (a search
    stopped by its time or simulations is open), else the position and the value say."""
    stopped = None if result is None else result.stats.get("stopped")
    if stopped is not None:
        return stopped if stopped in KINDS else "open"
    if separated:
        return "decided"
    return "proven" if result is not None and abs(result.value) >= 1.0 else "open"


def timed_move(agent: Agent, board: Board) -> tuple[float, Optional[float]]:
    """Seconds ``agent`` takes to choose its move in ``board`` and how many of them it waited for a
    core (``queued_seconds``); the move is played."""
    queued = queued_seconds()
    start = time.perf_counter()
    move = agent.select_move(board)
    seconds = time.perf_counter() - start
    after = queued_seconds()
    board.push(move)
    return seconds, None if queued is None or after is None else after - queued


def play(spec: str, size: int, games: int, seed: int, against: Optional[str] = None) -> dict[str, Any]:
    """Time every move of ``spec`` in ``games`` games on ``size`` x ``size``: self-play, or against
    ``against`` (the agent is White in even games, Black in odd ones)."""
    players = [make(spec, seed=seed), make(against or spec, seed=seed + 1)]
    cold, _ = timed_move(players[0], opening_board(size, 2, [seed, size, 99]))
    timed_move(players[1], opening_board(size, 2, [seed, size, 98]))
    moves: dict[str, list] = {"seconds": [], "queued": [], "kinds": []}
    with frozen_heap():  # as the arena plays its games
        _games(players, size, games, seed, against, moves)
    return {"spec": spec, "size": size, "games": games, "cold": cold, **moves}


def _games(
    players: list[Agent], size: int, games: int, seed: int, against: Optional[str], moves: dict[str, list]
) -> None:
    for game in range(games):
        board = opening_board(size, 2, [seed, size, game])
        for player in players:
            player.reset()
        colours = players if game % 2 == 0 else players[::-1]
        while not board.is_game_over():
            separated = analyse(board).separated
            player = colours[int(board.turn)]
            if against and player is players[1]:
                board.push(player.select_move(board))  # the opponent: not timed
                continue
            assert isinstance(player, SearchAgent)  # the timed players are searches: their clocks are measured
            spent, waited = timed_move(player, board)
            moves["seconds"].append(spent)
            moves["queued"].append(waited)
            moves["kinds"].append(kind_of(player.last_result, separated))


def _counts(kinds: list[str]) -> str:
    return " | ".join(str(kinds.count(kind)) for kind in KINDS)


def row(result: dict[str, Any], budget: float) -> str:
    """The table row of ``play``'s ``result`` at ``budget`` seconds per move."""
    seconds = np.array(result["seconds"])
    opened = seconds[np.array(result["kinds"]) == "open"]
    open_mean = float(opened.mean()) if len(opened) else 0.0
    open_max = float(opened.max()) if len(opened) else 0.0
    known = None not in result["queued"]
    ran = float(np.max(seconds - np.array(result["queued"], dtype=float))) if known else float("nan")
    most = budget + OVERRUN
    verdict = "PASS" if open_mean >= OPEN_SHARE * budget and seconds.max() <= most else "FAIL"
    if verdict == "FAIL" and open_mean >= OPEN_SHARE * budget and ran <= most:
        verdict = "busy"
    queued = f"{result['queued'][int(seconds.argmax())]:.3f}" if known else "-"
    return (
        f"| {result['spec']} | {result['size']}x{result['size']} | {budget:g} | {len(seconds)} | "
        f"{_counts(result['kinds'])} | {seconds.mean():.3f} | {np.percentile(seconds, 95):.3f} | "
        f"{seconds.max():.3f} | {queued} | {ran:.3f} | {int(np.sum(seconds > most))} | {open_mean:.3f} | "
        f"{open_max:.3f} | {result['cold']:.2f} | {verdict} |"
    )


def play_on_clock(spec: str, size: int, games: int, seed: int, tc: TimeControl, against: Optional[str] = None):
    """``games`` games of ``spec`` on ``tc``'s clocks (self-play, or against ``against``); for the
    timed side(s): every move's seconds and kind, the time given and used, the losses on time."""
    players = [make(spec, seed=seed), make(against or spec, seed=seed + 1)]
    for index, player in enumerate(players):
        timed_move(player, opening_board(size, 2, [seed, size, 98 + index]))  # warm-up, off the clock
    out: dict[str, Any] = {"spec": spec, "size": size, "games": games, "tc": str(tc)}
    out.update(seconds=[], kinds=[], given=0.0, used=0.0, lost_on_time=0)
    with frozen_heap():
        for game in range(games):
            board = opening_board(size, 2, [seed, size, game])
            for player in players:
                player.reset()
            colours = players if game % 2 == 0 else players[::-1]
            timed = [side for side in (0, 1) if not against or colours[side] is players[0]]
            _clocked_game(ClockedGame(colours, tc), board, timed, out)
    return out


def _clocked_game(clocked: ClockedGame, board: Board, timed: list[int], out: dict[str, Any]) -> None:
    """One game on ``clocked``'s clocks, the moves of the ``timed`` sides recorded in ``out``."""
    moves = [0, 0]
    tc = clocked.tc
    assert tc is not None  # a game on a clock

    def record(side: int, move: Any, spent: float) -> None:  # before the move is played in ``board``
        moves[side] += 1
        if side in timed:
            agent = clocked.agents[side]
            result = agent.last_result if isinstance(agent, SearchAgent) else None
            out["seconds"].append(spent)
            out["kinds"].append(kind_of(result, analyse(board).separated))

    try:
        play_out(board, (clocked.move, clocked.move), on_move=record)
    except OutOfTime as flag:
        out["lost_on_time"] += int(flag.side in timed)
    finally:
        clocked.finish()
    for side in timed:
        given = tc.seconds + tc.increment * moves[side]
        out["given"] += given
        out["used"] += given - clocked.left[side]


def clock_row(result: dict[str, Any]) -> str:
    """The table row of ``play_on_clock``'s ``result``."""
    seconds = np.array(result["seconds"])
    verdict = "PASS" if result["lost_on_time"] == 0 else "FAIL"
    return (
        f"| {result['spec']} | {result['size']}x{result['size']} | {result['tc']} | {result['games']} | "
        f"{len(seconds)} | {_counts(result['kinds'])} | {result['used'] / result['given']:.3f} | "
        f"{seconds.mean():.3f} | {seconds.max():.3f} | {result['lost_on_time']} | {verdict} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), help="specs without time= (it is added)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10])
    parser.add_argument("--games", type=int, default=1, help="games per agent, size and T (default 1)")
    parser.add_argument(
        "--against",
        default=None,
        metavar="SPEC",
        help="play against this opponent (its moves untimed) instead of self-play",
    )
    parser.add_argument(
        "--times", nargs="+", type=float, default=[0.1, 1.0, 5.0], help="seconds per move T (default 0.1 1 5)"
    )
    parser.add_argument("--tc", default=None, metavar="MINUTES+INC", help="whole games on this game clock instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, metavar="PATH", help="also write every timing here")
    args = parser.parse_args()
    results = []
    if args.tc is not None:
        tc = TimeControl.parse(args.tc)
        print(f"game clock {tc}: PASS: no loss on time\n")
        print(
            "| agent | board | tc | games | moves | open | decided | proven | settled | clock used | mean | max "
            "| lost on time | clock |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        print(f"PASS: open mean >= {OPEN_SHARE} T and max <= T + {OVERRUN} s\n")
        print(
            "| agent | board | T | moves | open | decided | proven | settled | mean | p95 | max | queued | ran "
            "| over | open mean | open max | cold | clock |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.agents:
        for size in args.sizes:
            if args.tc is not None:
                results.append(play_on_clock(spec, size, args.games, args.seed, tc, args.against))
                print(clock_row(results[-1]), flush=True)
            for budget in [] if args.tc is not None else args.times:
                results.append(
                    {"time": budget, **play(with_time(spec, budget), size, args.games, args.seed, args.against)}
                )
                print(row(results[-1], budget), flush=True)
            if args.json:
                with open(args.json, "w") as out:
                    json.dump(results, out)


if __name__ == "__main__":
    main()
