"""The presets of the one MCTS (agents.search.presets): mcts and pvmcts are configurations of the
``uct`` agent, with the options they always took; legal moves, budgets, what each configures."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board, Move

from agents import make
from agents.search import uct_tree as T
from agents.search.net_guide import NetGuide
from agents.search.uct import UCT
from agents.search.uct_tree.choice import kids


def test_mcts_is_a_move_tree_keeping_k_whole_moves_per_node():
    agent = make("mcts:sims=60,k=5,kq=3,c=2.0,tau=0.1", seed=1)
    assert isinstance(agent, UCT) and agent.tree == "move" and agent.name == "mcts"
    assert agent.config.keep == 5 and agent.config.kq == 3 and agent.config.pw_c == 0 and agent.config.c_puct == 2.0
    board = Board(6)
    result = agent.search(board)
    assert board.is_legal(result.move) and result.simulations == 60
    ni, nf, st = agent._tree
    expanded = [x for x in range(int(st[T.FREE])) if ni[x, T.FIRST] >= 0 and ni[x, T.SOLVED] == 0]
    assert expanded and all(0 < ni[x, T.NKIDS] <= 5 for x in expanded)
    for x in expanded:  # the kept moves' priors are a distribution, best first
        priors = nf[list(kids(ni, x)), T.PRIOR]
        assert priors.sum() == pytest.approx(1.0) and np.all(np.diff(priors) <= 1e-12)


def test_mcts_plays_legal_moves_and_reuses_its_tree():
    agent = make("mcts:sims=80,k=4", seed=2)
    board = Board(6)
    for _ in range(4):
        result = agent.search(board)
        assert board.is_legal(result.move) and result.simulations == 80
        board.push(result.move)


@pytest.mark.parametrize("spec, error", [("mcts:k=0", "k=0"), ("mcts:kq=-1", "kq=-1"), ("uct:k=4", "move tree")])
def test_bad_mcts_options_are_refused(spec, error):
    with pytest.raises(ValueError, match=error):
        make(spec)


def test_pvmcts_is_uct_with_the_net_at_every_expansion(net_path):
    agent = make(f"pvmcts:sims=40,batch=4,c=2.0,threads=1,weights={net_path}", seed=0)
    guide = agent.guide
    assert isinstance(guide, NetGuide) and agent.name == "pvmcts" and agent.config.c_puct == 2.0
    assert (guide.leaves, guide.leaf_value, guide.mix, guide.net_threads) == (4, 1.0, 1.0, 1)
    board = Board(6)
    for _ in range(3):
        result = agent.search(board)
        assert board.is_legal(result.move) and result.simulations == 40
        board.push(result.move)
    assert len(guide.guided) > 1  # positions below the root got the net's priors


def test_pvmcts_finds_a_sealing_win(net_path):
    """White's queen can seal Black's only queen (a1-a2, arrow on e6): the proven win is played
    whatever the net says."""
    board = Board.from_squares(6, white=[0], black=[35], arrows=[28, 29, 33])
    result = make(f"pvmcts:sims=200,batch=4,weights={net_path}", seed=0).search(board)
    after = board.copy()
    after.push(result.move)
    assert isinstance(result.move, Move) and after.is_game_over() and result.value == 1.0
