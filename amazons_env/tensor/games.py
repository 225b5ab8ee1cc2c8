"""``TensorGames``: a thin stateful wrapper over the pure tensor rules (a batch of games that
steps in place), for loops that want an env-like object without TorchRL.

>>> games = TensorGames(4, size=6)
>>> obs, mask = games.reset(seed=0)
>>> obs.shape, mask.shape, mask.sum(dim=1).tolist()
(torch.Size([4, 9, 6, 6]), torch.Size([4, 1296]), [40, 40, 40, 40])
>>> obs, rewards, terminated, mask = games.step(games.random_actions())
>>> games.state.phase.tolist()
[1, 1, 1, 1]
"""

from __future__ import annotations

from typing import Optional

import torch

from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import as_int
from amazons_env.tensor.rules import observe, step
from amazons_env.tensor.sampling import random_actions
from amazons_env.tensor.state import TensorState, check_encoding, initial_state, where

__all__ = ["TensorGames"]


class TensorGames:
    """``batch_size`` games of ``size`` on ``device`` with actions in ``encoding``. ``state`` is
    the current ``TensorState`` (replaced, never changed in place, by ``reset`` and ``step``)."""

    def __init__(
        self, batch_size: int, size: int = 10, device: torch.device | str | None = None, encoding: str = "flat"
    ) -> None:
        self.encoding = check_encoding(encoding)
        self._start = initial_state(batch_size, size, device)
        self.state: TensorState = self._start
        self.generator = torch.Generator(device=self._start.device)

    @property
    def device(self) -> torch.device:
        return self._start.device

    def reset(
        self, which: Optional[torch.Tensor] = None, seed: Optional[int] = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Restart the games where ``which`` (``bool[B]``; all when None) from the start position;
        ``seed`` reseeds ``generator`` (``random_actions``). Returns ``(observation, mask)``."""
        if seed is not None:
            value = as_int(seed)
            if value is None or value < 0:
                raise InvalidArgumentError(f"seed={describe(seed)}: use an integer >= 0 or None")
            self.generator.manual_seed(value)
        if which is not None and not (
            isinstance(which, torch.Tensor) and which.dtype == torch.bool and which.shape == self.state.side.shape
        ):
            shape = (self.state.batch_size,)
            raise InvalidArgumentError(f"which={describe(which)}: use None or a bool tensor of shape {shape}")
        self.state = self._start if which is None else where(which, self._start, self.state)
        return observe(self.state, self.encoding)

    def step(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """One phase of every game: ``(observation, rewards [B, 2], terminated, mask)``."""
        self.state, rewards, terminated = step(self.state, actions, self.encoding)
        obs, mask = observe(self.state, self.encoding)
        return obs, rewards, terminated, mask

    def random_actions(self) -> torch.Tensor:
        """A uniformly random legal action of each game, drawn with ``generator``."""
        return random_actions(self.state, self.encoding, self.generator)
