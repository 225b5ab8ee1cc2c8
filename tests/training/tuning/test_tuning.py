"""``training.tuning``: the evaluation as a function of its weights (equal to the kernel's), the
labelled positions (seeded, resumable, checked), the fit (recovers known weights, holds whole games
out, refuses bad options) and the command end to end (a sealed parameter file, reproducible)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.evaluation.territory_mailbox import PARAM_NAMES, T1, T2, features, territory_kernel
from agents.evaluation.territory_weights import STUDY, as_array, read_weights

from training.data.shards import read_manifest
from training.tuning.data import LABELS, SELFPLAY, board_of, draw_positions, labelled_positions
from training.tuning.fit import BOUNDS, fit_weights, holdout_games
from training.tuning.model import position_terms, values
from training.tuning.pipeline import tune

from amazons_cli.main import main

#: the toy tuning run of these tests: 6x6 self-play games of uct at 20 simulations, labelled at 40
TOY = dict(size=6, sims=20, deep_sims=40, progress=False)


def _random_positions(size: int, seed: int) -> list[Board]:
    rng = np.random.default_rng(seed)
    board, out = Board(size), []
    while board.legal_moves_array().size:
        out.append(board.copy(stack=False))
        moves = board.legal_moves_array()
        frm, to, arrow = (int(x) for x in moves[rng.integers(len(moves))])
        board.push(Move(frm, to, arrow, size))
    return out


def _random_params(rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.uniform(*BOUNDS[name]) if name != "scale" else rng.uniform(0.02, 1) for name in PARAM_NAMES])


@pytest.mark.parametrize("size", [5, 8, 10, 12])
def test_the_model_is_the_kernel(size):
    rng = np.random.default_rng(size)
    boards = _random_positions(size, size) + _random_positions(size, size + 100)
    cells = np.array([b.cells for b in boards])
    sides = np.array([int(b.turn) for b in boards])
    terms, playable = position_terms(cells, sides, size)
    assert playable.all()
    for _ in range(4):
        params = _random_params(rng)
        kernel = [territory_kernel(b.cells, b.queens, b.queen_counts, int(b.turn), b.dirs, params) for b in boards]
        assert np.abs(values(params, terms, sides, size) - kernel).max() < 1e-12


def test_terms_split_the_ties_out_of_the_territory_counts():
    for board in _random_positions(8, 7)[::5]:
        t = position_terms(board.cells[None, :], np.array([int(board.turn)]), 8)[0][0]
        for side, tie in ((0, 0.13), (1, -0.13)):
            f = features(board.cells, board.queens, board.queen_counts, side, board.dirs, 0.13)
            assert f[T1] == pytest.approx(t[0] + tie * t[1]) and f[T2] == pytest.approx(t[2] + tie * t[3])


def test_a_side_without_a_move_is_not_playable():
    board = Board.from_text("Q*2/**2/4/3q w")
    _, playable = position_terms(board.cells[None, :], np.array([0]), 4)
    assert not playable[0] and board_of(board.cells, 0, 4) == board


def test_draws_are_seeded_per_game_and_take_playable_rows_only():
    games = np.repeat([3, 8, 9], [10, 2, 6])
    playable = np.ones(18, dtype=bool)
    playable[[0, 1, 12]] = False
    rows = draw_positions(games, playable, 4, seed=5)
    assert np.array_equal(rows, draw_positions(games, playable, 4, seed=5))
    assert playable[rows].all() and [int((games[rows] == g).sum()) for g in (3, 8, 9)] == [4, 2, 4]
    # a game's draw does not depend on the other games around it
    alone = draw_positions(games[12:], playable[12:], 4, seed=5) + 12
    assert np.array_equal(alone, rows[games[rows] == 9])


def test_labels_are_resumed_and_relabelled_identically(tmp_path):
    options = dict(TOY, games=4, per_game=2, games_per_shard=2)
    first = labelled_positions(tmp_path, **options)
    assert (
        first["positions"] == 8
        and first["settings"]["selfplay_hash"] == read_manifest(tmp_path / SELFPLAY)["data_hash"]
    )
    shard = tmp_path / LABELS / first["shards"][1]["file"]
    stamp = os.stat(tmp_path / LABELS / first["shards"][0]["file"]).st_mtime_ns
    shard.write_bytes(shard.read_bytes()[:-10])  # a torn shard: labelled again
    again = labelled_positions(tmp_path, **options)
    assert again["data_hash"] == first["data_hash"]
    assert os.stat(tmp_path / LABELS / first["shards"][0]["file"]).st_mtime_ns == stamp  # kept, not redone
    with pytest.raises(InvalidArgumentError, match="made with .*uct:sims=40"):
        labelled_positions(tmp_path, **dict(options, deep_sims=41))
    with pytest.raises(InvalidArgumentError, match="per_game=0"):
        labelled_positions(tmp_path, **dict(options, per_game=0))
    with pytest.raises(InvalidArgumentError, match="tuning data option deep_sim: unknown"):
        labelled_positions(tmp_path, **dict(options, deep_sim=40))


def _synthetic(truth: np.ndarray, n: int = 3000, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    terms = rng.normal(size=(n, 8)) * 15
    terms[:, 6] = rng.uniform(0, 64, n)  # w: the phase from 0 to 1 on 8x8
    sides = rng.integers(0, 2, n)
    v = values(truth, terms, sides, 8)
    results = np.where(rng.random(n) < (1 + v) / 2, 1, -1)
    return {"terms": terms, "sides": sides, "results": results, "values": v, "games": np.arange(n) // 10}


def test_the_fit_recovers_known_weights_and_beats_the_study_set_held_out():
    truth = as_array(dict(STUDY, scale=0.25, mob=3.0, a3=0.1, scale_phase=1.0))
    report = fit_weights(_synthetic(truth), 8, deep_weight=1.0, buckets=2)
    fitted = np.array([report["params"][name] for name in PARAM_NAMES])
    assert np.allclose(fitted, truth, atol=0.05)
    assert report["fitted"]["holdout"]["value_mse"] < 1e-4 < report["study"]["holdout"]["value_mse"]
    outcome = fit_weights(_synthetic(truth), 8, deep_weight=0.0)  # from outcomes alone: close, not exact
    assert outcome["fitted"]["holdout"]["log_loss"] < outcome["study"]["holdout"]["log_loss"]
    assert set(report["fitted"]["holdout_by_phase"]) == {"filling", "s 0.00-0.50", "s 0.50-1.00"}
    assert report["phase_sets"]["holdout"]["value_mse"] < 1e-3


def test_whole_games_are_held_out():
    games = np.repeat(np.arange(50), 7)
    held = holdout_games(games, 0.2, 3)
    assert len(np.unique(games[held])) == 10 and not set(games[held]) & set(games[~held])


@pytest.mark.parametrize(
    "option, value", [("deep_weight", 1.5), ("holdout", float("nan")), ("buckets", 0), ("buckets", 2.5), ("seed", -1)]
)
def test_bad_fit_options_are_refused_naming_them(option, value):
    with pytest.raises(InvalidArgumentError, match=option):
        fit_weights(_synthetic(as_array(STUDY), n=100), 8, **{option: value})


def test_the_command_writes_a_sealed_reproducible_parameter_file(tmp_path, capsys):
    options = ["--size", "6", "--games", "4", "--sims", "20", "--deep-sims", "40", "--per-game", "3"]
    options += ["--games-per-shard", "2", "--holdout", "0.5"]
    assert main(["tune-eval", str(tmp_path / "a"), *options]) == 0
    assert "held-out log loss" in capsys.readouterr().out
    path = tmp_path / "a" / "territory-6x6.json"
    size, params = read_weights(path)
    report = tune(tmp_path / "b", **TOY, games=4, per_game=3, games_per_shard=2, holdout=0.5)
    assert size == 6 and np.allclose(params, [report["params"][name] for name in PARAM_NAMES], atol=0)
    assert path.read_text() == (tmp_path / "b" / "territory-6x6.json").read_text()  # same arguments, same file
    assert report["data"]["data_hash"] == read_manifest(tmp_path / "b" / LABELS)["data_hash"]
    assert main(["tune-eval", str(tmp_path / "a"), "--size", "6", "--per-game", "-1"]) == 2


def test_outcomes_alone_fit_every_selfplay_position_and_need_no_deeper_search(tmp_path):
    report = tune(tmp_path, **TOY, games=3, per_game=3, games_per_shard=3, deep_weight=0.0, holdout=0.34)
    manifest = read_manifest(tmp_path / SELFPLAY)
    assert not (tmp_path / LABELS).exists()
    assert report["data"]["data_hash"] == manifest["data_hash"] == read_weights_hash(tmp_path / "territory-6x6.json")
    assert 9 < report["data"]["positions"] <= manifest["positions"]


def read_weights_hash(path) -> str:
    return json.loads(path.read_text())["data_hash"]
