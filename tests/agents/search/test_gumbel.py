"""Gumbel AlphaZero's batched search on tensors (agents.search.gumbel): the net's input planes and
the children against the numba references, the root's schedule and improved policy, the search
(a forced win, legal moves, seeds, a batch against its games searched alone) and the agent."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings

from amazons_env import Board, Move
from amazons_env.tensor.state import from_boards

from agents import make
from agents.arena import opening_board
from agents.game import play_out
from agents.nets.planes import make_planes
from agents.nets.policy_value import legal_moves_batch, move_log_probs
from agents.random_agent import RandomAgent
from agents.search.endgame import analyse
from agents.search.gumbel.children import Evaluator, expand, unpack
from agents.search.gumbel.planes import relative_planes
from agents.search.gumbel.regions import in_contact
from agents.search.gumbel.root import completed_q, considered_visits, improved_policy, visit_table
from agents.search.gumbel.tree import Settings, search

from tests.strategies import positions

INF = float("inf")
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def net(small_net):
    return Evaluator(small_net, "cpu")


@SETTINGS
@given(positions)
def test_planes_equal_the_numba_planes(board):
    x = make_planes(board.cells[None], [int(board.turn)], "relative")
    assert np.array_equal(relative_planes(from_boards([board])).planes.numpy(), x)


@SETTINGS
@given(positions)
def test_contact_is_the_endgame_counts_not_separated(board):
    assert in_contact(from_boards([board])).item() == (not analyse(board, budget=1).separated)


@SETTINGS
@given(positions)
def test_children_are_every_legal_move_with_its_prior(small_net, net, board):
    """With no pruning the children are exactly the legal moves, each with the log prior of
    ``move_log_probs``; pruned, they are the best of them."""
    size, side = board.size, int(board.turn)
    value, logits, moves = expand(net, from_boards([board]), 10**4, 10**4, 10**5)
    rows, legal = legal_moves_batch(board.cells[None], np.array([side]), size)
    kept = logits[0] > -INF
    mine = {tuple(m): lp for m, lp in zip(unpack(moves[0][kept], size).tolist(), logits[0][kept].tolist())}
    if len(legal) == 0:
        assert not mine and value.item() == -1.0
        return
    with torch.no_grad():
        _, slide, arrow = small_net(torch.from_numpy(make_planes(board.cells[None], [side], "relative")))
    ref = dict(zip(map(tuple, legal.tolist()), move_log_probs(slide, arrow, rows, legal, size).tolist()))
    assert mine.keys() == ref.keys()
    assert max(abs(mine[m] - ref[m]) for m in mine) < 1e-4
    _, top, top_moves = expand(net, from_boards([board]), 3, 2, 4)
    for lp, m in zip(top[0].tolist(), unpack(top_moves[0], size).tolist()):
        assert lp == -INF or mine[tuple(m)] == pytest.approx(lp, abs=1e-5)


def test_sequential_halving_schedule():
    # mctx's schedule: a round per halving, each action left visited max(1, sims / (log2 m * left)) times
    assert considered_visits(4, 10) == (0, 0, 0, 0, 1, 1, 2, 2, 3, 3)
    assert considered_visits(1, 4) == (0, 1, 2, 3)
    schedule = considered_visits(16, 64)
    assert schedule[:16] == (0,) * 16 and schedule[16:24] == (1,) * 8 and len(schedule) == 64
    assert visit_table(4, 10)[2].tolist()[:4] == [0, 0, 1, 1]


def test_search_visits_follow_the_halving(net):
    out = search(net, from_boards([Board(6)]), Settings(sims=10, m=4, k=8), torch.tensor([3]))
    assert sorted(out.visits[0].tolist(), reverse=True) == [4, 4, 1, 1, 0, 0, 0, 0]
    assert out.visits[0, out.action[0]] == 4


def test_improved_policy_properties():
    logits = torch.tensor([[0.0, -1.0, -2.0, -INF]])
    raw = torch.tensor([0.0])
    none = completed_q(torch.zeros(1, 4), torch.zeros(1, 4), logits, raw)
    policy = improved_policy(logits, none)
    # unvisited: every Q is the mixed value, so the policy is the prior's
    assert torch.allclose(policy, torch.softmax(logits, -1)) and policy[0, 3] == 0
    visits = torch.tensor([[0.0, 3.0, 1.0, 0.0]])
    q = completed_q(torch.tensor([[0.0, 0.9, -0.5, 0.0]]), visits, logits, raw)
    better = improved_policy(logits, q)
    assert better.sum().item() == pytest.approx(1.0) and better[0, 3] == 0
    assert better[0, 1] > policy[0, 1] and better[0, 2] < policy[0, 2]  # good Q up, bad Q down
    assert q.min() >= 0 and q.max() == pytest.approx((50 + 3) * 0.1)  # rescaled to [0, 1], then scaled
    assert improved_policy(torch.full((1, 3), -INF), torch.zeros(1, 3)).sum() == 0  # no move: no policy


def test_a_forced_win_is_found(net):
    """White seals Black's queen: of its 72 moves only a1-a2/d5 leaves Black without a move."""
    board = Board.from_squares(5, white=[0], black=[24], arrows=[2, 18, 19, 22])
    settings = Settings(sims=200, m=100, k=100, top_slides=20, top_arrows=20, gumbel_scale=0.0)
    out = search(net, from_boards([board]), settings, torch.tensor([0]))
    after = board.copy()
    after.push(Move(*out.chosen(5)[0].tolist(), 5))
    assert after.is_game_over() and out.policy[0].argmax() == out.action[0]  # the target prefers it too


def test_legal_moves_in_a_batch_and_finished_games(net):
    boards = [opening_board(size, plies, [seed]) for seed, (size, plies) in enumerate([(6, 0), (6, 9), (6, 25)])]
    lost = Board.from_squares(6, white=[0], black=[35], arrows=[1, 6, 7])  # White to move has none
    for group in (boards, [lost, boards[0]]):
        out = search(net, from_boards(group), Settings(sims=12, m=4, k=6), torch.arange(len(group)))
        for board, move, value in zip(group, out.chosen(group[0].size).tolist(), out.value.tolist()):
            if board.is_game_over():
                assert value == -1.0
            else:
                assert board.is_legal(Move(*move, board.size))


def test_same_seed_same_search_other_seed_other_noise(net):
    roots = from_boards([opening_board(6, 4, [1])] * 2)
    settings = Settings(sims=16, m=8, k=8)
    a, b = (search(net, roots, settings, torch.tensor([5, 6]), torch.tensor([0, 0])) for _ in range(2))
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a.visits[0], a.visits[1]) or a.action[0] != a.action[1] or not torch.equal(a.q[0], a.q[1])


def test_a_batch_searches_each_game_as_alone(net):
    boards = [opening_board(6, plies, [seed]) for seed, plies in enumerate((0, 3, 8, 15))]
    settings = Settings(sims=20, m=8, k=10)
    seeds, plies = torch.tensor([11, 12, 13, 14]), torch.tensor([0, 3, 8, 15])
    batch = search(net, from_boards(boards), settings, seeds, plies)
    for i, board in enumerate(boards):
        alone = search(net, from_boards([board]), settings, seeds[i : i + 1], plies[i : i + 1])
        assert torch.equal(alone.moves[0], batch.moves[i]) and torch.equal(alone.visits[0], batch.visits[i])
        assert alone.action[0] == batch.action[i]
        assert torch.allclose(alone.policy[0], batch.policy[i], atol=1e-5)


def test_the_agent_plays_a_game_against_random(net_path):
    agent = make(f"gumbel:sims=8,m=4,k=6,weights={net_path},device=cpu", seed=0)
    board = Board(6)
    winner = play_out(board, (agent.select_move, RandomAgent(seed=1).select_move), check=True)
    assert winner in (0, 1) and board.is_game_over()
    assert agent.last_result.simulations == 8


def test_agent_options_are_checked(net_path):
    with pytest.raises(ValueError, match="sims"):
        make(f"gumbel:sims=0,weights={net_path}")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="cuda"):
            make(f"gumbel:weights={net_path},device=cuda")


def test_tree_accounting_and_signs(net):
    """Every node's visits are its own evaluation plus its children's (a finished game's node
    counts each time a simulation stops there), and its value the mean of its evaluation and its
    children's values negated (the side to move alternates at every whole move)."""
    from agents.search.gumbel import tree as trees

    boards = [opening_board(5, plies, [seed]) for seed, plies in enumerate((0, 6, 12))]
    settings = Settings(sims=40, m=4, k=5)
    grown = trees._grow(net, from_boards(boards), settings, torch.zeros(3, 5))
    for b in range(3):
        for node in range(settings.sims + 1):
            if node and grown.parent[b, node] < 0:
                continue  # an unused slot: the simulation stopped at a finished game
            kids = grown.child[b, node][grown.child[b, node] >= 0]
            n, v = grown.visits[b, node].item(), grown.value[b, node].item()
            if grown.terminal[b, node]:
                assert len(kids) == 0 and v == grown.raw[b, node].item() == -1.0
                continue
            assert n == 1 + grown.visits[b, kids].sum().item()
            total = grown.raw[b, node] - (grown.value[b, kids] * grown.visits[b, kids]).sum()
            assert v == pytest.approx(total.item() / n, abs=1e-5)
            assert (grown.states.side[b * grown.m + kids] != grown.states.side[b * grown.m + node]).all()


def test_bad_input_is_named(net):
    roots = from_boards([Board(6)])
    with pytest.raises(ValueError, match="seeds"):
        search(net, roots, Settings(sims=2, m=2, k=2), torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="phase"):
        search(
            net, roots._replace(phase=torch.ones(1, dtype=torch.long)), Settings(sims=2, m=2, k=2), torch.tensor([1])
        )
    with pytest.raises(ValueError, match="m=3"):
        Settings(m=3, k=2)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_search_runs_on_cuda(small_net):
    """The same searches on the GPU (the net in half precision there, so near-ties may order
    children differently: compared are the budget, the targets and the moves' legality)."""
    boards = [opening_board(8, plies, [seed]) for seed, plies in enumerate((0, 5, 20, 40))]
    gpu = search(
        Evaluator(small_net, "cuda"), from_boards(boards, "cuda"), Settings(sims=16, m=8, k=8), torch.arange(4)
    )
    assert gpu.visits.sum(1).tolist() == [16.0] * 4 and torch.allclose(gpu.policy.sum(1).cpu(), torch.ones(4))
    for board, move in zip(boards, gpu.chosen(8).tolist()):
        assert board.is_legal(Move(*move, 8))
