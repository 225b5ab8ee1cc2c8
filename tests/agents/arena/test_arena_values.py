"""The arena keeps the engines' value of every move (for White) in its results and records, and
still reads results files written before it did."""

from __future__ import annotations

import json
import math

import pytest

from amazons_env import GameRecord
from amazons_env.move_values import VALUES_HEADER, record_values

from agents import make
from agents.arena import match
from agents.arena.files import result_record, save_pages, save_record, save_results
from agents.arena.matches import opening_board, play_game

FAST = dict(size=6, workers=1, progress=False)
ENGINE = "alphabeta:depth=1"


@pytest.mark.parametrize("engine_side", [0, 1])
def test_values_are_the_searching_movers_for_white_and_none_elsewhere(engine_side):
    engine, other = make(ENGINE, seed=1), make("random", seed=2)
    players = (engine, other) if engine_side == 0 else (other, engine)
    board = opening_board(6, 2, (1, 2))
    result = play_game(*players, board, opening=2)
    values = result.values
    assert len(values) == result.plies and values[:2] == (None, None)  # the random opening
    for ply, value in enumerate(values[2:], 2):
        mover = ply % 2  # White moves at even plies
        assert (value is None) == (mover != engine_side), ply
        assert value is None or math.isfinite(value)
    # the engine wins against random, and its last move sees the win: positive for White iff it is White
    assert result.winner == engine_side
    last = [v for v in values if v is not None][-1]
    assert last > 0 if engine_side == 0 else last < 0


def test_values_reach_results_records_and_pages(tmp_path):
    path = tmp_path / "m.json"
    result = match("random", ENGINE, games=2, seed=3, json_path=str(path), **FAST)
    stored = json.loads(path.read_text())["results"]
    assert [r["values"] for r in stored] == [list(r["values"]) for r in result["results"]]
    for fmt in ("txt", "sgf"):
        for game in stored:
            record = GameRecord.load(save_record(str(tmp_path / fmt), game, fmt))
            values = record_values(record)
            assert values == pytest.approx([None if v is None else round(v, 3) for v in game["values"]])
    pages = save_pages(str(tmp_path / "pages"), stored)
    assert [p.rsplit("/", 1)[1] for p in pages] == [
        "random_vs_alphabeta-depth_1_0000.html",
        "alphabeta-depth_1_vs_random_0001.html",
    ]


def test_results_files_without_values_still_load_and_bad_values_are_refused(tmp_path):
    path = tmp_path / "m.json"
    match("random", ENGINE, games=2, seed=3, json_path=str(path), **FAST)
    payload = json.loads(path.read_text())
    for game in payload["results"]:
        del game["values"]  # as the arena wrote them before it kept values
    save_results(str(path), payload)
    again = match("random", ENGINE, games=2, seed=3, json_path=str(path), **FAST)
    assert all("values" not in game for game in again["results"])
    assert VALUES_HEADER not in result_record(again["results"][0]).headers
    payload["results"][0]["values"] = [0.5]
    save_results(str(path), payload)
    with pytest.raises(ValueError, match="values is not one number or null per move"):
        match("random", ENGINE, games=2, seed=3, json_path=str(path), **FAST)
