"""The envs' ``opponent=``: an object that plays, or a spec string that a plugin turns into one.

The envs never import an agents package. An opponent is any object with ``select_move(board)``
(``seed(n)`` and ``reset()`` are called when it has them); the vector env also takes a batched
policy ``policy(obs, mask) -> actions``. A spec string (``"uct"``, ``"alphabeta:time=0.5"``) is
handed to the resolver that a package declares in the ``amazons_env.opponents`` entry-point group
(the ``agents`` package declares ``agents.registry:make``), or that was installed at run time with
``set_opponent_resolver``.

>>> class First:
...     def select_move(self, board):
...         return board.legal_moves()[0]
>>> player = First()
>>> resolve_opponent(player) is player
True
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any, Callable, Optional

from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["ENTRY_POINT_GROUP", "resolve_opponent", "set_opponent_resolver", "plays_moves", "reseed_opponent"]

ENTRY_POINT_GROUP = "amazons_env.opponents"

_resolver: Optional[Callable[[str], Any]] = None


def set_opponent_resolver(resolver: Optional[Callable[[str], Any]]) -> None:
    """Turn spec strings into opponents with ``resolver(spec)`` (``None``: back to the entry points)."""
    global _resolver
    _resolver = resolver


def plays_moves(opponent: Any) -> bool:
    """Whether ``opponent`` is a board-level player (has a callable ``select_move``)."""
    return callable(getattr(opponent, "select_move", None))


@functools.cache
def _declared_resolver() -> Optional[Callable[[str], Any]]:
    """The resolver the installed packages declare (None: none does), looked up once per process:
    scanning the entry points takes milliseconds, and a vector env resolves one spec per game."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    return found[0].load() if found else None


def resolve_opponent(opponent: Any) -> Any:
    """The player that ``opponent`` stands for: a spec string resolved, a player passed through."""
    if isinstance(opponent, str):
        resolver = _resolver if _resolver is not None else _declared_resolver()
        if resolver is None:
            raise InvalidArgumentError(
                f"opponent={describe(opponent)}: no package declares an opponent resolver in the "
                f"{ENTRY_POINT_GROUP!r} entry points (install amazons, or pass an object "
                "with select_move)"
            )
        return resolver(opponent)
    if plays_moves(opponent):
        return opponent
    raise InvalidArgumentError(
        f"opponent={describe(opponent)}: use an agent spec string or an object with select_move(board)"
    )


def reseed_opponent(opponent: Any, seed: Optional[int]) -> None:
    """Give ``opponent`` the env's seed (if it takes one) and start its new game (if it keeps one)."""
    if seed is not None and callable(getattr(opponent, "seed", None)):
        opponent.seed(seed)
    if callable(getattr(opponent, "reset", None)):
        opponent.reset()
