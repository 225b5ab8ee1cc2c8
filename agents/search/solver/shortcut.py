"""The proven move, played at once: what every search tries first in a small endgame.

``SearchAgent.search`` (``agents.search.agent``) asks ``Shortcut.move`` before searching: where
the squares both sides can still fight over are few (``agents.time.manager.contested_squares``:
the empty squares of the regions that hold amazons of both sides, at most ``CONTESTED``), the
df-pn prover gets a small node budget (``nodes``: the agent's ``prove``), and a proven win is
played without searching. Elsewhere it costs one flood of the board. A budget of 0 turns it
off; a lost or unproven position is left to the search.

>>> from amazons_env import Board
>>> board = Board.from_text("q3/4/4/Q1*1 w")
>>> Shortcut(nodes=10_000).move(board) is not None
True
>>> Shortcut(nodes=0).move(board) is None
True
"""

from __future__ import annotations

from typing import Optional

from amazons_env import Board, Move

from agents.search.solver.prover import Solver
from agents.time.manager import contested_squares

__all__ = ["Shortcut", "CONTESTED", "TABLE_BITS"]

CONTESTED = 20  # try only where the contested regions hold at most this many empty squares
TABLE_BITS = 16  # 64K entries, 1.3 MB, new for every move: a move depends on its position alone


class Shortcut:
    """A search's proven-move shortcut (module docstring). Each move gets a fresh table, so the
    same position always gets the same answer (a table kept between moves made matches differ
    from one run to the next)."""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes

    def move(self, board: Board) -> Optional[Move]:
        """A proven winning move of ``board`` within the budget, or None."""
        if self.nodes <= 0 or contested_squares(board) > CONTESTED:
            return None
        proof = Solver(TABLE_BITS).solve(board, limit=self.nodes)
        return proof.move
