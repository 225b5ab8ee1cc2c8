"""The policy-value net as the guide of ``uct``'s search (``uct_tree.batches.Guide``): its priors, and its value.

The net (``agents.nets.policy_value``) costs as much as several of ``uct``'s simulations, so it is
asked only where it pays, in one of three ways, all in Python on the flat arrays of
``agents.search.uct_tree`` between calls of ``uct_tree.run``. ``NetGuide`` is the ``guide`` of the
``uct-net`` and ``pvmcts`` presets (``agents.search.presets``, where the options are declared).

**Before the simulations** (``before``), with one forward pass per level: the root's queen moves
get the prior ``(1 - mix) * cheap + mix * net`` (the slide softmax; ``cheap``: uct's own) and are
re-sorted by it (progressive widening opens a block in order); the ``top`` best are expanded and
their arrows get the net's arrow prior (conditioned on the slide's destination: the same pass
serves). With ``depth=1`` (2, 3) the same is done for the positions after those moves' best
arrows, a level deeper each time; with ``value > 0`` the net's value of each such position is
mixed into its move's first-play value (its sign flips once per whole move). A level is skipped
when the deadline leaves less than ``REPLY_COST`` (or ``top``) times what the level above took.
Guided nodes are remembered by their line of moves (``uct_tree.lines``), so that tree reuse never
mixes the net into one twice.

**During the search** (``guide_at=N``; by default ``GUIDE_AT``'s setting for the board size): the
simulations run in parts of ``PART``, and between two parts (``between``) every position the
simulations have visited ``N`` times or more (``uct_tree.visited``) gets the net's priors as the
root did, one forward pass for all the new ones. With ``value_visits=K`` the same pass's value of
each also counts as ``K`` simulations that ended there (``uct_tree.back_up``).

**At the leaves** (``leaves=B``, one thread, ``guide_at`` and ``value_visits`` off): every move node
below the root that a simulation passes with ``leaf_at`` visits is recorded with its position
(``uct_tree.leaves``); when ``B`` are recorded, one forward pass values them all (``evaluate``,
``uct_tree.batches``): the value each recording simulation backed up through its node becomes
``(1 - leaf_value) * it + leaf_value * the net's``, and the node's queen moves get the net's priors
(``prior``). Nothing waits, so no virtual loss: with ``mix=0`` and ``leaf_value=0`` the tree is
``uct``'s own (tested).

What each costs and is worth is measured in ``benchmarks/README.md`` and ``experiments/``.

>>> import tempfile, os
>>> from amazons_env import Board
>>> from agents.nets.export import save_model
>>> from agents import make
>>> from agents.nets.models import PolicyValueNet
>>> path = save_model(PolicyValueNet(channels=8, blocks=1), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6)
>>> agent = make(f"uct-net:weights={path},sims=200", seed=1)
>>> result = agent.search(Board(6))
>>> Board(6).is_legal(result.move), result.simulations, type(agent.guide).__name__
(True, 200, 'NetGuide')
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

from amazons_env import Board, core

from agents.nets.inference import PVNet
from agents.nets.store import policy_value_net
from agents.search import uct_tree as T
from agents.search.uct_tree import Job, Positions, Recorded, Tree, Visited
from agents.search.uct_tree.lines import Position, actions, game_line

__all__ = ["NetGuide", "GUIDE_AT", "VALUE_VISITS", "MAX_DEPTH", "MAX_VALUE_VISITS", "MAX_LEAVES"]

FIRST, NKIDS = T.FIRST, T.NKIDS
#: the replies' level of guidance costs about this many times the root's (measured on 8x8, ``top=8``)
REPLY_COST = 5.0
#: the deepest guided level (``depth``): the positions of a level are ``top`` times the last's
MAX_DEPTH = 3
#: ``guide_at``'s setting per board size when it is not given (others: 0); the matches that chose
#: them are in ``experiments/pv-10x10`` and ``experiments/uct-net-guide-at``. It acts in searches of
#: more than ``PART`` simulations only
GUIDE_AT: dict[int, int] = {8: 64, 10: 8}
#: ``value_visits``' setting per board size when neither it nor ``guide_at`` is given (others: 0)
VALUE_VISITS: dict[int, int] = {8: 16}
#: ``guide_at``: simulations between two looks for positions visited often enough (a few ms of them)
PART = 4096
#: ``guide_at``: the most positions one look finds (breadth first: the deepest are left for the next)
VISITED_ROWS = 4096
#: ``guide_at``: the share of the time left before the deadline's stop that one look's forward pass
#: may take, and the net's seconds per position assumed before it has run (a slow single position)
GUIDE_SHARE, NET_SECONDS = 0.25, 1e-3
#: ``value_visits``: at most this many simulations per valued position, so that the visit counts
#: (``int32``) of a long search's upper nodes stay far from overflowing
MAX_VALUE_VISITS = 1024
#: ``guide_at``: the positions of one look's forward pass in a search without a deadline, so that a
#: deadline set while it runs (a ponder hit) is not overrun by more than a few tens of milliseconds
GUIDE_BATCH = 512
#: ``leaves``: the largest batch accepted (each recorded position keeps a few kilobytes of buffers)
MAX_LEAVES = 1024


class NetGuide:
    """The policy-value net ``weights`` guiding a ``uct`` search (module docstring); ``net_threads``
    torch threads, ``runtime`` (``agents.nets.onnx_runtime.RUNTIMES``); the options are checked by
    the presets (``agents.search.presets``)."""

    def __init__(
        self,
        weights: str,
        mix: float,
        top: int,
        depth: int,
        value: float,
        guide_at: Optional[int],
        value_visits: Optional[int],
        leaves: int,
        leaf_value: float,
        net_threads: int,
        runtime: str,
    ) -> None:
        self.weights, self.net_threads, self.runtime = weights, net_threads, runtime
        self.mix, self.top, self.depth, self.value = float(mix), int(top), int(depth), float(value)
        self.guide_at, self.value_visits = guide_at, value_visits
        self.leaves, self.leaf_value = int(leaves), float(leaf_value)
        self.batched = self.leaves > 0  # the recorded positions valued in batches (``evaluate``, ``prior``)
        self.part = PART  # the simulations of a part where ``guide_at`` is on
        self._visited: dict[int, Visited] = {}  # the scan's arrays, per board size
        self._net_seconds = NET_SECONDS  # the net's seconds per position in the last ``between``
        self._leaf_buffers: dict[int, Recorded] = {}  # ``leaves``' buffers, per board size
        self.guided: set[bytes] = set()  # the lines (``Position``) of the nodes whose children have the net's priors
        self._root_line = b""  # the line of this search's root, set by ``before`` (which runs first)
        self._job: Optional[Job] = None  # this search's thread 0 job, set by ``before``
        self._size = 0  # this search's board size
        self._policy = (np.empty(0), np.empty(0))  # the last forward pass's slide and arrow logits

    def reset(self) -> None:
        self.guided.clear()

    def net(self, size: int) -> PVNet:
        """The policy-value net for ``size`` x ``size`` boards (``agents.nets.store``: loaded once)."""
        return policy_value_net(self.weights, size, self.net_threads, self.runtime)

    def guided_at(self, size: int) -> int:
        """``guide_at`` on ``size`` x ``size`` boards: as given, else ``GUIDE_AT``'s (0: off; 0 with
        ``leaves``, which guides every position the simulations expand)."""
        if self.leaves:
            return 0
        return GUIDE_AT.get(size, 0) if self.guide_at is None else self.guide_at

    def valued_visits(self, size: int) -> int:
        """``value_visits`` on ``size`` x ``size`` boards: as given, else ``VALUE_VISITS``' where
        ``guide_at`` is not given either (a ``guide_at`` given alone values nothing), else 0."""
        if self.leaves:
            return 0
        if self.value_visits is not None:
            return self.value_visits
        return VALUE_VISITS.get(size, 0) if self.guide_at is None else 0

    def part_size(self, size: int) -> int:
        """``part`` (``PART``) where ``guide_at`` is on for ``size``: the looks run between parts."""
        return self.part if self.guided_at(size) else 0

    def recorded(self, size: int) -> Recorded:
        """``leaves``' buffers (``uct_tree.leaves``) for ``size`` x ``size`` boards; none without."""
        if size not in self._leaf_buffers:
            self._leaf_buffers[size] = T.leaves.buffers(self.leaves, size)
        return self._leaf_buffers[size]

    def before(self, board: Board, job: Job, stop: float) -> None:
        """Give the first move levels the net's priors (module docstring, repeated down to
        ``depth``). The root's level is always guided (one forward pass); the replies' level only if
        the time left before ``stop`` is more than ``REPLY_COST`` times what the root's level took,
        and each deeper level only if the time left is more than ``top`` times what the level above
        took (it has up to ``top`` times the positions), so a short move is not overrun."""
        self._job, self._size = job, board.size
        net, size, (ni, nf, st) = self.net(board.size), board.size, job.tree
        nq, dirs = job.position.nq, job.position.dirs

        def expand(nodes: list[tuple[int, Position]]) -> np.ndarray:
            positions = Positions(
                np.stack([p.cells for _, p in nodes]),
                np.stack([p.queens for _, p in nodes]),
                np.array([p.side for _, p in nodes], np.int64),
            )
            xs = np.array([x for x, _ in nodes], np.int64)
            return T.expand_nodes(xs, positions, nq, dirs, job.kernel, job.params, job.cfg, job.tree, job.buffers)

        line = self._root_line = game_line(board)
        root = Position(board.cells.copy(), board.queens.copy(), nq, int(board.turn), line)
        level = [(int(st[T.ROOT]), root)]
        guided = self.guided
        if ni[int(st[T.ROOT]), FIRST] < 0:  # a fresh tree: nothing in it was guided
            guided.clear()
        else:  # a kept tree: the lines that do not pass through its new root left the tree
            guided.intersection_update([key for key in guided if key.startswith(line)])
        start = time.perf_counter()
        for depth in range(self.depth + 1):
            now = time.perf_counter()
            growth = REPLY_COST if depth == 1 else max(self.top, 1)
            if depth > 0 and now + growth * (now - start) > stop:
                return
            start = now  # the next check weighs this level's time
            todo = [node for node, first in zip(level, expand(level)) if first >= 0] if level else []
            if not todo:
                return
            # a position a kept tree's earlier guidance re-priored is in the net's order already,
            # and so are its top moves' arrows: only the others cost a forward pass
            fresh = [k for k, (_, pos) in enumerate(todo) if pos.line not in guided]
            row = {k: j for j, k in enumerate(fresh)}
            if fresh:
                values, slide, arrow = net.evaluate(
                    np.stack([todo[k][1].cells for k in fresh]), np.array([todo[k][1].side for k in fresh], np.int64)
                )
            tops = []  # (the net's row or -1, a queen move node, the position after it)
            for k, (x, pos) in enumerate(todo):
                first, n = int(ni[x, FIRST]), int(ni[x, NKIDS])
                j = row.get(k, -1)
                if j >= 0:  # the block re-sorted by the mixed priors: its best first
                    guided.add(pos.line)
                    self._reprior(ni, nf, [x], [j], slide, arrow, size)
                    if depth > 0 and self.value > 0:
                        self._mix_value(ni, nf, x, float(values[j]))
                tops += [(j, q, pos.after(ni, q)) for q in range(first, first + min(n, self.top))]
            level = []
            for (j, q, after), first in zip(tops, expand([(q, after) for _, q, after in tops]) if tops else ()):
                if first < 0:
                    continue
                if j >= 0 and after.line not in guided:  # else guided with the position before it
                    guided.add(after.line)
                    self._reprior(ni, nf, [q], [j], slide, arrow, size)
                if depth < self.depth:  # on down the line of the best arrow
                    level.append((first, after.after(ni, first)))

    def between(self, board: Board, tree: Tree, stop: float) -> None:
        """``guide_at``: give the net's priors to the positions the simulations so far have visited
        ``guide_at`` times and more (module docstring, "During the search"), the nearest the root
        first, as many as the net evaluates in ``GUIDE_SHARE`` of the time left before ``stop`` (at
        the rate it ran so far), ``GUIDE_BATCH`` without a deadline (a ponder search, whose deadline
        a ponder hit may move at any time); the rest wait for the next part. One forward pass for
        all of them; the deepest re-sorted first, because re-sorting a node's children moves their
        rows."""
        ni, nf, st = tree
        found = self._visited.get(board.size)
        if found is None:
            found = self._visited[board.size] = Visited(board, VISITED_ROWS)
        count = found.scan(ni, int(st[T.ROOT]), self.guided_at(board.size), board)
        lines = [self._root_line]  # each entry's node's line (the parents come first)
        steps = actions(ni, found.nodes[:count])
        parents = found.parents[:count].tolist()
        for e in range(1, count):
            lines.append(lines[parents[e]] + steps[e].tobytes())
        # (entry, its line): its queen moves' priors or its arrows'
        todo = [(e, line) for e, line in enumerate(lines) if line not in self.guided]
        # the net runs at a move node's position: a queen move's arrows are its parent's outputs
        needs = [e if ni[found.nodes[e], T.KIND] == T.KIND_MOVE else int(found.parents[e]) for e, _ in todo]
        row: dict[int, int] = {}  # an entry the net runs at -> its row in the batch
        left = stop - time.perf_counter()
        room = GUIDE_BATCH if left == float("inf") else max(0, int(GUIDE_SHARE * left / self._net_seconds))
        at: list[int] = []
        for k, e in enumerate(needs):  # breadth first: a prefix of todo keeps its parents before it
            if e not in row:
                if len(at) == room:
                    todo = todo[:k]
                    break
                row[e] = len(at)
                at.append(e)
        if not todo:
            return
        began = time.perf_counter()
        values, slide, arrow = self.net(board.size).evaluate(found.cells[at], found.sides[at])
        self._net_seconds = max((time.perf_counter() - began) / len(at), 1e-6)
        visits = self.valued_visits(board.size)
        if visits:  # before any re-sorting moves the rows ``found`` names
            valued = [e for e, _ in todo if e and ni[found.nodes[e], T.KIND] == T.KIND_MOVE]
            net_values = np.array([values[row[e]] for e in valued], np.float64)
            T.back_up(ni, nf, found.nodes, found.parents, found.sides, np.array(valued, np.int64), net_values,
                      visits)  # fmt: skip
        # deepest first: re-sorting a node's children moves their rows
        nodes = [int(found.nodes[e]) for e, _ in reversed(todo)]
        rows = [
            row[e] if ni[x, T.KIND] == T.KIND_MOVE else row[int(found.parents[e])]
            for x, (e, _) in zip(nodes, reversed(todo))
        ]
        self._reprior(ni, nf, nodes, rows, slide, arrow, board.size)
        self.guided.update(key for _, key in todo)

    def evaluate(self, xs: np.ndarray, cells: np.ndarray, sides: np.ndarray, backed: np.ndarray) -> np.ndarray:
        """``leaves``: one forward pass; each simulation's value through its node blended with the net's."""
        values, slide, arrow = self.net(self._size).evaluate(cells, sides)
        self._policy = (slide, arrow)
        return (1.0 - self.leaf_value) * backed - self.leaf_value * values  # the net's: for the side to move

    def prior(self, nodes: np.ndarray, rows: np.ndarray) -> None:
        """``leaves``: the net's priors of the last ``evaluate``, each node recorded by its line first
        (a re-sort moves the rows the paths name), so that ``before`` does not mix the net into it again."""
        assert self._job is not None  # ``before`` ran first
        (ni, nf, _), recorded = self._job.tree, self._job.recorded.rows
        for j in rows.tolist():
            path = recorded[j, T.leaves.PATH + 1 : T.leaves.PATH + recorded[j, T.leaves.DEPTH] + 1]
            self.guided.add(self._root_line + actions(ni, path).tobytes())
        self._reprior(ni, nf, nodes.tolist(), rows.tolist(), *self._policy, self._size)

    def _reprior(
        self,
        ni: np.ndarray,
        nf: np.ndarray,
        nodes: list[int],
        rows: list[int],
        slide: np.ndarray,
        arrow: np.ndarray,
        size: int,
    ) -> None:
        """``uct_tree.reprior``: the net's policy (``slide``/``arrow`` row ``rows[j]``) mixed by
        ``mix`` into the children of ``nodes[j]``, each block re-sorted best first."""
        from agents.nets.policy_value import line_channels

        T.reprior(
            ni, nf, np.array(nodes, np.int64), np.array(rows, np.int64), np.ascontiguousarray(slide),
            np.ascontiguousarray(arrow), core.public_index(size), line_channels(size), self.mix,
        )  # fmt: skip

    def _mix_value(self, ni: np.ndarray, nf: np.ndarray, x: int, net_value: float) -> None:
        """Mix the net's value of the position at move node ``x`` (for its side to move) into the
        node's first-play value (for the side that chose the move: the sign flips once)."""
        if np.isfinite(nf[x, T.STATIC]) and ni[x, T.VISITS] == 0:
            nf[x, T.STATIC] = (1.0 - self.value) * nf[x, T.STATIC] + self.value * -net_value
