"""The policy-value MCTS (agents.search.pvmcts on the PUCT tree of agents.search.puct): legal moves,
simulation budgets, the two-level tree's accounting and signs, batched trees in lock-step, tree reuse."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board, Move

from agents import make
from agents.nets.export import save_model
from agents.nets.inference import PVNet
from agents.nets.models import PolicyValueNet
from agents.search.puct.tree import Node, Tree, best_move, run_trees, start_roots
from agents.search.pvmcts import PolicyValueEvaluator


@pytest.fixture(scope="module")
def net_path(tmp_path_factory):
    torch.manual_seed(0)
    return save_model(
        PolicyValueNet(channels=8, blocks=1, head=4, hidden=8), tmp_path_factory.mktemp("pv") / "pv", board_size=5
    )


def nodes(node: Node):
    yield node
    for child in node.children.values():
        yield from nodes(child)


def test_agent_plays_legal_moves_with_exactly_its_simulations(net_path):
    agent = make(f"pvmcts:sims=24,batch=4,weights={net_path}", seed=0)
    board = Board(5)
    for _ in range(6):
        if board.is_game_over():
            break
        result = agent.search(board)
        assert board.is_legal(result.move) and result.simulations == 24 and -1 <= result.value <= 1
        board.push(result.move)


def test_two_level_statistics_and_signs(net_path):
    """Slide and arrow of one position carry the same values (no flip between them); a child
    position's values are the negation of the edge leading to it (a flip after a whole move)."""
    net = PolicyValueEvaluator(PVNet.load(net_path))
    tree = Tree(5)
    start_roots([tree], [(Board(5).cells.copy(), 0)], net)
    run_trees([tree], net, sims=60, batch=6)
    for node in nodes(tree.root):
        if node.terminal or node.visits == 0:
            continue
        assert node.visits == node.n_move.sum() == node.n_slide.sum()
        assert (node.n_move >= 0).all()  # every virtual loss was taken back
        for g in range(len(node.starts)):
            in_group = node.group == g
            assert node.n_slide[g] == node.n_move[in_group].sum()
            assert node.w_slide[g] == pytest.approx(node.w_move[in_group].sum())
        for m, child in node.children.items():
            assert child.side == 1 - node.side
            # the child's first evaluation and every later visit, negated
            assert node.n_move[m] == 1 + child.n_move.sum() if not child.terminal else node.n_move[m] >= 1
            expected = -(child.value + (child.w_move.sum() if not child.terminal else -(node.n_move[m] - 1)))
            assert node.w_move[m] == pytest.approx(expected)


def test_a_lost_child_position_is_worth_a_win(net_path):
    """A move after which the opponent has no move: the child is terminal, the edge scores +1."""
    net = PolicyValueEvaluator(PVNet.load(net_path))
    # White's queen on a1 can seal Black's queen on e5 by moving next to it and shooting
    board = Board.from_squares(5, white=[0], black=[24], arrows=[18, 19, 22])
    tree = Tree(5)
    start_roots([tree], [(board.cells.copy(), int(board.turn))], net)
    run_trees([tree], net, sims=200, batch=4)
    root = tree.root
    winning = [m for m, child in root.children.items() if child.terminal]
    assert winning, "the sealing moves were never tried"
    for m in winning:
        assert root.w_move[m] == pytest.approx(root.n_move[m])  # every visit a win
    m = best_move(root)
    after = board.copy()
    after.push(Move(*(int(x) for x in root.moves[m]), 5))
    assert after.is_game_over()


def test_many_trees_in_lock_step(net_path):
    net = PolicyValueEvaluator(PVNet.load(net_path))
    boards = [Board(5) for _ in range(3)]
    boards[1].push(boards[1].legal_moves()[0])
    trees = [Tree(5) for _ in boards]
    start_roots(
        trees, [(b.cells.copy(), int(b.turn)) for b in boards], net, noise=(np.random.default_rng(0), 0.3, 0.25)
    )
    run_trees(trees, net, sims=20, batch=3)
    for tree, board in zip(trees, boards):
        assert tree.sims == 20 and tree.root.visits == 20
        assert board.is_legal(Move(*(int(x) for x in tree.root.moves[best_move(tree.root)]), 5))
        assert np.isclose(tree.root.p_slide.sum(), 1.0)


def test_tree_reuse_keeps_the_subtree(net_path):
    agent = make(f"pvmcts:sims=60,batch=4,fpu=1,weights={net_path}", seed=0)  # fpu=1: revisit, go deep
    board = Board(5)
    agent.select_move(board)
    root = agent.root
    m, child = next((m, c) for m, c in root.children.items() if c.children)  # a move whose replies were searched
    reply = next(iter(child.children))
    for node, index in ((root, m), (child, reply)):
        board.push(Move(*(int(x) for x in node.moves[index]), 5))
    assert agent._reused_root(board) is child.children[reply]
    assert agent.search(board).simulations == 60
