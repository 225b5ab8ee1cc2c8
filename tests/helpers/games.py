"""Games for the tests: records that fill the board or end quickly, played the same every time."""

from __future__ import annotations

import numpy as np

from amazons_env import Board, GameRecord, Move
from amazons_env.drawing.html import cells_text

__all__ = ["filling_game", "short_game"]


def filling_game(size: int = 10, seed: int = 3) -> GameRecord:
    """A deterministic game that fills the board: each ply shoots where the most neighbours are
    already taken (walls included), so little space is cut off and a 10x10 game lasts its longest,
    92 plies (one per empty square)."""
    rng = np.random.default_rng(seed)
    board = Board(size)
    while not board.is_game_over():
        taken = np.ones((size + 2, size + 2), bool)
        taken[1:-1, 1:-1] = np.array([c != "." for c in cells_text(board)]).reshape(size, size)
        moves = board.legal_moves_array()
        rank, file = moves[:, 2] // size + 1, moves[:, 2] % size + 1
        crowd = sum(taken[rank + dr, file + df] for dr in (-1, 0, 1) for df in (-1, 0, 1) if dr or df)
        frm, to, arrow = moves[rng.choice(np.flatnonzero(crowd == crowd.max()))].tolist()
        board.push_unchecked(Move(frm, to, arrow, size))
    return GameRecord.from_board(board)


def short_game(seed: int = 3, opening: int = 9) -> GameRecord:
    """A random 5x5 game from a position ``opening`` random plies in (so the solver is quick)."""
    rng = np.random.default_rng(seed)
    board = Board(5)
    for _ in range(opening):
        moves = board.legal_moves_array()
        frm, to, arrow = moves[rng.integers(len(moves))].tolist()
        board.push(Move(frm, to, arrow, 5))
    play = Board.from_text(board.text())
    while not play.is_game_over():
        moves = play.legal_moves_array()
        frm, to, arrow = moves[rng.integers(len(moves))].tolist()
        play.push(Move(frm, to, arrow, 5))
    return GameRecord(tuple(play.move_stack), start=board.text(), headers={"White": "w", "Black": "b"})
