"""The limits of a UCI ``go`` command, for ``amazons engine --protocol uci``
(``agents.protocols.uci_engine``): ``parse_go`` reads its words, ``go_limit`` turns them into the
``Limit`` of the move; ``info_fields`` reads
the ``info`` lines an external engine answers a ``go`` with (``agents.protocols.uci_client``).

``go`` passes its limits to the agent as a ``Limit`` (a search keeps the fields it honours:
``nodes`` only an external engine, ``depth`` the alpha-beta searches). A game clock (``wtime``/
``btime``, ``winc``/``binc``, ``movestogo``) is turned into the move's ``time`` and ``time_max`` by
the time manager (``agents.time.manager.move_limit``, the one the arena uses for ``--tc``).

**Numbers from the GUI** are held to what a move can use: a time (``movetime``, ``wtime``,
``btime``, ``winc``, ``binc``) above ``MAX_MS`` (a year), a ``depth`` above ``MAX_DEPTH``, a
``movestogo`` above ``MAX_MOVES_TO_GO`` or ``nodes`` above ``MAX_NODES`` is clamped to it (a
400-digit time used to overflow a float and leave the ``go`` unanswered).

>>> go_limit(parse_go("movetime 550 nodes 9000".split()), Board(10))
Limit(time=0.5, nodes=9000)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from amazons_env import Board
from amazons_env.errors import InvalidArgumentError

from agents.time.limit import Limit
from agents.time.manager import move_limit

__all__ = ["parse_go", "go_limit", "info_fields", "MAX_MS", "MAX_DEPTH", "MAX_NODES", "MAX_MOVES_TO_GO"]

_GO_NUMBERS = ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate")
#: the least time a move is given from ``movetime`` once the overhead is kept back (ms)
_LEAST_MS = 10
#: the largest time (ms), depth, node count and moves to go that a ``go`` is given (a year of
#: thought, more plies and nodes than a game has): larger numbers are clamped to them
MAX_MS, MAX_DEPTH, MAX_NODES, MAX_MOVES_TO_GO = 365 * 86_400_000, 1_000, 10**15, 1_000
_MOST = {
    "movetime": MAX_MS,
    "wtime": MAX_MS,
    "btime": MAX_MS,
    "winc": MAX_MS,
    "binc": MAX_MS,
    "depth": MAX_DEPTH,
    "nodes": MAX_NODES,
    "movestogo": MAX_MOVES_TO_GO,
    "mate": MAX_DEPTH,
}


def parse_go(tokens: list[str], clamped: Optional[list[str]] = None) -> dict[str, int]:
    """The limits of a ``go`` command's arguments: ``{"movetime": 500}``, ``{"infinite": 1}``, ...
    Raises ``ValueError`` naming a bad token. A number above its most (``MAX_MS``, ...; below
    ``-MAX_MS`` for a clock) is clamped, and what was clamped is added to ``clamped``.

    >>> notes = []
    >>> parse_go(["depth", "9" * 30, "movetime", "5"], notes), notes
    ({'depth': 1000, 'movetime': 5}, ['depth 999999999999999999999999999999 clamped to 1000'])
    """
    limits: dict[str, int] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("infinite", "ponder"):
            limits[word] = 1
            i += 1
        elif word in _GO_NUMBERS:
            if i + 1 >= len(tokens):
                raise InvalidArgumentError(f"{word} needs a number")
            try:
                value = int(tokens[i + 1])
            except ValueError:
                raise InvalidArgumentError(f"{word} {tokens[i + 1]!r} is not a whole number") from None
            if value < 0 and word not in ("wtime", "btime"):  # a clock may run below zero
                raise InvalidArgumentError(f"{word} {value} is negative")
            most = _MOST[word]
            if abs(value) > most:
                held = most if value > 0 else -most
                if clamped is not None:
                    clamped.append(f"{word} {tokens[i + 1][:40]} clamped to {held}")
                value = held
            limits[word] = value
            i += 2
        elif word == "searchmoves":
            break  # not supported: every move is searched
        else:
            raise InvalidArgumentError(f"unknown argument {word!r}")
    return limits


def go_limit(limits: dict[str, int], board: Board, movetime_ms: int = 0, overhead_ms: int = 50) -> Optional[Limit]:
    """The ``Limit`` of a ``go`` command's ``limits`` (``parse_go``) in ``board``, or ``None`` for
    the agent's own: ``depth`` (a fixed-depth search: no time with it); else ``movetime`` less
    ``overhead_ms`` (at least 10 ms); else the side to move's clock, allotted by the time manager
    (``move_limit``: ``time`` and ``time_max``, with ``overhead_ms`` kept back from each
    move; a clock below zero reads 0, the other side's clock 0 if it is not sent); else the
    ``MoveTime`` option's ``movetime_ms`` unless ``go infinite``; ``nodes`` with any of them. A
    search is held to the fields it honours (``agents.search.agent.think``).

    >>> board = Board(10)
    >>> go_limit({"depth": 3}, board), go_limit({"movetime": 550, "nodes": 9000}, board)
    (Limit(depth=3), Limit(time=0.5, nodes=9000))
    >>> go_limit({"wtime": 60000, "btime": 60000, "winc": 100, "binc": 100}, board)
    Limit(time=2.524, time_max=10.096)
    >>> go_limit({"infinite": 1}, board, movetime_ms=800) is None
    True
    """
    depth, nodes = limits.get("depth"), limits.get("nodes")
    own = "wtime" if board.turn == 0 else "btime"
    if depth is not None:
        limit = Limit()
    elif "movetime" in limits:
        limit = Limit(time=max(limits["movetime"] - overhead_ms, _LEAST_MS) / 1000)
    elif own in limits:
        clocks = Limit(
            white_clock=max(limits.get("wtime", 0), 0) / 1000,
            black_clock=max(limits.get("btime", 0), 0) / 1000,
            white_inc=limits.get("winc", 0) / 1000,
            black_inc=limits.get("binc", 0) / 1000,
            remaining_moves=limits.get("movestogo") or None,
        )
        limit = move_limit(board, clocks, overhead_ms / 1000)
    elif movetime_ms > 0 and "infinite" not in limits:
        limit = Limit(time=max(movetime_ms - overhead_ms, _LEAST_MS) / 1000)
    else:
        limit = Limit()
    return replace(limit, depth=depth or None, nodes=nodes or None) or None


def info_fields(words: list[str]) -> dict[str, Any]:
    """``depth``, ``nodes`` and ``value`` (``score cp X`` / 100) of one ``info`` line; a garbled
    field (``depth ²``, a score past a float's range) is left out.

    >>> info_fields("info depth 7 nodes ² score cp 25".split())
    {'depth': 7, 'value': 0.25}
    """
    out: dict[str, Any] = {}
    for i, word in enumerate(words[:-1]):
        following = words[i + 1]
        if word in ("depth", "nodes") and following.isascii() and following.isdigit() and len(following) < 20:
            out[word] = int(following)
        elif word == "score" and following == "cp" and i + 2 < len(words) and len(words[i + 2]) < 20:
            try:
                out["value"] = int(words[i + 2]) / 100
            except ValueError:
                pass  # not a number: no score
    return out
