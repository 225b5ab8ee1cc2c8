"""``Solver``: prove the game value of a position with the df-pn search of ``dfpn``.

The search runs in slices of ``SLICE`` nodes: between two, a ``progress`` callback sees the
root's numbers, Ctrl-C (``KeyboardInterrupt``) arrives, and the table can be saved
(``save``/``resume``, through ``proof_file``) so that a long proof goes on from there. The table
is kept between calls, so proving the children of a position after the position costs little.

>>> from amazons_env import Board
>>> solver = Solver(table_bits=16)
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
from amazons_env.files import PathLike

from agents.search.solver import dfpn, proof_file
from agents.search.solver.scratch import DEPTH_FIRST, LIMIT, NO_LIMIT, NODES, ProofPosition, new_scratch
from agents.search.solver.table import INF, Table, new_table
from agents.search.zobrist import position_key

__all__ = ["Proof", "Solver", "Progress", "DEFAULT_TABLE_BITS", "DEPTH_FIRST_EMPTIES", "SLICE"]

DEFAULT_TABLE_BITS = 22  # 4M entries: 84 MB
SLICE = 100_000  # nodes between two progress reports (and chances to stop)
DEPTH_FIRST_EMPTIES = 11  # positions with at most this many empty squares are proved depth-first
QUICK = 100_000  # nodes of the first search of a move's position before its replies are proved one by one

#: ``progress(nodes, phi, delta)``: the nodes searched so far and the root's numbers
Progress = Callable[[int, int, int], None]


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
    """A df-pn proof search with its transposition table (one per board size, ``2**table_bits``
    entries), kept between calls."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS, depth_first: int = DEPTH_FIRST_EMPTIES) -> None:
        if not isinstance(table_bits, int) or isinstance(table_bits, bool) or not 8 <= table_bits <= 30:
            raise InvalidArgumentError(f"table_bits must be an integer from 8 to 30, got {table_bits!r}")
        if not isinstance(depth_first, int) or isinstance(depth_first, bool) or depth_first < 0:
            raise InvalidArgumentError(f"depth_first must be a whole number of empty squares, got {depth_first!r}")
        self.table_bits = table_bits
        self.depth_first = depth_first
        self._tables: dict[int, Table] = {}
        self.nodes = 0  #: nodes searched by this solver in all

    def _table(self, size: int) -> Table:
        table = self._tables.get(size)
        if table is None:
            table = self._tables[size] = new_table(self.table_bits, size)
        return table

    def _run(self, board: Board, limit: Optional[int], progress: Optional[Progress]) -> tuple[int, int, Optional[Move]]:
        """Search ``board`` until proven or ``limit`` nodes: (phi, delta, a winning move seen at the
        root or None). The board is unchanged."""
        cells, queens = board.cells.copy(), board.queens.copy()
        position = ProofPosition(cells, queens, board.queen_counts.copy(), board.dirs)
        table = self._table(board.size)
        empties = int(np.count_nonzero(cells == core.EMPTY))
        scratch = new_scratch(empties, core.max_moves(board.size, int(board.queen_counts.max())))
        stats = scratch.stats
        h = position_key(cells, int(board.turn), table.zobrist)
        stop = NO_LIMIT if limit is None else limit
        stats[DEPTH_FIRST] = self.depth_first
        while True:
            stats[LIMIT] = min(stats[NODES] + SLICE, stop)
            before = int(stats[NODES])
            phi, delta = dfpn.mid(position, int(board.turn), h, INF, INF, table, scratch, 0)
            self.nodes += int(stats[NODES]) - before  # counted per slice: a Ctrl-C keeps the count right
            if progress is not None:
                progress(self.nodes, int(phi), int(delta))
            if phi == 0 or delta == 0 or stats[NODES] >= stop:
                break
        move = None
        if phi == 0:  # the root's row holds its children's numbers, a lost one first among them
            lost = np.flatnonzero(scratch.delta[0] == 0)
            if lost.size:
                public = core.public_index(board.size)
                frm, to, arrow = (int(public[p]) for p in scratch.moves[0, lost[0]])
                move = Move(frm, to, arrow, board.size)
        return int(phi), int(delta), move

    def solve(self, board: Board, limit: Optional[int] = None, progress: Optional[Progress] = None) -> Proof:
        """Prove ``board`` for the side to move, giving up after ``limit`` nodes (None: never);
        ``progress(nodes, phi, delta)`` after every slice."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise InvalidArgumentError(f"limit must be a positive integer or None, got {limit!r}")
        wall, cpu, before = time.perf_counter(), time.process_time(), self.nodes
        phi, delta, move = self._run(board, limit, progress)
        value = "won" if phi == 0 else "lost" if delta == 0 else "unknown"
        if value == "won" and (move is None or not board.is_legal(move)):
            move = next(candidate for candidate, won in self._children(board, None) if won == "won")
        return Proof(value, move, self.nodes - before, time.perf_counter() - wall, time.process_time() - cpu)

    def _children(
        self, board: Board, limit: Optional[int], only: Optional[Collection[Move]] = None
    ) -> Iterator[tuple[Move, str]]:
        """(move, its value for the side that plays it) for each legal move of ``board`` (those
        in ``only`` if given)."""
        work = board.copy(stack=False)
        for move in work.legal_moves():
            if only is not None and move not in only:
                continue
            work.push_unchecked(move)
            value = self._value_of_played(work, limit)
            work.pop()
            yield move, value

    def _value_of_played(self, work: Board, limit: Optional[int]) -> str:
        """The value of the move just played on ``work`` for the side that played it, "unknown"
        past ``limit`` nodes. A short search of the position first settles the easy ones (a
        refutation is often quick); then each reply is proved on its own, in one table, so the
        proof that a move wins goes reply after reply instead of df-pn spreading its top plies
        over all of them (5x5's b1-b3/d3: ``benchmarks/README.md``)."""
        start = self.nodes
        quick = QUICK if limit is None else min(QUICK, limit)
        phi, delta, _ = self._run(work, quick, None)
        if phi == 0 or delta == 0:
            return "lost" if phi == 0 else "won"
        value = "won"
        for reply in work.legal_moves():
            left = None if limit is None else limit - (self.nodes - start)
            if left is not None and left < 1:
                return "unknown"
            work.push_unchecked(reply)
            phi, delta, _ = self._run(work, left, None)
            work.pop()
            if delta == 0:  # the reply wins for the opponent
                return "lost"
            if phi != 0:
                value = "unknown"
        return value

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
        for done, pair in enumerate(self._children(board, limit, only), 1):
            out.append(pair)
            if progress is not None:
                progress(done, total)
        return out

    def save(self, path: PathLike, board: Board) -> None:
        """Write the table of ``board``'s size, as the proof state of ``board``, to ``path``."""
        proof_file.write_state(path, board.text(), self.nodes, self._table(board.size))

    def resume(self, path: PathLike, board: Board) -> None:
        """Take the table (and the node count) of the proof of ``board`` saved at ``path``
        (``proof_file.ProofFileError`` if it is not that, or damaged)."""
        table, nodes = proof_file.read_state(path, board.text())
        if table.zobrist.shape != (4, (board.size + 2) ** 2):
            size = f"{board.size}x{board.size}"
            raise proof_file.ProofFileError(f"proof state {path}: its keys are not those of a {size} board")
        self._tables[board.size] = table
        self.table_bits = int(table.keys.shape[0]).bit_length() - 1
        self.nodes = nodes
