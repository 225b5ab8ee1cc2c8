"""The game of an ``AmazonsEnv`` on the kernels' arrays: its position (``kernels.game``'s
``Positions`` of a batch of one), stepped and observed by the compiled kernels, and its moves.

The env keeps only the moves (public ``(from, to, arrow)`` squares) from the game's start
position; a ``Board`` with the moves on its stack is made up to date when something asks for
one (``env.board``, a board-level opponent), pushing each move once.

>>> from amazons_env import Board
>>> game = OneGame(Board(6), K.Geometry.of(6))
>>> code, obs, mask = game.step(1 * 36 + 19)   # b1-b4
>>> code == K.OK, int(game.meta[K.PHASE]), int(mask.sum()) > 0
(True, 1, True)
>>> _ = game.step(19 * 36 + 25); game.record(25); game.board().peek()   # its arrow b5
Move.parse('b1-b4/b5', size=6)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Optional

import numpy as np

from amazons_env.board import Board
from amazons_env.envs.actions import move_to_actions
from amazons_env.envs.descriptions import why_illegal
from amazons_env.envs.kernels import game as K
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.move import Move

__all__ = ["OneGame"]


@functools.cache
def _kernels() -> tuple[Any, Any]:
    """``single_step`` and ``write_obs_mask`` compiled for a batch of one (``K.compiled``; the
    types are those of every board size)."""
    games, geometry, out = K.start_positions(Board(4), 1), K.Geometry.of(4), K.new_observations(4, 1)
    return K.compiled(K.single_step, games, geometry, 0, out), K.compiled(K.write_obs_mask, games, 0, geometry, 0, out)


class OneGame:
    """The game that starts at ``start`` (a copy of it, without its own moves, is kept), with
    ``moves`` played and, when given, its kernel ``arrays`` (``Positions``' four, copied) after
    them; ``geometry``: ``K.Geometry.of(start.size)``, made once by the env (not per game)."""

    def __init__(
        self,
        start: Board,
        geometry: K.Geometry,
        moves: Iterable[tuple[int, int, int]] = (),
        arrays: Optional[Iterable[np.ndarray]] = None,
    ) -> None:
        self.size = size = start.size
        self.geometry = geometry
        self.positions = K.start_positions(start, 1) if arrays is None else K.Positions(*map(np.array, arrays))
        self.meta = self.positions.meta[0]  #: the game's meta row (``line_words``)
        self.origin = start.copy(stack=False)
        self.moves = list(moves)
        self._board = self.origin.copy()
        self._legal = np.zeros((1, K.max_legal(size)), np.int32)
        self._nn = size * size
        self._single_step, self._write_obs_mask = _kernels()

    def step(self, action: int) -> tuple[int, np.ndarray, np.ndarray]:
        """Play the flat ``action`` (in range): its code (``K.OK``, ``K.WIN``, ``K.ILLEGAL``: then
        nothing changed) and the next observation (for the side to move, flat) and mask."""
        nn = self._nn
        obs, mask = np.zeros(NUM_PLANES * nn, np.int8), np.zeros(nn * nn, np.int8)
        out = K.Observations(obs[None], mask[None], self._legal)
        code = self._single_step(self.positions, self.geometry, action, out)
        return code, obs, mask

    def observe(self, perspective: int) -> tuple[np.ndarray, np.ndarray]:
        """The planes ``[NUM_PLANES, N, N]`` seen by ``perspective`` and, on its turn, the mask."""
        nn = self._nn
        obs, mask = np.zeros(NUM_PLANES * nn, np.int8), np.zeros(nn * nn, np.int8)
        out = K.Observations(obs[None], mask[None], self._legal)
        self._write_obs_mask(self.positions, 0, self.geometry, perspective, out)
        return obs.reshape(NUM_PLANES, self.size, self.size), mask

    def play(self, move: Move) -> int:
        """Play a whole legal ``move`` (a board-level opponent's) and record it; returns the
        code of its arrow step."""
        code = K.OK
        for action in move_to_actions(move):
            code = K.step_one(self.positions, 0, self.geometry, action)
        self.record(move.arrow)
        return code

    def why_illegal(self, frm: int, to: int) -> str:
        """Why the slide ``frm`` -> ``to`` (public squares) is not a legal action now."""
        geometry, games = self.geometry, self.positions
        return why_illegal(self.meta, games.queens[0], games.nq[0], geometry.pad, geometry.pub, self.size, frm, to)

    def record(self, arrow: int) -> None:
        """Add the move whose arrow (public square) has just been shot."""
        pub = self.geometry.pub
        self.moves.append((int(pub[self.meta[K.SRC]]), int(pub[self.meta[K.DST]]), arrow))

    @property
    def last(self) -> tuple[int, ...]:
        """The last move, or ``()`` before the first."""
        return self.moves[-1] if self.moves else ()

    def board(self) -> Board:
        """The position after the moves (in the arrow phase: before the pending queen move), as
        a ``Board`` with them on its stack: this game's own (copy it to keep or change it)."""
        board = self._board
        for f, t, a in self.moves[board.ply :]:
            board.push_unchecked(Move(f, t, a, self.size))
        return board
