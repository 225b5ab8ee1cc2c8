"""The filling phase: once the amazons of the two sides are separated, count moves exactly.

The empty squares and the amazons split into *regions* (connected under king steps; an amazon
next to another joins their regions, since the square it leaves opens a path). When no
region holds amazons of both sides the game is a sum of one-player puzzles: each side can make
exactly ``F(side) = sum over its regions of fill(region)`` more moves, where ``fill`` is the
longest sequence of moves its amazons can make inside the region (every move fills one empty
square, so ``fill <= empty squares``, and defects such as cut-off pockets make it smaller). The
side to move wins iff ``F(side) > F(opponent)``.

``fill`` is solved by depth-first search over the region's moves, stopping as soon as a sequence
reaches the bound (the region's empty squares), which is the common case; a node budget keeps big
regions cheap, in which case the value is a lower bound (``exact`` says which). The first move of
the best sequence found is the filling move: it keeps ``F(side)`` unchanged, so a won endgame is
never lost and a lost one is dragged out as long as it can be.

>>> from amazons_env import Board
>>> board = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")   # a wall of arrows on rank 3
>>> result = analyse(board)
>>> result.separated, result.lower, result.upper, result.exact
(True, (14, 10), (14, 10), True)
>>> result.outcome(), str(result.moves[0])   # White to move has 14 moves left to Black's 10
(1, 'a6-b6/a6')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from numba import njit, types

from amazons_env import Board, Move, core

from agents.search.rays import ray_end

__all__ = ["Analysis", "analyse", "filling_move", "count_fill", "fill_value", "DEFAULT_BUDGET"]

DEFAULT_BUDGET = 200_000  # fill-search nodes per region at the root
LOWER, UPPER, EXACT = range(3)  # columns of the per-side ``bounds`` rows


@njit(
    types.int64(
        types.uint8[::1],
        types.int64[:, ::1],
        types.int64,
        types.int64[::1],
        types.int64[::1],
        types.int64,
        types.int64,
        types.int64[::1],
        types.int64[::1],
        types.int64,
    ),
    cache=True,
)
def _fill(cells, queens, side, dirs, members, m, bound, budget, first, ply):
    """Longest move sequence of ``side``'s amazons ``queens[side, members[:m]]`` (one region with
    ``bound`` empty squares). ``budget[0]``: nodes left (``budget[1]`` set to 1 when it ran out);
    ``first`` gets the first move of the best sequence at ``ply`` 0."""
    if bound == 0:
        return 0
    best = 0
    piece = side + 1
    done = False
    for j in range(m):
        i = members[j]
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        for d in range(8):
            step = dirs[d]
            for to in range(frm + step, ray_end(cells, frm, step), step):
                if done:
                    break
                cells[to] = piece
                queens[side, i] = to
                for e in range(8):
                    astep = dirs[e]
                    for a in range(to + astep, ray_end(cells, to, astep), astep):
                        if done:
                            break
                        if budget[0] <= 0:
                            budget[1] = 1
                            done = True
                            break
                        budget[0] -= 1
                        cells[a] = core.ARROW
                        v = 1 + _fill(cells, queens, side, dirs, members, m, bound - 1, budget, first, ply + 1)
                        cells[a] = core.EMPTY
                        if v > best:
                            best = v
                            if ply == 0:
                                first[0], first[1], first[2] = frm, to, a
                            if best == bound:
                                done = True
                    if done:
                        break
                cells[to] = core.EMPTY
                queens[side, i] = frm
            if done:
                break
        cells[frm] = piece
        if done:
            break
    return best


@njit(cache=True)
def flood_region(cells, dirs, start, region, label, queue):
    """Label ``region`` on the squares reachable from amazon ``start`` over empty squares and
    amazons (amazons belong to the regions they touch, and so do amazons they touch: an amazon
    that moves away opens its square to its neighbours); returns (empty squares, sides present:
    bit 1 White, bit 2 Black). ``queue`` is scratch of the board's length."""
    label[start] = region
    queue[0] = start
    head, tail, empties, sides = 0, 1, 0, 0
    while head < tail:
        s = queue[head]
        head += 1
        v = cells[s]
        if v == core.EMPTY:
            empties += 1
        else:
            sides |= v  # WHITE_QUEEN = 1, BLACK_QUEEN = 2
        for k in range(8):
            t = s + dirs[k]
            c = cells[t]
            if label[t] < 0 and (c == core.EMPTY or c == core.WHITE_QUEEN or c == core.BLACK_QUEEN):
                label[t] = region
                queue[tail] = t
                tail += 1
    return empties, sides


@njit(cache=True)
def region_members(queens, nq, side, label, region, members):
    """Write the indices of ``side``'s amazons in ``region`` to ``members``; return how many."""
    m = 0
    for j in range(nq[side]):
        if label[queens[side, j]] == region:
            members[m] = j
            m += 1
    return m


@njit(cache=True)
def count_fill(cells, queens, nq, dirs, budget, bounds, first):
    """If the position is separated (no region with amazons of both sides), fill ``bounds[side]``
    with (lower, upper, exact) on the moves ``side`` has left and ``first[side]`` with a filling
    move (-1s if none) and return True; otherwise return False. ``budget``: nodes per region."""
    total = cells.shape[0]
    label = np.full(total, -1, dtype=np.int64)
    queue = np.empty(total, dtype=np.int64)
    members = np.empty(core.MAX_QUEENS, dtype=np.int64)
    move = np.empty(3, dtype=np.int64)
    state = np.zeros(2, dtype=np.int64)
    for side in range(2):
        bounds[side, LOWER] = 0
        bounds[side, UPPER] = 0
        bounds[side, EXACT] = 1
        first[side, :] = -1
    best_first = np.zeros(2, dtype=np.int64)  # 2 = from an exact region, 1 = a lower bound
    # every region flooded before any is filled: a position that is not separated is told by its
    # floods alone, without filling the one-side regions found before its shared one
    starts = np.empty(2 * core.MAX_QUEENS, dtype=np.int64)
    sizes = np.empty(2 * core.MAX_QUEENS, dtype=np.int64)
    regions = 0
    for side in range(2):
        for qi in range(nq[side]):
            start = queens[side, qi]
            if label[start] >= 0:
                continue
            empties, sides = flood_region(cells, dirs, start, regions, label, queue)
            if sides == 3:
                return False
            starts[regions], sizes[regions] = start, empties
            regions += 1
    for region in range(regions):
        owner = cells[starts[region]] - core.WHITE_QUEEN
        m = region_members(queens, nq, owner, label, region, members)
        state[0] = budget
        state[1] = 0
        move[:] = -1
        found = _fill(cells, queens, owner, dirs, members, m, sizes[region], state, move, 0)
        exact = state[1] == 0 or found == sizes[region]
        bounds[owner, LOWER] += found
        bounds[owner, UPPER] += found if exact else sizes[region]
        if not exact:
            bounds[owner, EXACT] = 0
        quality = 2 if exact else 1
        if found > 0 and quality > best_first[owner]:
            best_first[owner] = quality
            first[owner, :] = move
    return True


@njit(cache=True)
def fill_value(cells, queens, nq, side, dirs, budget):
    """For a search: ``(outcome, margin)`` of the position for ``side`` to move; outcome 1 (won),
    -1 (lost) when the position is separated and the counts decide it, else 0. ``margin``: the
    proven difference of moves left (side minus opponent)."""
    bounds = np.empty((2, 3), dtype=np.int64)
    first = np.empty((2, 3), dtype=np.int64)
    if not count_fill(cells, queens, nq, dirs, budget, bounds, first):
        return 0, 0
    other = 1 - side
    if bounds[side, LOWER] > bounds[other, UPPER]:
        return 1, bounds[side, LOWER] - bounds[other, UPPER]
    if bounds[side, UPPER] <= bounds[other, LOWER]:
        return -1, bounds[side, UPPER] - bounds[other, LOWER]
    return 0, 0


@dataclass(frozen=True)
class Analysis:
    """The filling-phase count of a position (``separated`` False: not in the filling phase yet).
    ``lower``/``upper``: moves left for (White, Black); ``exact``: whether lower == upper for both;
    ``moves``: a filling move per side in public squares, or None."""

    separated: bool
    turn: int
    lower: tuple[int, int]
    upper: tuple[int, int]
    exact: bool
    moves: tuple[Optional[Move], Optional[Move]]

    def outcome(self) -> int:
        """1 if the side to move has won, -1 if it has lost, 0 if not decided by the counts."""
        if not self.separated:
            return 0
        me, other = self.turn, 1 - self.turn
        if self.lower[me] > self.upper[other]:
            return 1
        if self.upper[me] <= self.lower[other]:
            return -1
        return 0


def analyse(board: Board, budget: int = DEFAULT_BUDGET) -> Analysis:
    """Count the filling phase of ``board`` (see the module docstring). The board is unchanged."""
    cells, queens = board.cells.copy(), board.queens.copy()
    bounds = np.zeros((2, 3), dtype=np.int64)
    first = np.full((2, 3), -1, dtype=np.int64)
    separated = bool(count_fill(cells, queens, board.queen_counts, board.dirs, int(budget), bounds, first))
    public = core.public_index(board.size)

    def filling(side: int) -> Optional[Move]:
        if not separated or first[side, 0] < 0:
            return None
        frm, to, arrow = (int(public[p]) for p in first[side])
        return Move(frm, to, arrow, board.size)

    return Analysis(
        separated,
        int(board.turn),
        (int(bounds[0, 0]), int(bounds[1, 0])),
        (int(bounds[0, 1]), int(bounds[1, 1])),
        bool(bounds[0, 2] and bounds[1, 2]),
        (filling(0), filling(1)),
    )


def filling_move(board: Board, budget: int = DEFAULT_BUDGET) -> Optional[tuple[Optional[Move], int]]:
    """If ``board`` is in the filling phase: the side to move's best filling move (None in a
    finished game) and its outcome (``Analysis.outcome``: 1 won, -1 lost, 0 not decided by the
    counts); else None. The searches play this move instead of searching a separated position."""
    result = analyse(board, budget)
    if not result.separated:
        return None
    return result.moves[int(board.turn)], result.outcome()
