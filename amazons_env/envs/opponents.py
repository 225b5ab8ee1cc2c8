"""The envs' ``opponent=``: an object that plays, or a spec string that a plugin turns into one.

The envs never import an agents package. An opponent is any object with ``select_move(board)``
(``seed(n)`` and ``reset()`` are called when it has them); the vector env also takes a batched
policy ``policy(obs, mask) -> actions``. A spec string (``"uct"``, ``"alphabeta:time=0.5"``) is
handed to the resolver that a package declares in the ``amazons_env.opponents`` entry-point group
(the ``agents`` package declares ``agents.registry:make``), or that was installed at run time with
``set_opponent_resolver``.

The vector env first asks for a batched opponent (``batch_opponents``: one call for all its games):
``resolve_batch_opponent(spec, size, num_threads)`` hands the spec to the factory declared in the
``amazons_env.batch_opponents`` group (the ``agents`` package declares
``agents.batch_opponents:batch_opponent``), which returns None for a spec it has no batched form
of (then every game gets its own player from ``resolve_opponent``). A resolver installed with
``set_opponent_resolver`` takes precedence over both.

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

from amazons_env.envs.batch_opponents import BatchOpponent, BatchPolicy, PerGameAgents
from amazons_env.errors import InvalidArgumentError, describe

__all__ = [
    "ENTRY_POINT_GROUP",
    "BATCH_ENTRY_POINT_GROUP",
    "resolve_opponent",
    "resolve_batch_opponent",
    "set_opponent_resolver",
    "plays_moves",
    "reseed_opponent",
    "vector_opponent",
]

ENTRY_POINT_GROUP = "amazons_env.opponents"
BATCH_ENTRY_POINT_GROUP = "amazons_env.batch_opponents"

_resolver: Optional[Callable[[str], Any]] = None


def set_opponent_resolver(resolver: Optional[Callable[[str], Any]]) -> None:
    """Turn spec strings into opponents with ``resolver(spec)`` (``None``: back to the entry points)."""
    global _resolver
    _resolver = resolver


def plays_moves(opponent: Any) -> bool:
    """Whether ``opponent`` is a board-level player (has a callable ``select_move``)."""
    return callable(getattr(opponent, "select_move", None))


@functools.cache
def _declared(group: str) -> Optional[Callable[..., Any]]:
    """The resolver the installed packages declare in ``group`` (None: none does), looked up once
    per process: scanning the entry points takes milliseconds, and a vector env resolves one spec
    per game."""
    found = sorted(entry_points(group=group), key=lambda point: point.name)
    return found[0].load() if found else None


def resolve_batch_opponent(spec: str, size: int, num_threads: int = 1) -> Any:
    """The batched opponent (``batch_opponents.BatchOpponent``) of ``spec`` on ``size`` x ``size``
    boards, searching on ``num_threads`` threads where it can; None where there is none (a
    resolver installed with ``set_opponent_resolver``, no declared factory, or a spec without a
    batched form)."""
    factory = None if _resolver is not None else _declared(BATCH_ENTRY_POINT_GROUP)
    return None if factory is None else factory(spec, size, num_threads)


def resolve_opponent(opponent: Any) -> Any:
    """The player that ``opponent`` stands for: a spec string resolved, a player passed through."""
    if isinstance(opponent, str):
        resolver = _resolver if _resolver is not None else _declared(ENTRY_POINT_GROUP)
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


def vector_opponent(
    opponent: Any, num_envs: int, size: int, num_threads: int = 1
) -> tuple[Optional[BatchOpponent], Optional[BatchPolicy]]:
    """The vector env's ``opponent=`` as ``(batched opponent, batched policy)``, at most one not
    None: a spec's batched opponent if it has one, else one resolved player per game; a
    ``BatchOpponent`` as is; a player (shared by all games) or a list of ``num_envs`` players; a
    callable ``policy(obs, mask)``."""
    if opponent is None:
        return None, None
    if isinstance(opponent, BatchOpponent):
        return opponent, None
    if isinstance(opponent, str):
        batched = resolve_batch_opponent(opponent, size, num_threads)
        if batched is not None:
            return batched, None
        return PerGameAgents([resolve_opponent(opponent) for _ in range(num_envs)]), None
    if plays_moves(opponent):
        return PerGameAgents([opponent] * num_envs), None
    if isinstance(opponent, (list, tuple)) and len(opponent) == num_envs and all(map(plays_moves, opponent)):
        return PerGameAgents(opponent), None
    if callable(opponent):
        return None, opponent
    raise InvalidArgumentError(
        f"opponent={describe(opponent)}: use an agent spec, a BatchOpponent, an object with "
        f"select_move(board) (or a list of {num_envs}, one per game) or a batched policy "
        "policy(obs, mask) -> actions"
    )
