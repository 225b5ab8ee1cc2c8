"""One game in the arena: ``play_game(white, black, board)`` plays it to its end and returns a
``GameResult`` (the players, the winner and how the game ended, the moves, each side's thinking
time, nodes and moves, the value of every move); ``opening_board`` is the position a pair of
games starts from. Games on game clocks, and with pondering, are ``agents.arena.clocks``'s.

>>> from agents import make
>>> result = play_game(make("random", seed=1), make("random", seed=2), opening_board(6, 2, [1]), opening=2)
>>> result.winner in (0, 1), result.ended, result.plies == len(result.record), result.values[:2]
(True, 'moves', True, (None, None))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from amazons_env import Board, Move

from agents.arena.clocks import ClockedGame, OutOfTime, TimeControl
from agents.base import Agent
from agents.game import play_out
from agents.search.agent import SearchAgent
from agents.search.clock import frozen_heap

__all__ = ["GameResult", "play_game", "opening_board"]


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``winner``: 0 White, 1 Black. ``seconds``/``max_seconds``/``nodes``/
    ``moves``: per colour (White, Black), the thinking time in all and for the longest move, the
    search nodes reported by the agent and the moves made. ``values``: per ply of ``record``, the
    value the mover's search gave its move, for White (``amazons_env.move_values``), or ``None``
    (an opening ply, an agent that does not search). ``ended``: ``"moves"`` (the loser had no
    move) or ``"time"`` (the loser, to move after ``record``, ran out of time: ``clocks``)."""

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
    ended: str = "moves"


def _nodes_of(agent: Agent) -> int:
    """The nodes (or simulations) of ``agent``'s last move: 0 for an agent that does not search."""
    return agent.last_result.nodes if isinstance(agent, SearchAgent) and agent.last_result is not None else 0


def play_game(
    white: Agent,
    black: Agent,
    board: Board,
    opening: int = 0,
    index: int = 0,
    pair: str = "",
    tc: Optional[TimeControl] = None,
    ponder: bool = False,
) -> GameResult:
    """Play ``board`` (which may already hold opening moves, ``opening`` of them) to the end, the
    objects that exist before it frozen (``clock.frozen_heap``: no full garbage collection in a
    timed move); on ``tc``'s game clocks and with ``ponder``, thinking on the opponent's time
    (``agents.arena.clocks``)."""
    with frozen_heap():
        return _play(white, black, board, opening, index, pair, tc, ponder)


def _value_of(agent: Agent, move: Move, side: int) -> Optional[float]:
    """The value ``agent``'s search gave ``move`` (its last), for White; ``None`` for an agent that
    did not search for it or a value that is no finite number."""
    result = agent.last_result if isinstance(agent, SearchAgent) else None
    if result is None or result.move != move or not math.isfinite(result.value):
        return None
    return float(result.value) if side == 0 else -float(result.value)


def _play(
    white: Agent,
    black: Agent,
    board: Board,
    opening: int,
    index: int,
    pair: str,
    tc: Optional[TimeControl] = None,
    ponder: bool = False,
) -> GameResult:
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

    flagged: Optional[int] = None  # the side that ran out of time
    if tc is None and not ponder:
        play_out(board, (white.select_move, black.select_move), on_move=count)
    else:
        game = ClockedGame(players, tc, ponder)
        try:
            play_out(board, (game.move, game.move), on_move=count)
        except OutOfTime as flag:
            flagged = flag.side
        finally:
            game.finish()
    winner = board.winner if flagged is None else 1 - flagged
    assert winner is not None, "play_out plays the game to its end, unless a clock runs out"
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
        "moves" if flagged is None else "time",
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
