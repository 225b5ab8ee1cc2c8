"""``amazons play --gui``: a click-to-move pygame window against an agent.

Click one of your queens (its legal targets get blue dots), click where it goes (the queen turns
green and the arrow's targets get dots), click where it shoots; the agent replies, thinking on a
thread of its own so that the window stays responsive. The status line at the bottom says whose
turn it is, that the engine is thinking, or who won and why; the last move is marked (its from and
to squares tinted, a frame round the queen's new square, another round the arrow); the panel on
the right shows the engine's value for the side to move (a search's, as a number and a bar), the
buttons and the move list (the mouse wheel, Page Up/Down, Home and End scroll it). The window is
resizable. F1 or ``?`` shows the keys (``KEYS``) on a card over the board; ``KEY_HELP`` lists them in a line.

The window is three parts: ``agents.ui.session.WindowGame`` the game (what to show, the actions),
``agents.ui.window_layout.Layout`` where things go for the window's size, and
``agents.ui.window_drawing.Painter`` the drawing. ``ClickGame`` ties them to pygame's events:
``step()`` handles the pending events once, so tests drive the window with synthetic events under
SDL's dummy video driver (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Union

from amazons_env import Board, Color
from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import as_int

from agents.base import Agent
from agents.time.limit import Limit
from agents.ui.session import WindowGame
from agents.ui.window_drawing import Painter
from agents.ui.window_layout import BUTTONS, KEYS, Layout

__all__ = ["ClickGame", "play_window", "window_size", "KEY_HELP"]

FPS = 30
MIN_SIZE = (240, 180)  # smaller, and the board and the panel no longer fit side by side
KEY_HELP = "; ".join(f"{keys}: {what}" for keys, what in KEYS)  #: the keys in a line (``play --help``)


def window_size(size: int) -> tuple[int, int]:
    """The window's first size for a board of ``size``: squares of up to 64 pixels, a window
    that fits a 1366 x 768 screen.

    >>> window_size(6), window_size(10)
    ((708, 482), (898, 672))
    """
    cell = max(32, min(64, 640 // (size + 1)))
    return ((size + 1) * cell + 260, (size + 1) * cell + 34)


class ClickGame:
    """A game between the human (``human``) clicking in a window of ``size`` pixels and
    ``agent``, from ``board``; ``save`` writes into ``folder``; the agent's moves within ``limit``
    (``None``: its own). ``game`` is the game itself (``WindowGame``), ``layout`` the boxes for the
    window's current size."""

    def __init__(
        self,
        agent: Agent,
        human: Color,
        board: Board,
        size: Optional[tuple[int, int]] = None,
        folder: Union[str, "os.PathLike[str]"] = ".",
        limit: Optional[Limit] = None,
    ) -> None:
        try:
            self.painter = Painter()
        except ImportError:
            raise InvalidArgumentError(
                '--gui needs pygame: pip install "amazons[render]" (or pip install pygame), or play in the terminal'
            ) from None
        self.pygame = self.painter.pygame
        self.game = WindowGame(agent, human, board, folder, limit)
        self.game.notice = "F1 or ?: the keys"  # until the first click
        self.keys_shown = False  # the card of the keys over the board (F1)
        size = window_size(board.size) if size is None else size
        width, height = (as_int(v) for v in size) if isinstance(size, tuple) and len(size) == 2 else (None, None)
        if width is None or height is None or width < MIN_SIZE[0] or height < MIN_SIZE[1]:
            raise InvalidArgumentError(f"window size {describe(size)}: must be (width, height) of at least {MIN_SIZE}")
        self.layout = Layout.of(width, height, board.size)
        self.first_line: Optional[int] = None  # the move list's first shown line; None: follow the end
        self.screen: Any = None  # the display surface, once open
        self.running = True
        self.dirty = True  # the first step draws
        pygame = self.pygame
        self.actions: dict[str, Callable[[], Any]] = {
            "undo": self.game.undo,
            "hint": self.game.ask_hint,
            "save": self.game.save,
            "resign": self.game.resign,
            "new": self.game.new_game,
        }
        self.keys = {ord(key): name for name, _, key in BUTTONS}  # pygame's K_a.. are the letters' codes
        self.scroll_keys = {pygame.K_PAGEUP: -10, pygame.K_PAGEDOWN: 10, pygame.K_HOME: -(10**9), pygame.K_END: 10**9}

    # -- the display -------------------------------------------------------------------------------

    def open(self) -> None:
        """Open the window (``InvalidArgumentError`` saying what to do where none can open)."""
        pygame = self.pygame
        try:
            pygame.display.init()  # not pygame.init(): no audio device is opened
            self.screen = pygame.display.set_mode((self.layout.width, self.layout.height), pygame.RESIZABLE)
        except pygame.error as error:  # no display, or SDL_VIDEODRIVER names none
            raise InvalidArgumentError(
                f"--gui cannot open a window ({error}); play in the terminal (without --gui)"
            ) from None
        game = self.game
        pygame.display.set_caption(
            f"Amazons: {game.side(game.human)} against {game.agent.spec} on {game.board.size}x{game.board.size}"
        )

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None

    def draw(self) -> None:
        rows, lines = self.layout.move_rows(), len(self.game.board.move_stack)
        last_page = max(0, lines - rows)
        first = last_page if self.first_line is None else min(self.first_line, last_page)
        self.painter.draw(self.screen, self.layout, self.game, first, self.keys_shown)
        self.pygame.display.flip()

    def resize(self, width: int, height: int) -> None:
        """Lay the window out again for its new size (no smaller than ``MIN_SIZE``)."""
        size = (max(width, MIN_SIZE[0]), max(height, MIN_SIZE[1]))
        self.screen = self.pygame.display.set_mode(size, self.pygame.RESIZABLE)
        self.layout = Layout.of(*size, self.game.board.size)

    # -- events ----------------------------------------------------------------------------------

    def square_at(self, pos: tuple[int, int]) -> Optional[int]:
        """The square under pixel ``pos``, or ``None`` off the board."""
        return self.layout.square_at(pos)

    def step(self) -> None:
        """Handle every pending event, let the game take the engine's answer or start it, and
        redraw."""
        pygame = self.pygame
        events = pygame.event.get()
        for event in events:
            if event.type == pygame.QUIT:
                self.running = False
            elif event.type == pygame.VIDEORESIZE:
                self.resize(event.w, event.h)
            elif event.type == pygame.KEYDOWN:
                self.key(event.key, getattr(event, "unicode", ""))
            elif event.type == pygame.MOUSEWHEEL:
                self.scroll(-3 * event.y)  # wheel up: back towards the first moves
            elif event.type == pygame.MOUSEBUTTONDOWN:
                self.mouse(event.pos, event.button)
        if not self.running:
            return
        # drawn again only when something changed: an idle window (or one waiting for the
        # engine) costs no board pictures
        if self.game.poll() or events or self.dirty:
            self.draw()
            self.dirty = False

    def mouse(self, pos: tuple[int, int], button: int) -> None:
        if self.keys_shown:  # a click puts the card away (and does nothing else)
            self.keys_shown, self.game.notice = False, ""
            return
        if button == 3:
            self.game.cancel()
        elif button == 1:
            square, action = self.square_at(pos), self.layout.button_at(pos)
            if square is not None:
                self.game.click(square)
            elif action is not None:
                self.act(action)

    def key(self, key: int, text: str = "") -> None:
        """A key press: ``key`` pygame's code, ``text`` the character it types (``?`` is a
        different key on different keyboards)."""
        if key == self.pygame.K_F1 or text == "?":
            self.keys_shown = not self.keys_shown
            self.game.notice = "F1 or ?: back to the board" if self.keys_shown else ""
        elif key == self.pygame.K_q:
            self.running = False
        elif key == self.pygame.K_ESCAPE and self.keys_shown:
            self.keys_shown, self.game.notice = False, ""
        elif key == self.pygame.K_ESCAPE:
            self.game.cancel()
        elif key in self.keys:
            self.act(self.keys[key])
        elif key in self.scroll_keys:
            self.scroll(self.scroll_keys[key])

    def act(self, action: str) -> None:
        """A button's or a key's action (``BUTTONS``)."""
        self.actions[action]()
        self.first_line = None  # the list follows the game again

    def scroll(self, lines: int) -> None:
        """Scroll the move list by ``lines`` (negative: up); at the end it follows new moves."""
        last_page = max(0, len(self.game.board.move_stack) - self.layout.move_rows())
        first = last_page if self.first_line is None else self.first_line
        first = max(0, min(last_page, first + lines))
        self.first_line = None if first == last_page else first

    def run(self) -> int:
        """Play until the window closes or ``q``; returns 0 (130 after Ctrl-C)."""
        self.open()
        clock = self.pygame.time.Clock()
        try:
            while self.running:
                self.step()
                clock.tick(FPS)
        except KeyboardInterrupt:
            return 130
        finally:
            self.close()
        return 0


def play_window(agent: Agent, human: Color, board: Board, limit: Optional[Limit] = None) -> int:
    """Open the window and play (``amazons play --gui``)."""
    return ClickGame(agent, human, board, limit=limit).run()
