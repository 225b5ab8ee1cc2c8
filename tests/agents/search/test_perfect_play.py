"""Perfect play as a test (issue 41): in proven-won 5x5 positions, ``uct`` at a short budget picks
a move that keeps the win (``benchmarks/strength/perfect_play.py`` measures it over 1,000 positions)."""

from __future__ import annotations

import numpy as np

from amazons_env import Board, Move

from agents import make
from agents.search.solver import Solver

POSITIONS = 20


def _won_positions(solver: Solver, count: int, seed: int) -> list[Board]:
    """``count`` positions after 8-12 random plies from the 5x5 start, proven won for the side to move."""
    rng = np.random.default_rng(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board(5)
        for _ in range(int(rng.integers(8, 13))):
            moves = board.legal_moves_array()
            if len(moves) == 0:
                break
            frm, to, arrow = moves[rng.integers(len(moves))].tolist()
            board.push(Move(frm, to, arrow, 5))
        if not board.is_game_over() and solver.solve(board, limit=200_000).value == "won":
            found.append(board)
    return found


def test_uct_keeps_the_win_in_proven_won_positions():
    solver = Solver(table_bits=18)
    agent = make("uct:sims=400")
    agent.seed(0)
    agent.prove = 0  # the search itself, not the proven-move shortcut
    kept = 0
    for board in _won_positions(solver, POSITIONS, seed=41):
        values = dict(solver.classify(board))
        kept += values[agent.select_move(board)] == "won"
    assert kept >= POSITIONS - 3, f"uct kept the win in {kept} of {POSITIONS} proven-won positions"
