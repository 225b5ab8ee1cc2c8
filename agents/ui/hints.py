"""Hints and evaluation: an engine's best move and value for the side to move, for a human player.

``hint(engine, board)`` searches ``board`` with an engine and answers a ``Hint``: the best
``move``, its ``value`` in [-1, 1] for the side to move, the ``seconds`` taken, whether the value
is ``proven`` (a searched win or loss, not an evaluation) and, for ``uct`` and its subclasses on
their split tree, the ``top`` moves with their shares of the root's visits (best first). A spec
string builds a fresh engine, so a hint never disturbs the opponent engine's kept tree or clock;
an ``Agent`` instance is used as given. ``hint_line`` and ``eval_table`` write a hint in the
notation users type (terminal play's ``hint`` and ``eval`` commands, the game window's hint).

>>> from amazons_env import Board, Color
>>> board = Board(6)
>>> advice = hint("uct:sims=200,seed=1", board)
>>> board.is_legal(advice.move), -1 <= advice.value <= 1, len(advice.top), board.ply
(True, True, 5, 0)
>>> shares = [share for _, share in advice.top]
>>> shares == sorted(shares, reverse=True) and sum(shares) <= 1
True
>>> hint_line(Hint(Move.parse("b1-b4/b5", 6), 0.3125, (), 1.04), Color.WHITE)
'hint: b1-b4/b5 (value +0.31 for White, 1.0 s)'
>>> print(eval_table(Hint(Move.parse("b1-b4/b5", 6), -0.5, ((Move.parse("b1-b4/b5", 6), 0.415),
...                                                        (Move.parse("e1-e4/e5", 6), 0.2)), 0.5), Color.BLACK))
eval: value -0.50 for Black, best b1-b4/b5 (0.5 s)
  move      visits
  b1-b4/b5   41.5%  best
  e1-e4/e5   20.0%

Other searches (alpha-beta, the study's searches, ``mcts``, an external engine) give no visit
shares: their ``top`` is empty, rather than the best move alone with a made-up share of 1.0. A
proven result (alpha-beta's values beyond [-1, 1]) is clipped to +-1 and marked (``uct``'s solved
values are +-1 already and read as values):

>>> won = Board.from_text("2**/*Qq*/****/*1** w")  # b3-b4/b3 boxes Black in; any other move loses
>>> advice = hint("alphabeta:depth=2", won)
>>> str(advice.move), advice.value, advice.top, advice.proven
('b3-b4/b3', 1.0, (), True)
>>> hint_line(advice, won.turn).rpartition(",")[0]  # then the seconds
'hint: b3-b4/b3 (value +1.00 for White, a proven win'
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from amazons_env import Board, Color, Move
from amazons_env.errors import InvalidArgumentError, describe

from agents.base import Agent
from agents.registry import make
from agents.search.agent import GameOverError, SearchAgent, think
from agents.search.uct import UCT, visit_policy
from agents.time.limit import Limit

__all__ = ["Hint", "hint", "hint_line", "eval_table"]


@dataclass(frozen=True)
class Hint:
    """An engine's advice for the side to move (module docstring): ``move`` its best move,
    ``value`` in [-1, 1] for the side to move, ``top`` the most visited moves with their visit
    shares, best first (``uct`` family, else empty), ``seconds`` the search's time, ``proven``
    whether ``value`` is a proven win (+1) or loss (-1) rather than an evaluation."""

    move: Move
    value: float
    top: tuple[tuple[Move, float], ...]
    seconds: float
    proven: bool = False


def hint(agent_spec_or_agent: Union[str, Agent], board: Board, limit: Optional[Limit] = None, top: int = 5) -> Hint:
    """The advice of an engine (a spec string, built fresh, or an ``Agent`` used as given) for
    ``board``'s side to move, searched within ``limit`` (default: the engine's own), with up to
    ``top`` moves by visit share (0: none). The board is left unchanged. A finished game is a
    ``GameOverError`` naming the position; an agent that does not search (``random``) has no
    value to give and is an ``InvalidArgumentError``."""
    if not isinstance(board, Board):
        raise InvalidArgumentError(f"hint: board must be a Board, got {describe(board)}")
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 0:
        raise InvalidArgumentError(f"hint: top={describe(top)} must be a whole number >= 0")
    if limit is not None and not isinstance(limit, Limit):
        raise InvalidArgumentError(f"hint: limit must be a Limit or None, got {describe(limit)}")
    if not isinstance(agent_spec_or_agent, (str, Agent)):
        raise InvalidArgumentError(
            f"hint: the engine must be a spec string or an Agent, got {describe(agent_spec_or_agent)}"
        )
    if board.is_game_over():
        raise GameOverError(f"hint: no move to suggest in a finished game: {board.text()!r}")
    agent = make(agent_spec_or_agent)
    if not isinstance(agent, SearchAgent):
        raise InvalidArgumentError(f"hint: {agent.spec!r} does not search, so it has no value to give (try 'uct')")
    position = board.copy()  # the search leaves its board unchanged; the caller's is not even lent
    move, result = think(agent, position, limit)
    assert result is not None  # a SearchAgent always answers with its result
    shares: tuple[tuple[Move, float], ...] = ()
    # the filling-phase shortcut runs no simulation (nodes 0) and leaves no tree to read shares from
    if top > 0 and isinstance(agent, UCT) and agent.tree == "split" and result.nodes > 0:
        shares = _visit_shares(agent, position, int(top))
    return Hint(
        move,
        float(np.clip(result.value, -1.0, 1.0)),
        shares,
        result.seconds,
        proven=abs(result.value) > 1.0,  # only proven results lie beyond [-1, 1] (SearchResult)
    )


def _visit_shares(agent: UCT, board: Board, top: int) -> tuple[tuple[Move, float], ...]:
    """The ``top`` whole moves of ``agent``'s last search of ``board`` (split tree) by their share
    of the root's visits, best first (equal shares in the tree's order)."""
    moves, shares = visit_policy(agent, board)
    best = np.argsort(-shares, kind="stable")[:top]
    return tuple(
        (Move(int(moves[i, 0]), int(moves[i, 1]), int(moves[i, 2]), board.size), float(shares[i])) for i in best
    )


def _value_text(advice: Hint, side: Color) -> str:
    proven = (", a proven win" if advice.value > 0 else ", a proven loss") if advice.proven else ""
    return f"value {advice.value:+.2f} for {side.name.capitalize()}{proven}"


def hint_line(advice: Hint, side: Color) -> str:
    """``advice`` (for ``side``, the side to move) as one line in the notation users type:
    ``hint: d1-d5/g5 (value +0.31 for White, 1.0 s)``."""
    return f"hint: {advice.move} ({_value_text(advice, Color(side))}, {advice.seconds:.1f} s)"


def eval_table(advice: Hint, side: Color) -> str:
    """``advice`` (for ``side``, the side to move) as its value and best move, then a table of
    the top moves with their visit shares in percent, the best move's row marked (module
    docstring); just the first line when the search gives no shares."""
    lines = [f"eval: {_value_text(advice, Color(side))}, best {advice.move} ({advice.seconds:.1f} s)"]
    if advice.top:
        width = max(len(str(move)) for move, _ in advice.top)
        lines.append(f"  {'move':<{width}} {'visits':>7}")
        # the search's choice need not be the most visited whole move (uct picks the most visited
        # queen move, then its arrow): the row of the move played is marked
        lines.extend(
            f"  {str(move):<{width}} {100 * share:6.1f}%" + ("  best" if move == advice.move else "")
            for move, share in advice.top
        )
    return "\n".join(lines)
