"""The opponent's turns inside ``AmazonsVectorEnv.step`` (its single-agent games): the learners'
colours at each game's start, the opponent's two half-turns in every game where it is to move (a
``BatchOpponent``, a batched policy, or ``UniformRandom``'s whole turn in one kernel), and then
the learner's rewards and the last observations of the games that ended, from the learner's side.

>>> import numpy as np
>>> from amazons_env.envs.vector_env import AmazonsVectorEnv
>>> envs = AmazonsVectorEnv(2, size=6, opponent=UniformRandom(), learner_color="black")
>>> _, infos = envs.reset(seed=0)   # the opponent (White) has made its first move
>>> infos["move_number"].tolist(), infos["player"].tolist()
([1, 1], [1, 1])
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from amazons_env.envs.actions import ActionCodec
from amazons_env.envs.batch_opponents import BatchGames, BatchOpponent, BatchPolicy, UniformRandom
from amazons_env.envs.kernels import batch as B
from amazons_env.envs.kernels import game as K
from amazons_env.errors import IllegalMoveError, InvalidMoveError
from amazons_env.squares import Color

__all__ = ["Replies"]


class Replies:
    """The opponent of a vector env's games (``opponent`` or ``policy``, one of them None) and
    the learners' colours ``learner`` (an array the env owns and shows), on the env's kernel
    bundles (its games' ``Positions``, ``Geometry``, ``Observations`` and ``Outcomes``).
    ``policy_inputs(which)`` gives a batched policy its planes and masks of the games ``which``
    (in the env's encoding)."""

    def __init__(
        self,
        opponent: Optional[BatchOpponent],
        policy: Optional[BatchPolicy],
        learner_choice: Union[str, Color],
        learner: np.ndarray,
        bundles: tuple[K.Positions, K.Geometry, K.Observations, B.Outcomes],
        codec: ActionCodec,
        policy_inputs: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    ) -> None:
        self.opponent, self.policy = opponent, policy
        self._learner_choice, self._learner = learner_choice, learner
        self._games, self._geometry, self._out, self._outcomes = games, geometry, out, _ = bundles
        self._codec, self._policy_inputs = codec, policy_inputs
        self._actions = np.zeros(len(learner), np.int64)
        #: what a BatchOpponent reads of the games
        self.view = BatchGames(*games, out.legal, geometry.size, geometry.dirs, geometry.pad, geometry.pub)
        self._random_turns = isinstance(opponent, UniformRandom)
        self._learner_outcomes = K.compiled(B.learner_outcomes, learner < 0, learner, *bundles)
        if self._random_turns:
            self._random_replies = K.compiled(B.random_replies, learner, np.zeros(1), *bundles[:3])

    def seed(self, rng: np.random.Generator) -> None:
        """Restart the opponent's random choices from a seed drawn from ``rng`` (a batched policy
        has none of its own: nothing is drawn)."""
        if self.opponent is not None:
            self.opponent.seed(int(rng.integers(2**63)))

    def new_games(self, which: np.ndarray, rng: np.random.Generator) -> None:
        """Colours (drawn from ``rng`` when random) and opponents of the games that (re)start."""
        count = np.count_nonzero(which)
        if not count:
            return
        choice = self._learner_choice
        self._learner[which] = rng.integers(2, size=count) if choice == "random" else int(choice)
        if self.opponent is not None:
            self.opponent.new_games(which)

    def play(self) -> None:
        """The opponent's turn (two half-turns) in every running game where it is to move."""
        meta = self._games.meta
        if self._random_turns:  # a whole turn in one kernel call
            assert isinstance(self.opponent, UniformRandom)
            uniforms = self.opponent.uniforms(2 * len(meta))
            self._random_replies(self._learner, uniforms, self._games, self._geometry, self._out)
            return
        for _ in range(2):
            games = np.flatnonzero((meta[:, K.DONE] == 0) & (meta[:, K.SIDE] != self._learner))
            if not len(games):
                return
            if self.policy is not None:
                self._actions[games] = self._policy_actions(self.policy, games)
            else:
                assert self.opponent is not None  # one of the two is set
                self.opponent.act(self.view, games, self._actions)
            B.step_some(games, self._games, self._actions, self._geometry, self._out)

    def outcomes(self, was_done: np.ndarray) -> None:
        """Rewards, terminations and final observations from the learner's side, after the
        opponent's replies (which may have ended games); ``was_done``: the games that had ended
        before this step."""
        self._learner_outcomes(was_done, self._learner, self._games, self._geometry, self._out, self._outcomes)

    def _policy_actions(self, policy: BatchPolicy, games: np.ndarray) -> np.ndarray:
        obs, masks = self._policy_inputs(games)
        chosen = np.asarray(policy(obs, masks))
        n = self._codec.n
        if chosen.shape != games.shape or chosen.dtype.kind not in "iu" or ((chosen < 0) | (chosen >= n)).any():
            raise InvalidMoveError(
                f"opponent policy returned {chosen!r}: expected {len(games)} integer actions in 0..{n - 1}"
            )
        flat = self._codec.to_flat_batch(chosen.astype(np.int64))
        legal = self._out.masks[games, flat] == 1
        if not legal.all():
            k = int(np.argmin(legal))
            raise IllegalMoveError(f"opponent policy chose illegal action {int(chosen[k])} in game {int(games[k])}")
        return flat

    def get_state(self) -> Any:
        return self.opponent.get_state() if self.opponent is not None else None

    def set_state(self, state: Any) -> None:
        if self.opponent is not None:
            self.opponent.set_state(state)
