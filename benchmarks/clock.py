"""How much of ``time=T`` each searching agent uses: seconds per move over whole games.

Target (issue 13): at ``time=1`` every searching agent thinks mean >= 0.9 T and max <= 1.05 T per
move, on 8x8 and 10x10. Each agent plays ``--games`` self-play games per board size (two instances
of the spec, one per colour, from 2-ply random openings), or with ``--against`` games against that
opponent (colours alternating; only the agent's moves are timed); every move is timed around
``select_move``, as the arena times it, with tree reuse between moves as in a match.

    python3 benchmarks/clock.py                               # every searching agent, 8x8 and 10x10
    python3 benchmarks/clock.py --agents "alphabeta:time=1" "alphabeta:time=1,clock=predict" --sizes 8
    python3 benchmarks/clock.py --agents uct mcts --against "alphabeta:time=1,clock=predict" --games 2

Columns: ``moves`` timed, ``mean``/``p95``/``max`` seconds over all of them, ``queued``: how long
the longest move was ready to run but waiting for a core (Linux ``/proc/thread-self/schedstat``;
``-`` elsewhere): a busy machine, not the agent, made that part of it; ``ran``: the most any move
ran, its seconds less its wait (a lower bound on its time on an idle machine: above 1.05 T the
agent itself overran); ``over``: moves above 1.05 T; ``open mean`` over
the moves whose outcome was still open: played before the amazons were separated and not proven
by the search (a result value of magnitude >= 1: ``alphabeta``'s +-2 and the others' +-1 mean a
forced win or loss). Decided positions are played at once, as they should be (``alphabeta`` and
``mcts`` play the exact filling move; a proven search stops deepening). ``cold``: the agent's
first move in this process (numba cache loads, the net's first forward pass; not in the other
columns: each instance plays one warm-up move first). PASS: ``open mean`` >= 0.9 T and ``max``
<= 1.05 T; ``busy``: FAIL on ``max`` alone, with ``ran`` <= 1.05 T: on a shared machine, run again
when it is quiet.
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
from agents.base import Agent
from agents.search.agent import SearchAgent
from agents.search.clock import frozen_heap
from agents.search.endgame import analyse

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
    "mcts:eval=value-net",
    "pvmcts",
)


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
    seconds: list[float] = []
    queued: list[Optional[float]] = []
    open_seconds: list[float] = []
    with frozen_heap():  # as the arena plays its games
        _games(players, size, games, seed, against, seconds, queued, open_seconds)
    return {
        "spec": spec,
        "size": size,
        "games": games,
        "cold": cold,
        "seconds": seconds,
        "queued": queued,
        "open_seconds": open_seconds,
    }


def _games(
    players: list[Agent],
    size: int,
    games: int,
    seed: int,
    against: Optional[str],
    seconds: list[float],
    queued: list[Optional[float]],
    open_seconds: list[float],
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
            seconds.append(spent)
            queued.append(waited)
            if not separated and abs(getattr(player.last_result, "value", 0.0)) < 1.0:
                open_seconds.append(spent)


def row(result: dict[str, Any], budget: float) -> str:
    seconds = np.array(result["seconds"])
    open_mean = float(np.mean(result["open_seconds"])) if result["open_seconds"] else 0.0
    known = None not in result["queued"]
    ran = float(np.max(seconds - np.array(result["queued"], dtype=float))) if known else float("nan")
    verdict = "PASS" if open_mean >= 0.9 * budget and seconds.max() <= 1.05 * budget else "FAIL"
    if verdict == "FAIL" and open_mean >= 0.9 * budget and ran <= 1.05 * budget:
        verdict = "busy"
    queued = f"{result['queued'][int(seconds.argmax())]:.3f}" if known else "-"
    return (
        f"| {result['spec']} | {result['size']}x{result['size']} | {len(seconds)} | {seconds.mean():.3f} | "
        f"{np.percentile(seconds, 95):.3f} | {seconds.max():.3f} | {queued} | {ran:.3f} | "
        f"{int(np.sum(seconds > 1.05 * budget))} | {open_mean:.3f} | {result['cold']:.2f} | {verdict} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), help="specs without time= (it is added)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10])
    parser.add_argument("--games", type=int, default=1, help="games per agent and size (default 1)")
    parser.add_argument(
        "--against",
        default=None,
        metavar="SPEC",
        help="play against this opponent (its moves untimed) instead of self-play",
    )
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move T (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, metavar="PATH", help="also write every timing here")
    args = parser.parse_args()
    print(
        f"time={args.time:g} s per move; PASS: open mean >= {0.9 * args.time:.2f} s and max <= "
        f"{1.05 * args.time:.2f} s\n"
    )
    print("| agent | board | moves | mean | p95 | max | queued | ran | over | open mean | cold | clock |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    results = []
    for spec in args.agents:
        for size in args.sizes:
            results.append(play(with_time(spec, args.time), size, args.games, args.seed, args.against))
            print(row(results[-1], args.time), flush=True)
            if args.json:
                with open(args.json, "w") as out:
                    json.dump(results, out)


if __name__ == "__main__":
    main()
