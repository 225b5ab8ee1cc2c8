"""The numba half of ``uct``: a search tree in flat arrays and the simulations that grow it.

No Python runs per simulation: ``run`` plays the simulations of one move and returns, saying why
it stopped (``STOPS``: its budget, the deadline, a settled move, a proven root). It releases the
GIL, so that an agent can search several trees at once, one per thread (``agents.search.uct``'s
``threads``).

**Nodes.** Row ``x`` of ``ni`` (``int32[M, NI]``) and ``nf`` (``float64[M, NF]``) is one node: the
action that leads to it (``FROM``, ``TO``, ``ARROW``: padded squares, -1 where unused), its
children (a contiguous block ``FIRST .. FIRST + NKIDS``, ``FIRST = -1`` until expanded), its
``VISITS``, its summed values ``WSUM`` and first-play value ``STATIC``, its ``PRIOR`` and
``SOLVED`` (+1 proven won, -1 proven lost, 0 not proven). Every value stored at a node is for the
side that *chose* the action leading to it (the side to act at its parent), so selection at a
node compares its children directly.

**Two tree shapes.** ``SPLIT = 0``: every edge is a whole move (from, to, arrow), the children of
a position being ``move_order.candidates`` (queen moves scored by the territory kernel, the best
``kq`` kept, each of their arrows scored). ``SPLIT = 1``: a move takes two levels, a queen move
(a ``KIND_ARROW`` node: the same side still has to shoot) and then an arrow (a ``KIND_MOVE``
node: the other side to move); queen moves are scored by the position after them, arrows by the
position after the whole move. The value's sign flips only after a whole move.

**Cheap levels** (``SearchConfig.fast``, split tree): a level whose bit is set is ordered by a cheap score
instead (a queen move by the squares its amazon then reaches, an arrow by the enemy amazons it
faces) and each child is evaluated by the kernel when it is first visited (``STATIC`` is NaN
until then), so an expansion costs no evaluation. ``FAST_QUEENS`` alone is the agent's
``prior=mixed``: the queen-move scoring, which is most of the evaluations of a fully scored split
tree (54 of 73 per expanded move at the 8x8 start), is replaced by one evaluation per queen move
actually visited.

**A simulation** descends by PUCT (``Q + c P sqrt(N) / (1 + n)``; an unvisited child's ``Q`` is
its score from the expansion; an unevaluated child is entered at once, best prior first) over
the children that progressive widening has opened (``max(1, pw_c N^pw_a)`` best by prior),
expands the first move node it reaches with at least ``expand_at`` visits (arrow nodes are
expanded when first entered, or with a cheap queen level when entered again), and backs up the
leaf's value: its score from the parent's expansion (or its evaluation now, if it has none), or
with ``playout = p`` the evaluation after ``p`` random moves. Proven results (no move left; the
filling-phase counts of ``agents.search.endgame``) are backed up as solved values (MCTS-solver):
a node with a won child is won, a node whose children are all lost is lost, and selection never enters a lost child.

The package, by concept: ``nodes`` (the columns of a node row, the indices of the state array, the
kernels' argument bundles ``Tree``, ``SearchConfig`` and ``Budget`` (with ``move_order.Position``), a fresh root, the
compaction of a kept subtree), ``expansion`` (a node's children, scored and given priors, in the
scratch ``Buffers``), ``simulation`` (``run``: selection, leaf values, backup and proofs),
``stopping`` (when a search is sure of its move, or its move settled) and
``visited`` (the often visited nodes and their positions, for an evaluator run between two ``run``s,
and its values backed up), ``leaves`` (the positions ``run`` records for an evaluator, and the values it
gives them put in place), ``batches`` (a search whose positions an evaluator values in batches),
``forest`` (many searches, a tree per root, in one call: the vector env's batched ``uct`` opponent), ``lines``
(names of nodes that outlive their rows) and ``priors`` (an outside policy's priors mixed into a node's children).
Every name is importable from the package itself (``from agents.search import uct_tree as T``).

Eight hundred simulations on the 6x6 start, split tree with ``prior=mixed``'s cheap queen level:

>>> import numpy as np
>>> from amazons_env import Board, core
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.move_order import Position
>>> board, evaluator = Board(6), make_evaluator("territory")
>>> tree = Tree(np.empty((1 << 16, NI), np.int32), np.empty((1 << 16, NF)), np.zeros(NST, np.int64))
>>> new_root(*tree)
>>> tree.st[RNG] = 1
>>> cfg = SearchConfig(split=1, max_kids=4 * 20, fast=FAST_QUEENS)  # a queen's reach: 4 x 20 squares at most
>>> position = Position(board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> budget = Budget(800, np.full(2, 1 << 62), 0)  # no time limit (``Deadline.ns``), no game clock
>>> run(position, int(board.turn), evaluator.kernel, evaluator.params, cfg, tree, budget, scratch(6),
...     leaves.buffers(0, 6))
800
>>> ni, nf, st = tree
>>> STOPS[st[STOPPED]]
'simulations'
>>> first, n = ni[0, FIRST], ni[0, NKIDS]  # the root's children: every queen move, best prior first
>>> bool(n == core.count_queen_moves(*position[:3], 0, board.dirs)), round(float(nf[first : first + n, PRIOR].sum()), 6)
(True, 1.0)
>>> int(ni[0, VISITS]), int(ni[first : first + n, VISITS].sum()), int(st[SIMS])  # each went through one
(800, 800, 800)
"""

from agents.search.uct_tree import batches, expansion, forest, leaves, nodes, priors, simulation, stopping
from agents.search.uct_tree import visited as visits
from agents.search.uct_tree.expansion import *  # noqa: F403 (each module's __all__ is the package's)
from agents.search.uct_tree.leaves import Recorded
from agents.search.uct_tree.nodes import *  # noqa: F403
from agents.search.uct_tree.priors import *  # noqa: F403
from agents.search.uct_tree.simulation import *  # noqa: F403
from agents.search.uct_tree.stopping import *  # noqa: F403
from agents.search.uct_tree.visited import *  # noqa: F403

__all__ = ["Recorded", "leaves", "batches", "forest"]
__all__ += nodes.__all__
__all__ += expansion.__all__
__all__ += simulation.__all__
__all__ += stopping.__all__
__all__ += visits.__all__
__all__ += priors.__all__
