"""The policy-value net (agents.nets.policy_value): shapes, the factorised policy, symmetries, files."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board, Move

from agents.nets.export import load_model, save_model
from agents.nets.planes import make_planes
from agents.nets.policy_value import (
    LINES,
    PolicyValueNet,
    legal_moves_batch,
    move_indices,
    move_keys,
    move_log_probs,
    symmetry_permutation,
    transform_cells,
    transform_planes,
)


def random_boards(size: int, count: int, seed: int = 0) -> list[Board]:
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(count):
        board = Board(size)
        for _ in range(int(rng.integers(0, 3 * size))):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        boards.append(board)
    return boards


def stack(boards: list[Board]) -> tuple[np.ndarray, np.ndarray]:
    return np.stack([b.cells for b in boards]), np.array([int(b.turn) for b in boards])


def test_shapes_value_range_and_model_file(tmp_path):
    net = PolicyValueNet(channels=8, blocks=1, head=4, hidden=8).eval()
    cells, sides = stack(random_boards(5, 4))
    value, slide, arrow = net(torch.from_numpy(make_planes(cells, sides, "relative")))
    assert value.shape == (4,) and slide.shape == arrow.shape == (4, LINES, 5, 5)
    assert bool(((value >= -1) & (value <= 1)).all())
    base = save_model(net, tmp_path / "pv", board_size=5)
    loaded, config = load_model(base)
    assert config["arch"] == "PolicyValueNet" and config["output"] == "policy_value"
    x = torch.from_numpy(make_planes(cells, sides, "relative"))
    for a, b in zip(net(x), loaded(x)):
        assert torch.equal(a, b)


def test_legal_moves_batch_matches_the_core():
    boards = random_boards(6, 6, seed=1)
    rows, moves = legal_moves_batch(*stack(boards), 6)
    for k, board in enumerate(boards):
        # the same moves (the queens may be in another order than the board's queen array)
        assert sorted(map(tuple, moves[rows == k].tolist())) == sorted(map(tuple, board.legal_moves_array().tolist()))


def test_move_probabilities_sum_to_one_and_factorise():
    torch.manual_seed(0)
    net = PolicyValueNet(channels=8, blocks=1).eval()
    boards = random_boards(6, 3, seed=2)
    cells, sides = stack(boards)
    rows, moves = legal_moves_batch(cells, sides, 6)
    with torch.no_grad():
        _, slide, arrow = net(torch.from_numpy(make_planes(cells, sides, "relative")))
        logp = move_log_probs(slide, arrow, rows, moves, 6).numpy()
    for k in range(3):
        assert np.exp(logp[rows == k]).sum() == pytest.approx(1.0, abs=1e-5)
    # one slide's arrows share its probability: p(move) / p(arrow | slide) is the same within a slide
    k0 = moves[rows == 0]
    first = (k0[:, 0] == k0[0, 0]) & (k0[:, 1] == k0[0, 1])
    sidx, aidx = move_indices(k0[first], 6)
    a = arrow[0].reshape(-1).numpy()[aidx]
    arrow_lp = a - np.log(np.exp(a).sum())
    slide_lp = logp[rows == 0][first] - arrow_lp
    assert np.allclose(slide_lp, slide_lp[0], atol=1e-5) and len(set(sidx)) == 1


@pytest.mark.parametrize("size", [5, 6])
def test_symmetries_map_planes_positions_and_policy_targets(size):
    boards = random_boards(size, 4, seed=size)
    cells, sides = stack(boards)
    planes = make_planes(cells, sides, "relative")
    rows, moves = legal_moves_batch(cells, sides, size)
    # a policy target over the legal moves: any distribution
    target = np.random.default_rng(0).random(len(moves))
    for k in range(8):
        perm = symmetry_permutation(size)[k]
        images = [b.transform(k) for b in boards]
        t_cells = transform_cells(cells, k)
        assert np.array_equal(t_cells, np.stack([b.cells for b in images]))
        assert np.array_equal(transform_planes(planes, k), make_planes(t_cells, sides, "relative"))
        # the transformed target is the policy over the image position's own legal moves
        t_rows, t_moves = legal_moves_batch(t_cells, sides, size)
        mapped = dict(zip(move_keys(rows, perm[moves], size).tolist(), target))
        assert sorted(mapped) == sorted(move_keys(t_rows, t_moves, size).tolist())
        for b, image in enumerate(images):
            for move, p in zip(moves[rows == b], target[rows == b]):
                t_move = perm[move]
                assert image.is_legal(Move(*map(int, t_move), size))
                assert mapped[int(move_keys(np.array([b]), t_move[None], size)[0])] == p
