"""Checks of the arguments only ``AmazonsVectorEnv`` takes (the ones both envs take are in
``arguments``): each returns the value as the env keeps it, or raises ``InvalidArgumentError``
naming the argument.

>>> check_num_envs(np.int64(4)), check_num_threads(1)
(4, 1)
>>> check_autoreset_mode("Disabled")
<AutoresetMode.DISABLED: 'Disabled'>
>>> check_autoreset_mode("SameStep")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
amazons_env.errors.InvalidArgumentError: autoreset_mode='SameStep': use one of ['NextStep', 'Disabled'] ...
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numba
import numpy as np
from gymnasium.vector import AutoresetMode

from amazons_env.envs.arguments import reset_options
from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["MAX_ENVS", "check_num_envs", "check_num_threads", "check_autoreset_mode", "games_to_reset"]

MAX_ENVS = 2**20
"""The most games one ``AmazonsVectorEnv`` holds (a bound, so a huge ``num_envs`` is refused by
name instead of failing inside numpy)."""

# the modes the vector env implements: SameStep would need each ended game's final observation
# kept beside the reset one, which no client here asks for (TorchRL prefers Disabled)
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED)


def _is_integer(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an ``int`` from 1 to ``MAX_ENVS``."""
    if not _is_integer(num_envs) or not 1 <= num_envs <= MAX_ENVS:
        raise InvalidArgumentError(f"num_envs={describe(num_envs)} must be an integer from 1 to {MAX_ENVS}")
    return int(num_envs)


def check_num_threads(num_threads: Any) -> int:
    """``num_threads`` as an ``int`` from 1 to numba's ``NUMBA_NUM_THREADS``."""
    limit = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba.config sets it at import
    if not _is_integer(num_threads) or not 1 <= num_threads <= limit:
        raise InvalidArgumentError(
            f"num_threads={describe(num_threads)} must be an integer from 1 to {limit} (NUMBA_NUM_THREADS)"
        )
    return int(num_threads)


def check_autoreset_mode(value: Any) -> AutoresetMode:
    """``value`` as an ``AutoresetMode`` the vector env implements: the member or its string value,
    as gymnasium's ``SyncVectorEnv`` takes it."""
    for mode in AUTORESET_MODES:
        if value is mode or (isinstance(value, str) and value == mode.value):
            return mode
    raise InvalidArgumentError(
        f"autoreset_mode={describe(value)}: use one of {[mode.value for mode in AUTORESET_MODES]} "
        "(or gymnasium.vector.AutoresetMode's members; SameStep is not implemented)"
    )


def games_to_reset(options: Any, num_envs: int, started: bool) -> np.ndarray:
    """The games ``reset(options=options)`` resets, as a contiguous ``bool[num_envs]``: all of
    them, or ``options["reset_mask"]`` (refused before the first reset unless it is all True)."""
    which = np.ones(num_envs, np.bool_)
    options = reset_options(options, "reset_mask", "AmazonsVectorEnv")
    if "reset_mask" in options:
        which = np.asarray(options["reset_mask"])
        if which.dtype != np.bool_ or which.shape != (num_envs,):
            raise InvalidArgumentError(f"options['reset_mask'] must be a bool array of shape ({num_envs},)")
        which = np.ascontiguousarray(which)
        if not started and not which.all():
            raise gymnasium.error.ResetNeeded("the first reset must reset every game")
    return which
