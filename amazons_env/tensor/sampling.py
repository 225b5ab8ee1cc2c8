"""Uniformly random legal actions of a batch, drawn on the state's device.

The draw reads the side to move's queen lines (``[B, Q, 8, N-1]``, at most 288 entries a game
on 10x10) rather than the ``N**4`` mask: Gumbel-max over the legal entries, then the chosen
line's action id in either encoding.

>>> from amazons_env.tensor.rules import legal_mask
>>> from amazons_env.tensor.state import initial_state
>>> state = initial_state(4, size=6)
>>> actions = random_actions(state, generator=torch.Generator().manual_seed(0))
>>> bool(legal_mask(state).gather(1, actions[:, None]).all())
True
"""

from __future__ import annotations

from typing import Optional

import torch

from amazons_env.tensor.reach import mover_reach
from amazons_env.tensor.state import TensorState, check_encoding, check_state

__all__ = ["random_actions"]


def random_actions(
    state: TensorState, encoding: str = "flat", generator: Optional[torch.Generator] = None
) -> torch.Tensor:
    """``int64[B]``: a uniformly random legal action of each game (0 in a finished game)."""
    check_state(state)
    encoding = check_encoding(encoding)
    b, n = state.batch_size, state.size
    sources, targets, reach, distinct = mover_reach(state)
    reach = (reach & distinct[:, :, None, None]).view(b, -1)
    # Gumbel-max with uniform keys: legal entries get [1, 2), the rest 0
    keys = torch.rand(reach.shape, generator=generator, device=state.device).add_(1).mul_(reach)
    choice = keys.argmax(dim=1, keepdim=True)
    per_source = 8 * (n - 1)
    source = sources.gather(1, choice // per_source)[:, 0]
    if encoding == "flat":
        action = source * (n * n) + targets.view(b, -1).gather(1, choice)[:, 0]
    else:
        action = source * per_source + choice[:, 0] % per_source
    return torch.where(state.terminated, 0, action)
