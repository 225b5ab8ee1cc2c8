"""Checks of ``uct-net``'s tree shared by its tests: the net's priors where it guided."""

from __future__ import annotations

import numpy as np

from amazons_env import Board, core

from agents.search import uct_tree as T
from agents.search.net_guide import NetGuide
from agents.search.uct import UCT
from agents.search.uct_tree.choice import kids
from agents.search.uct_tree.lines import action, game_line

__all__ = ["net_priored"]


def net_priored(agent: UCT, board: Board, least: int) -> list[int]:
    """The kinds of the nodes visited ``least`` times or more that ``agent`` records as guided,
    each checked to have the net's priors (``mix=1``): a position's queen moves its slide softmax,
    a queen move's arrows its arrow softmax at the position before it."""
    from agents.nets.policy_value import move_indices

    guide = agent.guide
    assert agent._tree is not None and isinstance(guide, NetGuide)
    ni, nf, st = agent._tree
    found = T.Visited(board, 4096)
    count = found.scan(ni, int(st[T.ROOT]), least, board)
    public, net, kinds = core.public_index(board.size), guide.net(board.size), []
    lines = [game_line(board)]
    for e in range(1, count):
        x = int(found.nodes[e])
        arrows = bool(ni[x, T.KIND] == T.KIND_ARROW)
        lines.append(lines[int(found.parents[e])] + action(ni, x))
        if lines[e] not in guide.guided:
            continue
        p = int(found.parents[e]) if arrows else e
        _, slide, arrow = net.evaluate(found.cells[p][None], found.sides[p][None])
        block = list(kids(ni, x))
        if arrows:
            dest = int(public[ni[x, T.TO]])
            sq = public[ni[block, T.ARROW]]
            _, idx = move_indices(np.stack([np.full(len(sq), dest), np.full(len(sq), dest), sq], axis=1), board.size)
            logits = arrow[0, idx]
        else:
            frm, to = public[ni[block, T.FROM]], public[ni[block, T.TO]]
            idx, _ = move_indices(np.stack([frm, to, to], axis=1), board.size)
            logits = slide[0, idx]
        want = np.exp(logits - logits.max())
        assert np.allclose(nf[block, T.PRIOR], want / want.sum(), rtol=1e-4)
        kinds.append(int(ni[x, T.KIND]))
    return kinds
