"""Opponents that reply in all games of an ``AmazonsVectorEnv`` at once: ``BatchOpponent``.

The vector env asks its opponent for one half-turn (a queen move, then its arrow) of every game
where the opponent is to move, in one call: ``act(games, which, out)`` writes the flat action of
each game ``which[k]`` into ``out[which[k]]``. All games of one call are in the same phase. A
whole-move player chooses the move in the queen phase and keeps its arrow for the next call.

Two opponents live here, because they need nothing but the rules: ``UniformRandom`` (a uniformly
random queen move, then a uniformly random arrow of it, picked from the legal lists the env's
kernels keep: about the cost of the env's own step) and ``PerGameAgents`` (one board-level player
per game, ``select_move(board)``, called in Python: any agent, at its own speed). Searches live in
``agents`` (``agents.batch_opponents``: a one-ply territory greedy and ``uct`` with a node budget,
each a numba kernel over all games), which the envs never import: a spec string is resolved
through the ``amazons_env.batch_opponents`` entry point (``opponents.resolve_batch_opponent``).

A batched opponent is seeded by the env (``seed``, from the env's generator at ``reset(seed=...)``)
and told which games restart (``new_games``); ``get_state``/``set_state`` give what it keeps
between calls, for the env's own ``get_state``.

>>> import numpy as np
>>> from amazons_env.envs.vector_env import AmazonsVectorEnv
>>> envs = AmazonsVectorEnv(4, size=6, opponent=UniformRandom())
>>> _ = envs.reset(seed=0)
>>> _, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
>>> infos["phase"].tolist()   # the learner's arrow
[1, 1, 1, 1]
>>> _, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
>>> infos["phase"].tolist(), infos["move_number"].tolist()   # the opponent has replied
([0, 0, 0, 0], [2, 2, 2, 2])
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional, Sequence

import numpy as np
from numba import njit

from amazons_env.board import Board
from amazons_env.envs.actions import move_to_actions
from amazons_env.envs.kernels.game import NLEGAL, PHASE, SIDE
from amazons_env.errors import IllegalMoveError

__all__ = ["BatchGames", "BatchOpponent", "BatchPolicy", "UniformRandom", "PerGameAgents", "board_of", "sample_some"]

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``policy(obs, mask) -> actions``: planes ``int8[k, 9, N, N]`` and masks ``[k, A]`` of ``k``
games (in the env's action encoding and mask dtype) to ``k`` legal actions (the vector env's
other kind of opponent: e.g. a frozen copy of the learner's net)."""


class BatchGames(NamedTuple):
    """The games of a vector env as its kernels keep them (``kernels``' layout): padded ``cells``
    ``[B, P]``, ``queens`` ``[B, 2, Q]``, queen counts ``nq`` ``[B, 2]``, ``meta`` rows (``SIDE``,
    ``PHASE``, ``NLEGAL``...) and the ``legal`` lists of flat actions of the current phase; the
    board ``size``, ``dirs`` (``core.directions``), and the public-to-padded (``pad``) and
    padded-to-public (``pub``) squares. An opponent reads them and must not change them."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    meta: np.ndarray
    legal: np.ndarray
    size: int
    dirs: np.ndarray
    pad: np.ndarray
    pub: np.ndarray


class BatchOpponent:
    """The base of batched opponents (module docstring); ``act`` is the one method to write."""

    def act(self, games: BatchGames, which: np.ndarray, out: np.ndarray) -> None:
        """Write the action (flat: ``from * N*N + to``, public squares) of each game ``which[k]``
        into ``out[which[k]]``; every game listed is running, with the opponent to move."""
        raise NotImplementedError

    def seed(self, seed: int) -> None:
        """Restart the opponent's random choices from ``seed``."""

    def new_games(self, which: np.ndarray) -> None:
        """The games ``which`` (a bool mask) restart: forget what was kept for them."""

    def get_state(self) -> Any:
        """What the opponent keeps between calls (a copy), for ``set_state``."""
        return None

    def set_state(self, state: Any) -> None:
        """Go back to a ``get_state()``."""


@njit(cache=True)
def sample_some(which, meta, legal, uniforms, out):
    """``out[which[k]]``: the legal action of game ``which[k]`` that ``uniforms[k]`` in [0, 1)
    picks from its ``legal`` list."""
    for k in range(which.shape[0]):
        i = which[k]
        out[i] = legal[i, int(uniforms[k] * meta[i, NLEGAL])]


class UniformRandom(BatchOpponent):
    """A uniformly random queen move, then a uniformly random arrow for it (as the vector env's
    ``sample_legal_actions``): not the ``random`` agent's uniform choice among whole moves, which
    would need every move listed (2,176 at the 10x10 start), but as random and seeded.

    >>> UniformRandom(seed=3).get_state() == UniformRandom(seed=3).get_state()
    True
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, games: BatchGames, which: np.ndarray, out: np.ndarray) -> None:
        sample_some(which, games.meta, games.legal, self._rng.random(len(which)), out)

    def uniforms(self, count: int) -> np.ndarray:
        """``count`` draws in [0, 1) from this opponent's generator: the vector env plays this
        opponent's turns in one kernel (``kernels.batch.random_replies``) with them."""
        return self._rng.random(count)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def get_state(self) -> Any:
        return self._rng.bit_generator.state

    def set_state(self, state: Any) -> None:
        self._rng.bit_generator.state = state


def board_of(games: BatchGames, i: int) -> Board:
    """Game ``i``'s position as a ``Board`` (without its moves), for a board-level player: a
    copy of its cells (``Board.from_cells``)."""
    return Board.from_cells(games.size, games.cells[i], int(games.meta[i, SIDE]))


class PerGameAgents(BatchOpponent):
    """A board-level player per game (``select_move(board)``; ``seed(n)`` and ``reset()`` called
    when it has them), asked in Python one game at a time: any agent, timed ones included.
    ``players`` may repeat one object (then its ``reset()`` runs whenever any game restarts)."""

    def __init__(self, players: Sequence[Any]) -> None:
        self.players = list(players)
        self._pending = np.zeros(len(self.players), np.int64)  # the arrows of the moves chosen

    def act(self, games: BatchGames, which: np.ndarray, out: np.ndarray) -> None:
        if games.meta[which[0], PHASE] != 0:  # the arrows of the moves chosen in the queen phase
            out[which] = self._pending[which]
            return
        for i in which:
            board = board_of(games, int(i))
            move = self.players[i].select_move(board)
            if not board.is_legal(move):
                raise IllegalMoveError(f"opponent {self.players[i]!r} chose illegal move {move} in {board.text()!r}")
            out[i], self._pending[i] = move_to_actions(move)

    def seed(self, seed: int) -> None:
        seeds = np.random.default_rng(seed).integers(2**63, size=len(self.players))
        for player, value in zip(self.players, seeds):
            if callable(getattr(player, "seed", None)):
                player.seed(int(value))

    def new_games(self, which: np.ndarray) -> None:
        for i in np.flatnonzero(which):
            if callable(getattr(self.players[i], "reset", None)):
                self.players[i].reset()

    def get_state(self) -> Any:
        return self._pending.copy()

    def set_state(self, state: Any) -> None:
        self._pending[:] = state
