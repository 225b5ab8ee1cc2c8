"""uct-net's ``leaves``: the positions ``uct_tree.run`` records for the net (agents.search.uct_tree.leaves),
valued in batches (``batches``), the net's priors and its value blended into the search's."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board

import agents
from agents.evaluation.evaluator import make_evaluator
from agents.options import OptionError
from agents.search import move_order
from agents.search import uct_tree as T
from agents.search.presets import uct_net
from agents.search.uct_tree.choice import kids
from agents.search.uct_tree.lines import Position, game_line

from tests.helpers.uct_net import net_priored

L = T.leaves


def small_tree(board: Board, recorded: int, leaf_at: int = 1) -> T.Job:
    """``run``'s arguments for a fresh tree of ``board`` (no budget yet), with buffers for ``recorded``
    recorded positions."""
    evaluator = make_evaluator("territory")
    tree = T.Tree(np.empty((1 << 14, T.NI), np.int32), np.empty((1 << 14, T.NF)), np.zeros(T.NST, np.int64))
    T.new_root(*tree)
    tree.st[T.RNG] = 7
    config = T.SearchConfig(max_kids=4 * 4 * (board.size - 1), fast=T.FAST_QUEENS, leaf_at=leaf_at)
    cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()
    position = move_order.Position(cells, queens, nq, board.dirs)
    budget, buffers = T.Budget(0, np.full(2, 1 << 62), 0), T.scratch(board.size)
    kernel, params, kept = evaluator.kernel, evaluator.params, L.buffers(recorded, board.size)
    return T.Job(position, int(board.turn), kernel, params, config, tree, budget, buffers, kept)


def sims(job: T.Job, n: int, recorded: "T.Recorded | None" = None) -> T.Job:
    """``job`` with a budget of ``n`` simulations (and other buffers for recorded positions)."""
    job = job._replace(budget=job.budget._replace(sims=n))
    return job if recorded is None else job._replace(recorded=recorded)


@pytest.mark.parametrize("leaf_at", [1, 6])
def test_run_records_a_node_at_leaf_at_visits_and_release_puts_a_new_value_in_place(leaf_at):
    """One simulation at a time until one records a node: a move node below the root with
    ``leaf_at`` visits before it, expanded; its row names its path from the root (each node a child
    of the one before) and its position (the path's moves replayed in Python); the value it backed
    up through the node is the node's summed values' change; ``run`` returned ("batch"), the
    positions restored. ``release`` with that value plus 0.25 adds 0.25 to the summed values of the
    path's nodes whose chooser is the node's, -0.25 to the others', and changes no visit."""
    board = Board(6)
    job = small_tree(board, 1, leaf_at)
    ni, nf, st = job.tree
    recorded, recorded_cells, recorded_values = job.recorded
    assert T.run(*sims(job, 200, L.buffers(0, 6))) == 200  # a tree to record a node in
    for _ in range(2000):
        wsum = nf[:, T.WSUM].copy()
        assert T.run(*sims(job, 1)) == 1
        if st[T.PENDING] == 1 and recorded[0, L.DEPTH] >= 4:  # below a whole move of each side
            break
        st[T.PENDING] = 0  # none, or recorded too high: dropped
    assert T.STOPS[int(st[T.STOPPED])] == "batch" and st[T.PENDING] == 1
    assert np.array_equal(job.position.cells, board.cells) and np.array_equal(job.position.queens, board.queens)
    x, depth = int(recorded[0, L.LEAF]), int(recorded[0, L.DEPTH])
    path, sides = recorded[0, L.PATH : L.PATH + depth + 1], recorded[0, L.SIDES : L.SIDES + depth + 1]
    assert ni[x, T.KIND] == T.KIND_MOVE and ni[x, T.FIRST] >= 0 and ni[x, T.VISITS] == leaf_at + 1
    position = Position(board.cells.copy(), board.queens.copy(), board.queen_counts, int(board.turn), b"")
    assert path[0] == st[T.ROOT] and path[-1] == x and sides[0] == position.side
    for k in range(1, depth + 1):
        assert path[k] in kids(ni, int(path[k - 1]))
        position = position.after(ni, int(path[k]))
        assert sides[k] == position.side
    assert np.array_equal(recorded_cells[0], position.cells) and recorded[0, L.SIDE] == position.side
    assert np.isclose(nf[x, T.WSUM] - wsum[x], recorded_values[0])
    before, visits = nf[:, T.WSUM].copy(), ni[:, T.VISITS].copy()
    L.release(nf, st, job.recorded, recorded_values[:1] + 0.25)
    chooser = sides[depth - 1]
    want = [0.25 if sides[k - 1] == chooser else -0.25 for k in range(1, depth + 1)]
    assert np.allclose(nf[path[1:], T.WSUM] - before[path[1:]], want) and st[T.PENDING] == 0
    assert {0.25, -0.25} <= set(want) and np.array_equal(ni[:, T.VISITS], visits)


def test_leaves_with_no_net_weight_search_as_uct(net_path):
    """Recording positions, valuing them by batches and mixing the net's priors and value in at
    weight 0 builds uct's very tree: the batches change nothing by themselves."""
    board = Board(6)
    plain = agents.make("uct:sims=3000", seed=4)
    plain.search(board)
    batched = uct_net(weights=net_path, mix=0.0, top=0, depth=0, leaves=8, leaf_value=0.0, sims=3000, seed=4)
    batched.search(board)
    assert len(batched.guide.guided) > 100  # the batches ran
    assert plain._tree is not None and batched._tree is not None
    (ni0, nf0, st0), (ni, nf, st) = plain._tree, batched._tree
    rows = int(st0[T.FREE])
    assert int(st[T.FREE]) == rows
    assert np.array_equal(ni0[:rows], ni[:rows]) and np.allclose(nf0[:rows], nf[:rows], equal_nan=True)


def test_leaves_give_the_positions_visited_leaf_at_times_the_net_priors(net_path):
    """mix=1: the positions below the root the simulations visited ``leaf_at`` times have their
    queen moves' priors equal to the net's slide softmax at them (checked as ``guide_at``'s are),
    nearly all of them (a simulation that finds the buffers full records no more)."""
    board = Board(6)
    for leaf_at in (1, 10):
        agent = uct_net(weights=net_path, mix=1.0, top=0, depth=0, leaves=8, leaf_at=leaf_at, sims=3000, seed=2)
        result = agent.search(board)
        assert agent._tree is not None
        ni, _, st = agent._tree
        rows, root = int(st[T.FREE]), int(st[T.ROOT])
        assert result.simulations == 3000 and board.is_legal(result.move) and ni[root, T.VISITS] == 3000
        kinds = net_priored(agent, board, leaf_at + 1)
        assert set(kinds) == {T.KIND_MOVE}
        due = [n for n in range(rows) if n != root and ni[n, T.KIND] == T.KIND_MOVE and ni[n, T.VISITS] > leaf_at]
        assert len(due) > 40 and 0.95 * len(due) <= len(kinds) <= len(due)


def test_leaf_value_weighs_the_net_against_the_evaluator(net_path):
    """The root children's values move with ``leaf_value``: with 0 the net's value counts for
    nothing (one search's values are another's, whatever the net), with 1 it is all."""
    board = Board(6)

    def values(weight: float, path: str) -> np.ndarray:
        agent = uct_net(weights=path, leaves=8, leaf_value=weight, sims=1500, seed=2, mix=0.0, top=0, depth=0)
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
    agent = uct_net(weights=net_path, leaves=4, time=0.05, seed=1)
    board = Board(6)
    for _ in range(6):
        result = agent.search(board)
        assert board.is_legal(result.move) and result.stats["stopped"] in ("time", "time_max", "settled", "proven")
        board.push(result.move)


def test_seeded_leaves_search_is_deterministic(net_path):
    spec = f"uct-net:sims=400,leaves=4,weights={net_path}"
    assert len({agents.make(spec, seed=3).select_move(Board(6)) for _ in range(2)}) == 1


@pytest.mark.parametrize(
    "options, error",
    [
        ({"leaf_at": 0}, "leaf_at=0"),
        ({"leaf_at": "x"}, "leaf_at='x'"),
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
        uct_net(weights=net_path, **options)


def test_leaves_turn_guide_at_and_value_visits_off(net_path):
    agent = uct_net(weights=net_path, leaves=4)
    assert agent.guide.guided_at(8) == agent.guide.guided_at(10) == 0 and agent.guide.valued_visits(8) == 0
    assert game_line(Board(6)) == b""
