"""Drawing an env position: a text diagram (``"ansi"``), a numpy picture (``"rgb_array"``) and a
pygame window (``"human"``, optional: ``pip install "amazons[render]"``).

The input is a ``grid`` of piece codes (``int[N, N]``, ``grid[rank, file]``, rank 0 = rank 1)
plus the squares to highlight, so these functions know nothing about the env's internals.

>>> import numpy as np
>>> grid = np.zeros((4, 4), dtype=np.uint8); grid[0, 1] = 1; grid[3, 2] = 2; grid[2, 2] = 3
>>> print(ansi(grid, caption="White to move"))
 4 . . q .
 3 . . * .
 2 . . . .
 1 . Q . .
   a b c d
White to move
>>> rgb_array(grid).shape
(160, 160, 3)
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import numpy as np

from amazons_env.core import ARROW, BLACK_QUEEN, WHITE_QUEEN
from amazons_env.squares import FILE_NAMES

__all__ = ["ansi", "rgb_array", "HumanWindow", "CELL"]

CELL = 40  # pixels per square in rgb_array pictures

_SYMBOLS = {WHITE_QUEEN: "Q", BLACK_QUEEN: "q", ARROW: "*"}
_LIGHT = np.array([240, 217, 181], np.uint8)
_DARK = np.array([181, 136, 99], np.uint8)
_LAST = np.array([205, 210, 106], np.uint8)  # squares of the last move
_SHOOTER = np.array([120, 190, 120], np.uint8)  # the queen that must shoot
_ARROW = np.array([60, 60, 60], np.uint8)
_TARGET = np.array([70, 120, 200], np.uint8)  # dots on the legal targets of a selected queen


def ansi(grid: np.ndarray, caption: str = "", marked: Iterable[int] = ()) -> str:
    """A diagram with coordinates (rank N at the top), then ``caption``. The squares ``marked``
    (``rank * N + file``: a last move's three) are bracketed, the diagram's width unchanged:

    >>> grid = np.zeros((3, 3), dtype=np.uint8); grid[1, 1] = 1; grid[1, 2] = 3
    >>> print(ansi(grid, marked=(0, 4, 5)))
     3 . . .
     2 .[Q|*]
     1[.]. .
       a b c
    """
    n = grid.shape[0]
    chosen = {int(square) for square in marked}
    lines = []
    for rank in range(n - 1, -1, -1):
        # the gap before each file and the one after the last: "[" before a marked square, "]" after
        # it, "|" between two marked squares
        gaps = [" "] * n + [""]
        for file in range(n):
            if rank * n + file in chosen:
                gaps[file] = "|" if gaps[file] == "]" else "["
                gaps[file + 1] = "]"
        cells = (_SYMBOLS.get(int(grid[rank, file]), ".") for file in range(n))
        lines.append(f"{rank + 1:>2}" + "".join(gap + cell for gap, cell in zip(gaps, cells)) + gaps[n])
    lines.append("   " + " ".join(FILE_NAMES[:n]))
    if caption:
        lines.append(caption)
    return "\n".join(lines)


def _disk(cell: int, radius: float) -> np.ndarray:
    y, x = np.mgrid[0:cell, 0:cell] + 0.5
    return (x - cell / 2) ** 2 + (y - cell / 2) ** 2 <= radius**2


def rgb_array(
    grid: np.ndarray,
    last: Iterable[int] = (),
    shooter: Optional[int] = None,
    cell: int = CELL,
    targets: Iterable[int] = (),
) -> np.ndarray:
    """A ``uint8[N*cell, N*cell, 3]`` picture: checkered board (rank N at the top), last-move
    squares tinted yellow, the queen that must shoot tinted green, White queens as white discs,
    Black queens as black discs (both outlined), arrows as dark squares with a cross, and a blue
    dot on each square of ``targets`` (where a selected queen or its arrow may go)."""
    n = grid.shape[0]
    image = np.empty((n * cell, n * cell, 3), np.uint8)
    outer, inner = _disk(cell, cell * 0.38), _disk(cell, cell * 0.32)
    ring = outer & ~inner
    pad = cell // 6
    block = np.zeros((cell, cell), bool)
    block[pad : cell - pad, pad : cell - pad] = True
    diagonal = np.abs(np.subtract.outer(np.arange(cell), np.arange(cell))) <= 1
    cross = block & (diagonal | diagonal[::-1])
    dot = _disk(cell, cell * 0.14)
    last, targets = set(last), set(targets)
    for rank in range(n):
        for file in range(n):
            square = rank * n + file
            tile = image[(n - 1 - rank) * cell : (n - rank) * cell, file * cell : (file + 1) * cell]
            colour = _LIGHT if (rank + file) % 2 else _DARK
            if square == shooter:
                colour = _SHOOTER
            elif square in last:
                colour = _LAST
            tile[:] = colour
            piece = int(grid[rank, file])
            if piece == WHITE_QUEEN:
                tile[inner] = 250
                tile[ring] = 20
            elif piece == BLACK_QUEEN:
                tile[inner] = 25
                tile[ring] = 230
            elif piece == ARROW:
                tile[block] = _ARROW
                tile[cross] = (200, 40, 40)
            if square in targets:
                tile[dot] = _TARGET
    return image


class HumanWindow:
    """A pygame window showing ``rgb_array`` pictures; pygame is imported on construction."""

    def __init__(self, title: str = "Amazons") -> None:
        try:
            import pygame
        except ImportError as error:
            from gymnasium.error import DependencyNotInstalled

            raise DependencyNotInstalled(
                'render_mode="human" needs pygame: pip install "amazons[render]" (or pip install pygame); '
                'render_mode="rgb_array" and "ansi" need nothing extra'
            ) from error
        self._pygame = pygame
        self._title = title
        self._screen: Any = None  # a pygame Surface once shown

    def show(self, picture: np.ndarray, fps: int = 4, caption: Optional[str] = None) -> None:
        """Draw ``picture``, then wait for the next of ``fps`` frames per second; ``caption``
        replaces the window title."""
        pygame = self._pygame
        if caption is not None:
            self._title = caption
        if self._screen is None:
            pygame.display.init()  # not pygame.init(): no audio device is opened
            self._screen = pygame.display.set_mode(picture.shape[1::-1])
            self._clock = pygame.time.Clock()
        pygame.display.set_caption(self._title)
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(np.transpose(picture, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(fps)

    def close(self) -> None:
        if self._screen is not None:
            self._pygame.display.quit()
            self._pygame.quit()
            self._screen = None
