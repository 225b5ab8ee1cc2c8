"""uct-net, uct guided by the policy-value net (agents.search.net_guide): legal moves,
the net's priors where they are due, the value's sign on the new path, options."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board, Move, core

import agents
from agents.nets.inference import PVNet
from agents.nets.planes import make_planes
from agents.nets.policy_value import legal_moves_batch, move_log_probs
from agents.search import move_order
from agents.search import uct_tree as T
from agents.search.net_guide import NetGuide
from agents.search.presets import uct_net
from agents.search.uct import UCT
from agents.search.uct_tree.choice import kids
from agents.time.limit import Limit


def guided(agent: UCT, board: Board, stop: float = float("inf")) -> T.Tree:
    """The tree after ``agent``'s guidance alone (no simulation; the root expanded as the first
    simulation would), with the deadline ``stop``: the arrays ``UCT.search`` builds."""
    config = agent.search_config(board.size, int(board.queen_counts.max()))
    tree = agent._roots(board)
    nq, buffers = board.queen_counts.copy(), agent._buffers(board.size, 0)
    position = move_order.Position(board.cells.copy(), board.queens.copy(), nq, board.dirs)
    kernel, params = agent.evaluator.kernel, agent.evaluator.params
    job = T.Job(position, int(board.turn), kernel, params, config, tree, T.Budget(0, np.full(2, 1 << 62), 0),
                buffers, T.leaves.buffers(0, board.size))  # fmt: skip
    if agent.guide is not None:  # plain uct: the tree as its first simulation leaves it
        agent.guide.before(board, job, stop)
    root = T.Positions(board.cells[None].copy(), board.queens[None].copy(), np.array([int(board.turn)]))
    T.expand_nodes(np.array([tree.st[T.ROOT]]), root, nq, board.dirs, kernel, params, config, tree, buffers)
    return tree


def net_move_probs(net: PVNet, board: Board) -> dict[tuple[int, int, int], float]:
    """p(move) of the factorised policy, from the training code's ``move_log_probs``."""
    rows, moves = legal_moves_batch(board.cells[None], np.array([int(board.turn)]), board.size)
    model = net.model
    with torch.no_grad():
        _, slide, arrow = model(torch.from_numpy(make_planes(board.cells[None], [int(board.turn)], "relative")))
        logp = move_log_probs(slide, arrow, rows, moves, board.size).numpy()
    return {(int(f), int(t), int(a)): float(np.exp(lp)) for (f, t, a), lp in zip(moves, logp)}


@pytest.mark.parametrize("options", [{}, {"top": 0}, {"depth": 0, "value": 0.5}, {"value": 1.0, "mix": 0.0}])
def test_plays_legal_moves_with_its_simulations_and_reuses_the_tree(net_path, options):
    agent = uct_net(weights=net_path, sims=150, seed=3, **options)
    board = Board(6)
    for _ in range(8):
        if board.is_game_over():
            break
        before = board.text()
        result = agent.search(board)
        assert board.text() == before and board.is_legal(result.move)
        assert result.simulations == 150 or result.simulations == 0  # 0: the filling phase's move
        board.push(result.move)


def test_seeded_search_is_deterministic(net_path):
    moves = {agents.make(f"uct-net:sims=120,weights={net_path}", seed=5).select_move(Board(6)) for _ in range(2)}
    assert len(moves) == 1


def test_net_priors_at_the_root_and_on_the_arrows_of_the_top_queen_moves(net_path):
    """With mix=1 a guided node's children carry the net's factorised policy (the slide's softmax
    over the queen moves, the arrow's over that slide's arrows), sorted best first."""
    board = Board(6)
    agent = uct_net(weights=net_path, mix=1.0, top=3, depth=0, sims=1, seed=0)
    probs = net_move_probs(agent.guide.net(6), board)
    ni, nf, st = guided(agent, board)
    public = core.public_index(6)
    root = int(st[T.ROOT])
    slide = {}
    for (f, t, _arrow), p in probs.items():
        slide[f, t] = slide.get((f, t), 0.0) + p
    queen_moves = list(kids(ni, root))
    assert len(queen_moves) == len(slide)
    priors = nf[queen_moves, T.PRIOR]
    assert np.all(np.diff(priors) <= 1e-12)  # sorted: progressive widening opens them in order
    for q in queen_moves:
        f, t = int(public[ni[q, T.FROM]]), int(public[ni[q, T.TO]])
        assert nf[q, T.PRIOR] == pytest.approx(slide[f, t], rel=1e-4)
    for rank, q in enumerate(queen_moves):
        assert (ni[q, T.FIRST] >= 0) == (rank < 3)  # the top three were expanded
        if rank < 3:
            f, t = int(public[ni[q, T.FROM]]), int(public[ni[q, T.TO]])
            for a in kids(ni, q):
                want = probs[f, t, int(public[ni[a, T.ARROW]])] / slide[f, t]
                assert nf[a, T.PRIOR] == pytest.approx(want, rel=1e-4)


def test_the_replies_are_guided_only_if_the_deadline_leaves_time(net_path):
    """At a deadline already past, the root still gets the net's priors (and its top queen moves
    their arrows'), but the replies' level, five times the cost, is skipped."""
    board = Board(6)
    agent = uct_net(weights=net_path, mix=1.0, top=2, depth=1, sims=1, seed=0)
    for stop, replies in ((float("inf"), True), (0.0, False)):
        ni, nf, st = guided(agent, board, stop)
        top = list(kids(ni, int(st[T.ROOT])))[:2]
        assert all(ni[q, T.FIRST] >= 0 for q in top)  # the root's level: always
        assert all((ni[int(ni[q, T.FIRST]), T.FIRST] >= 0) == replies for q in top)


def test_threads_are_guided_trees_and_net_threads_the_nets(net_path):
    """``threads`` is uct's (threads searching the one guided tree), ``net_threads`` torch's."""
    agent = agents.make(f"uct-net:weights={net_path},threads=2,net_threads=1,sims=40", seed=3)
    assert (agent.threads, agent.guide.net_threads) == (2, 1)
    result = agent.search(Board(6))
    assert result.simulations == 40 and agent._tree is not None


def _two_moves_on(ni: np.ndarray, st: np.ndarray) -> list[int]:
    """The nodes of the first children's line from the root: queen move, arrow, queen move, arrow."""
    line, x = [], int(st[T.ROOT])
    for _ in range(4):
        x = int(ni[x, T.FIRST])
        assert x >= 0
        line.append(x)
    return line


def test_deeper_guidance_goes_on_down_the_top_lines(net_path):
    """depth=2: the position after the top move and the top reply is guided too (its children
    expanded and sorted by the net's prior); depth=1 leaves it to the simulations."""
    board = Board(6)
    ni, nf, st = guided(uct_net(weights=net_path, mix=1.0, top=2, depth=2, sims=1, seed=0), board)
    x = _two_moves_on(ni, st)[-1]
    assert ni[x, T.FIRST] >= 0 and np.all(np.diff(nf[list(kids(ni, x)), T.PRIOR]) <= 1e-12)
    assert all(ni[q, T.FIRST] >= 0 for q in list(kids(ni, x))[:2])  # its top queen moves' arrows too
    ni1, _, st1 = guided(uct_net(weights=net_path, mix=1.0, top=2, depth=1, sims=1, seed=0), board)
    assert ni1[_two_moves_on(ni1, st1)[-1], T.FIRST] < 0


def test_a_guided_position_reached_by_tree_reuse_is_not_mixed_again(net_path, monkeypatch):
    """With depth=2 the position two whole moves on was guided; when the game gets there, the kept
    tree's priors there are the ones the first guidance gave (mixing again would move them), and
    the net is not run on it again."""
    board = Board(6)
    agent = uct_net(weights=net_path, mix=0.5, top=2, depth=2, sims=2, seed=0)
    agent.search(board)
    ni, nf, st = agent._tree
    line = _two_moves_on(ni, st)
    public = core.public_index(6)
    for q, a in (line[:2], line[2:]):
        board.push(Move(int(public[ni[q, T.FROM]]), int(public[ni[q, T.TO]]), int(public[ni[a, T.ARROW]]), 6))
    before = nf[list(kids(ni, line[-1])), T.PRIOR].copy()
    assert len(before) > 1 and not np.allclose(before, before[0])
    net, seen = agent.guide.net(6), []
    evaluate = net.evaluate

    def recording(cells, sides):
        seen.extend(c.tobytes() for c in cells)
        return evaluate(cells, sides)

    monkeypatch.setattr(net, "evaluate", recording)
    agent.search(board, Limit(simulations=1))
    ni2, nf2, st2 = agent._tree
    assert np.allclose(nf2[list(kids(ni2, int(st2[T.ROOT]))), T.PRIOR], before)
    # the root was guided before: no forward pass for it, only for the replies' level below it
    assert seen and board.cells.tobytes() not in seen
    agent.reset()  # a new game: guided again from scratch
    assert agent.guide.guided == set()


def test_mix_zero_keeps_uct_priors(net_path):
    board = Board(6)
    ni0, nf0, st0 = guided(agents.make("uct:sims=1", seed=0), board)
    ni, nf, st = guided(uct_net(weights=net_path, mix=0.0, top=2, depth=1, sims=1, seed=0), board)
    plain, mine = list(kids(ni0, int(st0[T.ROOT]))), list(kids(ni, int(st[T.ROOT])))
    assert np.array_equal(ni0[plain, : T.FIRST], ni[mine, : T.FIRST])
    assert np.array_equal(nf0[plain, T.PRIOR], nf[mine, T.PRIOR])
    ni1, _, st1 = guided(uct_net(weights=net_path, mix=1.0, top=2, depth=1, sims=1, seed=0), board)
    assert not np.array_equal(ni0[plain, : T.FIRST], ni1[list(kids(ni1, int(st1[T.ROOT]))), : T.FIRST])  # reordered


def test_the_net_value_flips_once_per_whole_move(net_path):
    """depth=1, value=1: the move node after a guided queen move and its arrow holds the negated
    net value of the position reached (for the side that chose the move); the queen move's own
    node, the same side's half-move, is not touched."""
    board = Board(6)
    agent = uct_net(weights=net_path, top=2, depth=1, value=1.0, sims=1, seed=0)
    plain = uct_net(weights=net_path, top=2, depth=1, value=0.0, sims=1, seed=0)
    ni, nf, st = guided(agent, board)
    ni0, nf0, _ = guided(plain, board)
    net = agent.guide.net(6)
    public = core.public_index(6)
    checked = 0
    for q in list(kids(ni, int(st[T.ROOT])))[:2]:
        assert ni[q, T.KIND] == T.KIND_ARROW and np.isnan(nf[q, T.STATIC]) == np.isnan(nf0[q, T.STATIC])
        a = int(ni[q, T.FIRST])  # the best arrow: its position was guided
        move = Move(int(public[ni[q, T.FROM]]), int(public[ni[q, T.TO]]), int(public[ni[a, T.ARROW]]), 6)
        after = board.copy()
        after.push(move)
        value, _, _ = net.evaluate(after.cells[None], np.array([int(after.turn)]))
        assert int(after.turn) == 1 - int(board.turn)
        assert nf[a, T.STATIC] == pytest.approx(-float(value[0]))
        assert ni[a, T.FIRST] >= 0  # the reply level was expanded for its own net priors
        checked += 1
    assert checked == 2


def test_uct_net_is_the_guided_uct(net_path):
    agent = agents.make(f"uct-net:sims=50,weights={net_path},mix=0.25")
    assert isinstance(agent.guide, NetGuide) and agent.limit.simulations == 50 and agent.guide.mix == 0.25


@pytest.mark.parametrize(
    "spec, error",
    [
        ("uct-net:mix=1.5", "mix=1.5"),
        ("uct-net:depth=4", "depth=4"),
        ("uct-net:top=-1", "top=-1"),
        ("uct-net:value=nan", "value=nan"),
        ("uct-net:tree=move", "split tree"),
        ("uct-net:dpth=1", "did you mean 'depth'"),
        ("uct-net:runtime=fast", "runtime='fast'"),
        ("uct-net:pw=-1", "pw=-1"),
        ("uct-net:net_threads=-1", "net_threads=-1"),
        ("uct-net:threads=0", "threads=0"),
        ("uct:sure=0.5", "sure=0.5"),
        ("uct:sure=inf", "sure=inf"),
        ("uct-net:guide_at=8,value_visits=-1", "value_visits=-1"),
        ("uct-net:guide_at=8,value_visits=1.5", "value_visits=1.5"),
        ("uct-net:guide_at=8,value_visits=2000", "value_visits=2000"),
        ("uct-net:value_visits=4", "needs guide_at >= 1 given"),
        ("uct-net:guide_at=none,value_visits=4", "guide_at=None"),
        ("uct-net:guide_at=0,value_visits=4", "guide_at=0"),
    ],
)
def test_bad_options_are_refused(spec, error):
    with pytest.raises(ValueError, match=error):
        agents.make(spec)


def test_visit_policy_is_the_root_visit_shares_of_whole_legal_moves():
    from agents.search.uct import visit_policy

    from training.selfplay.policy_value import engine_games

    board = Board(6)
    agent = agents.make("uct:sims=300", seed=2)
    agent.search(board)
    moves, probs = visit_policy(agent, board)
    legal = {tuple(int(v) for v in m) for m in board.legal_moves_array()}
    assert all(tuple(int(v) for v in m) in legal for m in moves) and probs.sum() == pytest.approx(1.0)
    assert len(moves) > 1 and len({tuple(m) for m in moves.tolist()}) == len(moves)
    with pytest.raises(ValueError, match="not a split-tree search of this board"):
        visit_policy(agent, Board(5))
    one = agents.make("uct:sims=1", seed=2)  # one simulation expands the root: no arrow visited
    one.search(board)
    assert [len(part) for part in visit_policy(one, board)] == [0, 0]
    games = engine_games(one, games=1, size=5, seed=1)  # so each target is the move played
    assert (games[0]["pi_counts"] == 1).all() and (games[0]["pi_probs"] == 1).all()
    games = engine_games(agents.make("uct:sims=40"), games=1, size=5, seed=1)
    counts = games[0]["pi_counts"]
    assert counts.max() > 1 and np.isclose(np.add.reduceat(games[0]["pi_probs"], np.cumsum(counts) - counts), 1).all()
