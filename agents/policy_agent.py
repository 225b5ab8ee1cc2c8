"""``PolicyAgent``: a batched policy ``policy(obs, mask) -> actions`` (e.g. a trained net) as an
``Agent``, so a checkpoint plays in matches and tournaments and gets an Elo.

The agent sets up an ``AmazonsEnv`` at the board's position, asks the policy for the queen
action, steps, asks for the arrow action and returns the whole move; the policy sees exactly the
observations and masks it was trained on (in its ``action_encoding``).

>>> import numpy as np
>>> from amazons_env import Board
>>> agent = PolicyAgent(lambda obs, mask: mask.argmax(axis=1), size=6)   # lowest legal actions
>>> str(agent.select_move(Board(6)))
'b1-a1/b1'

To rate a checkpoint in the arena, expose a factory in a file and name it in a spec, e.g.
``examples/selfplay_ppo.py:checkpoint_agent:path=runs/ppo/final`` (see that example).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from amazons_env import Board, Move
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.vector_env import BatchPolicy
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent

__all__ = ["PolicyAgent"]


class PolicyAgent(Agent):
    """Plays the moves of a batched policy. ``size``: the board size it plays on (one env per
    agent, reused); ``action_encoding``: ``"flat"`` or ``"lines"``, what the policy outputs;
    ``mask_dtype``: the mask it expects. ``name`` shows in match results."""

    name = "policy"

    def __init__(
        self,
        policy: BatchPolicy,
        size: int,
        action_encoding: str = "flat",
        mask_dtype: str = "int8",
        name: str = "policy",
        seed: Optional[int] = None,
    ) -> None:
        super().__init__(seed)
        if not callable(policy):
            raise InvalidArgumentError(
                f"PolicyAgent: policy={policy!r} is not callable as policy(obs, mask) -> actions"
            )
        self.policy = policy
        self.name = self.spec = name
        self._env = AmazonsEnv(
            size=size, action_encoding=action_encoding, mask_dtype=mask_dtype, illegal_action="raise"
        )

    def select_move(self, board: Board) -> Move:
        env = self._env
        if board.size != env.size:
            raise InvalidArgumentError(
                f"PolicyAgent {self.name!r} plays {env.size}x{env.size}, the board is {board.size}x{board.size}"
            )
        if board.is_game_over():
            raise InvalidArgumentError(f"PolicyAgent asked to move in a finished game: {board.text()!r}")
        obs, info = env.reset(options={"position": board.copy(stack=False)})
        for _ in range(2):  # queen move, then arrow; an illegal choice raises IllegalMoveError
            action = np.asarray(self.policy(obs[None], info["action_mask"][None])).reshape(-1)[0]
            obs, _, _, _, info = env.step(int(action))
        return env.board.peek()
