"""Self-play through Gumbel AlphaZero's tensor search (training.selfplay.policy_value.gumbel_games):
targets are distributions over legal moves of the recorded positions, each recorded position
follows the one before by a legal move (the tensor states and the boards advance together),
results are the games', and a seed repeats the games."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import core

from agents.nets.policy_value import legal_moves_batch

from training.data.policy_value import target_starts
from training.selfplay.policy_value import gumbel_games


@pytest.fixture(scope="module")
def games(small_net):
    return gumbel_games(small_net, games=3, size=5, sims=6, seed=0, m=4, k=6)


def after(cells: np.ndarray, move: np.ndarray) -> np.ndarray:
    padded = core.padded_index(5)
    out = cells.copy()
    frm, to, arrow = padded[move]
    out[to], out[frm] = out[frm], core.EMPTY
    out[arrow] = core.ARROW
    return out


def test_targets_are_improved_policies_over_legal_moves(games):
    assert len(games) == 3
    for game in games:
        starts = target_starts(game["pi_counts"])
        rows, legal = legal_moves_batch(game["cells"], game["sides"].astype(np.int64), 5)
        for i in range(len(game["sides"])):
            moves = game["pi_moves"][starts[i] : starts[i + 1]].astype(int)
            assert set(map(tuple, moves.tolist())) <= set(map(tuple, legal[rows == i].tolist()))
            assert game["pi_probs"][starts[i] : starts[i + 1]].sum() == pytest.approx(1.0, abs=1e-5)
        assert (np.diff(game["sides"]) != 0).all() and (np.abs(game["values"]) <= 1).all()
        sides, results = game["sides"], game["results"]
        assert set(np.unique(results * np.where(sides == sides[0], 1, -1))) == {int(results[0])}


def test_each_position_follows_the_one_before(games):
    for game in games:
        cells, sides = game["cells"], game["sides"].astype(np.int64)
        rows, legal = legal_moves_batch(cells, sides, 5)
        for i in range(len(sides) - 1):
            assert any(np.array_equal(after(cells[i], m), cells[i + 1]) for m in legal[rows == i])


def test_a_seed_repeats_the_games(small_net):
    a, b = (gumbel_games(small_net, games=2, size=5, sims=4, seed=3, m=2, k=4) for _ in range(2))
    assert len(a) == len(b) and all(np.array_equal(x[key], y[key]) for x, y in zip(a, b) for key in x)


def test_a_shard_needs_a_policy_value_net(tmp_path):
    from agents.nets.export import ModelFileError, save_model
    from agents.nets.models import ResValueNet

    from training.selfplay.policy_value import gumbel_shard

    path = save_model(ResValueNet(channels=4, blocks=1), tmp_path / "value", board_size=5)
    with pytest.raises(ModelFileError, match="PolicyValueNet"):
        gumbel_shard(str(path), "cpu", 1, 5, 2, 2, 2, 0, 0)
