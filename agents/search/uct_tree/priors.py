"""An outside policy's priors in a ``uct_tree`` tree: its logits turned into the priors of a node's
children, mixed with their own, and the block re-sorted best first.

A policy-value net (``agents.search.net_guide``) gives, for a position, slide logits and arrow
logits over its move planes: the logit of the slide from ``f`` to ``t`` is at
``channel[f, t] * N*N + f`` of the slide row, that of an arrow from ``t`` to ``a`` (after a slide
to ``t``) at ``channel[t, a] * N*N + t`` of the arrow row (``channel``:
``agents.nets.policy_value.line_channels``, on public squares; the rows are as long as the net's
``LINES * N*N``, unchecked: the kernel trusts its caller). ``reprior`` gives a position's
queen moves the softmax of their slides' logits, a queen move's arrows the softmax of their
arrows' logits (the arrow head is read at the position before the queen move, conditioned on its
destination), each mixed ``(1 - mix) * own + mix * net``, then re-sorts the block by the mix (stable: with
``mix=0`` nothing moves), since progressive widening opens a block in order. A re-sort moves the
children's rows, so a caller with nodes at several depths lists the deepest first. One call for
all the nodes of a look: a few microseconds a node.

>>> import numpy as np
>>> from amazons_env import Board, core
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.uct_tree import NF, NI, NST, Positions, SearchConfig, Tree, expand_nodes, new_root, scratch
>>> board, evaluator = Board(6), make_evaluator("territory")
>>> tree = Tree(np.empty((1 << 12, NI), np.int32), np.empty((1 << 12, NF)), np.zeros(NST, np.int64))
>>> new_root(*tree)
>>> start = Positions(board.cells[None].copy(), board.queens[None].copy(), np.array([int(board.turn)]))
>>> _ = expand_nodes(np.array([0]), start, board.queen_counts.copy(), board.dirs, evaluator.kernel, evaluator.params,
...                  SearchConfig(max_kids=80, fast=1), tree, scratch(6))  # the root's queen moves
>>> ni, nf, st = tree
>>> from agents.nets.models import LINES  # the net's move planes: 8 directions x the longest reach
>>> from agents.nets.policy_value import line_channels
>>> slide, arrow = np.zeros((1, LINES * 36), np.float32), np.zeros((1, LINES * 36), np.float32)
>>> reprior(ni, nf, np.array([0]), np.array([0]), slide, arrow, core.public_index(6), line_channels(6), 1.0)
>>> first, n = ni[0, FIRST], ni[0, NKIDS]  # equal logits: a uniform prior over the root's queen moves
>>> bool(np.allclose(nf[first : first + n, PRIOR], 1 / n))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search.uct_tree.nodes import ARROW, FIRST, FROM, KIND, KIND_ARROW, NKIDS, PRIOR, TO

__all__ = ["reprior"]


@njit(cache=True)
def reprior(ni, nf, nodes, rows, slide, arrow, public, channel, mix):
    """Give the children of each node ``nodes[j]`` (expanded; in this order) the policy of row
    ``rows[j]`` of ``slide`` (a position's queen moves) or ``arrow`` (a queen move's arrows), mixed
    into their priors by ``mix``, and re-sort their block by the result (module docstring).
    ``public``: padded square -> public square; ``channel``: the slide channel of a public (from,
    to)."""
    squares = channel.shape[0]
    for j in range(len(nodes)):
        x, r = nodes[j], rows[j]
        first, n = ni[x, FIRST], ni[x, NKIDS]
        if first < 0 or n == 0:
            continue
        logits = np.empty(n)
        if ni[x, KIND] == KIND_ARROW:  # a queen move: its arrows, from its destination
            dest = public[ni[x, TO]]
            for i in range(n):
                logits[i] = arrow[r, channel[dest, public[ni[first + i, ARROW]]] * squares + dest]
        else:  # a position: its queen moves
            for i in range(n):
                frm = public[ni[first + i, FROM]]
                logits[i] = slide[r, channel[frm, public[ni[first + i, TO]]] * squares + frm]
        net = np.exp(logits - logits.max())
        net /= net.sum()
        prior = (1.0 - mix) * nf[first : first + n, PRIOR] + mix * net
        order = np.argsort(-prior, kind="mergesort")  # stable: equal priors keep their order
        ints, floats = ni[first : first + n].copy(), nf[first : first + n].copy()
        for i in range(n):
            ni[first + i] = ints[order[i]]
            nf[first + i] = floats[order[i]]
            nf[first + i, PRIOR] = prior[order[i]]
