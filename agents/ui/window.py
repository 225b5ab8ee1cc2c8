"""``amazons play --gui``: a click-to-move pygame window against an agent.

Click one of your queens (its legal targets get blue dots), click where it goes (the moved queen
turns green and the arrow's targets get dots), click where it shoots; the agent replies (the
title bar says it is thinking). Right click or Escape cancels a half-made move, ``u`` takes back
your last move and the reply, ``q`` or closing the window quits. The picture is
``amazons_env.drawing.render.rgb_array`` (the env's ``rgb_array`` and ``human`` modes draw the same).

``ClickGame.step()`` handles the pending events once, so tests drive the window with synthetic
events under SDL's dummy video driver (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

from typing import Optional

from amazons_env import Board, Color, Move, core
from amazons_env.drawing.render import HumanWindow, rgb_array
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.ui.terminal import arrow_targets, engine_move, queen_targets, short_name, take_back, thinking_text

__all__ = ["ClickGame", "play_window", "CELL"]

CELL = 64  # pixels per square in the window
FPS = 30


class ClickGame:
    """A game between a human (``human``) clicking in a window and ``agent``, from ``board``.

    The half-made move is ``picked`` (the queen's square) and ``moved_to`` (its destination,
    once chosen); ``targets`` are the squares that may be clicked next.
    """

    def __init__(self, agent: Agent, human: Color, board: Board, cell: int = CELL) -> None:
        try:
            import pygame
        except ImportError:
            raise InvalidArgumentError(
                '--gui needs pygame: pip install "amazons[render]" (or pip install pygame), or play in the terminal'
            ) from None
        self.pygame = pygame
        self.agent, self.human, self.board, self.cell = agent, Color(human), board, cell
        self.window = HumanWindow("Amazons")
        self.picked: Optional[int] = None
        self.moved_to: Optional[int] = None
        self.targets: list[int] = []
        self.running = True

    # -- drawing ---------------------------------------------------------------------------------

    def caption(self) -> str:
        board, name = self.board, short_name(self.agent)
        if board.is_game_over():
            winner = board.winner
            assert winner is not None  # the game is over
            verdict = "you win" if winner == self.human else f"{name} wins"
            return f"Amazons: {winner.other.name.capitalize()} has no move, {verdict} (u: undo, q: quit)"
        if board.turn != self.human:
            return f"Amazons: {thinking_text(self.agent)}"
        stage = (
            "click where it shoots"
            if self.moved_to is not None
            else "click where it goes"
            if self.picked is not None
            else "click a queen"
        )
        return f"Amazons: {board.turn.name.capitalize()} (you) to move, {stage}"

    def draw(self) -> None:
        n = self.board.size
        grid = self.board.cells[core.padded_index(n)].reshape(n, n).copy()
        last: tuple[int, ...] = ()
        if self.moved_to is not None:  # show the half-made move: the queen already on its new square
            grid.flat[self.moved_to] = grid.flat[self.picked]
            grid.flat[self.picked] = core.EMPTY
        elif self.board.ply:
            move = self.board.peek()
            last = (move.from_square, move.to_square, move.arrow)
        shooter = self.moved_to if self.moved_to is not None else self.picked
        picture = rgb_array(grid, last, shooter, self.cell, self.targets)
        self.window.show(picture, FPS, self.caption())

    # -- events ----------------------------------------------------------------------------------

    def square_at(self, pos: tuple[int, int]) -> Optional[int]:
        """The square under pixel ``pos`` (rank N at the top), or ``None`` off the board."""
        n = self.board.size
        file, row = pos[0] // self.cell, pos[1] // self.cell
        return (n - 1 - row) * n + file if 0 <= file < n and 0 <= row < n else None

    def step(self) -> None:
        """Handle every pending event, then redraw."""
        pygame = self.pygame
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.running = False
            elif event.type == pygame.KEYDOWN:
                self.key(event.key)
            elif event.type == pygame.MOUSEBUTTONDOWN:
                if event.button == 1:
                    square = self.square_at(event.pos)
                    if square is not None:
                        self.click(square)
                elif event.button == 3:
                    self.cancel()
        if self.running:
            self.draw()

    def key(self, key: int) -> None:
        pygame = self.pygame
        if key == pygame.K_q:
            self.running = False
        elif key == pygame.K_ESCAPE:
            self.cancel()
        elif key == pygame.K_u:
            self.cancel()
            take_back(self.board, self.human)

    def cancel(self) -> None:
        self.picked = self.moved_to = None
        self.targets = []

    def click(self, square: int) -> None:
        """One left click on ``square``: pick a queen, its destination, or its arrow."""
        board = self.board
        if board.turn != self.human or board.is_game_over():
            return
        if self.moved_to is not None:
            assert self.picked is not None  # a queen is picked before it moves
            if square in self.targets:
                self.finish(Move(self.picked, self.moved_to, square, board.size))
            return
        if self.picked is not None and square in self.targets:
            self.moved_to = square
            self.targets = arrow_targets(board, self.picked, square)
            return
        targets = queen_targets(board, square)  # a queen of the side to move with a legal move
        if targets:
            self.picked, self.targets = square, targets
        else:
            self.cancel()

    def finish(self, move: Move) -> None:
        """Play the human's finished ``move``, clear the selection, then the agent replies."""
        self.board.push(move)
        self.cancel()
        self.reply()

    def reply(self) -> None:
        """The agent's move, if it is the agent's turn (the window shows it thinking first)."""
        if self.board.turn == self.human or self.board.is_game_over():
            return
        self.draw()
        self.board.push(engine_move(self.agent, self.board))

    def run(self) -> int:
        """Play until the window closes or ``q``; returns 0 (130 after Ctrl-C)."""
        try:
            try:
                self.draw()  # opens the window
            except self.pygame.error as error:  # no display, or SDL_VIDEODRIVER names none
                raise InvalidArgumentError(
                    f"--gui cannot open a window ({error}); play in the terminal (without --gui)"
                ) from None
            self.reply()
            while self.running:
                self.step()
        except KeyboardInterrupt:
            return 130
        finally:
            self.window.close()
        return 0


def play_window(agent: Agent, human: Color, board: Board) -> int:
    """Open the window and play (``amazons play --gui``)."""
    return ClickGame(agent, human, board).run()
