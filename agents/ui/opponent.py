"""The agent a human plays against, in the terminal (``agents.ui.terminal``), the game window
(``agents.ui.session``) and ``amazons watch``: made from its spec, its checked move within a
move's ``Limit``, what is shown while it thinks, and the record of the game.

>>> agent = make_player("random", seed=1)
>>> short_name(agent), thinking_text(agent, Limit(time=0.5))
('random', 'random is thinking...')
"""

from __future__ import annotations

from typing import Optional

from amazons_env import Board, Color, GameRecord, Move
from amazons_env.errors import IllegalMoveError

from agents.base import Agent
from agents.registry import make
from agents.search.agent import SearchAgent, think
from agents.time.limit import Limit

__all__ = ["make_player", "short_name", "engine_move", "thinking_text", "game_record"]


def make_player(spec: str, seed: Optional[int] = None) -> Agent:
    """The agent of ``spec``, seeded with ``seed`` and reset for a new game (a move's time is the
    ``limit`` its game passes: ``engine_move``)."""
    agent = make(spec)
    if seed is not None:
        agent.seed(seed)
    agent.reset()
    return agent


def short_name(agent: Agent) -> str:
    """The agent's registry name without its options: ``"alphabeta"`` for ``alphabeta:time=1``."""
    return agent.spec.partition(":")[0]


def engine_move(agent: Agent, board: Board, limit: Optional[Limit] = None) -> Move:
    """The agent's move on ``board`` within ``limit`` (``None``: its own; ``think``), checked legal
    (an agent bug is a ``ValueError``, not a corrupted game)."""
    move = think(agent, board, limit)[0]
    if not board.is_legal(move):
        raise IllegalMoveError(f"agent {agent.spec!r} chose the illegal move {move} in {board.text()!r}")
    return move


def game_record(board: Board, human: Color, agent: Agent, resigned: bool = False) -> GameRecord:
    """The record of ``human``'s game against ``agent`` so far: the players as headers
    (``"human"`` and the agent's spec) and the result once decided, by the rules or by the
    human's resignation (``resigned``).

    >>> board = Board(6); board.push("b1-b4/b5")
    >>> record = game_record(board, Color.WHITE, make("random"), resigned=True)
    >>> record.result, record.headers, len(record.moves)
    ('0-1', {'White': 'human', 'Black': 'random'}, 1)
    """
    names = {colour: "human" if colour == human else agent.spec for colour in Color}
    resignation = ("1-0" if human == Color.BLACK else "0-1") if resigned else None  # else the rules' outcome
    return GameRecord.from_board(board, resignation, {"White": names[Color.WHITE], "Black": names[Color.BLACK]})


def thinking_text(agent: Agent, limit: Optional[Limit] = None) -> str:
    """``"alphabeta is thinking (1 s)..."``: what the user sees while the agent searches within
    ``limit`` (``None``: its own).

    >>> thinking_text(make("alphabeta"), Limit(time=0.5)), thinking_text(make("random"), Limit(time=0.5))
    ('alphabeta is thinking (0.5 s)...', 'random is thinking...')
    """
    seconds = None
    if isinstance(agent, SearchAgent):  # the fields of ``limit`` it honours, else its own (``think``)
        seconds = ((limit.only(agent.LIMITS) if limit else None) or agent.limit).time
    budget = f" ({seconds:g} s)" if seconds is not None else ""
    return f"{short_name(agent)} is thinking{budget}..."
