"""``Solver``: prove the game value of a position with the numba proof search of ``kernel``.

>>> from amazons_env import Board
>>> solver = Solver()
>>> proof = solver.solve(Board.from_text("q3/4/4/Q1*1 w"))
>>> values = solver.classify(Board.from_text("q3/4/4/Q1*1 w"))
>>> len(values), sum(value == "won" for _, value in values)   # 9 of White's 50 moves win
(50, 9)
>>> proof.value, (proof.move, "won") in values
('won', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Collection, Iterator, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.solver import kernel

__all__ = ["Proof", "Solver", "VALUES", "DEFAULT_TABLE_BITS"]

DEFAULT_TABLE_BITS = 22  # 4M entries: 36 MB, room for the 5x5 proof
VALUES = {kernel.WON: "won", kernel.LOST: "lost", kernel.UNKNOWN: "unknown"}


@dataclass(frozen=True)
class Proof:
    """The answer for the side to move: ``value`` "won", "lost" or "unknown" (the node budget ran
    out); ``move`` a winning move when won (None otherwise); ``nodes`` searched by this call;
    ``seconds`` wall time and ``cpu_seconds`` this process's CPU time."""

    value: str
    move: Optional[Move]
    nodes: int
    seconds: float
    cpu_seconds: float


class Solver:
    """A proof search with its transposition table, kept between calls (so proving the children of
    a position after the position itself costs little). ``table_bits``: log2 of the table's entries."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        if not isinstance(table_bits, int) or isinstance(table_bits, bool) or not 8 <= table_bits <= 30:
            raise InvalidArgumentError(f"table_bits must be an integer from 8 to 30, got {table_bits!r}")
        self._table_keys = np.zeros(1 << table_bits, dtype=np.uint64)
        self._table_values = np.zeros(1 << table_bits, dtype=np.int8)
        self._keys: dict[int, np.ndarray] = {}
        self.nodes = 0  #: nodes searched by this solver in all

    def _prove(self, board: Board, limit: Optional[int]) -> tuple[int, int]:
        """(kernel answer, nodes) for ``board``'s side to move; the board is unchanged."""
        cells, queens = board.cells.copy(), board.queens.copy()
        keys = self._keys.get(cells.shape[0])
        if keys is None:
            keys = self._keys[cells.shape[0]] = kernel.zobrist_keys(cells.shape[0])
        empties = int(np.count_nonzero(cells == core.EMPTY))
        plies = empties + 2
        moves = np.empty((plies, core.max_moves(board.size, core.MAX_QUEENS), 3), dtype=np.int64)
        scores = np.empty((plies, moves.shape[1]), dtype=np.int64)
        stats = np.array([0, 2**62 if limit is None else limit], dtype=np.int64)
        h = kernel.position_hash(cells, int(board.turn), keys)
        answer = kernel.prove(
            cells, queens, board.queen_counts.copy(), int(board.turn), board.dirs, h, keys,
            self._table_keys, self._table_values, moves, scores, stats, 0,
        )  # fmt: skip
        self.nodes += int(stats[kernel.NODES])
        return int(answer), int(stats[kernel.NODES])

    def solve(self, board: Board, limit: Optional[int] = None) -> Proof:
        """Prove ``board`` for the side to move, giving up after ``limit`` nodes (None: never)."""
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise InvalidArgumentError(f"limit must be a positive integer or None, got {limit!r}")
        wall, cpu = time.perf_counter(), time.process_time()
        answer, nodes = self._prove(board, limit)
        move = None
        if answer == kernel.WON:
            # the table holds the refuted child: each lookup below costs one node
            for candidate, value, spent in self._children(board, None):
                nodes += spent
                if value == kernel.LOST:
                    move = candidate
                    break
        return Proof(VALUES[answer], move, nodes, time.perf_counter() - wall, time.process_time() - cpu)

    def _children(
        self, board: Board, limit: Optional[int], only: Optional[Collection[Move]] = None
    ) -> Iterator[tuple[Move, int, int]]:
        """(move, the child's answer for the opponent, nodes) for each legal move of ``board``
        (those in ``only`` if given)."""
        work = board.copy(stack=False)
        for move in work.legal_moves():
            if only is not None and move not in only:
                continue
            work.push_unchecked(move)
            answer, nodes = self._prove(work, limit)
            work.pop()
            yield move, answer, nodes

    def classify(
        self,
        board: Board,
        limit: Optional[int] = None,
        progress: Optional[Callable[[int, int], None]] = None,
        only: Optional[Collection[Move]] = None,
    ) -> list[tuple[Move, str]]:
        """Every legal move of ``board`` (those in ``only`` if given) with its value for the side
        that plays it ("won", "lost", or "unknown" past ``limit`` nodes per move);
        ``progress(done, total)`` after each move."""
        total = board.count_legal_moves() if only is None else len(only)
        out = []
        for done, (move, answer, _) in enumerate(self._children(board, limit, only), 1):
            out.append((move, VALUES[-answer]))
            if progress is not None:
                progress(done, total)
        return out
