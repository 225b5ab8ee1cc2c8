"""uct-net's ``leaves``: the leaves ``uct_tree.run`` holds for the net with a virtual loss on their
path (agents.search.uct_tree.leaves), released with the net's priors and its value blended in."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board, core

import agents
from agents.evaluation.evaluator import make_evaluator
from agents.options import OptionError
from agents.search import uct_tree as T
from agents.search.alphabeta_kernel import search_stats
from agents.search.uct import kids
from agents.search.uct_net import UCTNet
from agents.search.uct_tree.lines import Position, game_line

from tests.agents.test_uct_net_guided import net_priored

L = T.leaves


def small_tree(board: Board, held: int) -> tuple:
    """``run``'s arguments for a fresh tree of ``board``, with ``held`` waiting rows (virtual loss on)."""
    evaluator, rows = make_evaluator("territory"), core.max_moves(board.size, core.MAX_QUEENS)
    ni, nf, st = np.empty((1 << 14, T.NI), np.int32), np.empty((1 << 14, T.NF)), np.zeros(T.NST, np.int64)
    T.new_root(ni, nf, st)
    st[T.RNG] = 7
    fcfg = np.array([1.0, 0.1, 2.0, 0.5, 1.5])
    icfg = np.array([1, 0, 1, 0, 0, 4 * 4 * (board.size - 1), T.FAST_QUEENS, 1], np.int64)
    position = (board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), int(board.turn), board.dirs)
    scratch = (np.empty((rows, 3), np.int64), np.empty(rows), np.empty((rows, 2), np.int64), np.empty(rows))
    head = (*position, evaluator.kernel, evaluator.params, fcfg, icfg, ni, nf, st)
    return head, (np.full(2, 1 << 62), 0, *scratch, search_stats(), *L.buffers(held, board.size))


def test_run_holds_a_leaf_with_its_virtual_loss_and_release_backs_its_value_up():
    """With one waiting row, ``run`` returns ("batch") as soon as it holds a move node: the node
    waits, its row names its path from the root (each node a child of the one before) and its
    position (the moves of the path replayed in Python), the path keeps its virtual loss (a
    visit and a loss each) and the positions are restored; ``release`` with a value ``v`` for the
    leaf's chooser adds ``+-v + 1`` to each node of the path: ``+v`` where the node's chooser is the
    leaf's, ``-v`` where it is the other side."""
    board = Board(6)
    head, tail = small_tree(board, 1)
    ni, nf, st = head[9:12]
    held, held_cells = tail[-2:]
    for _ in range(20):  # until a leaf below a whole move of each side is held
        assert T.run(*head, 300, *tail[:-2], *L.buffers(0, 6)) == 300 and st[T.PENDING] == 0
        visits, wsum = ni[:, T.VISITS].copy(), nf[:, T.WSUM].copy()
        played = T.run(*head, 1000, *tail)
        if held[0, L.DEPTH] >= 4:
            break
        ni[int(held[0, L.LEAF]), T.FIRST] = -1
        L.release(ni, nf, st, held, np.zeros(1))
    assert T.STOPS[int(st[T.STOPPED])] == "batch" and st[T.PENDING] == 1 and 1 <= played < 1000
    assert np.array_equal(head[0], board.cells) and np.array_equal(head[1], board.queens)
    x, depth = int(held[0, L.LEAF]), int(held[0, L.DEPTH])
    path, sides = held[0, L.PATH : L.PATH + depth + 1], held[0, L.SIDES : L.SIDES + depth + 1]
    assert ni[x, T.FIRST] == L.WAITING and ni[x, T.KIND] == T.KIND_MOVE and path[-1] == x and depth >= 2
    position = Position(board.cells.copy(), board.queens.copy(), board.queen_counts, int(board.turn), b"")
    assert path[0] == st[T.ROOT] and sides[0] == position.side
    for k in range(1, depth + 1):
        assert path[k] in kids(ni, int(path[k - 1]))
        position = position.after(ni, int(path[k]))
        assert sides[k] == position.side
    assert np.array_equal(held_cells[0], position.cells) and held[0, L.SIDE] == position.side
    assert np.array_equal(L.held_queens(held, 1)[0], position.queens)
    # the held simulation's virtual loss is on its path (other simulations of the call are backed up)
    if played == 1:
        assert np.all(ni[path, T.VISITS] == visits[path] + 1)
        assert np.allclose(nf[path[1:], T.WSUM], wsum[path[1:]] - 1.0)
    before = nf[:, T.WSUM].copy()
    ni[x, T.FIRST] = -1  # as the caller does, expanding it or leaving it a leaf
    L.release(ni, nf, st, held, np.array([0.25]))
    chooser = sides[depth - 1]
    want = [(0.25 if sides[k - 1] == chooser else -0.25) + 1.0 for k in range(1, depth + 1)]
    assert np.allclose(nf[path[1:], T.WSUM] - before[path[1:]], want) and st[T.PENDING] == 0
    assert {1.25, 0.75} <= {round(w, 2) for w in want}  # the path crosses a whole move at least


def test_a_node_waiting_for_the_net_is_a_leaf_to_the_other_simulations():
    """Held leaves are not expanded by the simulations that reach them again, and ``run`` holds
    as many as its buffers have rows before returning."""
    board = Board(6)
    head, tail = small_tree(board, 8)
    ni, nf, st = head[9:12]
    T.run(*head, 2000, *tail)
    held = tail[-2]
    assert T.STOPS[int(st[T.STOPPED])] == "batch" and st[T.PENDING] == 8
    xs = held[:8, L.LEAF]
    assert len(set(xs.tolist())) == 8 and np.all(ni[xs, T.FIRST] == L.WAITING)
    assert int(st[T.FREE]) < ni.shape[0]


def leaves_agent(net_path: str, **options) -> UCTNet:
    return UCTNet(weights=net_path, mix=1.0, top=0, depth=0, leaves=8, sims=3000, seed=2, **options)


def test_leaves_give_every_expanded_position_the_net_priors(net_path):
    """mix=1: every position below the root the simulations expanded has its queen moves' priors
    equal to the net's slide softmax at it (checked as ``guide_at``'s are); nothing waits after
    the search, and the root counts every simulation once."""
    board = Board(6)
    agent = leaves_agent(net_path)
    result = agent.search(board)
    ni, _, st = agent._tree
    rows = int(st[T.FREE])
    assert result.simulations == 3000 and board.is_legal(result.move)
    assert np.all(ni[:rows, T.FIRST] >= -1) and ni[int(st[T.ROOT]), T.VISITS] == 3000
    kinds = net_priored(agent, board, 1)
    assert len(kinds) > 50 and set(kinds) == {T.KIND_MOVE}
    moves = [n for n in range(rows) if ni[n, T.KIND] == T.KIND_MOVE and ni[n, T.FIRST] >= 0 and n != st[T.ROOT]]
    assert len(kinds) == len(moves)  # every expanded position: the net's


def test_leaf_value_weighs_the_net_against_the_evaluator(net_path):
    """The root children's values move with ``leaf_value``: with 0 the net's value counts for
    nothing (one search's values are another's, whatever the net), with 1 it is all."""
    board = Board(6)

    def values(weight: float, path: str) -> np.ndarray:
        agent = UCTNet(weights=path, leaves=8, leaf_value=weight, sims=1500, seed=2, mix=0.0, top=0, depth=0)
        agent.search(board)
        assert agent._tree is not None
        ni, nf, st = agent._tree
        block = list(kids(ni, int(st[T.ROOT])))
        return nf[block, T.WSUM] / np.maximum(ni[block, T.VISITS], 1)

    import os
    import tempfile

    import torch

    from agents.nets.export import save_model
    from agents.nets.policy_value import PolicyValueNet

    torch.manual_seed(5)
    other = str(
        save_model(
            PolicyValueNet(channels=8, blocks=1, head=4, hidden=8), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6
        )
    )
    assert np.allclose(values(0.0, net_path), values(0.0, other))
    assert not np.allclose(values(1.0, net_path), values(1.0, other))
    assert not np.allclose(values(0.0, net_path), values(1.0, net_path))


def test_leaves_play_legal_moves_with_tree_reuse_and_time(net_path):
    agent = UCTNet(weights=net_path, leaves=4, time=0.05, seed=1)
    board = Board(6)
    for _ in range(6):
        result = agent.search(board)
        assert board.is_legal(result.move) and result.stats["stopped"] != "batch"
        ni, _, st = agent._tree
        assert np.all(ni[: int(st[T.FREE]), T.FIRST] >= -1)
        board.push(result.move)


def test_seeded_leaves_search_is_deterministic(net_path):
    spec = f"uct-net:sims=400,leaves=4,weights={net_path}"
    assert len({agents.make(spec, seed=3).select_move(Board(6)) for _ in range(2)}) == 1


@pytest.mark.parametrize(
    "options, error",
    [
        ({"leaves": -1}, "leaves=-1"),
        ({"leaves": 2.5}, "leaves=2.5"),
        ({"leaves": True}, "leaves=True"),
        ({"leaves": 5000}, "leaves=5000"),
        ({"leaves": 4, "guide_at": 8}, "guide_at=8"),
        ({"leaves": 4, "guide_at": 8, "value_visits": 4}, "value_visits=4"),
        ({"leaves": 4, "threads": 2}, "threads=2"),
        ({"leaf_value": 1.5}, "leaf_value=1.5"),
        ({"leaf_value": float("nan")}, "leaf_value=nan"),
    ],
)
def test_leaves_options_are_checked(net_path, options, error):
    with pytest.raises(OptionError, match=error):
        UCTNet(weights=net_path, **options)


def test_leaves_turn_guide_at_and_value_visits_off(net_path):
    agent = UCTNet(weights=net_path, leaves=4)
    assert agent.guided_at(8) == agent.guided_at(10) == 0 and agent.valued_visits(8) == 0
    assert game_line(Board(6)) == b""
