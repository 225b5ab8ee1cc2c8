"""``Solver``: prove the game value of a position with the df-pn search of ``dfpn``.

A position first gets a short df-pn search (``QUICK`` nodes), which settles small and lopsided
ones. Otherwise its moves are proved one at a time, the most promising first (the opponent
shortest of moves after it: ``depth_first.mobility_score``) and one of each set of moves that a
symmetry of the position maps onto each other; the first move proved to win is the answer, and
the position is lost once every move is. A move is proved the same way one level down: a short
search of the position it leads to (a refutation is often quick), then each of the opponent's
replies on its own, in the same order and one of each symmetric set (the first refutation
found ends the move's proof). So the proof that a move wins goes reply after reply instead of df-pn
spreading its top plies over every root move and reply (5x5's start: ``benchmarks/README.md``),
and the replies are what ``threads`` share out: each thread proves the next reply not yet taken,
all in one table (``table``: lockless), and a reply that refutes the move stops the others.

The search runs in slices of ``SLICE`` nodes: between two, a ``progress`` callback hears the
nodes searched and what is being proved, Ctrl-C (``KeyboardInterrupt``) arrives, and the table
can be saved (``save``/``resume``, through ``proof_file``) so that a long proof goes on from
there: the proven replies are in the table, so a resumed proof skips them. The table is kept
between calls, so proving the children of a position after the position costs little.

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

import threading
import time
from dataclasses import dataclass
from typing import Callable, Collection, Iterator, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import PathLike
from amazons_env.symmetry import transform_move

from agents.search.solver import dfpn, proof_file
from agents.search.solver.depth_first import mobility_score
from agents.search.solver.scratch import DEPTH_FIRST, LIMIT, NO_LIMIT, NODES, ProofPosition, new_scratch
from agents.search.solver.table import INF, Table, new_table
from agents.search.zobrist import position_key

__all__ = ["Proof", "Solver", "Progress", "DEFAULT_TABLE_BITS", "DEPTH_FIRST_EMPTIES", "SLICE", "QUICK", "MAX_THREADS"]

DEFAULT_TABLE_BITS = 22  # 4M entries: 84 MB
SLICE = 100_000  # nodes between two progress reports (and chances to stop)
DEPTH_FIRST_EMPTIES = 11  # positions with at most this many empty squares are proved depth-first
QUICK = 100_000  # nodes of the first search of a position before its moves are proved one by one
MAX_THREADS = 256

#: ``progress(nodes, status)``: the nodes searched so far and what is being proved
Progress = Callable[[int, str], None]


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
    """A proof search (module docstring) with its transposition table (one per board size,
    ``2**table_bits`` entries) kept between calls; ``threads`` prove replies side by side;
    ``quick``: the nodes of a position's short search before its moves are proved one by one."""

    def __init__(
        self,
        table_bits: int = DEFAULT_TABLE_BITS,
        depth_first: int = DEPTH_FIRST_EMPTIES,
        threads: int = 1,
        quick: int = QUICK,
    ) -> None:
        if not isinstance(table_bits, int) or isinstance(table_bits, bool) or not 8 <= table_bits <= 30:
            raise InvalidArgumentError(f"table_bits must be an integer from 8 to 30, got {table_bits!r}")
        if not isinstance(depth_first, int) or isinstance(depth_first, bool) or depth_first < 0:
            raise InvalidArgumentError(f"depth_first must be a whole number of empty squares, got {depth_first!r}")
        if not isinstance(threads, int) or isinstance(threads, bool) or not 1 <= threads <= MAX_THREADS:
            raise InvalidArgumentError(f"threads must be an integer from 1 to {MAX_THREADS}, got {threads!r}")
        if not isinstance(quick, int) or isinstance(quick, bool) or quick < 1:
            raise InvalidArgumentError(f"quick must be a positive number of nodes, got {quick!r}")
        self.table_bits = table_bits
        self.depth_first = depth_first
        self.threads = threads
        self.quick = quick
        self._tables: dict[int, Table] = {}
        self._lock = threading.Lock()
        self.nodes = 0  #: nodes searched by this solver in all

    def _table(self, size: int) -> Table:
        with self._lock:
            table = self._tables.get(size)
            if table is None:
                table = self._tables[size] = new_table(self.table_bits, size)
            return table

    def _quick(self, limit: Optional[int]) -> int:
        """The nodes of a position's short search within ``limit``."""
        return self.quick if limit is None else min(self.quick, limit)

    def _left(self, limit: Optional[int], start: int) -> Optional[int]:
        """The nodes left of ``limit`` counted from ``start`` (None: no limit)."""
        return None if limit is None else limit - (self.nodes - start)

    def _run(
        self,
        board: Board,
        limit: Optional[int],
        progress: Optional[Progress] = None,
        what: str = "",
        stop: Optional[threading.Event] = None,
    ) -> tuple[int, int, Optional[Move]]:
        """df-pn on ``board`` until proven, ``limit`` nodes or ``stop`` is set: (phi, delta, a
        winning move seen at the root or None). The board is unchanged."""
        cells, queens = board.cells.copy(), board.queens.copy()
        position = ProofPosition(cells, queens, board.queen_counts.copy(), board.dirs)
        table = self._table(board.size)
        empties = int(np.count_nonzero(cells == core.EMPTY))
        rows = core.max_moves(board.size, int(board.queen_counts.max()))
        scratch = new_scratch(empties, rows, cells.shape[0])
        stats = scratch.stats
        h = position_key(cells, int(board.turn), table.zobrist)
        budget = NO_LIMIT if limit is None else limit
        stats[DEPTH_FIRST] = self.depth_first
        while True:
            stats[LIMIT] = min(stats[NODES] + SLICE, budget)
            before = int(stats[NODES])
            phi, delta = dfpn.mid(position, int(board.turn), h, INF, INF, table, scratch, 0)
            with self._lock:  # counted per slice: a Ctrl-C keeps the count right
                self.nodes += int(stats[NODES]) - before
            if progress is not None:
                progress(self.nodes, f"{what}phi {int(phi):,} delta {int(delta):,}")
            if phi == 0 or delta == 0 or stats[NODES] >= budget or (stop is not None and stop.is_set()):
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
        """Prove ``board`` for the side to move, giving up after about ``limit`` nodes (None:
        never); ``progress(nodes, status)`` after every slice."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise InvalidArgumentError(f"limit must be a positive integer or None, got {limit!r}")
        wall, cpu, before = time.perf_counter(), time.process_time(), self.nodes
        value, move = self._solve(board.copy(stack=False), limit, progress)
        return Proof(value, move, self.nodes - before, time.perf_counter() - wall, time.process_time() - cpu)

    def _solve(self, work: Board, limit: Optional[int], progress: Optional[Progress]) -> tuple[str, Optional[Move]]:
        start = self.nodes
        phi, delta, move = self._run(work, self._quick(limit), progress, "the position: ")
        if phi == 0:
            if move is None or not work.is_legal(move):
                move = next(candidate for candidate, won in self._children(work, None) if won == "won")
            return "won", move
        if delta == 0:
            return "lost", None
        moves = self.candidates(work)
        value = "lost"
        for k, move in enumerate(moves, 1):
            left = self._left(limit, start)
            if left is not None and left < 1:
                return "unknown", None
            work.push_unchecked(move)
            played = self._value_of_played(work, left, progress, f"move {k}/{len(moves)} {move}: ")
            work.pop()
            if played == "won":
                return "won", move
            if played == "unknown":
                value = "unknown"
        return value, None

    def candidates(self, board: Board) -> list[Move]:
        """``board``'s legal moves to prove, in the order tried: one of each set of moves that a
        symmetry of the position maps onto each other, the opponent shortest of moves after it
        first (``depth_first.mobility_score``; ties in the order of ``legal_moves``)."""
        symmetries = [k for k in range(1, 8) if board.transform(k) == board]
        seen: set[Move] = set()
        scored = []
        side = int(board.turn)
        for move in board.legal_moves():
            if move in seen:
                continue
            seen.update(transform_move(move, k) for k in symmetries)
            board.push_unchecked(move)
            cells, queens, nq, dirs = board.cells, board.queens, board.queen_counts, board.dirs
            theirs = core.count_queen_moves(cells, queens, nq, 1 - side, dirs)
            ours = core.count_queen_moves(cells, queens, nq, side, dirs)
            scored.append((int(mobility_score(theirs, ours)), move))
            board.pop()
        scored.sort(key=lambda pair: pair[0])
        return [move for _, move in scored]

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

    def _value_of_played(
        self, work: Board, limit: Optional[int], progress: Optional[Progress] = None, what: str = ""
    ) -> str:
        """The value of the move just played on ``work`` for the side that played it, "unknown"
        past ``limit`` nodes: a short search of the position, then its replies one by one on
        ``threads`` threads (module docstring)."""
        start = self.nodes
        phi, delta, _ = self._run(work, self._quick(limit), progress, what)
        if phi == 0 or delta == 0:
            return "lost" if phi == 0 else "won"
        replies = self.candidates(work)  # a refuting reply is found sooner if tried first
        state = _Replies(len(replies))
        self._table(work.size)  # made before the threads share it

        def prove_replies(board: Board) -> None:
            while not state.stop.is_set():
                k = state.take()
                if k is None:
                    return
                left = self._left(limit, start)
                if left is not None and left < 1:
                    state.unknown = True
                    return
                board.push_unchecked(replies[k])
                status = f"{what}{state.done}/{len(replies)} replies, {replies[k]}: "
                phi, delta, _ = self._run(board, left, progress, status, state.stop)
                board.pop()
                state.finish(refuted=delta == 0, proved=phi == 0)

        def helper(board: Board) -> None:
            try:
                prove_replies(board)
            except BaseException as error:  # a reply left unproven must not pass for a proved one
                state.failed = error
                state.stop.set()

        workers = [work.copy(stack=False) for _ in range(min(self.threads, len(replies)) - 1)]
        threads = [threading.Thread(target=helper, args=(board,), daemon=True) for board in workers]
        for thread in threads:
            thread.start()
        try:
            prove_replies(work)
        finally:
            state.stop.set()  # on a Ctrl-C too: the others stop at their next slice
            for thread in threads:
                thread.join()
        if state.failed is not None:
            raise state.failed
        return "lost" if state.refuted else "unknown" if state.unknown else "won"

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
        self.table_bits = int(table.work.shape[0]).bit_length() - 1
        self.nodes = nodes


class _Replies:
    """The replies of one move as the threads share them: the next to take, how many are done,
    and what was found (one refutes the move; one stayed unproven; a helper thread failed);
    ``stop`` once refuted or failed."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.next = 0
        self.done = 0
        self.refuted = False
        self.unknown = False
        self.failed: Optional[BaseException] = None  # what a helper thread raised
        self.stop = threading.Event()
        self._lock = threading.Lock()

    def take(self) -> Optional[int]:
        with self._lock:
            if self.next >= self.total:
                return None
            self.next += 1
            return self.next - 1

    def finish(self, refuted: bool, proved: bool) -> None:
        with self._lock:
            self.done += 1
            if refuted:
                self.refuted = True
                self.stop.set()
            elif not proved and not self.stop.is_set():
                self.unknown = True
