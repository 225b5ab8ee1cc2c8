"""The engines' values of a game's moves, as a record carries them: its ``Values`` header.

One entry per ply, in order: the value the mover's search gave the move it played, turned to
White's point of view (positive: White stands better; ``1`` a sure White win in the searches that
stay in [-1, 1], alpha-beta's proven results reach +-2), or ``-`` where the mover gave none (an
agent that does not search, a random opening ply). A header is text, so the values travel in both
record formats unchanged (the move list's ``[Values "..."]`` tag, SGF's ``XH[Values=...]``); the
arena writes them (``agents.arena.files``) and the web page viewer draws them as a curve
(``amazons_env.drawing.html``).

>>> from amazons_env.records import GameRecord
>>> text = format_values([None, 0.25, -0.5])
>>> text
'- 0.250 -0.500'
>>> record = GameRecord(["d1-d7/g7", "a7-a6/a5", "g1-g3/g2"], headers={VALUES_HEADER: text})
>>> record_values(record)
[None, 0.25, -0.5]
>>> record_values(GameRecord(["d1-d7/g7"])) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Optional, Protocol

from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe

__all__ = ["VALUES_HEADER", "format_values", "parse_values", "record_values", "Annotated"]

VALUES_HEADER = "Values"
_NONE = "-"


class Annotated(Protocol):
    """What ``record_values`` reads of a record (``GameRecord`` has it; a protocol, so that this
    module stays below ``records`` and the drawings can use it)."""

    @property
    def moves(self) -> Sequence[object]: ...

    @property
    def headers(self) -> dict[str, str]: ...


def format_values(values: Sequence[Optional[float]]) -> str:
    """The header text of ``values`` (one per ply, ``None`` where there is none), three decimals
    each; ``InvalidArgumentError`` for an entry that is not a finite number or ``None``.

    >>> format_values([float("nan")])
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: values[0]: nan is not a finite number or None
    """
    words = []
    for index, value in enumerate(values):
        if value is None:
            words.append(_NONE)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            words.append(f"{value:.3f}")
        else:
            raise InvalidArgumentError(f"values[{index}]: {describe(value)} is not a finite number or None")
    return " ".join(words)


def parse_values(text: str, plies: int, source: str = "<record>") -> list[Optional[float]]:
    """The values of a ``Values`` header ``text`` for a game of ``plies`` moves;
    ``InvalidMoveError`` naming ``source`` if an entry is not a finite number or ``-``, or the
    count is not ``plies``.

    >>> parse_values("0.5 x", 2)
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidMoveError: <record>: Values entry 2 is 'x', not a finite number or '-'
    """
    words = text.split()
    if len(words) != plies:
        raise InvalidMoveError(f"{source}: Values holds {len(words)} entries for {plies} moves")
    values: list[Optional[float]] = []
    for number, word in enumerate(words, 1):
        if word == _NONE:
            values.append(None)
            continue
        try:
            value = float(word)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InvalidMoveError(f"{source}: Values entry {number} is {describe(word)}, not a finite number or '-'")
        values.append(value)
    return values


def record_values(record: Annotated, source: str = "<record>") -> Optional[list[Optional[float]]]:
    """The per-move values ``record`` carries, or ``None`` when it carries none (no ``Values``
    header, or one with no number in it)."""
    text = record.headers.get(VALUES_HEADER)
    if text is None:
        return None
    values = parse_values(text, len(record.moves), source)
    return values if any(value is not None for value in values) else None
