"""Checks of the arguments the envs share (``AmazonsEnv``, ``AmazonsVectorEnv``): each returns
the value as the env keeps it, or raises ``InvalidArgumentError`` naming the argument.

>>> check_choice("illegal_action", "lose", ("lose", "raise"))
'lose'
>>> parse_color("black", allow_random=False), parse_color("random", allow_random=True)
(Color.BLACK, 'random')
>>> check_seed(np.int64(3)), check_seed(None)
(3, None)
>>> check_seed(-1)
Traceback (most recent call last):
...
amazons_env.errors.InvalidArgumentError: seed=-1: use None or an integer >= 0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional, Union

import numpy as np

from amazons_env.board import Board
from amazons_env.errors import InvalidArgumentError, InvalidPositionError, describe
from amazons_env.squares import Color

__all__ = ["check_choice", "parse_color", "check_seed", "reset_options", "start_position"]


def parse_color(value: Union[str, int, Color], allow_random: bool) -> Union[Color, str]:
    """``value`` (``"white"``, ``"black"``, 0, 1 or a ``Color``; ``"random"`` too when
    ``allow_random``) as a ``Color``, or the string ``"random"``."""
    if isinstance(value, str):
        lowered = value.lower()
        if allow_random and lowered == "random":
            return "random"
        if lowered in ("white", "black"):
            return Color[lowered.upper()]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value in (0, 1):
        return Color(int(value))
    raise InvalidArgumentError(f"learner_color={describe(value)}: use 'white', 'black', 'random' or a Color")


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` if it is one of the strings ``choices``, else ``InvalidArgumentError`` naming it
    (an array or any other type is refused by type first: ``in`` would compare it element-wise)."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(f"{name}={describe(value)}: use one of {list(choices)}")
    return value


def check_seed(seed: Any) -> Optional[int]:
    """``seed`` as ``reset`` takes it: ``None`` or a non-negative integer (numpy integers too);
    else ``InvalidArgumentError`` naming it (gymnasium's own check raises an error that is not a
    ``ValueError``, and a huge negative int broke its message)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(f"seed={describe(seed)}: use None or an integer >= 0")
    return int(seed)


def reset_options(options: Any, name: str, env: str) -> dict:
    """The ``options`` of ``reset(options=options)`` as a dict (``{}`` for None), checked: a dict
    with no key but ``name``, the one option of the env ``env`` (its class, for the message).

    >>> reset_options(None, "position", "AmazonsEnv"), reset_options({"position": None}, "position", "AmazonsEnv")
    ({}, {'position': None})
    >>> reset_options({"seed": 1}, "reset_mask", "AmazonsVectorEnv")
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: unknown reset option(s) 'seed'; AmazonsVectorEnv accepts ['reset_mask']
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise InvalidArgumentError(f"reset options must be a dict, got {describe(options)}")
    unknown = sorted(map(describe, set(options) - {name}))
    if unknown:
        raise InvalidArgumentError(f"unknown reset option(s) {', '.join(unknown)}; {env} accepts {[name]}")
    return options


def start_position(options: Any, start: Board, size: int) -> Board:
    """The position ``AmazonsEnv.reset(options=options)`` starts from: ``options["position"]``
    (text or a ``Board`` of this ``size`` with a legal move; a copy without its moves), else
    ``start``."""
    position = reset_options(options, "position", "AmazonsEnv").get("position")
    if position is None:
        return start
    board = Board.from_text(position) if isinstance(position, str) else position
    if not isinstance(board, Board):
        raise InvalidPositionError(f"options['position'] must be position text or a Board, got {describe(position)}")
    if board.size != size:
        raise InvalidPositionError(f"options['position'] is {board.size}x{board.size}, this env is {size}x{size}")
    if board.is_game_over():
        raise InvalidPositionError(f"options['position'] {board.text()!r} is already over (no legal move)")
    return board.copy(stack=False)
