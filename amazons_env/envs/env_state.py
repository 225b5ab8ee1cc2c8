"""What ``get_state()`` returns and ``set_state()`` takes on ``AmazonsEnv`` and ``AmazonsVectorEnv``:
everything a later ``step`` reads, copied, so that a planner can look ahead on one env (or on a
``clone()``) and come back.

A state holds copies of the env's arrays (the positions, the bit words of ``kernels``' ``meta``
rows, the current observations, masks and legal lists, the last step's outputs), the learner's
colours, the env's random generator and, for the vector env, its batched opponent's own state
(``batch_opponents``). Restoring one copies it back in: the state can be restored any number of
times and is never changed by the env. Its arrays are read-only.

What a state does not hold: a per-game ``Agent`` opponent (its generator, its search tree) and a
batched policy ``policy(obs, mask)``: they are the caller's objects, shared by a clone. With such
an opponent, a restored env replays the same moves only if the opponent plays the same moves
again (a seeded search with a node budget does, from a fresh ``reset()``; a timed one does not).

>>> from amazons_env.envs.gym_env import AmazonsEnv
>>> env = AmazonsEnv(size=6)
>>> _ = env.reset(seed=0)
>>> saved = env.get_state()
>>> _ = env.step(int(env.legal_actions()[0]))
>>> env.phase, (env.set_state(saved), env.phase)[1]
(1, 0)
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Optional

import numpy as np

from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["EnvState", "VectorEnvState", "frozen_copy", "check_state", "generator_copy"]


def frozen_copy(array: np.ndarray) -> np.ndarray:
    """A read-only copy of ``array`` (a state's arrays are never edited in place)."""
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


@dataclasses.dataclass(frozen=True)
class EnvState:
    """The state of an ``AmazonsEnv`` after ``reset``: its one game (``arrays``: cells, queens,
    queen counts and meta row, ``kernels``' layout), the mask of the current phase, the game's
    start position and moves (``origin`` text, ``history``), the learner's colour (None without
    an opponent), why the last action was illegal, and a copy of ``np_random``."""

    size: int
    arrays: tuple[np.ndarray, ...]
    mask: np.ndarray
    origin: str
    history: tuple[tuple[int, int, int], ...]
    learner_color: Optional[int]
    illegal_reason: str
    np_random: np.random.Generator


@dataclasses.dataclass(frozen=True)
class VectorEnvState:
    """The state of an ``AmazonsVectorEnv``: ``arrays`` maps the name of each of its per-game
    arrays (positions, meta rows, observations, masks, legal lists, the last step's rewards and
    flags, the learners' colours, pending arrows) to a copy; ``np_random`` a copy of the env's
    generator; ``opponent`` the batched opponent's own state (None without one)."""

    size: int
    num_envs: int
    started: bool
    arrays: dict[str, np.ndarray]
    np_random: np.random.Generator
    opponent: Any = None


def check_state(state: Any, kind: type, size: int, num_envs: Optional[int] = None) -> None:
    """Refuse a ``state`` that is not a ``kind`` of this env's board size (and number of games),
    naming what differs; nothing is changed."""
    if not isinstance(state, kind):
        raise InvalidArgumentError(f"state={describe(state)}: expected a {kind.__name__} from get_state()")
    found: Any = state  # one of the two state classes
    if found.size != size:
        raise InvalidArgumentError(f"state is of a {found.size}x{found.size} board, this env plays {size}x{size}")
    if num_envs is not None and found.num_envs != num_envs:
        raise InvalidArgumentError(f"state holds {found.num_envs} games, this env has num_envs={num_envs}")


def generator_copy(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of ``rng`` at the same point of its stream."""
    return copy.deepcopy(rng)
