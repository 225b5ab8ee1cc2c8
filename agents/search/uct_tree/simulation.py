"""A ``uct_tree`` simulation, in numba: ``run`` plays a batch of them from the root and returns.

Each simulation descends by PUCT over the children that progressive widening has opened
(``_select``), expands the first move node it reaches with enough visits (``expansion.expand``),
takes the leaf's value (its score, its evaluation, or a random playout's), and backs the value up
the path, proving nodes won or lost on the way (``_prove``, MCTS-solver); ``stopping`` says when
to stop. The package docstring describes the rules and shows a call.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.move_order import POSITION_TYPE, Position
from agents.search.rays import ray_end
from agents.search.uct_tree.expansion import BUFFERS_TYPE, Buffers, expand, queen_moves
from agents.search.uct_tree.leaves import RECORDED_TYPE, Recorded, record
from agents.search.uct_tree.nodes import (
    ARROW,
    BUDGET_TYPE,
    COMPLETE,
    CONFIG_TYPE,
    EVALS,
    FIRST,
    FREE,
    FROM,
    KIND,
    KIND_ARROW,
    KIND_MOVE,
    LIMIT,
    NKIDS,
    PENDING,
    PRIOR,
    RNG,
    ROOT,
    SIMS,
    SOLVED,
    STATIC,
    STOP_BATCH,
    STOP_PROVEN,
    STOP_SETTLED,
    STOP_SIMULATIONS,
    STOP_TIME,
    STOP_TIME_MAX,
    STOPPED,
    TO,
    TREE_TYPE,
    VISITS,
    WSUM,
    Budget,
    SearchConfig,
    Tree,
)
from agents.search.uct_tree.stopping import SCAN_NS, settled, sure
from agents.time.clock import now_ns
from agents.time.deadline import DEADLINE_LAST, DEADLINE_STOP

__all__ = ["run", "Job"]

CHECK_EVERY = 8  # evaluations (or simulations) between two readings of the clock
#: ``ni[x, FIRST]`` while a thread expands ``x`` (several threads): the others take it for a leaf.
#: The claim is not atomic either, but it narrows the window in which two threads expand one node
#: (and one block's counts and proofs are orphaned) from the whole expansion to a read and a write.
CLAIMED = -2
MAX_DEPTH = 512  # path length bound: 2 levels per move, at most 140 moves on 12x12


@njit(cache=True, inline="always")
def _rand(st, n):
    """A number in ``0 .. n - 1`` from the xorshift64 state ``st[RNG]``."""
    x = st[RNG]
    x ^= x << 13
    x ^= (x >> 7) & 0x01FFFFFFFFFFFFFF
    x ^= x << 17
    st[RNG] = x
    return (x & 0x7FFFFFFFFFFFFFFF) % n


@njit(cache=True)
def _playout(position, side, plies, kernel, params, st, buf):
    """Value for ``side`` (to move in ``position``) after ``plies`` uniformly random queen moves,
    each with a uniformly random arrow, then the evaluation; the arrays are restored."""
    cells, queens, nq, dirs = position
    sign = 1.0
    played = 0
    value = 0.0
    undo = np.empty((plies, 4), dtype=np.int64)
    done = False
    for p in range(plies):
        n = queen_moves(cells, queens, nq, side, dirs, buf)
        if n == 0:
            value = -1.0
            done = True
            break
        j = _rand(st, n)
        i, to = buf[j, 0], buf[j, 1]
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        n = 0
        for d in range(8):
            for a in range(to + dirs[d], ray_end(cells, to, dirs[d]), dirs[d]):
                buf[n, 0] = a
                n += 1
        arrow = buf[_rand(st, n), 0]  # frm itself is always there: n >= 1
        core.make_move(cells, queens, side, i, to, arrow)
        undo[p, 0], undo[p, 1], undo[p, 2], undo[p, 3] = i, frm, to, arrow
        played += 1
        side = 1 - side
        sign = -sign
    if not done:
        st[EVALS] += 1
        value = kernel(cells, queens, nq, side, dirs, params)
    for p in range(played - 1, -1, -1):
        side = 1 - side
        core.unmake_move(cells, queens, side, undo[p, 0], undo[p, 1], undo[p, 2], undo[p, 3])
    return sign * value


@njit(cache=True)
def _select(x, ni, nf, cfg):
    """The child of ``x`` to descend into (a won child at once, never a lost one), or -1 if every
    child is lost."""
    first, n = ni[x, FIRST], ni[x, NKIDS]
    parent_n = ni[x, VISITS] + 1
    opened = n
    if cfg.pw_c > 0.0:
        opened = max(1, int(cfg.pw_c * parent_n**cfg.pw_a))
    explore = cfg.c_puct * np.sqrt(parent_n)
    best = -1
    best_score = -1e300
    seen = 0
    for c in range(first, first + n):
        solved = ni[c, SOLVED]
        if solved == 1:
            return c
        if solved == -1:
            continue
        visits = ni[c, VISITS]
        if visits == 0 and np.isnan(nf[c, STATIC]):
            return c  # not evaluated yet: the first open one in prior order goes first
        q = nf[c, WSUM] / visits if visits > 0 else nf[c, STATIC]
        score = q + explore * nf[c, PRIOR] / (1 + visits)
        if score > best_score:
            best_score = score
            best = c
        seen += 1
        if seen >= opened:
            break
    return best


@njit(cache=True)
def _prove(x, ni):
    """The solved value of ``x`` for the side acting at ``x`` from its children: 1 if one is won,
    -1 if all are lost, else 0."""
    first, n = ni[x, FIRST], ni[x, NKIDS]
    lost = 0
    for c in range(first, first + n):
        if ni[c, SOLVED] == 1:
            return 1
        if ni[c, SOLVED] == -1:
            lost += 1
    return -1 if lost == n and n > 0 else 0


class Job(NamedTuple):
    """``run``'s arguments, for a caller that runs it again and again (``batches.search``)."""

    position: Position
    side: int
    kernel: Any
    params: np.ndarray
    cfg: SearchConfig
    tree: Tree
    budget: Budget
    buffers: Buffers
    recorded: Recorded


_RUN_ARGS = (POSITION_TYPE, types.int64, KERNEL_TYPE, types.float64[::1], CONFIG_TYPE, TREE_TYPE, BUDGET_TYPE,
             BUFFERS_TYPE, RECORDED_TYPE)  # fmt: skip


# nogil: an agent with ``threads`` runs one tree per Python thread, and a ponder search runs beside
# the caller's thread (the clock is read without the GIL where it can be: ``agents.time.clock``)
@njit(types.int64(*_RUN_ARGS), cache=True, nogil=True)
def run(position, side0, kernel, params, cfg, tree, budget, buffers, recorded):
    """Play up to ``budget.sims`` simulations from the root ``st[ROOT]`` of ``tree`` (``position``:
    its position, ``side0`` to move; the arrays are restored on return), evaluating with
    ``kernel(..., params)`` under the options ``cfg``; returns how many were played, and
    ``st[STOPPED]`` says why it returned (``STOPS``): the budget; a solved root;
    ``budget.deadline`` (``Deadline.ns``, read every few evaluations, so that another thread may
    move it) at its ``stop`` if the search is sure of its move (``stopping.sure``), else at its
    ``last`` or when it becomes sure; with ``budget.settle`` (a game clock, where time not used is
    banked), before ``stop`` as soon as the search is sure of its move and the move is settled: it
    leads by more simulations than the rate so far leaves before ``stop``. A node that would need
    more rows than the tree has left stays a leaf. ``buffers.stats``: ``move_order.candidates``'
    counters (its evaluator calls are added to ``st[EVALS]``).

    Several threads may search one tree at once (tree parallelism), each with its own ``st``: it
    allocates rows from ``st[FREE]`` up to ``st[LIMIT]`` only (its own region of the arrays), and
    with ``cfg.vloss`` (the number of threads, 0 for one) a descent counts a visit and a loss on
    each node as it passes (a virtual loss, replaced by the value at the backup), so that the
    threads spread over the tree instead of repeating one line. Their updates of shared counters
    are not atomic (numba has no atomics on CPU arrays): a rare lost update costs a visit, and two
    threads expanding one node write equal children blocks, either of which serves
    (``expansion.expand`` links a block last).

    With buffers for recorded positions (``recorded`` of ``B > 0`` rows, ``leaves``), a simulation
    records each move node below the root that it passes with ``cfg.leaf_at`` visits, and the value
    it backs up through it; ``run`` returns when ``B`` are recorded (``STOP_BATCH``), or on any other
    stop with fewer: the caller has them valued and released (``leaves.release``) before it runs
    again."""
    cells, queens, nq, dirs = position
    ni, nf, st = tree
    sims, deadline, settle = budget
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    sides = np.empty(MAX_DEPTH, dtype=np.int64)
    qidx = np.empty(MAX_DEPTH, dtype=np.int64)
    capacity = st[LIMIT] if st[LIMIT] > 0 else ni.shape[0]
    vloss = cfg.vloss > 0
    recording = recorded.rows.shape[0] > 0  # buffers given: positions are recorded for an evaluator
    # the depths of the nodes this simulation recorded for the evaluator (``leaves``), and their rows
    record_depths = np.empty(MAX_DEPTH, dtype=np.int64)
    record_rows = np.empty(MAX_DEPTH, dtype=np.int64)
    own = 1 if vloss else 0  # the visit this descent has already counted on each node it passed
    done = 0
    root = st[ROOT]
    checked = -CHECK_EVERY
    started = now_ns()
    scan_at = started
    extended = False  # past ``stop``, unsure
    stopped = -1
    while done < sims and ni[root, SOLVED] == 0:
        if done > 0 and (st[EVALS] - checked >= CHECK_EVERY or done % CHECK_EVERY == 0):  # one at least
            checked = st[EVALS]
            t = now_ns()
            stop = deadline[DEADLINE_STOP]
            if t >= deadline[DEADLINE_LAST]:
                stopped = STOP_TIME_MAX if extended else STOP_TIME
                break
            if t >= stop and (not extended or t >= scan_at):
                if sure(ni, nf, root, cfg.sure):
                    stopped = STOP_TIME_MAX if extended else STOP_TIME
                    break
                extended = True
                scan_at = t + SCAN_NS
            elif settle and t < stop and t >= scan_at:
                scan_at = t + SCAN_NS
                # settled and sure: a move that is settled but unsure would go on past ``stop``
                # if it got there, so it is not settled against the time it may still take
                rate = (done / max(t - started, 1)) * max(cfg.vloss, 1)  # every thread's simulations
                if sure(ni, nf, root, cfg.sure) and settled(ni, root, (stop - t) * rate):
                    stopped = STOP_SETTLED
                    break
        x = root
        side = side0
        depth = 0
        path[0] = x
        sides[0] = side
        if vloss:
            ni[root, VISITS] += 1
        leaf = True  # the walk stopped at an unexpanded, unsolved node: its value below
        new_records = 0  # the nodes of this path recorded for the evaluator
        while True:
            if ni[x, SOLVED] != 0 and depth > 0:
                leaf = False  # the backup reads the solved value
                break
            if ni[x, FIRST] < 0:
                if ni[x, FIRST] == CLAIMED:
                    break  # another thread is expanding it: a leaf for this descent
                if depth > 0 and ni[x, VISITS] - own == 0 and np.isnan(nf[x, STATIC]):
                    break  # a leaf never evaluated (fast priors): evaluated below
                if ni[x, KIND] == KIND_MOVE:
                    if depth > 0 and ni[x, VISITS] - own < cfg.expand_at:
                        break
                    if not core.has_move(cells, queens, nq, side, dirs):
                        ni[x, SOLVED] = 1  # the side to move here has lost: a win for the chooser
                    elif cfg.endgame > 0:
                        outcome, _ = endgame.fill_value(cells, queens, nq, side, dirs, cfg.endgame)
                        ni[x, SOLVED] = -outcome
                    if ni[x, SOLVED] != 0:
                        leaf = False
                        break
                if st[FREE] + cfg.max_kids > capacity:
                    break  # no room: stays a leaf
                if vloss:
                    ni[x, FIRST] = CLAIMED  # so that the other threads do not expand it too
                expand(x, position, side, kernel, params, cfg, tree, buffers)
            if recording and depth > 0 and ni[x, KIND] == KIND_MOVE and ni[x, VISITS] - own == cfg.leaf_at:
                j = record(x, depth, path, sides, cells, st, recorded)
                if j >= 0:
                    record_depths[new_records], record_rows[new_records] = depth, j
                    new_records += 1
            c = _select(x, ni, nf, cfg)
            if c < 0:  # every child lost for the side acting at x
                leaf = False
                break
            if ni[c, KIND] == KIND_ARROW:  # the queen move of a split tree
                i = core.find_queen(queens, nq, side, ni[c, FROM])
                cells[ni[c, FROM]] = core.EMPTY
                cells[ni[c, TO]] = side + 1
                queens[side, i] = ni[c, TO]
                qidx[depth + 1] = i
            elif ni[c, FROM] < 0:  # its arrow
                cells[ni[c, ARROW]] = core.ARROW
                side = 1 - side
            else:  # a whole move
                i = core.find_queen(queens, nq, side, ni[c, FROM])
                core.make_move(cells, queens, side, i, ni[c, TO], ni[c, ARROW])
                qidx[depth + 1] = i
                side = 1 - side
            depth += 1
            path[depth] = c
            sides[depth] = side
            x = c
            if vloss:
                ni[c, VISITS] += 1
                nf[c, WSUM] -= 1.0  # a loss for c's chooser until the backup
        value = 0.0  # for the side that chose the last node of the path
        if leaf and depth > 0:
            if cfg.playout > 0 and ni[x, KIND] == KIND_MOVE:
                value = -_playout(position, side, cfg.playout, kernel, params, st, buffers.lists.moves)
            else:
                if np.isnan(nf[x, STATIC]):  # for the chooser; a queen move: the opponent "to move"
                    nf[x, STATIC] = -kernel(cells, queens, nq, 1 - sides[depth - 1], dirs, params)
                    st[EVALS] += 1
                value = nf[x, STATIC]
        elif not leaf and depth > 0 and ni[x, SOLVED] == 0:
            value = -1.0 if sides[depth] == sides[depth - 1] else 1.0  # all children lost, not proven
        unset = new_records  # the recorded nodes whose value is still to come, deepest last
        for k in range(depth, 0, -1):  # back up and undo, leaf first
            c = path[k]
            chooser = sides[k - 1]
            if ni[c, SOLVED] == 0 and ni[c, FIRST] >= 0 and ni[c, COMPLETE]:
                proven = _prove(c, ni)  # for the side acting at c
                ni[c, SOLVED] = proven if sides[k] == chooser else -proven
            if ni[c, SOLVED] != 0:
                value = float(ni[c, SOLVED])
            if unset > 0 and record_depths[unset - 1] == k:  # a recorded node: the value through it
                unset -= 1
                recorded.values[record_rows[unset]] = value
            if vloss:
                nf[c, WSUM] += value + 1.0  # the virtual loss replaced; the visit is counted
            else:
                ni[c, VISITS] += 1
                nf[c, WSUM] += value
            if k >= 2 and sides[k - 2] != chooser:
                value = -value  # the parent's chooser is the other side
            if ni[c, KIND] == KIND_ARROW:
                cells[ni[c, TO]] = core.EMPTY
                cells[ni[c, FROM]] = chooser + 1
                queens[chooser, qidx[k]] = ni[c, FROM]
            elif ni[c, FROM] < 0:
                cells[ni[c, ARROW]] = core.EMPTY
            else:
                core.unmake_move(cells, queens, chooser, qidx[k], ni[c, FROM], ni[c, TO], ni[c, ARROW])
        if ni[root, FIRST] >= 0 and ni[root, SOLVED] == 0 and ni[root, COMPLETE]:
            ni[root, SOLVED] = _prove(root, ni)  # the root's value is for its side to move
        if not vloss:
            ni[root, VISITS] += 1
        done += 1
        if new_records > 0 and st[PENDING] == recorded.rows.shape[0]:
            stopped = STOP_BATCH
            break
    if stopped < 0:
        stopped = STOP_PROVEN if ni[root, SOLVED] != 0 else STOP_SIMULATIONS
    st[STOPPED] = stopped
    st[SIMS] += done
    return done
