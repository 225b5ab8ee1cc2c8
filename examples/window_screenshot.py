"""The README's picture of the game window (docs/images/gui.png): a game on 10x10 driven by code,
the way the tests drive the window, and saved as PNG. No display is needed: SDL's dummy video
driver draws into memory.

    python examples/window_screenshot.py [OUT.png]

The human's side is played by clicks chosen by a second engine; after 24 plies the human asks
for a hint, and the window (move list, last-move marks, the engine's value, the hinted move, the
status line) is saved. Both engines are seeded, so the picture is the same on every run.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from amazons_env import Board, Color

from agents import make
from agents.ui.opponent import make_player
from agents.ui.window import ClickGame

PLIES = 24  # a middle game: the move list scrolls, the board has a shape


def wait(window: ClickGame) -> None:
    """Step the window until the engine (on its own thread) has answered, then draw."""
    window.step()
    while window.game.busy:
        time.sleep(0.005)
        window.step()
    window.step()


def main(out: Path) -> None:
    os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens the display
    import pygame

    window = ClickGame(make_player("uct:sims=3000", seed=1), Color.WHITE, Board(10))
    window.open()
    player = make("uct:sims=1000")  # plays the human's side
    player.seed(2)
    game = window.game
    while game.board.ply < PLIES and not game.over:
        move = player.select_move(game.board)
        for square in (move.from_square, move.to_square, move.arrow):  # as three clicks
            centre = window.layout.square_box(square).centre
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre, button=1))
        wait(window)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h))
    wait(window)
    out.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(window.screen, str(out))
    window.close()
    print(f"{out}: {out.stat().st_size // 1024} KB, {game.status()}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs/images/gui.png")
