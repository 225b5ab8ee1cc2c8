"""Policy-value data from arena results files (training.data.records)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.arena import match
from agents.arena.files import ResultsFileError
from agents.nets.policy_value import legal_moves_batch, move_keys

from training.data.policy_value import load_pv_dataset
from training.data.records import record_games, write_record_shards


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("records") / "m.json"
    match("uct:sims=20", "random", games=4, size=5, seed=1, json_path=str(path), progress=False)
    return path


def test_the_agents_legal_moves_and_results(results, tmp_path):
    games = record_games([results], "uct", 5)
    assert len(games) == 4 and record_games([results], "uct", 6) == [] and record_games([results], "mcts", 5) == []
    winners = [r["winner"] for r in json.loads(results.read_text())["results"]]
    for game, winner in zip(games, winners):
        side = int(game["sides"][0])
        assert (game["sides"] == side).all()  # uct's turns only
        assert (game["results"] == (1 if winner == side else -1)).all()
        rows, moves = legal_moves_batch(game["cells"], game["sides"].astype(np.int64), 5)
        chosen = move_keys(np.arange(len(game["sides"])), game["pi_moves"].astype(np.int64), 5)
        assert np.isin(chosen, move_keys(rows, moves, 5)).all()
    manifest = write_record_shards(tmp_path / "shards", [results], "uct", 5, games_per_shard=3)
    data, _ = load_pv_dataset(tmp_path / "shards")
    assert len(manifest["shards"]) == 2 and len(data["sides"]) == sum(len(g["sides"]) for g in games)


def test_an_edited_results_file_is_refused(results, tmp_path):
    edited = tmp_path / "edited.json"
    payload = json.loads(results.read_text())
    payload["results"][0]["winner"] = 1 - payload["results"][0]["winner"]
    edited.write_text(json.dumps(payload))
    with pytest.raises(ResultsFileError, match="sha256"):
        record_games([edited], "uct", 5)
