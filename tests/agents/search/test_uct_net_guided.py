"""uct-net during the search (agents.search.net_guide's ``guide_at`` and ``value_visits``) and the
tree kernels they use (agents.search.uct_tree's ``visited``, ``back_up`` and ``reprior``): the
positions found, the priors and values given, the time they may take."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board, core

import agents
from agents.search import uct_tree as T
from agents.search.presets import uct_net
from agents.search.uct_tree.choice import kids

from tests.helpers.uct_net import net_priored


def test_visited_finds_the_often_visited_nodes_with_their_positions():
    """``uct_tree.visited``: every expanded node visited at least ``least`` times that hangs from the
    root through such nodes, each with the position replayed along its path (checked here by
    plain Python moves on the public squares)."""
    board = Board(6)
    agent = agents.make("uct:sims=800", seed=2)
    agent.search(board)
    ni, _, st = agent._tree
    least, public, root = 12, core.public_index(6), int(st[T.ROOT])
    found = T.Visited(board, 4096)
    count = found.scan(ni, root, least, board)
    want, frontier = {root}, [root]
    while frontier:
        frontier = [c for x in frontier for c in kids(ni, x) if ni[c, T.VISITS] >= least and ni[c, T.FIRST] >= 0]
        want |= set(frontier)
    assert sorted(found.nodes[:count]) == sorted(want) and count > 10
    for e in range(1, count):
        x, p = int(found.nodes[e]), int(found.parents[e])
        assert x in kids(ni, int(found.nodes[p]))
        cells, side = found.cells[p].copy(), int(found.sides[p])
        if ni[x, T.KIND] == T.KIND_ARROW:  # a queen move: same side, arrow to come
            frm, to = int(ni[x, T.FROM]), int(ni[x, T.TO])
            assert cells[frm] == side + 1 and public[frm] >= 0
            cells[frm], cells[to] = core.EMPTY, side + 1
        else:
            cells[int(ni[x, T.ARROW])] = core.ARROW
            side = 1 - side
        assert np.array_equal(found.cells[e], cells) and int(found.sides[e]) == side
        at = found.queens[e][side, : board.queen_counts[side]]
        assert sorted(np.flatnonzero(cells == side + 1)) == sorted(at)


def test_guide_at_with_mix_zero_searches_as_uct(net_path):
    """Searching in parts with the net's priors mixed at weight 0 between them builds uct's tree:
    the parts and the re-sorting change nothing by themselves."""
    board = Board(6)
    plain = agents.make("uct:sims=3000", seed=4)
    plain.search(board)
    parts = uct_net(weights=net_path, mix=0.0, top=0, depth=0, guide_at=8, sims=3000, seed=4)
    parts.guide.part = 512  # several parts in a small search
    parts.search(board)
    assert len(parts.guide.guided) > 20  # the parts ran and found positions to guide
    (ni0, nf0, st0), (ni, nf, st) = plain._tree, parts._tree
    rows = int(st0[T.FREE])
    assert int(st[T.FREE]) == rows
    assert np.array_equal(ni0[:rows], ni[:rows]) and np.allclose(nf0[:rows], nf[:rows], equal_nan=True)


def test_guide_at_gives_the_net_priors_to_the_often_visited_positions(net_path):
    """mix=1, guide_at=10: after the search, each node the parts guided (found again by
    ``visited``, named by its line of moves: a position reached by two orders of moves is two
    nodes) has its queen moves' priors equal to the net's slide softmax at its position, and each
    queen move it guided its arrows' softmax; deeper than the root."""
    board = Board(6)
    agent = uct_net(weights=net_path, mix=1.0, top=0, depth=0, guide_at=10, sims=4000, seed=1)
    agent.guide.part = 512  # several parts in a small search
    agent.search(board)
    kinds = net_priored(agent, board, 10)
    assert len(kinds) > 10 and T.KIND_ARROW in kinds


def test_guide_at_with_threads_plays_legal_moves(net_path):
    agent = uct_net(weights=net_path, guide_at=4, threads=2, sims=600, seed=0)
    agent.guide.part = 128  # several parts in a small search
    board = Board(6)
    for _ in range(4):
        result = agent.search(board)
        assert board.is_legal(result.move)
        board.push(result.move)
    assert len(agent.guide.guided) > 1  # the parts guided nodes below the root


def test_guide_at_evaluates_only_what_the_time_left_allows(net_path):
    """Between two parts the net runs on as many positions as a share of the time left before the
    deadline's stop allows: none once it has passed (they wait for the next part), all without a
    deadline."""
    import time

    board = Board(6)
    agent = uct_net(weights=net_path, mix=1.0, top=0, depth=0, guide_at=10, sims=3000, seed=1)
    agent.guide.part = 0  # one part: nothing guided between parts during the search
    agent.search(board)
    tree = agent._tree
    assert tree is not None
    before = set(agent.guide.guided)
    agent.guide.between(board, tree, time.perf_counter() - 1.0)
    assert agent.guide.guided == before
    agent.guide.between(board, tree, float("inf"))
    assert len(agent.guide.guided) > len(before) + 10


def test_back_up_counts_a_value_as_simulations_ending_at_its_node():
    """``uct_tree.back_up``: each node on the way from a valued entry to the root gains the visits
    and the value for its chooser (the side acting at its parent), with the sign flipping only
    where the chooser does; nothing else changes. A proof on the way stands for the value above it."""
    board = Board(6)
    agent = agents.make("uct:sims=800", seed=2)
    agent.search(board)
    assert agent._tree is not None
    ni, nf, st = agent._tree
    found = T.Visited(board, 4096)
    count = found.scan(ni, int(st[T.ROOT]), 12, board)
    entries = [e for e in range(1, count) if ni[found.nodes[e], T.KIND] == T.KIND_MOVE][:6]
    assert len(entries) >= 3 and not ni[found.nodes[:count], T.SOLVED].any()
    values = np.linspace(-0.9, 0.7, len(entries))
    want_visits, want_wsum = ni[:, T.VISITS].copy(), nf[:, T.WSUM].copy()
    for e, v in zip(entries, values):
        a = e
        while a:  # the entry's node and its ancestors below the root
            parent = int(found.parents[a])
            chooser_is_valued_side = found.sides[parent] == found.sides[e]
            want_visits[found.nodes[a]] += 3
            want_wsum[found.nodes[a]] += 3 * (v if chooser_is_valued_side else -v)
            a = parent
        want_visits[found.nodes[0]] += 3
    before_ni = ni.copy()
    T.back_up(ni, nf, found.nodes, found.parents, found.sides, np.array(entries, np.int64), values, 3)
    assert np.array_equal(ni[:, T.VISITS], want_visits) and np.allclose(nf[:, T.WSUM], want_wsum)
    others = [c for c in range(ni.shape[1]) if c != T.VISITS]
    assert np.array_equal(ni[:, others], before_ni[:, others])
    # a proof on the way: the proven node's value (for its chooser) goes on up in the value's place
    deep = count - 1  # breadth first: the last entry is among the deepest
    while ni[found.nodes[deep], T.KIND] != T.KIND_MOVE:
        deep -= 1
    proven, above = int(found.parents[deep]), int(found.parents[found.parents[deep]])
    assert above > 0
    ni[found.nodes[proven], T.SOLVED] = 1
    wsum = nf[found.nodes[above], T.WSUM]
    T.back_up(ni, nf, found.nodes, found.parents, found.sides, np.array([deep], np.int64), np.array([-0.5]), 2)
    same = found.sides[found.parents[above]] == found.sides[found.parents[proven]]
    assert nf[found.nodes[above], T.WSUM] == pytest.approx(wsum + 2 * (1.0 if same else -1.0))
    ni[found.nodes[deep], T.SOLVED] = -1  # a proven entry is left out
    visits = ni[:, T.VISITS].copy()
    T.back_up(ni, nf, found.nodes, found.parents, found.sides, np.array([deep], np.int64), np.array([0.5]), 2)
    assert np.array_equal(ni[:, T.VISITS], visits)


def test_value_visits_back_up_the_net_values_of_the_guided_positions(net_path):
    """With value_visits=K (mix=0: the priors stay uct's), the root holds the simulations plus K
    for each position the parts valued, and the tree is no longer uct's."""
    board = Board(6)
    plain = uct_net(weights=net_path, mix=0.0, top=0, depth=0, guide_at=8, sims=3000, seed=4)
    plain.guide.part = 512
    plain.search(board)
    valued = uct_net(weights=net_path, mix=0.0, top=0, depth=0, guide_at=8, value_visits=4, sims=3000, seed=4)
    valued.guide.part = 512
    result = valued.search(board)
    ni, nf, st = valued._tree
    extra = int(ni[st[T.ROOT], T.VISITS]) - result.simulations
    assert extra > 0 and extra % 4 == 0 and result.simulations == 3000
    assert not np.array_equal(plain._tree[0][: int(st[T.FREE])], ni[: int(st[T.FREE])])
    assert board.is_legal(result.move)


def test_guide_at_by_default_is_the_board_sizes_setting(net_path):
    """Not given (or ``none``), ``guide_at`` is ``GUIDE_AT``'s for the board size: on 10x10 the
    search guides the positions it visits often, on 6x6 (no setting) it builds the tree of
    ``guide_at=0``; given, it is the same on every size."""
    default = uct_net(weights=net_path, sims=2000, seed=3)
    assert (default.guide.guided_at(10), default.guide.guided_at(8), default.guide.guided_at(6)) == (8, 64, 0)
    assert agents.make(f"uct-net:weights={net_path},guide_at=none").guide.guided_at(10) == 8
    given = uct_net(weights=net_path, guide_at=16)
    assert (given.guide.guided_at(10), given.guide.guided_at(8)) == (16, 16)
    off = uct_net(weights=net_path, guide_at=0, sims=2000, seed=3)
    assert off.guide.guided_at(10) == 0
    for agent in (default, off):
        agent.guide.part = 256  # several parts in a small search
        agent.search(Board(10))
    assert len(default.guide.guided) > len(off.guide.guided) + 10  # positions guided during the search
    for agent in (default, off):
        agent.search(Board(6))
    (ni0, nf0, st0), (ni, nf, st) = off._tree, default._tree
    rows = int(st0[T.FREE])
    assert int(st[T.FREE]) == rows and np.array_equal(ni0[:rows], ni[:rows])
    assert np.allclose(nf0[:rows], nf[:rows], equal_nan=True)


def test_value_visits_by_default_is_the_board_sizes_setting_with_guide_at_not_given(net_path):
    """``value_visits`` not given (or ``none``) is ``VALUE_VISITS``' for the board size while
    ``guide_at`` is not given either; a ``guide_at`` given alone values nothing; given, it holds."""
    default = agents.make(f"uct-net:weights={net_path},value_visits=none")
    assert [default.guide.valued_visits(n) for n in (6, 8, 10)] == [0, 16, 0]
    assert [uct_net(weights=net_path, guide_at=64).guide.valued_visits(n) for n in (6, 8, 10)] == [0, 0, 0]
    given = uct_net(weights=net_path, guide_at=8, value_visits=4)
    assert [given.guide.valued_visits(n) for n in (6, 8, 10)] == [4, 4, 4]
    assert uct_net(weights=net_path, guide_at=8, value_visits=0).guide.valued_visits(8) == 0
    default.guide.part = 512  # several parts: the 8x8 default values what it guides
    result = default.search(Board(8), agents.Limit(simulations=20000))
    ni, _, st = default._tree
    extra = int(ni[st[T.ROOT], T.VISITS]) - result.simulations
    assert extra > 0 and extra % 16 == 0


def test_reprior_mixes_the_softmax_of_each_childs_logit_and_sorts_the_block():
    """``uct_tree.reprior`` on a position (its queen moves, slide logits) and on a queen move (its
    arrows, arrow logits read at its destination): each child keeps its row contents and gets
    ``(1 - mix) * own + mix * softmax``, the block best first."""
    from agents.nets.models import LINES
    from agents.nets.policy_value import line_channels, move_indices

    board = Board(6)
    agent = agents.make("uct:sims=300", seed=3)
    agent.search(board)
    ni, nf, st = agent._tree
    root = int(st[T.ROOT])
    queen = max(kids(ni, root), key=lambda c: (ni[c, T.FIRST] >= 0, ni[c, T.VISITS]))
    assert ni[queen, T.FIRST] >= 0
    rng, public = np.random.default_rng(0), core.public_index(6)
    slide, arrow = (rng.normal(size=(2, LINES * 36)).astype(np.float32) for _ in range(2))
    for x, row in ((queen, 1), (root, 0)):  # the deeper node first: the root's re-sort moves its row
        block = list(kids(ni, x))
        squares = np.stack([public[ni[block, T.FROM]], public[ni[block, T.TO]], public[ni[block, T.ARROW]]], axis=1)
        if ni[x, T.KIND] == T.KIND_ARROW:
            dest = int(public[ni[x, T.TO]])
            _, idx = move_indices(np.stack([np.full(len(block), dest)] * 2 + [squares[:, 2]], axis=1), 6)
            logits = arrow[row, idx]
        else:
            idx, _ = move_indices(np.stack([squares[:, 0], squares[:, 1], squares[:, 1]], axis=1), 6)
            logits = slide[row, idx]
        net = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        want = {tuple(ni[c, T.FROM : T.ARROW + 1]): 0.7 * nf[c, T.PRIOR] + 0.3 * p for c, p in zip(block, net)}
        T.reprior(ni, nf, np.array([x]), np.array([row]), slide, arrow, public, line_channels(6), 0.3)
        got = {tuple(ni[c, T.FROM : T.ARROW + 1]): nf[c, T.PRIOR] for c in kids(ni, x)}
        assert got.keys() == want.keys() and all(got[k] == pytest.approx(want[k]) for k in want)
        priors = nf[list(kids(ni, x)), T.PRIOR]
        assert (np.diff(priors) <= 0).all() and len(set(np.round(net, 6))) > 1
