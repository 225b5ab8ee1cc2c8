"""The rules of the Amazons on torch tensors: a batch of games on any device (needs torch; the
numba core in ``amazons_env.core`` stays the reference these are checked against).

``state`` (``TensorState`` and its constructors), ``rules`` (``legal_mask``, ``step``,
``observation``), ``sampling`` (``random_actions``), ``games`` (``TensorGames``, a stateful
wrapper). ``import amazons_env`` does not import this package (torch is optional).

>>> from amazons_env.tensor import initial_state, legal_mask
>>> int(legal_mask(initial_state(1, size=10)).sum())
80
"""

from __future__ import annotations

from amazons_env.tensor.games import TensorGames
from amazons_env.tensor.rules import NUM_PLANES, legal_counts, legal_mask, observation, observe, step
from amazons_env.tensor.sampling import random_actions
from amazons_env.tensor.state import TensorState, from_boards, initial_state, select, to_boards, where

__all__ = [
    "TensorState",
    "initial_state",
    "from_boards",
    "to_boards",
    "select",
    "where",
    "NUM_PLANES",
    "legal_mask",
    "legal_counts",
    "step",
    "observation",
    "observe",
    "random_actions",
    "TensorGames",
]
