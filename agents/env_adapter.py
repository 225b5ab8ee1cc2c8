"""Drive the two-phase gymnasium env (``amazons_env.envs.gym_env.AmazonsEnv``) with any ``Agent``.

An agent picks whole moves (``select_move(board)``); the env takes a turn as two actions, the queen
move then the arrow. ``EnvPlayer`` asks the agent for a move in the queen phase, returns its queen
action, and returns the matching arrow action in the arrow phase. The same player works on a
``gymnasium.make("Amazons-v0")`` env (wrappers are looked through) and on the PettingZoo env
(``amazons_env.envs.pettingzoo_env``, through its ``game``).

>>> from amazons_env.envs.gym_env import AmazonsEnv
>>> env = AmazonsEnv(size=6)
>>> winner = play_episode(env, "two-iteration:depth=1,eval=basic", "random", seed=0)
>>> winner in (0, 1), env.board.is_game_over()
(True, True)
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from amazons_env import Board, Move
from amazons_env.envs.actions import encode_action, flat_to_line, move_to_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.planes import PLANE_SHOOTER, PLANE_VACATED
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.registry import make

__all__ = ["EnvPlayer", "play_episode", "amazons_env_of", "pending_queen_move"]


def amazons_env_of(env: Any) -> AmazonsEnv:
    """The ``AmazonsEnv`` inside ``env`` (itself, a gymnasium wrapper of it, or a PettingZoo env)."""
    seen = env
    for _ in range(16):
        if isinstance(seen, AmazonsEnv):
            return seen
        seen = getattr(seen, "game", None) or getattr(seen, "unwrapped", None) or getattr(seen, "env", None)
        if seen is None:
            break
    raise TypeError(f"{env!r} is not an AmazonsEnv, a wrapper of one or the PettingZoo amazons env")


def pending_queen_move(env: AmazonsEnv) -> tuple[int, int]:
    """In the arrow phase, the queen move just made: ``(from_square, to_square)``."""
    if env.phase != 1:
        raise InvalidArgumentError("pending_queen_move: the env is not in the arrow phase")
    planes = env.observation()
    n = env.size
    frm = int(np.flatnonzero(planes[PLANE_VACATED].reshape(-1))[0])
    to = int(np.flatnonzero(planes[PLANE_SHOOTER].reshape(-1))[0])
    assert 0 <= frm < n * n and 0 <= to < n * n
    return frm, to


class EnvPlayer:
    """An agent acting in the two-phase env: ``action(env)`` returns the action for the current phase.

    The whole move is chosen in the queen phase (on ``env.board``, a copy) and its arrow is played
    in the arrow phase. If the queen move in the env is not the one this player chose (someone else
    made it), the arrow is taken from the agent's ``select_arrow(board, from_square, to_square)`` if
    it has one, else drawn uniformly (with the agent's ``rng``) among the legal arrows.
    """

    def __init__(self, agent: Union[str, Agent]) -> None:
        self.agent = make(agent)
        self._pending: Optional[Move] = None

    def reset(self) -> None:
        self.agent.reset()
        self._pending = None

    def action(self, env: Any) -> int:
        """The action for the current phase, in the env's ``action_encoding``."""
        game = amazons_env_of(env)
        board = game.board
        if game.phase == 0:
            move = self.agent.select_move(board)
            self._pending = move
            flat = move_to_actions(move)[0]
        else:
            frm, to = pending_queen_move(game)
            pending, self._pending = self._pending, None
            if pending is None or (pending.from_square, pending.to_square) != (frm, to):
                pending = self._arrow_for(board, frm, to)
            flat = encode_action(to, pending.arrow, board.size)
        return flat_to_line(flat, board.size) if game.action_encoding == "lines" else flat

    def _arrow_for(self, board: Board, frm: int, to: int) -> Move:
        choose = getattr(self.agent, "select_arrow", None)
        if choose is not None:
            return choose(board, frm, to)
        moves = board.legal_moves_array()
        moves = moves[(moves[:, 0] == frm) & (moves[:, 1] == to)]
        f, t, a = moves[self.agent.rng.integers(len(moves))].tolist()
        return Move(f, t, a, board.size)


def play_episode(
    env: Any,
    white: Union[str, Agent],
    black: Union[str, Agent],
    seed: Optional[int] = None,
    options: Optional[dict] = None,
) -> int:
    """Play one game in a gymnasium Amazons env (no built-in ``opponent``) with two agents; returns
    the winner (0 White, 1 Black). The agents are seeded from ``seed``."""
    game = amazons_env_of(env)
    if game.opponent is not None:
        raise InvalidArgumentError("play_episode drives both sides: use an env made without opponent=")
    players = (EnvPlayer(white), EnvPlayer(black))
    for colour, player in enumerate(players):
        player.reset()
        player.agent.seed(None if seed is None else seed * 2 + colour)
    _, info = env.reset(seed=seed, options=options)
    terminated = False
    while not terminated:
        player = players[int(game.side_to_move)]
        _, _, terminated, _, info = env.step(player.action(env))
    return int(info["winner"])
