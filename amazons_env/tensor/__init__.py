"""The rules of the Amazons on torch tensors: a batch of games on any device (needs torch; the
numba core in ``amazons_env.core`` stays the reference these are checked against).

Every name of ``state`` (``TensorState``, its constructors and checks), ``rules`` (``legal_mask``, ``step``,
``observation``), ``sampling`` (``random_actions``) and ``games`` (``TensorGames``, a stateful
wrapper) is the package's. ``import amazons_env`` does not import this package (torch is optional).

>>> from amazons_env.tensor import initial_state, legal_mask
>>> int(legal_mask(initial_state(1, size=10)).sum())
80
"""

from __future__ import annotations

from amazons_env.tensor import games, rules, sampling, state
from amazons_env.tensor.games import *  # noqa: F403 (each module's __all__ is the package's)
from amazons_env.tensor.rules import *  # noqa: F403
from amazons_env.tensor.sampling import *  # noqa: F403
from amazons_env.tensor.state import *  # noqa: F403

__all__ = list(state.__all__)
__all__ += rules.__all__
__all__ += sampling.__all__
__all__ += games.__all__
