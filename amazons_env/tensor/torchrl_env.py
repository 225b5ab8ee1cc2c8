"""``AmazonsTorchEnv``: a batch of Amazons games as a TorchRL ``EnvBase`` whose tensors stay on
its device (needs torchrl: ``pip install "amazons[rl]"``).

>>> from torchrl.envs import TransformedEnv
>>> from torchrl.envs.transforms import ActionMask
>>> env = TransformedEnv(AmazonsTorchEnv(batch_size=[4], size=6, opponent="random"), ActionMask())
>>> _ = env.set_seed(0)
>>> td = env.reset()
>>> td["observation"].shape, td["action_mask"].shape, td["action_mask"].sum(-1).tolist()
(torch.Size([4, 9, 6, 6]), torch.Size([4, 1296]), [40, 40, 40, 40])
>>> rollout = env.rollout(3)   # random legal actions: ActionMask masks the action spec
>>> rollout["next", "reward"].shape, rollout["next", "observation"].shape
(torch.Size([4, 3, 1]), torch.Size([4, 3, 9, 6, 6]))

Self-play, one reward entry per player (TorchRL's convention for turn-based games):

>>> env = AmazonsTorchEnv(batch_size=[2], size=6)
>>> sorted(env.reward_keys)
[('player_0', 'reward'), ('player_1', 'reward')]
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import torch
from tensordict import TensorDict, TensorDictBase  # type: ignore[import-untyped]
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from amazons_env.envs.planes import NUM_PLANES
from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import Color
from amazons_env.tensor.env_games import EnvGames, Outcome

__all__ = ["AmazonsTorchEnv", "PLAYER_KEYS"]

PLAYER_KEYS = ("player_0", "player_1")
"""The reward groups of self-play, White then Black (the PettingZoo env's agent names)."""


def _batch_size(batch_size: Any) -> int:
    """``batch_size`` (``B``, ``[B]`` or ``torch.Size([B])``) as ``B``."""
    if isinstance(batch_size, int) and not isinstance(batch_size, bool):
        value: Any = batch_size
    elif isinstance(batch_size, (list, tuple)) and len(batch_size) == 1:  # torch.Size is a tuple
        value = batch_size[0]
    else:
        value = None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentError(f"batch_size={describe(batch_size)}: use [B] with an integer B >= 1")
    return value


class AmazonsTorchEnv(EnvBase):
    """``batch_size`` (``[B]``) games of Amazons on ``device``, as a TorchRL env.

    Rules, action ids, masks and observation planes are ``AmazonsEnv``'s (its docstring is the
    reference), computed by ``amazons_env.tensor`` on ``device``; each step is one phase of a
    turn (a queen move, then its arrow).

    **Specs.** ``action``: ``Categorical(A)`` (shape ``[B]``; ``A = N**4`` for
    ``action_encoding="flat"``, ``N*N*8*(N-1)`` for ``"lines"``). Observation entries:
    ``observation`` (``int8[B, 9, N, N]`` planes, from the side to move), ``action_mask``
    (``bool[B, A]``, a ``Binary`` spec: the entry TorchRL's ``ActionMask`` transform and
    ``MaskedCategorical`` read; all ``True`` in a finished game, pgx's convention, so a masked
    sampler can draw the action its reset ignores), ``player`` and ``phase``
    (``int64[B, 1]``: the side to move, or the learner's colour with an opponent; 0 queen move,
    1 arrow). ``done``, ``terminated`` and ``truncated`` are ``bool[B, 1]`` (games never
    truncate).

    **Rewards.** Self-play (no opponent): one reward entry per player, ``("player_0", "reward")``
    for White and ``("player_1", "reward")`` for Black (``float32[B, 1]``, TorchRL's
    convention for turn-based games, as its ``TicTacToeEnv``): 0 during the game, +1 to the
    winner and -1 to the loser on the step a game ends. With ``opponent=`` (``"random"``, a
    policy net ``net(observation, action_mask) -> logits`` or an opponent of
    ``amazons_env.tensor.opponents``) the env is single-agent: the opponent replies inside the
    step, on the same device, and ``reward`` (``float32[B, 1]``) is the learner's; its colour is
    ``learner_color`` (``"white"``, ``"black"`` or ``"random"``, drawn per game at each reset).

    **Resets.** ``reset()`` restarts every game; a ``"_reset"`` entry (``bool[B, 1]``) restarts
    only those games (TorchRL's partial resets, as its collectors and ``rollout`` send them).
    An illegal action loses (``AmazonsEnv``'s ``illegal_action="lose"``); stepping a finished
    game leaves it as it is. ``set_seed`` seeds the env's generator (learner colours and the
    opponent's draws; unseeded, they come from entropy).
    """

    batch_locked = True

    def __init__(
        self,
        batch_size: Union[int, Sequence[int], torch.Size] = 1,
        size: int = 10,
        device: torch.device | str | None = None,
        *,
        action_encoding: str = "flat",
        opponent: Any = None,
        learner_color: Union[str, int, Color] = "white",
    ) -> None:
        b = _batch_size(batch_size)
        self._games = games = EnvGames(
            b, size, device, action_encoding=action_encoding, opponent=opponent, learner_color=learner_color
        )
        super().__init__(device=games.device, batch_size=torch.Size([b]))
        self.size, self.action_encoding, self.opponent = games.state.size, games.encoding, games.opponent
        n, dev = self.size, games.device
        self.observation_spec = Composite(
            observation=Bounded(0, 1, (b, NUM_PLANES, n, n), dtype=torch.int8, device=dev),
            action_mask=Binary(games.num_actions, (b, games.num_actions), dtype=torch.bool, device=dev),
            player=Categorical(2, (b, 1), dtype=torch.int64, device=dev),
            phase=Categorical(2, (b, 1), dtype=torch.int64, device=dev),
            shape=(b,),
            device=dev,
        )
        self.action_spec = Categorical(games.num_actions, (b,), dtype=torch.int64, device=dev)
        if self.opponent is None:
            self.reward_spec = Composite(
                {key: Composite(reward=Unbounded((b, 1), device=dev), shape=(b,)) for key in PLAYER_KEYS},
                shape=(b,),
                device=dev,
            )
        else:
            self.reward_spec = Unbounded((b, 1), device=dev)
        done = Categorical(2, (b, 1), dtype=torch.bool, device=dev)
        self.done_spec = Composite(done=done, terminated=done.clone(), truncated=done.clone(), shape=(b,), device=dev)

    @property
    def state(self):
        """The games' ``TensorState`` (``amazons_env.tensor.state``; replaced at every step)."""
        return self._games.state

    def _reset(self, tensordict: Optional[TensorDictBase] = None, **kwargs: Any) -> TensorDictBase:
        which = None
        if tensordict is not None and "_reset" in tensordict.keys():
            which = tensordict.get("_reset").reshape(self.batch_size)
        return self._output(self._games.reset(which), with_reward=False)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        return self._output(self._games.step(tensordict.get("action")), with_reward=True)

    def _set_seed(self, seed: Optional[int]) -> None:
        self._games.seed(seed)

    def _output(self, outcome: Outcome, with_reward: bool) -> TensorDictBase:
        terminated = outcome.terminated[:, None]
        data = {
            "observation": outcome.observation,
            "action_mask": outcome.action_mask,
            "player": outcome.player[:, None],
            "phase": self._games.state.phase[:, None].clone(),
            "done": terminated,
            "terminated": terminated.clone(),
            "truncated": torch.zeros_like(terminated),
        }
        if with_reward:
            if self.opponent is None:
                for column, key in enumerate(PLAYER_KEYS):
                    data[key, "reward"] = outcome.player_rewards[:, column : column + 1]  # type: ignore[index]
            else:
                data["reward"] = outcome.reward[:, None]
        return TensorDict(data, batch_size=self.batch_size, device=self.device)
