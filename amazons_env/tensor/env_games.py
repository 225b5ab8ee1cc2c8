"""``EnvGames``: the games behind the tensor envs (``AmazonsTorchEnv``, ``AmazonsTensorVectorEnv``):
the batched state, each game's learner colour and the opponent's replies, on one device.

Without an opponent both sides act through ``step`` (self-play) and ``reward`` is the acting
side's. With one, it replies inside ``step`` (and moves first where the learner is Black), and
``reward`` and ``player`` are the learner's; the last observation of a game is from the
learner's side, as ``AmazonsEnv`` gives it.

>>> games = EnvGames(2, 6, "cpu", action_encoding="flat", opponent="random", learner_color="black")
>>> games.seed(0)
>>> out = games.reset()
>>> games.state.move_number.tolist(), out.player.tolist()   # the opponent has played White's turn
([1, 1], [1, 1])
>>> out = games.step(games.random_actions())
>>> out.observation.shape, out.action_mask.shape, out.player_rewards.shape
(torch.Size([2, 9, 6, 6]), torch.Size([2, 1296]), torch.Size([2, 2]))
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Union

import torch

from amazons_env.envs.actions import ENCODINGS, num_actions
from amazons_env.envs.arguments import check_choice, check_seed, parse_color
from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import Color
from amazons_env.tensor.opponents import make_opponent
from amazons_env.tensor.rules import observe, step
from amazons_env.tensor.sampling import random_actions
from amazons_env.tensor.state import TensorState, initial_state, where

__all__ = ["EnvGames", "Outcome"]


class Outcome(NamedTuple):
    """What the envs report after a reset or a step (``[B]`` tensors unless said)."""

    observation: torch.Tensor  # int8 [B, 9, N, N]
    action_mask: torch.Tensor  # bool [B, A]
    player: torch.Tensor  # int64: the side to move, or the learner's colour with an opponent
    reward: torch.Tensor  # float32: the acting side's reward, or the learner's with an opponent
    player_rewards: torch.Tensor  # float32 [B, 2]: this step's reward of White and of Black
    terminated: torch.Tensor  # bool
    illegal: torch.Tensor  # bool: the game ended on an illegal action of the learner (or actor)


class EnvGames:
    """``batch_size`` games of ``size`` on ``device`` (see the module docstring), with the options
    of the env that owns them, which holds their defaults."""

    def __init__(
        self,
        batch_size: int,
        size: int,
        device: torch.device | str | None,
        *,
        action_encoding: str,
        opponent: Any,
        learner_color: Union[str, int, Color],
    ) -> None:
        self.encoding = check_choice("action_encoding", action_encoding, ENCODINGS)
        self._start = initial_state(batch_size, size, device)
        self.state: TensorState = self._start
        self.device = self._start.device
        self.num_actions = num_actions(self._start.size, self.encoding)
        self.opponent = make_opponent(opponent, self.device)
        if self.opponent is None and learner_color != "white":
            raise InvalidArgumentError(
                f"learner_color={describe(learner_color)} needs an opponent (without one both sides learn)"
            )
        self._learner_choice = parse_color(learner_color, allow_random=True)
        fixed = 0 if self._learner_choice == "random" else int(self._learner_choice)
        self.learner = torch.full((batch_size,), fixed, dtype=torch.int64, device=self.device)
        # games advance in step, so the opponent is to move in all or none of them at most steps:
        # on the CPU skipping its idle half-steps saves their cost; on an accelerator the test
        # would read from the device (a synchronisation), so both half-steps run, kept by ``where``
        self._skip_idle_replies = self.device.type == "cpu"
        self.generator = torch.Generator(device=self.device)
        self.generator.seed()  # unseeded runs differ, as gymnasium's and TorchRL's envs do

    @property
    def batch_size(self) -> int:
        return self._start.batch_size

    def seed(self, seed: Optional[int]) -> None:
        """Reseed the draws (learner colours, the opponent's choices); ``None``: from entropy."""
        seed = check_seed(seed)
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(seed)

    def reset(self, which: Optional[torch.Tensor] = None) -> Outcome:
        """Restart the games where ``which`` (``bool[B]``; all when None); the others are kept."""
        state = self._start if which is None else where(which, self._start, self.state)
        if self._learner_choice == "random":
            drawn = torch.randint(2, (self.batch_size,), generator=self.generator, device=self.device)
            self.learner = drawn if which is None else torch.where(which, drawn, self.learner)
        zeros = torch.zeros(self.batch_size, 2, device=self.device)
        self.state, _ = self._replies(state, zeros)
        return self._outcome(zeros, torch.zeros_like(self.state.terminated))

    def step(self, actions: torch.Tensor, restart: Optional[torch.Tensor] = None) -> Outcome:
        """One action of the learner (or the side to move) in every game, then the opponent's
        replies; the finished games where ``restart`` (``bool[B]``) is set are restarted instead
        (their action is ignored, reward 0: gymnasium's next-step autoreset)."""
        before = self.state
        state, rewards, _ = step(before, actions, self.encoding)
        # a step can lose only for the side that made it, and only by an illegal action
        illegal = state.terminated & ~before.terminated & (state.winner != before.side)
        actor = before.side
        state, rewards = self._replies(state, rewards)
        self.state = state
        if restart is not None:
            self.reset(restart)
            rewards = torch.where(restart[:, None], 0.0, rewards)
            illegal = illegal & ~restart
        return self._outcome(rewards, illegal, actor)

    def random_actions(self) -> torch.Tensor:
        """A uniformly random legal action of every game (0 where one is over)."""
        return random_actions(self.state, self.encoding, self.generator)

    # -- internals ---------------------------------------------------------------------------------

    def _replies(self, state: TensorState, rewards: torch.Tensor) -> tuple[TensorState, torch.Tensor]:
        """The opponent's half-turns (queen, arrow) in the running games where it is to move."""
        if self.opponent is None:
            return state, rewards
        for _ in range(2):
            to_move = ~state.terminated & (state.side != self.learner)
            if self._skip_idle_replies and not bool(to_move.any()):
                break
            actions = self.opponent(state, self.encoding, self.generator)  # in range by construction
            replied, reply_rewards, _ = step(state, actions, self.encoding, check_range=False)
            state = where(to_move, replied, state)
            rewards = rewards + torch.where(to_move[:, None], reply_rewards, 0.0)
        return state, rewards

    def _outcome(self, rewards: torch.Tensor, illegal: torch.Tensor, actor: Optional[torch.Tensor] = None) -> Outcome:
        state = self.state
        if self.opponent is None:
            seen = state
            player = state.side.clone()
            owner = state.side if actor is None else actor
        else:
            # a game the learner ended is over on the opponent's turn: it is shown from the
            # learner's side (a finished game's planes have no arrow phase, so flipping the side
            # to move is all it takes)
            seen = state._replace(side=torch.where(state.terminated, self.learner, state.side))
            player = self.learner.clone()
            owner = self.learner
        obs, mask = observe(seen, self.encoding)
        # a finished game shows every action until its reset (AmazonsEnv's "Mask": pgx's convention)
        mask = mask | state.terminated[:, None]
        reward = rewards.gather(1, owner[:, None])[:, 0]
        return Outcome(obs, mask, player, reward, rewards, state.terminated.clone(), illegal)
