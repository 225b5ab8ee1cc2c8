"""Where everything goes in the game window, for a window of any size (it is resizable).

The window is the board with its coordinates on the rim (left: ranks, bottom: files), a panel on
the right (the engine's value, the buttons, the move list) and a status line along the bottom.
``Layout.of(width, height, size)`` computes every box from the window size alone, so the
geometry is tested without a display, and a resize is one new ``Layout``:

>>> layout = Layout.of(640, 480, 6)
>>> layout.cell, layout.board
(64, Box(x=32, y=35, w=384, h=384))
>>> layout.square_at(layout.square_box(0).centre)  # a1, bottom left
0
>>> layout.square_at((0, 0)) is None, layout.button_at(layout.buttons["hint"].centre)
(True, 'hint')
>>> Layout.of(0, 480, 6)
Traceback (most recent call last):
...
amazons_env.errors.InvalidArgumentError: window size (0, 480): width and height must be whole numbers >= 1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import as_int, check_size

__all__ = ["Box", "Layout", "BUTTONS", "KEYS"]

#: the window's actions: (name, button label, key); each key is its label's first letter
BUTTONS: tuple[tuple[str, str, str], ...] = (
    ("undo", "Undo", "u"),
    ("hint", "Hint", "h"),
    ("save", "Save", "s"),
    ("resign", "Resign", "r"),
    ("new", "New game", "n"),
)
#: what the keys and the mouse do, a line each: the card F1 (or ?) shows over the board
KEYS: tuple[tuple[str, str], ...] = (
    ("click", "a queen, where it goes, where it shoots"),
    ("right click, Esc", "cancel the half-made move"),
    ("u", "undo your last move and the reply"),
    ("h", "hint: the engine's best move for you"),
    ("s", "save the game as SGF (the status line says where)"),
    ("r", "resign"),
    ("n", "new game"),
    ("wheel, PgUp/PgDn", "scroll the moves"),
    ("F1, ?", "show or hide these keys"),
    ("q", "quit"),
)
_BUTTON_ROWS = (3, 2)  # buttons per row: short labels first, the two longer ones below
_PAD = 8
_GAP = 6


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, value)))


class Box(NamedTuple):
    """A rectangle in window pixels (pygame accepts it wherever it takes a ``Rect``)."""

    x: int
    y: int
    w: int
    h: int

    @property
    def centre(self) -> tuple[int, int]:
        return (self.x + self.w // 2, self.y + self.h // 2)

    def contains(self, pos: tuple[int, int]) -> bool:
        """Whether pixel ``pos`` lies inside.

        >>> Box(10, 10, 5, 5).contains((14, 10)), Box(10, 10, 5, 5).contains((15, 10))
        (True, False)
        """
        return self.x <= pos[0] < self.x + self.w and self.y <= pos[1] < self.y + self.h


@dataclass(frozen=True)
class Layout:
    """The boxes of a ``width`` x ``height`` window showing a ``size`` x ``size`` board.

    ``cell`` is a square's side; ``board`` the squares (rank ``size`` at the top); ``files`` and
    ``ranks`` the rim strips for the coordinates; ``value`` the value bar; ``buttons`` one box per
    action of ``BUTTONS``; ``moves`` the move list; ``status`` the status line. ``text`` is the
    font size of the panel and the status line, ``row`` the height of one move-list line.
    """

    width: int
    height: int
    size: int
    cell: int
    board: Box
    files: Box
    ranks: Box
    panel: Box
    value: Box
    buttons: dict[str, Box]
    moves: Box
    status: Box
    text: int
    row: int

    @classmethod
    def of(cls, width: int, height: int, size: int) -> "Layout":
        """The layout of a window of ``width`` x ``height`` pixels for a board of ``size``."""
        w, h, n = as_int(width), as_int(height), check_size(size)
        if w is None or h is None or w < 1 or h < 1:
            raise InvalidArgumentError(
                f"window size ({describe(width)}, {describe(height)}): width and height must be whole numbers >= 1"
            )
        status_h = _clamp(h / 18, 20, 34)
        text = _clamp(status_h * 0.7, 14, 22)
        row = text + 2
        panel_w = min(_clamp(w * 0.3, 150, 320), max(w - 2 * n, 0))  # a tiny window keeps some board
        area_w, area_h = w - panel_w, max(h - status_h, 1)
        cell = max(1, min(area_w, area_h) // (n + 1))  # the rim is half a cell on each side
        rim = cell // 2
        x = max((area_w - n * cell) // 2, rim)
        y = max((area_h - n * cell) // 2, rim)
        board = Box(x, y, n * cell, n * cell)
        panel = Box(area_w, 0, panel_w, area_h)
        inner_x, inner_w = panel.x + _PAD, max(panel_w - 2 * _PAD, 1)
        value = Box(inner_x, _PAD + row, inner_w, row)  # the value's label takes the row above it
        buttons, top = {}, value.y + value.h + _PAD
        names = iter(name for name, _, _ in BUTTONS)
        for count in _BUTTON_ROWS:
            button_w = max((inner_w - (count - 1) * _GAP) // count, 1)
            for i in range(count):
                buttons[next(names)] = Box(inner_x + i * (button_w + _GAP), top, button_w, row + 8)
            top += row + 8 + _GAP
        top += row  # the list's title
        moves = Box(inner_x, top, inner_w, max(area_h - _PAD - top, 0))
        return cls(
            w,
            h,
            n,
            cell,
            board,
            files=Box(x, y + n * cell, n * cell, rim),
            ranks=Box(x - rim, y, rim, n * cell),
            panel=panel,
            value=value,
            buttons=buttons,
            moves=moves,
            status=Box(0, h - status_h, w, status_h),
            text=text,
            row=row,
        )

    def square_box(self, square: int) -> Box:
        """The box of ``square`` (a1 = 0 at the bottom left)."""
        n, cell = self.size, self.cell
        file, rank = square % n, square // n
        return Box(self.board.x + file * cell, self.board.y + (n - 1 - rank) * cell, cell, cell)

    def square_at(self, pos: tuple[int, int]) -> Optional[int]:
        """The square under pixel ``pos``, or ``None`` off the board."""
        if not self.board.contains(pos):
            return None
        file, row = (pos[0] - self.board.x) // self.cell, (pos[1] - self.board.y) // self.cell
        return (self.size - 1 - row) * self.size + file

    def button_at(self, pos: tuple[int, int]) -> Optional[str]:
        """The action of the button under pixel ``pos``, or ``None``."""
        return next((name for name, box in self.buttons.items() if box.contains(pos)), None)

    def move_rows(self) -> int:
        """How many lines the move list shows at once."""
        return self.moves.h // self.row
