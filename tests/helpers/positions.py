"""Positions for the searches' tests: random play to a late position, and a plain minimax to
check a search's value against."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from amazons_env import Board, Move

from agents.evaluation.evaluator import Evaluator

__all__ = ["random_position", "minimax", "wins"]


def random_position(seed: int, size: int = 6, max_moves: int = 40) -> Board:
    """Random play from the start until the side to move has at most ``max_moves`` moves."""
    rng = np.random.default_rng(seed)
    board = Board(size)
    while board.count_legal_moves() > max_moves:
        moves = board.legal_moves_array()
        from_square, to_square, arrow = moves[rng.integers(len(moves))].tolist()
        board.push(Move(from_square, to_square, arrow, size))
    return board


def minimax(board: Board, depth: int, evaluator: Evaluator, loss: float = -1.0) -> float:
    """Plain negamax, no pruning, through the public Board API; ``loss`` is the value of a side
    to move with no move (the study's searches use -1, the engines a larger ``-WIN``)."""
    if board.is_game_over():
        return loss
    if depth == 0:
        return evaluator.evaluate(board)
    best = -np.inf
    for move in board.legal_moves():
        board.push(move)
        best = max(best, -minimax(board, depth - 1, evaluator, loss))
        board.pop()
    return best


@lru_cache(maxsize=None)
def wins(text: str) -> bool:
    """Whether the side to move in the position ``text`` wins with perfect play: plain minimax, no
    table tricks (tiny boards only)."""
    board = Board.from_text(text)
    for move in board.legal_moves():
        board.push(move)
        lost = not wins(board.text())
        board.pop()
        if lost:
            return True
    return False
