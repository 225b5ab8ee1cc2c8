"""Opponents that reply on the tensors' own device, for the tensor envs' ``opponent=``.

An opponent is called as ``opponent(state, encoding, generator) -> int64[B]``: one action for
every game of the batch (the env keeps only those of the games where the opponent is to move;
0 where a game is over). ``"random"`` is ``RandomOpponent()`` (uniform over the legal actions);
a ``torch.nn.Module`` is ``PolicyOpponent(module)``, a frozen copy of a policy net called as
``net(observation, action_mask) -> logits``, with ``observation`` the env's ``int8[B, 9, N, N]``
planes (seen by the side to move, which is the opponent) and ``action_mask`` its ``bool[B, A]``
mask in the env's encoding, returning ``float[B, A]`` logits: the same tensors the env hands its
learner, so a learner's actor net can be frozen and played against as it is.

>>> from amazons_env.tensor.rules import legal_mask
>>> from amazons_env.tensor.state import initial_state
>>> state = initial_state(3, size=6)
>>> opponent = make_opponent("random")
>>> actions = opponent(state, "flat", torch.Generator().manual_seed(0))
>>> bool(legal_mask(state).gather(1, actions[:, None]).all())
True
>>> class Uniform(torch.nn.Module):
...     def forward(self, observation, action_mask):
...         return torch.zeros(action_mask.shape)
>>> actions = make_opponent(Uniform())(state, "lines", torch.Generator().manual_seed(0))
>>> bool(legal_mask(state, "lines").gather(1, actions[:, None]).all())
True
"""

from __future__ import annotations

import copy
from typing import Any, Optional, Union

import torch

from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.tensor.rules import observe
from amazons_env.tensor.sampling import random_actions
from amazons_env.tensor.state import TensorState

__all__ = ["RandomOpponent", "PolicyOpponent", "make_opponent"]


class RandomOpponent:
    """A uniformly random legal action in every game, drawn with the env's ``generator``."""

    def __call__(self, state: TensorState, encoding: str, generator: torch.Generator) -> torch.Tensor:
        return random_actions(state, encoding, generator)

    def __repr__(self) -> str:
        return "RandomOpponent()"


class PolicyOpponent:
    """A frozen copy of ``net`` (``net(observation, action_mask) -> logits``, see the module
    docstring) on ``device``: its weights are copied at construction, so training the original
    does not change the opponent. ``greedy=False`` (default) samples from the masked softmax
    with the env's ``generator``; ``greedy=True`` plays the most likely legal action."""

    def __init__(self, net: torch.nn.Module, greedy: bool = False, device: torch.device | str | None = None) -> None:
        if not isinstance(net, torch.nn.Module):
            raise InvalidArgumentError(
                f"net={describe(net)}: use a torch.nn.Module mapping (observation, mask) to logits"
            )
        if not isinstance(greedy, bool):
            raise InvalidArgumentError(f"greedy={describe(greedy)} must be True or False")
        self.net = copy.deepcopy(net).requires_grad_(False).eval()
        if device is not None:
            self.net.to(device)
        self.greedy = greedy

    def __call__(self, state: TensorState, encoding: str, generator: torch.Generator) -> torch.Tensor:
        obs, mask = observe(state, encoding)
        with torch.no_grad():
            logits = self.net(obs, mask)
        if not isinstance(logits, torch.Tensor) or logits.shape != mask.shape:
            raise InvalidMoveError(
                f"the opponent net returned {describe(logits)}: expected logits of shape {tuple(mask.shape)}"
            )
        scores = logits.float()
        if not self.greedy:  # Gumbel-max: a sample of the softmax, drawn with the env's generator
            uniform = torch.rand(scores.shape, generator=generator, device=scores.device)
            scores = scores - torch.log(-torch.log(uniform.clamp(min=1e-20)))
        actions = scores.masked_fill(~mask, -torch.inf).argmax(dim=1)
        return torch.where(mask.any(dim=1), actions, 0)

    def __repr__(self) -> str:
        return f"PolicyOpponent({type(self.net).__name__}, greedy={self.greedy})"


def make_opponent(
    opponent: Any, device: torch.device | str | None = None
) -> Optional[Union[RandomOpponent, PolicyOpponent]]:
    """``opponent=`` of the tensor envs as a callable: ``None`` (self-play), ``"random"``, a
    ``torch.nn.Module`` (a sampling ``PolicyOpponent`` on ``device``), or a ``RandomOpponent``
    or ``PolicyOpponent`` (its net moved to ``device``)."""
    if opponent is None:
        return None
    if isinstance(opponent, str):
        if opponent == "random":
            return RandomOpponent()
        raise InvalidArgumentError(
            f"opponent={opponent!r}: the tensor envs play 'random' or a policy net on their device "
            "(the agents of agents.make run on CPU boards: use AmazonsVectorEnv for them)"
        )
    if isinstance(opponent, torch.nn.Module):
        return PolicyOpponent(opponent, device=device)
    if isinstance(opponent, PolicyOpponent):
        return PolicyOpponent(opponent.net, opponent.greedy, device)
    if isinstance(opponent, RandomOpponent):
        return opponent
    raise InvalidArgumentError(
        f"opponent={describe(opponent)}: use None, 'random', a torch.nn.Module (a policy net), "
        "a RandomOpponent or a PolicyOpponent"
    )
