"""The arena: colours alternate, seeds reproduce, statistics are right, runs resume."""

from __future__ import annotations

import json

import pytest

from agents import arena
from agents.arena import elo, match, score_interval, tournament, with_option
from amazons_env import Board, GameRecord
from amazons_env.cli import main

FAST = dict(size=6, workers=1, progress=False)


def test_statistics():
    low, high = score_interval(5, 10)
    assert low == pytest.approx(1 - high) and 0.2 < low < 0.3
    assert score_interval(0, 10)[0] == 0.0 and score_interval(10, 10)[1] == pytest.approx(1.0)
    assert elo(0.5, 10) == 0.0
    assert elo(0.75, 100) == pytest.approx(190.85, abs=0.01)
    assert elo(1.0, 10) == pytest.approx(-elo(0.0, 10)) == pytest.approx(400 * 1.2787536, rel=1e-6)


def test_match_alternates_colours_and_reproduces(tmp_path):
    a, b = "two-iteration:depth=1,eval=basic", "random"
    first = match(a, b, games=4, seed=3, opening=2, **FAST)
    games = first["results"]
    assert [g["white"] for g in games] == [a, b, a, b]
    assert games[0]["record"][:2] == games[1]["record"][:2]  # a pair shares its opening
    assert first["per_colour"]["a_white"]["games"] == first["per_colour"]["a_black"]["games"] == 2
    assert first["a_wins"] + first["b_wins"] == 4
    for g in games:  # every record replays to a finished game won by the recorded winner
        board = GameRecord(tuple(g["record"]), size=6).board()
        assert board.is_game_over() and int(board.winner) == g["winner"]
    again = match(a, b, games=4, seed=3, opening=2, **FAST)
    assert [g["record"] for g in again["results"]] == [g["record"] for g in games]
    other = match(a, b, games=4, seed=4, opening=2, **FAST)
    assert [g["record"] for g in other["results"]] != [g["record"] for g in games]


def test_match_json_resume_and_records(tmp_path):
    path = str(tmp_path / "m.json")
    records = tmp_path / "records"
    match("random", "two-iteration:depth=1", games=2, seed=1, json_path=path, records_dir=str(records), **FAST)
    saved = json.load(open(path))
    for key in ("games", "score", "score_ci95", "elo", "elo_ci95", "per_colour"):
        assert key in saved
    assert saved["games"] == 2 and len(list(records.iterdir())) == 2
    # an interrupted run: drop a game from the file; the rerun plays only what is missing
    saved["results"] = saved["results"][:1]
    json.dump(saved, open(path, "w"))
    kept = saved["results"][0]
    resumed = match("random", "two-iteration:depth=1", games=4, seed=1, json_path=path, **FAST)
    assert resumed["games"] == 4 and resumed["results"][0] == kept
    with pytest.raises(ValueError, match="different run"):
        match("random", "two-iteration:depth=1", games=4, seed=2, json_path=path, **FAST)


def test_two_workers(tmp_path):
    result = match("random", "random", games=2, seed=5, size=6, workers=2, progress=False)
    serial = match("random", "random", games=2, seed=5, **FAST)
    assert [g["record"] for g in result["results"]] == [g["record"] for g in serial["results"]]


def test_tournament_and_cli(tmp_path, capsys):
    specs = ["random", "two-iteration:depth=1,eval=basic", "move-then-arrow:depth=1"]
    result = tournament(specs, games=2, seed=0, **FAST)
    assert len(result["matches"]) == 3 and len(result["results"]) == 6
    assert sum(row["games"] for row in result["standings"]) == 12
    assert "wins/losses" in arena.format_tournament(result)
    path = str(tmp_path / "cli.json")
    assert main(["match", "random", "classic:depth=1", "--games", "2", "--size", "6", "--workers", "1",
                 "--quiet", "--json", path]) == 0
    assert "score" in capsys.readouterr().out and json.load(open(path))["games"] == 2
    assert main(["tournament", "random", "--games", "2", "--size", "6", "--quiet"]) == 2  # needs two agents


def test_time_option_only_for_agents_that_take_it():
    assert with_option("random", "time", 0.5) == "random"
    assert with_option("two-iteration:depth=2", "time", 0.5) == "two-iteration:depth=2,time=0.5"
    assert with_option("two-iteration:time=1", "time", 0.5) == "two-iteration:time=1"
    assert with_option("classic", "time", 0.5) == "classic:time=0.5"


def test_play_game_refuses_illegal_moves():
    class Cheat(arena.Agent):
        name = "cheat"

        def select_move(self, board):
            return Board(6).legal_moves()[0].__class__.parse("a1-a2/a3", size=6)

    with pytest.raises(ValueError, match="illegal"):
        arena.play_game(Cheat(), Cheat(), Board(6))
