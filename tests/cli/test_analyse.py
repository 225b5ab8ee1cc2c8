"""``amazons analyse`` and ``amazons solve``: the review of a short game (table, SGF with comments
read back by our reader, web page), exact marking with the solver, resuming, bad input."""

from __future__ import annotations

import json

import pytest

from amazons_env import GameRecord
from amazons_env.move_values import VALUES_HEADER, record_values

import amazons_cli.analyse as analyse_cli
from amazons_cli.main import main

from tests.helpers.game_page import page_data
from tests.helpers.games import short_game
from tests.helpers.positions import wins


def test_solver_review_marks_exactly_the_moves_that_throw_a_win_away(tmp_path, capsys):
    record = short_game()
    source = tmp_path / "g.sgf"
    record.save(source)
    assert main(["analyse", str(source), "--engine", "solver"]) == 0
    out = capsys.readouterr().out
    assert "ply  side   played" in out and "White: accuracy" in out and "Black: accuracy" in out
    board = record.board(0)
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == len(record.moves)
    for row, move in zip(rows, record.moves):
        won_before = wins(board.text())
        board.push(move)
        thrown = won_before and wins(board.text())  # the opponent now wins
        assert (row[-1] == "blunder") == thrown, row
    # the SGF with comments and values opens in our reader: same game, the values header
    annotated = GameRecord.load(tmp_path / "g.analysis.sgf")
    assert annotated.moves == record.moves and annotated.start == record.start
    text = (tmp_path / "g.analysis.sgf").read_text()
    assert text.count("C[value") == len(record.moves) and text.count("V[") == len(record.moves)
    values = record_values(annotated)
    assert values is not None and all(v in (-1.0, 1.0) for v in values)
    data = page_data((tmp_path / "g.analysis.html").read_text(encoding="utf-8"))
    assert data["values"] == values and any(key == "ReviewWhite" for key, _ in data["info"])
    assert json.loads((tmp_path / "g.analysis.json").read_text())["engine"] == "solver"


def test_a_rerun_resumes_from_the_stored_evaluations(tmp_path, capsys, monkeypatch):
    record = short_game(seed=4)
    record.save(tmp_path / "g.txt")
    assert main(["analyse", str(tmp_path), "--engine", "solver"]) == 0
    first = capsys.readouterr().out

    def refuse(engine, text):
        raise AssertionError("evaluated again")

    monkeypatch.setattr(analyse_cli, "evaluate", refuse)
    assert main(["analyse", str(tmp_path / "g.txt"), "--engine", "solver"]) == 0
    assert capsys.readouterr().out == first


def test_a_search_engine_reviews_with_values_in_range(tmp_path, capsys):
    record = GameRecord(short_game(seed=5).moves[:3], start=short_game(seed=5).start)
    record.save(tmp_path / "g.sgf")
    assert main(["analyse", str(tmp_path / "g.sgf"), "--engine", "uct:sims=60,seed=1"]) == 0
    values = record_values(GameRecord.load(tmp_path / "g.analysis.sgf"))
    assert values is not None and len(values) == 3 and all(-1 <= v <= 1 for v in values)
    assert VALUES_HEADER in GameRecord.load(tmp_path / "g.analysis.sgf").headers


@pytest.mark.parametrize(
    "argv, message",
    [(["--engine", "random"], "not a search that reports a value"), (["--workers", "0"], "--workers 0")],
)
def test_bad_options_are_refused(tmp_path, capsys, argv, message):
    short_game().save(tmp_path / "g.sgf")
    assert main(["analyse", str(tmp_path / "g.sgf"), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_game_is_named(tmp_path, capsys):
    assert main(["analyse", str(tmp_path / "nope.sgf")]) == 2
    assert "nope.sgf" in capsys.readouterr().err


def test_solve_proves_4x4_lost_and_checks_moves(capsys):
    assert main(["solve", "--size", "4"]) == 0
    out = capsys.readouterr().out
    assert "White loses" in out and "nodes" in out and "CPU" in out
    assert main(["solve", "q3/4/4/Q1*1 w", "--check", "a1-b1/b3", "--check", "a1-a2/a3"]) == 0
    out = capsys.readouterr().out
    assert "a1-b1/b3: won for White" in out and "a1-a2/a3: lost for White" in out


def test_solve_refuses_an_illegal_check_and_a_bad_limit(capsys):
    assert main(["solve", "--size", "4", "--check", "a1-a2/a3"]) == 2
    assert "not a legal move" in capsys.readouterr().err
    assert main(["solve", "--size", "4", "--limit", "0"]) == 2
    assert "--limit 0" in capsys.readouterr().err


def test_two_workers_give_the_same_review(tmp_path, capsys):
    record = short_game(seed=3)
    record.save(tmp_path / "one.sgf")
    record.save(tmp_path / "two.sgf")
    assert main(["analyse", str(tmp_path / "one.sgf"), "--engine", "solver"]) == 0
    one = capsys.readouterr().out
    assert main(["analyse", str(tmp_path / "two.sgf"), "--engine", "solver", "--workers", "2"]) == 0
    two = capsys.readouterr().out
    assert two.splitlines()[1:-1] == one.splitlines()[1:-1]  # the table and summary; the names differ


def test_the_solver_engine_refuses_a_position_it_cannot_prove_in_its_budget(tmp_path, capsys, monkeypatch):
    """``--engine solver`` never waits without end: past its node budget it says so, naming the engine."""
    import sys

    monkeypatch.setattr(sys.modules["agents.analysis.review"], "SOLVER_NODES", 10)  # the package re-exports review()
    source = tmp_path / "g.txt"
    source.write_text('[Size "6"]\n1. b1-b4/b5\n')
    assert main(["analyse", str(source), "--engine", "solver"]) == 2
    err = capsys.readouterr().err
    assert "--engine solver:" in err and "not proved within 10 nodes" in err
