"""``uct-net``, our learned agent: ``uct`` guided by the policy-value net's priors, and its value.

The net (``agents.nets.policy_value``; 10-50 us a position in a batch on one core) costs as much
as several of ``uct``'s simulations, so it is asked only where it pays, in one of three ways, all
in Python on the flat arrays of ``agents.search.uct_tree`` between calls of ``uct_tree.run``.

**Before the simulations**, with one forward pass per level: the root's queen moves get the prior
``(1 - mix) * cheap + mix * net`` (the slide softmax; ``cheap``: uct's own) and are re-sorted by
it (progressive widening opens a block in order); the ``top`` best are expanded and their arrows
get the net's arrow prior (conditioned on the slide's destination: the same pass serves). With
``depth=1`` (2, 3) the same is done for the positions after those moves' best arrows, a level
deeper each time (``top`` times the positions); with ``value > 0`` the net's value of each such
position is mixed into its move's first-play value (its sign flips once per whole move). A level
is skipped when the deadline leaves less than ``REPLY_COST`` (or ``top``) times what the level above
took. Guided nodes are remembered by their line of moves (``uct_tree.lines``), so that tree reuse
never mixes the net into one twice.

**During the search** (``guide_at=N``; by default ``GUIDE_AT``'s setting for the board size: 64 on
8x8, 8 on 10x10; off elsewhere): the simulations run in parts of ``PART``, and between two parts
every position the simulations have visited ``N`` times or more (``uct_tree.visited``) gets the
net's priors as the root did, one forward pass for all the new ones. With ``value_visits=K`` the
same pass's value of each also counts as ``K`` simulations that ended there (``uct_tree.back_up``),
weighed against the ``N`` or more below it (by default ``VALUE_VISITS``' setting where ``guide_at``
is not given either: 16 on 8x8, 0 elsewhere).

**At the leaves** (``leaves=B``, one thread, ``guide_at`` and ``value_visits`` off; off by default:
on 10x10 ``leaves=16,leaf_at=8,leaf_value=0`` was level with the default's ``guide_at=8``, see
``experiments/uct-net-leaves``): every move node below the root that a simulation passes with
``leaf_at`` visits (1: the simulation that expands it) is recorded with its position
(``uct_tree.leaves``), the simulation going on as always; when ``B`` are recorded, one forward pass
values them all (``uct_tree.batches``): the value each recording simulation backed up through its
node becomes ``(1 - leaf_value) * it + leaf_value * the net's`` (AlphaGo's blend of a rollout and
the value net, a batch late), and the node's queen moves get the net's priors. Nothing waits, so no
virtual loss: with ``mix=0`` and ``leaf_value=0`` the tree is ``uct``'s own (tested). A first design
that held each leaf with a virtual loss on its path lost every screen (``experiments/uct-net-leaves``).

What each costs and is worth is measured in ``benchmarks/README.md`` (its learned-agent section)
and ``experiments/`` (``uct-net-8x8``, ``pv-10x10``, ``uct-net-guide-at``, ``uct-net-leaves``). The
default weights: ``pv-uct-8x8`` on 8x8 and ``pv-uct-10x10`` on 10x10 (the 8x8 expert-iteration net
fine-tuned on uct's moves of both sizes); other sizes play the nearest size's (fully convolutional).
Options: uct's, and ``weights`` (a committed name, ``agents.nets.store``, or a model file path),
``mix``, ``top``, ``depth``, ``value``, ``guide_at``, ``value_visits``, ``leaves``, ``leaf_at``,
``leaf_value``, ``net_threads`` and ``runtime`` (``agents.nets.onnx_runtime.RUNTIMES``). Until this
version ``make("cnn")`` also made it (see ``agents.evaluation.cnn``).

>>> import tempfile, os
>>> from amazons_env import Board
>>> from agents.nets.export import save_model
>>> from agents import make
>>> from agents.nets.models import PolicyValueNet
>>> path = save_model(PolicyValueNet(channels=8, blocks=1), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6)
>>> agent = make(f"uct-net:weights={path},sims=200", seed=1)
>>> board = Board(6)
>>> result = agent.search(board)
>>> board.is_legal(result.move), result.simulations
(True, 200)
"""

from __future__ import annotations

import time
from typing import Any, Optional

import numpy as np

from amazons_env import Board, core

from agents.nets import require_torch
from agents.nets.inference import PVNet
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES
from agents.nets.store import POLICY_VALUE_WEIGHTS, policy_value_net, trained_sizes
from agents.options import OptionError, opt
from agents.registry import register
from agents.resources import check_threads
from agents.search import uct_tree as T
from agents.search.uct import UCT, kids, visit_policy
from agents.search.uct_tree import Visited
from agents.search.uct_tree.lines import Position, actions, game_line
from agents.time.deadline import Deadline

__all__ = ["UCTNet", "visit_policy", "kids"]

FIRST, NKIDS = T.FIRST, T.NKIDS
#: the replies' level of guidance costs about this many times the root's (measured on 8x8, ``top=8``:
#: 1.7 ms for the root, 10 ms in all, see the module docstring)
REPLY_COST = 5.0
#: the deepest guided level (``depth``): the positions of a level are ``top`` times the last's
MAX_DEPTH = 3
#: ``guide_at``'s setting per board size when it is not given (others: 0). On 10x10, with
#: ``pv-uct-10x10``, it won 80-50 (Elo +82, +21 to +143) against ``uct-moves-ft6`` with the root's
#: guidance only (SPRT at 0.3 s, ``experiments/pv-10x10/command.txt``); on 8x8 with ``VALUE_VISITS``'
#: 16, see there (``guide_at=128`` alone, with the expert-iteration gen-8 net, was level with that
#: net's root guidance, 101-99). It acts in searches of more than ``PART`` simulations only
GUIDE_AT: dict[int, int] = {8: 64, 10: 8}
#: ``value_visits``' setting per board size when neither it nor ``guide_at`` is given (others: 0).
#: On 8x8, with ``GUIDE_AT``'s 64 and ``pv-uct-8x8``, it won 118-82 (Elo +63, +14 to +112) against
#: ``experiments/uct-net-8x8/uct-moves-ft6`` with the root's guidance only (SPRT at 0.3 s, H1 at 200
#: games, ``experiments/uct-net-guide-at/command.txt``)
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


def _by_size(setting: dict[int, int]) -> str:
    """A per-size setting in an option's help: ``64 on 8x8, 8 on 10x10, 0 on the others``."""
    return ", ".join(f"{n} on {s}x{s}" for s, n in sorted(setting.items())) + ", 0 on the others"


@register(
    "uct-net",
    extends="uct",
    options={
        "weights": opt(
            "committed policy-value weights by name (default: pv-uct-8x8 on 8x8, pv-uct-10x10 on 10x10; "
            "pv-8x8) or a model file path without its suffix"
        ),
        "mix": opt("weight of the net's priors against uct's own", ge=0, le=1),
        "top": opt("queen moves per guided position whose arrows get the net's priors", ge=0),
        "depth": opt(
            "0: the net guides the root; 1: also the replies to its top moves; 2, 3: on down the top "
            "moves' lines (top^depth positions at the deepest level)",
            ge=0,
            le=MAX_DEPTH,
        ),
        "value": opt("weight of the net's value in the replies' first-play values", ge=0, le=1),
        "guide_at": opt(
            "during the search, every position visited this many times gets the net's priors too "
            "(0: only the guidance before the simulations; none: the board size's setting, "
            f"{_by_size(GUIDE_AT)}; given, value_visits is 0 unless given too)",
            ge=0,
        ),
        "value_visits": opt(
            "with guide_at: the simulations that the net's value of each position it guides counts for "
            "(backed up to the root; 0: its priors only; none: with guide_at not given either, the board size's "
            f"setting, {_by_size(VALUE_VISITS)})",
            ge=0,
            le=MAX_VALUE_VISITS,
        ),
        "leaves": opt(
            "positions the net values in one batch: every position below the root the simulations visit leaf_at "
            "times gets the net's priors, and its value blended into the value that simulation backed up "
            "through it (leaf_value; 0: off; one thread)",
            ge=0,
            le=MAX_LEAVES,
        ),
        "leaf_at": opt("with leaves: the visits at which a position is valued (at least expand_at's)", ge=1),
        "leaf_value": opt(
            "with leaves: the net's weight in a valued position's value, against the search's", ge=0, le=1
        ),
        "net_threads": opt("torch threads for the forward passes (0: leave torch's setting)", ge=0, le=1024),
        "runtime": opt(RUNTIME_HELP, choices=RUNTIMES),
    },
)
class UCTNet(UCT):
    """The learned agent: uct guided by the policy-value net's priors (and optionally its value)."""

    name = "uct-net"

    def __init__(
        self,
        weights: str = "default",
        mix: float = 0.5,
        top: int = 8,
        depth: int = 1,
        value: float = 0.0,
        guide_at: Optional[int] = None,
        value_visits: Optional[int] = None,
        leaves: int = 0,
        leaf_at: int = 1,
        leaf_value: float = 0.5,
        net_threads: int = 1,
        runtime: str = "auto",
        **options: Any,
    ) -> None:
        require_torch(f"the {self.name} agent (uct guided by the policy-value net)")
        super().__init__(**options)
        if self.tree != "split":
            raise OptionError("tree='move': the net's priors are for a split tree (queen move, then arrow)")
        for key, v in (("mix", mix), ("value", value), ("leaf_value", leaf_value)):
            if not (isinstance(v, (int, float)) and 0 <= v <= 1):
                raise OptionError(f"{key}={v!r}: must be a number in 0..1")
        if not (isinstance(top, int) and top >= 0):
            raise OptionError(f"top={top!r}: must be a whole number >= 0")
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
            raise OptionError(f"depth={depth!r}: must be a whole number from 0 (the root) to {MAX_DEPTH}")
        if guide_at is not None and (isinstance(guide_at, bool) or not isinstance(guide_at, int) or guide_at < 0):
            raise OptionError(f"guide_at={guide_at!r}: a whole number >= 0 (0: off) or none (the size's setting)")
        if value_visits is not None and (
            isinstance(value_visits, bool)
            or not isinstance(value_visits, int)
            or not 0 <= value_visits <= MAX_VALUE_VISITS
        ):
            raise OptionError(
                f"value_visits={value_visits!r}: must be a whole number from 0 (off) to {MAX_VALUE_VISITS}"
            )
        if value_visits and not guide_at:  # given, so that it never values nothing on some sizes
            raise OptionError(
                f"value_visits={value_visits}: needs guide_at >= 1 given (guide_at={guide_at!r}; the positions it "
                "values are guide_at's, and not given it is the board size's setting, 0 on some sizes)"
            )
        if isinstance(leaves, bool) or not isinstance(leaves, int) or not 0 <= leaves <= MAX_LEAVES:
            raise OptionError(f"leaves={leaves!r}: must be a whole number from 0 (off) to {MAX_LEAVES}")
        if isinstance(leaf_at, bool) or not isinstance(leaf_at, int) or leaf_at < 1:
            raise OptionError(f"leaf_at={leaf_at!r}: must be a whole number >= 1")
        if leaves and (guide_at or value_visits or self.threads > 1):
            raise OptionError(
                f"leaves={leaves}: the positions it values get the net's priors and value already, so guide_at "
                f"and value_visits are for searches without it (guide_at={guide_at!r}, value_visits="
                f"{value_visits!r}); and it serves one thread (threads={self.threads})"
            )
        self.leaves, self.leaf_at, self.leaf_value = int(leaves), int(leaf_at), float(leaf_value)
        self.icfg[T.LEAF_AT] = max(self.leaf_at, int(self.icfg[T.EXPAND_AT]))  # a node is expanded first
        self.mix, self.top, self.depth, self.value = float(mix), int(top), int(depth), float(value)
        self.guide_at = None if guide_at is None else int(guide_at)
        self.value_visits = None if value_visits is None else int(value_visits)
        self._part = PART  # the simulations of a part where ``guide_at`` is on
        self._visited: dict[int, Visited] = {}  # the scan's arrays, per board size
        self._net_seconds = NET_SECONDS  # the net's seconds per position in the last ``_between``
        # ``threads`` (uct's) are the threads searching the guided tree; ``net_threads`` the net's
        self.weights, self.net_threads, self.runtime = (
            str(weights),
            check_threads(net_threads, "net_threads"),
            str(runtime),
        )
        for size in trained_sizes(self.weights, POLICY_VALUE_WEIGHTS):  # a bad file fails here, not in a game
            self.net(size)
        self._leaf_buffers: dict[int, tuple[np.ndarray, ...]] = {}  # ``leaves``' buffers, per board size
        self._guided: set[bytes] = set()  # the lines (``Position``) of the nodes whose children have the net's priors
        self._root_line = b""  # the line of this search's root, set by ``_guide`` (which runs first)

    def reset(self) -> None:
        super().reset()
        self._guided.clear()

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

    def _part_size(self, size: int) -> int:
        """``PART`` (``_part``) where ``guide_at`` is on for ``size``: the looks run between parts."""
        return self._part if self.guided_at(size) else 0

    def _guide(
        self,
        board: Board,
        cells: np.ndarray,
        queens: np.ndarray,
        nq: np.ndarray,
        icfg: np.ndarray,
        ni: np.ndarray,
        nf: np.ndarray,
        st: np.ndarray,
        buffers: tuple[np.ndarray, ...],
        stop: float = float("inf"),
    ) -> None:
        """Give the first move levels the net's priors (module docstring, steps 1-3, repeated
        down to ``depth``). The root's level is always guided (one forward pass, ~1-2 ms); the
        replies' level only if the time left before ``stop`` is more than ``REPLY_COST`` times what
        the root's level took (it evaluates up to ``top`` positions and expands their children), and
        each deeper level only if the time left is more than ``top`` times what the level above
        took (it has up to ``top`` times the positions), so a short move is not overrun."""
        net, size = self.net(board.size), board.size
        weights = self.evaluator.params_for(size)  # the set uct's own simulations use on this size
        fixed = (nq, board.dirs, self.evaluator.kernel, weights, self.fcfg, icfg, ni, nf, st, *buffers)

        def expand(nodes: list[tuple[int, Position]]) -> np.ndarray:
            return T.expand_nodes(
                np.array([x for x, _ in nodes], np.int64),
                np.stack([p.cells for _, p in nodes]),
                np.stack([p.queens for _, p in nodes]),
                np.array([p.side for _, p in nodes], np.int64),
                *fixed,
            )

        line = self._root_line = game_line(board)
        level = [(int(st[T.ROOT]), Position(cells.copy(), queens.copy(), nq, int(board.turn), line))]
        guided = self._guided
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

    def _between(
        self, board: Board, tree: tuple[np.ndarray, np.ndarray, np.ndarray], icfg: np.ndarray, stop: float
    ) -> None:
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
        todo = [(e, line) for e, line in enumerate(lines) if line not in self._guided]
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
        self._guided.update(key for _, key in todo)

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

    def _recorded(self, size: int) -> tuple[np.ndarray, ...]:
        """``leaves``' buffers (``uct_tree.leaves``) for ``size`` x ``size`` boards; none without."""
        if not self.leaves:
            return super()._recorded(size)
        if size not in self._leaf_buffers:
            self._leaf_buffers[size] = T.leaves.buffers(self.leaves, size)
        return self._leaf_buffers[size]

    def _run(self, jobs: list[tuple[Any, ...]], states: list[np.ndarray], deadline: Deadline) -> tuple[int, str]:
        """With ``leaves``: the recorded positions valued by the net in batches
        (``uct_tree.batches``; one thread); uct's ``_run`` without."""
        if not self.leaves:
            return super()._run(jobs, states, deadline)
        job = jobs[0]
        ni, nf, recorded = job[9], job[10], job[T.batches.RECORDED]
        size = int(np.sqrt(len(job[0]))) - 2  # the job's cells are padded
        slide = arrow = np.empty(0)  # the last forward pass's policy, for its priors

        def value(xs: np.ndarray, cells: np.ndarray, sides: np.ndarray, backed: np.ndarray) -> np.ndarray:
            """One forward pass; each simulation's value through its node blended with the net's."""
            nonlocal slide, arrow
            values, slide, arrow = self.net(size).evaluate(cells, sides)
            return (1.0 - self.leaf_value) * backed - self.leaf_value * values  # the net's: for the side to move

        def prior(nodes: np.ndarray, rows: np.ndarray) -> None:
            """The net's priors, each node recorded by its line first (a re-sort moves the rows the
            paths name), so that ``_guide`` does not mix the net into it again."""
            for j in rows.tolist():
                path = recorded[j, T.leaves.PATH + 1 : T.leaves.PATH + recorded[j, T.leaves.DEPTH] + 1]
                self._guided.add(self._root_line + actions(ni, path).tobytes())
            self._reprior(ni, nf, nodes.tolist(), rows.tolist(), slide, arrow, size)

        return T.batches.search(job, value, prior)

    def _mix_value(self, ni: np.ndarray, nf: np.ndarray, x: int, net_value: float) -> None:
        """Mix the net's value of the position at move node ``x`` (for its side to move) into the
        node's first-play value (for the side that chose the move: the sign flips once)."""
        if np.isfinite(nf[x, T.STATIC]) and ni[x, T.VISITS] == 0:
            nf[x, T.STATIC] = (1.0 - self.value) * nf[x, T.STATIC] + self.value * -net_value
