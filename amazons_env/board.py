"""``Board``: an Amazons position with its move stack, on top of the numba rules core.

>>> board = Board(size=6)
>>> len(board.legal_moves())
544
>>> board.push(Move.parse("b1-b4/b5", size=6))
>>> board.turn
Color.BLACK
>>> board.pop()
Move.parse('b1-b4/b5', size=6)
"""

from __future__ import annotations

import functools
from typing import Iterable, Optional, Union

import numpy as np

from amazons_env import core
from amazons_env.drawing.render import ansi
from amazons_env.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, describe
from amazons_env.move import Move
from amazons_env.outcome import Outcome
from amazons_env.position import Layout, format_position, parse_position, start_layout, validate_layout
from amazons_env.squares import Color, as_int, as_square, check_size
from amazons_env.symmetry import transform_square

__all__ = ["Board"]

MoveLike = Union[Move, str]


_PIECE_SYMBOLS = {core.WHITE_QUEEN: "Q", core.BLACK_QUEEN: "q", core.ARROW: "*"}
_SCRATCH: dict[int, np.ndarray] = {}


@functools.lru_cache(maxsize=None)
def _start(size: int) -> "Board":
    """The start position of ``size`` (never changed: ``from_cells`` copies it)."""
    return Board(size)


def _scratch(size: int) -> np.ndarray:
    """One move buffer per board size, shared by all boards (``core.legal_move_rows`` copies out
    of it before returning, so sharing is safe): board copies allocate nothing big."""
    buffer = _SCRATCH.get(size)
    if buffer is None:
        buffer = _SCRATCH[size] = np.empty((core.max_moves(size, core.MAX_QUEENS), 3), dtype=np.int64)
    return buffer


class Board:
    """An Amazons position, the side to move and the moves that led here.

    ``Board(size)`` is the start position (White first; see ``start_layout``); ``Board.from_text``
    and ``Board.from_squares`` set up any other. ``push`` checks legality and ``push_unchecked``
    does not (for engines that generated the move themselves); ``pop`` takes the last move back.

    Equality and ``hash`` compare the position (size, pieces, arrows, side to move), not the
    history; do not mutate a board while it is a key in a dict or set.

    The raw arrays of the rules core are exposed read-only-by-convention (``cells``, ``queens``,
    ``queen_counts``, ``dirs``) so numba code can search from this board's position directly.
    """

    def __init__(self, size: Optional[int] = None, position: Optional[str] = None) -> None:
        """The start position of ``size`` (default 10), or the position text ``position`` (whose
        size, if ``size`` is also given, must agree)."""
        if position is not None:
            parsed_size, layout, turn = parse_position(position)
            if size is not None and check_size(size) != parsed_size:
                raise InvalidPositionError(
                    f"size={size} disagrees with position {position!r} ({parsed_size}x{parsed_size})"
                )
            self._setup(parsed_size, layout, turn)
        else:
            size = 10 if size is None else size
            self._setup(check_size(size), start_layout(size), 0)

    # -- set-up -----------------------------------------------------------------------------------

    @classmethod
    def from_text(cls, text: str) -> "Board":
        """The position of a text like ``'1q2q1/q4q/6/6/Q4Q/1Q2Q1 w'`` (see ``position``)."""
        return cls(position=text)

    @classmethod
    def from_squares(
        cls, size: int, white: Iterable[int], black: Iterable[int], arrows: Iterable[int] = (), turn: int = Color.WHITE
    ) -> "Board":
        """A custom position from square lists; raises ``InvalidPositionError`` if impossible."""
        board = cls.__new__(cls)
        side = as_int(turn)
        if side not in (0, 1):
            raise InvalidPositionError(f"turn must be Color.WHITE or Color.BLACK, got {describe(turn)}")
        layout = validate_layout(size, white, black, arrows)
        board._setup(check_size(size), layout, side)
        return board

    @classmethod
    def from_cells(cls, size: int, cells: np.ndarray, turn: int = Color.WHITE) -> "Board":
        """The position of padded ``cells`` (the rules core's layout, as ``Board.cells`` holds it:
        what the envs' kernels keep), copied: the board ``from_squares`` makes of the same pieces,
        without listing squares. Raises ``InvalidPositionError`` if the cells are not a position.

        >>> board = Board(6)
        >>> Board.from_cells(6, board.cells, Color.WHITE) == board
        True
        """
        side = as_int(turn)
        if side not in (0, 1):
            raise InvalidPositionError(f"turn must be Color.WHITE or Color.BLACK, got {describe(turn)}")
        board = _start(check_size(size)).copy(stack=False)
        shape = board._cells.shape
        if not isinstance(cells, np.ndarray) or cells.dtype != np.uint8 or cells.shape != shape:
            raise InvalidPositionError(f"cells must be a uint8 array of shape {shape}, got {describe(cells)}")
        inside = cells[board._to_padded]
        # no WALL inside and as many as the frame has squares: the frame is all WALL
        if inside.max() > core.ARROW or np.count_nonzero(cells == core.WALL) != cells.size - inside.size:
            raise InvalidPositionError("cells must hold WALL on the frame and EMPTY, a queen or ARROW inside")
        counts = np.bincount(inside, minlength=core.ARROW + 1)
        for side_index in (0, 1):
            count = int(counts[side_index + 1])
            if not 1 <= count <= core.MAX_QUEENS:
                raise InvalidPositionError(f"cells hold {count} queens of a side: 1 to {core.MAX_QUEENS} wanted")
            board._nq[side_index] = count
            board._queens[side_index] = 0  # padded squares grow with the public ones: from_squares' order
            board._queens[side_index, :count] = np.flatnonzero(cells == side_index + 1)
        board._cells[:] = cells
        board._turn = side
        return board

    def _setup(self, size: int, layout: Layout, turn: int) -> None:
        self._size = size
        width = size + 2
        self._to_padded = core.padded_index(size)
        self._to_public = core.public_index(size)
        self._dirs = core.directions(width)
        self._cells = np.full(width * width, core.WALL, dtype=np.uint8)
        self._cells[self._to_padded] = core.EMPTY
        self._queens = np.zeros((2, core.MAX_QUEENS), dtype=np.int64)
        self._nq = np.zeros(2, dtype=np.int64)
        for side, squares in enumerate((layout.white, layout.black)):
            self._nq[side] = len(squares)
            for i, sq in enumerate(squares):
                p = self._to_padded[sq]
                self._queens[side, i] = p
                self._cells[p] = side + 1
        self._cells[self._to_padded[list(layout.arrows)]] = core.ARROW
        self._turn = turn
        self._stack: list[tuple[Move, int]] = []

    # -- state ----------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self._size

    @property
    def turn(self) -> Color:
        """The side to move."""
        return Color(self._turn)

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed since set-up, oldest first (a copy)."""
        return [move for move, _ in self._stack]

    @property
    def ply(self) -> int:
        """Number of moves pushed since set-up."""
        return len(self._stack)

    @property
    def cells(self) -> np.ndarray:
        """The padded board, ``uint8[(size + 2)**2]``: ``core.EMPTY``, a queen (``core.WHITE_QUEEN``,
        ``core.BLACK_QUEEN``), ``core.ARROW``, or ``core.WALL`` on the border ring."""
        return self._cells

    @property
    def queens(self) -> np.ndarray:
        """The queens' padded squares, ``int64[2, core.MAX_QUEENS]``: row 0 White's, row 1 Black's,
        the first ``queen_counts[side]`` of each row in use."""
        return self._queens

    @property
    def queen_counts(self) -> np.ndarray:
        """How many queens each side has, ``int64[2]`` (White, Black)."""
        return self._nq

    @property
    def dirs(self) -> np.ndarray:
        """The eight queen directions as steps between padded squares (``core.directions``)."""
        return self._dirs

    def layout(self) -> Layout:
        """The queens of each side and the arrows, as sorted public squares."""
        grid = self._cells[self._to_padded]
        return Layout(
            *(
                tuple(int(s) for s in np.flatnonzero(grid == value))
                for value in (core.WHITE_QUEEN, core.BLACK_QUEEN, core.ARROW)
            )
        )

    def piece_at(self, square: int) -> Optional[str]:
        """``"Q"`` (White queen), ``"q"`` (Black queen), ``"*"`` (arrow) or ``None`` (empty).
        ``InvalidMoveError`` if ``square`` is not a square of this board (no wrapping around)."""
        sq = as_square(square, self._size)
        if sq is None:
            raise InvalidMoveError(f"square {describe(square)} is off this {self._size}x{self._size} board")
        return _PIECE_SYMBOLS.get(int(self._cells[self._to_padded[sq]]))

    # -- moves ----------------------------------------------------------------------------------

    def legal_moves_array(self) -> np.ndarray:
        """The legal moves as an ``int64`` array of rows (from, to, arrow) in public squares."""
        return core.legal_move_rows(
            self._cells, self._queens, self._nq, self._turn, self._dirs, self._to_public, _scratch(self._size)
        )

    def legal_moves(self) -> list[Move]:
        """The legal moves of the side to move (empty when the game is over)."""
        size = self._size
        return [Move(f, t, a, size) for f, t, a in self.legal_moves_array().tolist()]

    def count_legal_moves(self) -> int:
        return int(core.count_moves(self._cells, self._queens, self._nq, self._turn, self._dirs))

    def _coerce(self, move: MoveLike) -> Move:
        if isinstance(move, str):
            return Move.parse(move, self._size)
        if not isinstance(move, Move):
            raise InvalidMoveError(f"expected a Move or move text, got {describe(move)}")
        if move.size != self._size:
            raise IllegalMoveError(
                f"{move!r} is for a {move.size}x{move.size} board, not this {self._size}x{self._size} one"
            )
        return move

    def is_legal(self, move: MoveLike) -> bool:
        """Whether ``move`` may be played now. Malformed text still raises ``InvalidMoveError``."""
        try:
            move = self._coerce(move)
        except IllegalMoveError:
            return False
        p = self._to_padded
        return bool(
            core.is_legal_move(
                self._cells,
                self._queens,
                self._nq,
                self._turn,
                self._dirs,
                p[move.from_square],
                p[move.to_square],
                p[move.arrow],
            )
        )

    def push(self, move: MoveLike) -> None:
        """Play ``move`` (a ``Move`` or text) after checking it; the board is unchanged on error."""
        move = self._coerce(move)
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {move} in {self.text()!r}: {self._why_illegal(move)}")
        self.push_unchecked(move)

    def _why_illegal(self, move: Move) -> str:
        if self.is_game_over():
            return f"the game is over ({self.turn.name.lower()} has no move)"
        piece = self.piece_at(move.from_square)
        own = "Q" if self._turn == 0 else "q"
        if piece != own:
            return f"no {self.turn.name.lower()} queen on {move}'s start square"
        return "the queen's path or the arrow's path is blocked or not a queen line"

    def push_unchecked(self, move: Move) -> None:
        """Play ``move`` without checking legality (engines that generated it themselves)."""
        p = self._to_padded
        frm = p[move.from_square]
        index = core.find_queen(self._queens, self._nq, self._turn, frm)
        core.make_move(self._cells, self._queens, self._turn, index, p[move.to_square], p[move.arrow])
        self._stack.append((move, index))
        self._turn ^= 1

    def pop(self) -> Move:
        """Take back the last move and return it; ``IndexError`` if there is none."""
        if not self._stack:
            raise IndexError("pop from a board with no moves pushed")
        move, index = self._stack.pop()
        self._turn ^= 1
        p = self._to_padded
        core.unmake_move(
            self._cells, self._queens, self._turn, index, p[move.from_square], p[move.to_square], p[move.arrow]
        )
        return move

    def peek(self) -> Move:
        """The last move pushed; ``IndexError`` if there is none."""
        if not self._stack:
            raise IndexError("peek at a board with no moves pushed")
        return self._stack[-1][0]

    # -- end of game ------------------------------------------------------------------------------

    def is_game_over(self) -> bool:
        """True when the side to move has no legal move (and so has lost)."""
        return not core.has_move(self._cells, self._queens, self._nq, self._turn, self._dirs)

    @property
    def winner(self) -> Optional[Color]:
        """The winner once the game is over, else ``None``."""
        return Color(1 - self._turn) if self.is_game_over() else None

    def outcome(self) -> Optional[Outcome]:
        winner = self.winner
        return None if winner is None else Outcome(winner, self.ply)

    # -- copies, symmetry, comparison ------------------------------------------------------------------

    def copy(self, stack: bool = True) -> "Board":
        """An independent copy; with ``stack=False`` the copy has no move history."""
        board = Board.__new__(Board)
        board.__dict__.update(self.__dict__)
        board._cells = self._cells.copy()
        board._queens = self._queens.copy()
        board._nq = self._nq.copy()
        board._stack = list(self._stack) if stack else []
        return board

    def transform(self, symmetry: int) -> "Board":
        """The position under one of the 8 board symmetries (see ``symmetry.SYMMETRIES``), same side to move,
        no history. Symmetry 0 is the identity."""
        n = self._size
        white, black, arrows = (tuple(transform_square(s, symmetry, n) for s in group) for group in self.layout())
        return Board.from_squares(n, white, black, arrows, self._turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._size == other._size and self._turn == other._turn and np.array_equal(self._cells, other._cells)

    def __hash__(self) -> int:
        return hash((self._size, self._turn, self._cells.tobytes()))

    # -- text -----------------------------------------------------------------------------------

    def text(self) -> str:
        """The position text (board and side to move), e.g. ``'1q2q1/q4q/6/6/Q4Q/1Q2Q1 w'``."""
        return format_position(self._size, *self.layout(), self._turn)

    def __repr__(self) -> str:
        return f"Board(position={self.text()!r})"

    def __str__(self) -> str:
        """A diagram with coordinates (rank N at the top) and a line saying whose turn it is.

        >>> print(Board(4))
         4 . q q .
         3 q . . q
         2 Q . . Q
         1 . Q Q .
           a b c d
        White to move
        """
        n = self._size
        grid = self._cells[self._to_padded].reshape(n, n)
        winner = self.winner
        caption = (
            f"{self.turn.name.capitalize()} to move"
            if winner is None
            else f"{self.turn.name.capitalize()} has no move: {winner.name.capitalize()} won"
        )
        return ansi(grid, caption)

    def _repr_svg_(self) -> str:
        from amazons_env.drawing.svg import board_svg

        return board_svg(self)
