"""A small SVG picture of a board, for notebooks (``Board._repr_svg_``).

It draws anything with a board's ``size``, ``ply``, ``peek()`` and ``piece_at()`` (``Drawable``)
so that this module stays below ``board`` in the imports.

>>> from amazons_env import Board
>>> board_svg(Board(6)).startswith('<svg xmlns="http://www.w3.org/2000/svg" width="280"')
True
"""

from __future__ import annotations

from typing import Optional, Protocol

from amazons_env.move import Move
from amazons_env.squares import FILE_NAMES

__all__ = ["Drawable", "board_svg", "COLOURS"]


class Drawable(Protocol):
    """What ``board_svg`` reads of a board (``Board`` has it)."""

    @property
    def size(self) -> int: ...

    @property
    def ply(self) -> int: ...

    def peek(self) -> Move: ...

    def piece_at(self, square: int) -> Optional[str]: ...


_CELL = 40
_MARGIN = 20
#: the picture's colours, also those of the web page viewer (``amazons_env.drawing.html``)
COLOURS = {
    "background": "#f4f1ea",
    "dark": "#b58863",
    "light": "#f0d9b5",
    "mark": "#2a7ab0",
    "white": "#ffffff",
    "white_edge": "#222222",
    "black": "#222222",
    "black_edge": "#000000",
    "arrow": "#7a1f1f",
}


def board_svg(board: Drawable, cell: int = _CELL) -> str:
    """The board as an SVG document: light/dark squares, queens as discs, arrows as dark crosses,
    the last move's squares outlined, coordinates on the margins."""
    n = board.size
    side = n * cell + 2 * _MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" '
        f'viewBox="0 0 {side} {side}" font-family="sans-serif" font-size="12">',
        f'<rect width="{side}" height="{side}" fill="{COLOURS["background"]}"/>',
    ]
    last = board.peek() if board.ply else None
    marked = {last.from_square, last.to_square, last.arrow} if last else set()
    for rank in range(n):
        for file in range(n):
            sq = rank * n + file
            x, y = _MARGIN + file * cell, _MARGIN + (n - 1 - rank) * cell
            fill = COLOURS["dark"] if (file + rank) % 2 == 0 else COLOURS["light"]
            stroke = f' stroke="{COLOURS["mark"]}" stroke-width="3"' if sq in marked else ""
            parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}"{stroke}/>')
            cx, cy, r = x + cell / 2, y + cell / 2, cell * 0.36
            piece = board.piece_at(sq)
            if piece in ("Q", "q"):
                owner = "white" if piece == "Q" else "black"
                colour, edge = COLOURS[owner], COLOURS[f"{owner}_edge"]
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}" stroke="{edge}" stroke-width="2"/>')
            elif piece == "*":
                d = cell * 0.3
                parts.append(
                    f'<path d="M{cx - d},{cy - d}L{cx + d},{cy + d}M{cx - d},{cy + d}L{cx + d},{cy - d}" '
                    f'stroke="{COLOURS["arrow"]}" stroke-width="5" stroke-linecap="round"/>'
                )
    for i in range(n):
        pos = _MARGIN + i * cell + cell / 2
        parts.append(f'<text x="{pos}" y="{side - 5}" text-anchor="middle">{FILE_NAMES[i]}</text>')
        parts.append(
            f'<text x="{_MARGIN / 2}" y="{_MARGIN + (n - 1 - i) * cell + cell / 2 + 4}" '
            f'text-anchor="middle">{i + 1}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
