"""Drawing the game window: a ``WindowGame`` (what to show) on a pygame surface, where a
``Layout`` says (the boxes for the window's size).

The board is ``amazons_env.drawing.render.rgb_array`` (the env's picture: the last move's from and
to squares tinted, a half-made move's queen in green, blue dots on the squares that may be clicked
next); over it go the marks that tell the last move's squares apart (a frame round the square the
queen went to, another round its arrow) and the hinted move (frames and lines in its own colour).
Then the coordinates on the rim, the panel (the engine's value as a number and a bar, the
buttons, the move list) and the status line.

pygame is imported when a ``Painter`` is made, so that importing this module needs no pygame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from amazons_env import Color, Move
from amazons_env.drawing.render import rgb_array
from amazons_env.squares import FILE_NAMES

from agents.ui.session import WindowGame
from agents.ui.window_layout import BUTTONS, KEYS, Box, Layout

__all__ = ["Painter", "COLOURS", "frame_width", "value_split"]

#: the window's colours (RGB), named by what they show; the tests read the marks back from pixels
COLOURS: dict[str, tuple[int, int, int]] = {
    "background": (49, 46, 43),
    "panel": (39, 37, 34),
    "status": (28, 27, 25),
    "text": (232, 230, 227),
    "dim text": (160, 156, 150),
    "last line": (240, 210, 110),
    "button": (74, 71, 67),
    "button edge": (125, 120, 112),
    "to frame": (235, 135, 25),  # the square the last move's queen went to
    "arrow frame": (220, 45, 45),  # the last move's arrow
    "hint": (150, 90, 235),  # the hinted move: frames on its three squares, lines between them
    "value white": (245, 245, 245),
    "value black": (15, 15, 15),
    "key card": (22, 21, 20),  # the keys F1 shows, over the board
}


def frame_width(cell: int) -> int:
    """The width of the frames round marked squares, in pixels.

    >>> frame_width(64), frame_width(10)
    (5, 2)
    """
    return max(2, cell // 12)


class Painter:
    """Draws a ``WindowGame`` (``draw``); keeps the fonts it has made, one per pixel size."""

    def __init__(self) -> None:
        import pygame  # ImportError here tells the window's maker that pygame is missing

        self.pygame = pygame
        pygame.font.init()
        self.fonts: dict[int, Any] = {}

    def font(self, px: int) -> Any:
        if px not in self.fonts:
            self.fonts[px] = self.pygame.font.Font(None, px)  # pygame's own font: always there
        return self.fonts[px]

    def text(
        self, surface: Any, words: str, px: int, colour: tuple[int, int, int], box: Box, align: str = "left"
    ) -> None:
        """``words`` in ``box``, vertically centred, left-aligned or centred (``align``),
        shrunk (down to 10 px), then cut, to fit its width."""
        font = self.font(px)
        while font.size(words)[0] > box.w and px > 10:
            px -= 1
            font = self.font(px)
        while words and font.size(words)[0] > box.w:
            words = words[:-2] + "…" if len(words) > 1 else ""
        picture = font.render(words, True, colour)
        x = box.x if align == "left" else box.x + (box.w - picture.get_width()) // 2
        surface.blit(picture, (x, box.y + (box.h - picture.get_height()) // 2))

    def draw(self, surface: Any, layout: Layout, game: WindowGame, first_line: int, keys: bool = False) -> None:
        """The whole window; the move list shows its lines from ``first_line``; ``keys``: the card of
        the keys over the board."""
        surface.fill(COLOURS["background"])
        self.board(surface, layout, game)
        if keys:
            self.key_card(surface, layout)
        self.rim(surface, layout)
        self.panel(surface, layout, game, first_line)
        self.pygame.draw.rect(surface, COLOURS["status"], layout.status)
        inner = Box(layout.status.x + 8, layout.status.y, layout.status.w - 16, layout.status.h)
        self.text(surface, game.status(), layout.text, COLOURS["text"], inner)

    # -- the board -----------------------------------------------------------------------------

    def board(self, surface: Any, layout: Layout, game: WindowGame) -> None:
        last = game.last_move()
        shooter = game.moved_to if game.moved_to is not None else game.picked
        tinted = () if last is None else (last.from_square, last.to_square)
        picture = rgb_array(game.grid(), tinted, shooter, layout.cell, game.targets)
        surface.blit(self.pygame.surfarray.make_surface(np.transpose(picture, (1, 0, 2))), layout.board[:2])
        if last is not None:
            self.frame(surface, layout, last.to_square, COLOURS["to frame"])
            self.frame(surface, layout, last.arrow, COLOURS["arrow frame"])
        if game.hint is not None and game.picked is None:
            self.hinted(surface, layout, game.hint.move)

    def key_card(self, surface: Any, layout: Layout) -> None:
        """``KEYS`` over the board, a line each, in the panel's font size (shrunk only if the board
        is too small for it)."""
        board = layout.board
        self.pygame.draw.rect(surface, COLOURS["key card"], board)
        row = max(1, min(layout.row, (board.h - 16) // (len(KEYS) + 1)))
        width = (board.w - 24) * 2 // 5
        for i, (keys, what) in enumerate(((("Keys", "(F1 or ? again: back to the board)"),) + KEYS)):
            y = board.y + 8 + i * row
            colour = COLOURS["last line"] if i == 0 else COLOURS["text"]
            self.text(surface, keys, layout.text, colour, Box(board.x + 12, y, width, row))
            self.text(surface, what, layout.text, colour, Box(board.x + 12 + width, y, board.w - 24 - width, row))

    def frame(self, surface: Any, layout: Layout, square: int, colour: tuple[int, int, int]) -> None:
        self.pygame.draw.rect(surface, colour, layout.square_box(square), frame_width(layout.cell))

    def hinted(self, surface: Any, layout: Layout, move: Move) -> None:
        """The hinted move: a line from the queen to where it goes, another to the arrow, and
        frames round the three squares."""
        centres = [layout.square_box(s).centre for s in (move.from_square, move.to_square, move.arrow)]
        self.pygame.draw.lines(surface, COLOURS["hint"], False, centres, max(2, layout.cell // 16))
        for square in (move.from_square, move.to_square, move.arrow):
            self.frame(surface, layout, square, COLOURS["hint"])

    def rim(self, surface: Any, layout: Layout) -> None:
        """File letters under the board, rank numbers left of it (a1 at the bottom left)."""
        n, cell, px = layout.size, layout.cell, max(8, layout.cell * 2 // 5)
        for file in range(n):
            box = Box(layout.files.x + file * cell, layout.files.y, cell, layout.files.h)
            self.text(surface, FILE_NAMES[file], px, COLOURS["dim text"], box, "centre")
        for rank in range(n):
            box = Box(layout.ranks.x, layout.ranks.y + (n - 1 - rank) * cell, layout.ranks.w, cell)
            self.text(surface, str(rank + 1), px, COLOURS["dim text"], box, "centre")

    # -- the panel -------------------------------------------------------------------------------

    def panel(self, surface: Any, layout: Layout, game: WindowGame, first_line: int) -> None:
        pygame, px, row = self.pygame, layout.text, layout.row
        pygame.draw.rect(surface, COLOURS["panel"], layout.panel)
        bar = layout.value
        value = game.value()
        if value is not None:  # hidden for agents that report no value
            side = game.board.turn
            above = Box(bar.x, bar.y - row, bar.w, row)
            self.text(
                surface, f"Value for {side.name.capitalize()} (to move): {value:+.2f}", px, COLOURS["text"], above
            )
            self.value_bar(surface, bar, value if side == Color.WHITE else -value)
        keys = {name: f"{label} ({key})" for name, label, key in BUTTONS}
        for name, label, _ in BUTTONS:
            box = layout.buttons[name]
            pygame.draw.rect(surface, COLOURS["button"], box)
            pygame.draw.rect(surface, COLOURS["button edge"], box, 1)
            fits = self.font(px).size(keys[name])[0] <= box.w - 6
            self.text(surface, keys[name] if fits else label, px, COLOURS["text"], box, "centre")
        moves = layout.moves
        self.text(surface, "Moves", px, COLOURS["dim text"], Box(moves.x, moves.y - row, moves.w, row))
        lines = game.move_lines()
        shown = lines[first_line : first_line + layout.move_rows()]
        for i, line in enumerate(shown):
            colour = COLOURS["last line"] if first_line + i == len(lines) - 1 else COLOURS["text"]
            self.text(surface, line, px, colour, Box(moves.x, moves.y + i * row, moves.w - 8, row))
        if len(lines) > len(shown) and lines:  # a scroll bar: where the shown lines are in the list
            top = moves.y + moves.h * first_line // len(lines)
            height = max(4, moves.h * len(shown) // len(lines))
            pygame.draw.rect(surface, COLOURS["button edge"], (moves.x + moves.w - 4, top, 4, height))

    def value_bar(self, surface: Any, bar: Box, white: float) -> None:
        """White's share of the bar from the left, Black's from the right: ``white`` is the
        value for White in [-1, 1] (0: an even game, half and half)."""
        split = value_split(bar, white)
        self.pygame.draw.rect(surface, COLOURS["value black"], bar)
        self.pygame.draw.rect(surface, COLOURS["value white"], Box(bar.x, bar.y, split - bar.x, bar.h))
        self.pygame.draw.rect(surface, COLOURS["button edge"], bar, 1)
        middle = bar.x + bar.w // 2  # an even game's split, to read the bar against
        self.pygame.draw.line(surface, COLOURS["button edge"], (middle, bar.y), (middle, bar.y + bar.h // 4))
        self.pygame.draw.line(
            surface, COLOURS["button edge"], (middle, bar.y + bar.h - bar.h // 4), (middle, bar.y + bar.h - 1)
        )


def value_split(bar: Box, white: float) -> int:
    """The x where the value bar turns from White's colour to Black's, for the value ``white``
    for White in [-1, 1].

    >>> value_split(Box(100, 0, 200, 10), 0.0), value_split(Box(100, 0, 200, 10), 0.5)
    (200, 250)
    """
    return bar.x + int(round(bar.w * (1.0 + white) / 2.0))
