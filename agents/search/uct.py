"""``uct``: Monte Carlo tree search in numba, with the territory evaluation at the leaves.

The tree lives in flat arrays and every simulation runs in numba (``agents.search.uct_tree`` describes
the tree, the two shapes and a simulation); this module is the agent around it:

* **Budget**: ``time`` seconds per move (default 1.0) or ``sims`` simulations (a move's own
  ``Limit(time=..., simulations=...)`` passed to ``search`` replaces them). The simulations
  read the clock inside numba (``agents.search.clock.now_ns``, every few evaluations) and stop at the
  agent's ``Clock`` deadline, which keeps back what returning the move takes: the clock is used,
  and not overrun.
* **Tree reuse**: after our move and the reply, the subtree of the position reached is copied to
  the front of a fresh tree (``uct_tree.compact``) and searched on.
* **Filling phase**: a separated root is played by ``endgame.filling_move`` directly
  (``SearchAgent``, as the other engines); inside the tree the counts give solved values.
* **The move** is a proven win if there is one, else the most visited child (at each level of a
  split tree: the queen move, then its arrow).

Options (``make("uct:time=0.5,c=0.8")``): ``tree`` ``"split"`` (queen move and arrow as two tree
levels, the default) or ``"move"`` (whole moves), ``c`` the PUCT exploration constant, ``tau``
the prior temperature, ``pw``/``pw_exp`` progressive widening (``pw * N^pw_exp`` children open;
``pw=0``: all), ``kq`` queen moves kept per position (0 = all), ``expand_at`` visits before a leaf
is expanded, ``playout`` random plies before a leaf's evaluation (0 = the evaluation itself),
``prior`` (below), ``endgame`` the fill-search budget per region (0 = off), ``reuse``, ``eval``
the evaluator (a spec with a numba kernel; further keyword options go to it).

**Priors.** ``"eval"``: every child is scored by the evaluation when its parent is expanded
(``uct_tree``: about 36 evaluations per simulation at the 8x8 start). ``"mixed"`` (split tree):
queen moves in a cheap mobility order, each evaluated when first visited, arrows scored by the
evaluation (about 3 per simulation, so many more simulations). ``"fast"``: both levels cheap (one
evaluation per simulation). ``"auto"``, the default, is ``mixed`` up to 8x8 and ``eval`` above,
the stronger choice on each size (the matches are in benchmarks/README.md, ``uct`` tuning;
``benchmarks/engines_results/uct/``).

>>> from amazons_env import Board
>>> from agents import make
>>> board = Board(6)
>>> agent = make("uct:sims=200,seed=1")
>>> result = agent.search(board)
>>> board.is_legal(result.move), result.simulations, board.ply
(True, 200, 0)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.search import uct_tree as T
from agents.search.agent import Deadline, SearchAgent
from agents.search.alphabeta_kernel import search_stats
from agents.search.clock import NEVER, as_ns, now_ns
from agents.search.result import Limit, SearchResult

__all__ = ["UCT", "visit_policy", "kids"]

TREES = ("split", "move")
#: the tree levels each ``prior`` orders by cheap scores (``uct_tree.FAST``'s bits); the others
#: are scored by the evaluation when their parent is expanded
PRIORS = {"eval": 0, "mixed": T.FAST_QUEENS, "fast": T.FAST_QUEENS | T.FAST_ARROWS}
AUTO_MIXED_UP_TO = 8  # the largest board on which ``prior=auto`` is ``mixed`` (module docstring)
#: rows of every tree (~250 MB at most), allocated at once: the operating system backs only the
#: pages a search writes, so a search never pauses to copy its tree into a bigger one (a copy of
#: 2M rows took 0.1-0.25 s, and one started at the deadline overran the move's time)
MAX_NODES = 1 << 22


@register(
    "uct",
    forward="eval",
    options={
        "time": TIME,
        "sims": opt("simulations per move (instead of time)", ge=1),
        "eval": EVAL,
        "tree": opt("split: queen move and arrow as two tree levels; move: whole moves", choices=TREES),
        "c": opt("PUCT exploration constant", gt=0),
        "tau": opt("prior temperature", gt=0),
        "pw": opt("progressive widening: pw * N^pw_exp children open (0: all)", ge=0),
        "pw_exp": opt("progressive widening exponent", gt=0),
        "kq": opt("queen moves kept per position (0 = all)", ge=0),
        "expand_at": opt("visits before a leaf is expanded", ge=0),
        "playout": opt("random plies before a leaf's evaluation (0: the evaluation itself)", ge=0),
        "prior": opt(
            "eval: children scored when expanded; fast: mobility order, evaluated on first visit; "
            "mixed: fast queen moves, evaluated arrows; auto: mixed up to 8x8 (split tree), else eval",
            choices=("auto",) + tuple(PRIORS),
        ),
        "endgame": opt("fill-search budget per region (0 = off)", ge=0),
        "reuse": opt("keep the subtree between moves"),
    },
)
class UCT(SearchAgent):
    """MCTS with evaluation at the leaves, priors and progressive widening (module docstring)."""

    name = "uct"
    LIMITS = ("time", "simulations")
    STATS = ("simulations", "evals", "tree")

    def __init__(
        self,
        time: Optional[float] = None,
        sims: Optional[int] = None,
        eval: Any = "territory",
        tree: str = "split",
        c: float = 1.0,
        tau: float = 0.1,
        pw: float = 2.0,
        pw_exp: float = 0.5,
        kq: int = 0,
        expand_at: int = 1,
        playout: int = 0,
        prior: str = "auto",
        endgame: int = 300,
        reuse: bool = True,
        seed: Optional[int] = None,
        **eval_options: Any,
    ) -> None:
        if time is not None and not (isinstance(time, (int, float)) and 0 < time < float("inf")):
            raise OptionError(f"time={time!r}: seconds per move must be a finite number > 0")
        if sims is not None and not (isinstance(sims, int) and sims >= 1):
            raise OptionError(f"sims={sims!r}: must be a whole number >= 1")
        if tree not in TREES:
            raise OptionError(f"tree={tree!r}: must be one of {', '.join(TREES)}")
        if prior != "auto" and (prior not in PRIORS or prior != "eval" and tree != "split"):
            raise OptionError(
                f"prior={prior!r}: must be auto or one of {', '.join(PRIORS)} (all but 'eval' need tree=split)"
            )
        for key, value in (("c", c), ("tau", tau), ("pw_exp", pw_exp)):
            if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
                raise OptionError(f"{key}={value!r}: must be a finite number > 0")
        if not (isinstance(pw, (int, float)) and 0 <= pw < float("inf")):
            raise OptionError(f"pw={pw!r}: must be a finite number >= 0 (0: no widening)")
        for key, value in (("kq", kq), ("expand_at", expand_at), ("playout", playout), ("endgame", endgame)):
            if not (isinstance(value, int) and value >= 0):
                raise OptionError(f"{key}={value!r}: must be a whole number >= 0")
        super().__init__(
            Limit(time=1.0) if time is None and sims is None else Limit(time=time, simulations=sims), seed, endgame
        )
        self.evaluator = make_evaluator(eval, **eval_options)
        if self.evaluator.kernel is None:
            raise OptionError(f"eval={eval!r}: uct needs an evaluator with a numba kernel")
        self.tree, self.reuse = tree, bool(reuse)
        self.fcfg = np.array([c, tau, pw, pw_exp], dtype=np.float64)
        self.prior = prior
        self.icfg = np.array([int(tree == "split"), kq, expand_at, playout, endgame, 0, 0], dtype=np.int64)
        now_ns()  # the first call loads numba's object mode (a fraction of a second): not in a timed move
        self._tree: Optional[tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        self._tree_position: Optional[tuple[bytes, int]] = None  # root cells and ply of the kept tree
        self._scratch: dict[int, tuple[np.ndarray, ...]] = {}

    def reset(self) -> None:
        self._tree, self._tree_position = None, None

    # -- the tree -------------------------------------------------------------------------------

    def _buffers(self, size: int) -> tuple[np.ndarray, ...]:
        if size not in self._scratch:
            rows = core.max_moves(size, core.MAX_QUEENS)
            self._scratch[size] = (
                np.empty((rows, 3), dtype=np.int64),
                np.empty(rows),
                np.empty((rows, 2), dtype=np.int64),
                np.empty(rows),
                search_stats(),
            )
        return self._scratch[size]

    def _prior(self, size: int) -> str:
        """``auto`` resolved: ``mixed`` on a split tree up to 8x8, else ``eval`` (module docstring)."""
        if self.prior != "auto":
            return self.prior
        return "mixed" if self.tree == "split" and size <= AUTO_MIXED_UP_TO else "eval"

    def _root(self, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The tree for ``board``: the kept subtree two plies down if reuse finds it (copied in one
        pass: it fits, being part of a tree of the same size), else new."""
        node = self._reused_node(board) if self.reuse else None
        ni, nf = np.empty((MAX_NODES, T.NI), dtype=np.int32), np.empty((MAX_NODES, T.NF))
        st = np.zeros(T.NST, dtype=np.int64)
        if node is not None:
            assert self._tree is not None  # the node is one of the kept tree's
            st[T.FREE] = T.compact(self._tree[0], self._tree[1], node, ni, nf)
        else:
            T.new_root(ni, nf, st)
        self._tree = None  # the old tree's memory goes back now, not after this search
        return ni, nf, st

    def _reused_node(self, board: Board) -> Optional[int]:
        """The node of the kept tree for ``board``, reached by its last two moves, or None."""
        if self._tree is None or self._tree_position is None or len(board.move_stack) < 2:
            return None
        cells_bytes, ply = self._tree_position
        if board.ply != ply + 2 or len(cells_bytes) != len(board.cells):
            return None
        padded = core.padded_index(board.size)
        cells = np.frombuffer(cells_bytes, dtype=np.uint8).copy()
        ni, _, st = self._tree
        node = int(st[T.ROOT])
        for move in board.move_stack[-2:]:
            frm, to, arrow = (int(padded[s]) for s in (move.from_square, move.to_square, move.arrow))
            cells[to], cells[frm], cells[arrow] = cells[frm], core.EMPTY, core.ARROW
            for key, value in (
                (((T.FROM, T.TO), (frm, to)), ((T.ARROW,), (arrow,)))
                if self.tree == "split"
                else (((T.FROM, T.TO, T.ARROW), (frm, to, arrow)),)
            ):
                first, n = int(ni[node, T.FIRST]), int(ni[node, T.NKIDS])
                if first < 0:
                    return None
                kids = ni[first : first + n]
                hit = np.flatnonzero(np.all(kids[:, list(key)] == np.array(value), axis=1))
                if len(hit) == 0:
                    return None
                node = first + int(hit[0])
        return node if np.array_equal(cells, board.cells) else None

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
        """Before the simulations: a subclass may expand nodes and set priors (``agents.search.uct_net``:
        the policy-value net's), within the move's deadline ``stop`` (``perf_counter`` seconds);
        uct itself leaves the tree to the simulations."""

    # -- the search -----------------------------------------------------------------------------

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        """Run the simulations for ``board``'s side to move and choose the move: ``nodes`` and
        the ``simulations`` stat count this move's simulations (the arena prints them per
        second), ``evals`` the evaluator calls and ``tree`` the tree's size after the search."""
        cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()
        side, dirs = int(board.turn), board.dirs
        icfg = self.icfg.copy()
        icfg[T.FAST] = PRIORS[self._prior(board.size)]
        most = int(nq.max())
        reach = 4 * (board.size - 1)  # squares one queen line move reaches, at most
        if self.tree == "split":
            icfg[T.MAX_KIDS] = most * reach
        else:
            icfg[T.MAX_KIDS] = int(icfg[T.KQ]) * reach if icfg[T.KQ] > 0 else core.max_moves(board.size, most)
        ni, nf, st = self._root(board)
        st[T.RNG] = int(self.rng.integers(1, 1 << 62))
        buffers = self._buffers(board.size)
        stop = deadline.stop
        budget = NEVER if limit.simulations is None else limit.simulations
        self._guide(board, cells, queens, nq, icfg, ni, nf, st, buffers, stop)
        # one call: the tree has all its rows (``MAX_NODES``), so ``run`` never returns to grow it
        sims = T.run(
            cells,
            queens,
            nq,
            side,
            dirs,
            self.evaluator.kernel,
            self.evaluator.params,
            self.fcfg,
            icfg,
            ni,
            nf,
            st,
            budget,
            as_ns(stop),
            len(ni),
            *buffers,
        )
        move, value = self._choose(ni, nf, int(st[T.ROOT]), board)
        self._tree = (ni, nf, st)
        self._tree_position = (board.cells.tobytes(), board.ply)
        return SearchResult(
            move, value, nodes=sims, stats={"simulations": sims, "evals": int(st[T.EVALS]), "tree": int(st[T.FREE])}
        )

    def _choose(self, ni: np.ndarray, nf: np.ndarray, root: int, board: Board) -> tuple[Move, float]:
        """A proven win, else the most visited child (then the best mean), level by level."""
        node, value, frm, to, arrow = root, 0.0, -1, -1, -1
        for _ in range(2 if self.tree == "split" else 1):
            first, n = int(ni[node, T.FIRST]), int(ni[node, T.NKIDS])
            if first < 0 or n == 0:  # a queen move whose arrows were never expanded: shoot back
                arrow = frm
                break
            kids = slice(first, first + n)
            visits = ni[kids, T.VISITS].astype(np.float64)
            mean = np.where(visits > 0, nf[kids, T.WSUM] / np.maximum(visits, 1), nf[kids, T.STATIC])
            solved = ni[kids, T.SOLVED]
            key = np.where(solved == 1, np.inf, np.where(solved == -1, -1.0, visits))
            best = int(np.lexsort((mean, key))[-1])
            node = first + best
            value = float(mean[best]) if solved[best] == 0 else float(solved[best])
            if ni[node, T.FROM] >= 0:
                frm, to = int(ni[node, T.FROM]), int(ni[node, T.TO])
            if ni[node, T.ARROW] >= 0:
                arrow = int(ni[node, T.ARROW])
        public = core.public_index(board.size)
        return Move(int(public[frm]), int(public[to]), int(public[arrow]), board.size), value


def visit_policy(agent: UCT, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The root visit shares of ``agent``'s last search (on ``board``, split tree) over whole moves:
    ``(moves uint8[M, 3] of public squares, probs float32[M])``, a queen move's share split over its
    arrows by their visits: the policy target of expert iteration (``training.selfplay.policy_value``)."""
    if agent._tree is None or agent._tree_position != (board.cells.tobytes(), board.ply) or agent.tree != "split":
        raise InvalidArgumentError("visit_policy: the agent's last search was not a split-tree search of this board")
    ni, _, st = agent._tree
    public = core.public_index(board.size)
    moves, counts = [], []
    for q in kids(ni, int(st[T.ROOT])):
        for a in kids(ni, q) if ni[q, T.VISITS] > 0 else ():
            if ni[a, T.VISITS] > 0:
                moves.append((public[ni[q, T.FROM]], public[ni[q, T.TO]], public[ni[a, T.ARROW]]))
                counts.append(float(ni[a, T.VISITS]))
    if not moves:
        raise InvalidArgumentError("visit_policy: the last search visited no whole move (a filling-phase move?)")
    weights = np.array(counts)
    return np.array(moves, np.uint8), (weights / weights.sum()).astype(np.float32)


def kids(ni: np.ndarray, x: int) -> range:
    """The rows of node ``x``'s children (empty if it is not expanded)."""
    first = int(ni[x, T.FIRST])
    return range(first, first + int(ni[x, T.NKIDS])) if first >= 0 else range(0)
