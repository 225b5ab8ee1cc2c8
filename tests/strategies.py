"""Hypothesis strategies of positions, shared by the tests that check the rules' implementations
against each other (a strategy is drawn from, not a fixture: the tests import these).

``positions``: a position of any size, reached by random play from the start
(``played_positions``) or a random layout of queens and arrows (``custom_positions``, of one
``size`` where given), either side to move, maybe without a move.
"""

from __future__ import annotations

from hypothesis import strategies as st

from amazons_env import Board
from amazons_env.core import MAX_QUEENS, MAX_SIZE, MIN_SIZE

from agents.arena import opening_board

__all__ = ["played_positions", "custom_positions", "positions"]


@st.composite
def played_positions(draw) -> Board:
    """A position reached by random play from the start of a random size (the arena's openings)."""
    size = draw(st.integers(MIN_SIZE, MAX_SIZE))
    plies = draw(st.integers(0, size * size * 3 // 4))  # random games last about this long
    return opening_board(size, plies, [draw(st.integers(0, 2**32))])


@st.composite
def custom_positions(draw, size=None) -> Board:
    """A random layout of ``size`` (default: any): 1..MAX_QUEENS queens per side, arrows anywhere,
    either side to move."""
    size = draw(st.integers(MIN_SIZE, MAX_SIZE)) if size is None else size
    squares = draw(st.permutations(range(size * size)))
    most = min(MAX_QUEENS, size * size // 2 - 1)
    white, black = draw(st.integers(1, most)), draw(st.integers(1, most))
    arrows = draw(st.integers(0, size * size - white - black))
    w, b = white, white + black
    return Board.from_squares(size, squares[:w], squares[w:b], squares[b : b + arrows], draw(st.integers(0, 1)))


positions = st.one_of(played_positions(), custom_positions())
