"""What ``amazons analyse`` leaves behind and how it stops: the review in the record's headers,
the web page drawing the engine's move and the marks (in headless Chromium where it is
installed), the annotated SGF opened again by ``amazons replay``, Ctrl-C and the rerun that goes
on, the same review from two workers as from one, ``--threads``."""

from __future__ import annotations

import json
import sys

import pytest

from amazons_env import GameRecord, Move
from amazons_env.drawing.html import cells_text, game_page, result_text
from amazons_env.move_review import BEST_HEADER, MARKS, MARKS_HEADER, parse_best, parse_marks

import amazons_cli.analyse as analyse_cli
from amazons_cli.main import main

from tests.helpers.game_page import board_cells, errors, open_page, page_data, text_of
from tests.helpers.games import short_game
from tests.helpers.interrupt import ctrl_c


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """A short 5x5 game analysed with the exact engine: the folder, the record, the table printed."""
    folder = tmp_path_factory.mktemp("analysed")
    record = short_game(seed=3)
    record.save(folder / "g.sgf")
    assert main(["analyse", str(folder / "g.sgf"), "--engine", "solver"]) == 0
    return folder, record


def _table_labels(out: str) -> list[str]:
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    return [row[-1] if row[-1] in MARKS else "" for row in rows]


def test_the_record_carries_the_engines_move_in_every_position_and_the_marks(analysed):
    folder, record = analysed
    annotated = GameRecord.load(folder / "g.analysis.sgf")
    best = parse_best(annotated.headers[BEST_HEADER], 5, len(record.moves) + 1)
    marks = parse_marks(annotated.headers[MARKS_HEADER], len(record.moves))
    for ply, move in enumerate(best):
        board = record.board(ply)
        assert (move is None) == board.is_game_over() and (move is None or board.is_legal(move))
    assert "??" in marks and set(marks) <= {"", "??"}  # exact values: a move throws the win away or loses nothing
    text = (folder / "g.analysis.sgf").read_text()
    assert text.count("BM[2]") == marks.count("??")  # SGF's own annotation, for other viewers


def test_the_page_holds_the_review(analysed):
    folder, record = analysed
    data = page_data((folder / "g.analysis.html").read_text(encoding="utf-8"))
    annotated = GameRecord.load(folder / "g.analysis.sgf")
    best = parse_best(annotated.headers[BEST_HEADER], 5, len(record.moves) + 1)
    assert data["best"] == [None if m is None else [m.from_square, m.to_square, m.arrow] for m in best]
    assert data["marks"] == parse_marks(annotated.headers[MARKS_HEADER], len(record.moves))
    assert data["markWords"] == {"?!": "inaccuracy", "?": "mistake", "??": "blunder"}
    assert not any(key in (BEST_HEADER, MARKS_HEADER) for key, _ in data["info"])  # shown on the board instead


def test_the_annotated_sgf_opens_in_replay_and_its_page_shows_the_review(analysed, capsys):
    folder, record = analysed
    source = folder / "g.analysis.sgf"
    assert main(["replay", str(source), "--all"]) == 0
    out = capsys.readouterr().out
    plies = len(record.moves)
    assert f"Move {plies}/{plies}: {record.moves[-1]}" in out and out.rstrip().endswith(result_text(record))
    page = folder / "replayed.html"
    assert main(["replay", str(source), "--html", str(page)]) == 0
    replayed, analysed_page = (page_data(p.read_text(encoding="utf-8")) for p in (page, folder / "g.analysis.html"))
    assert sorted(replayed.pop("info")) == sorted(analysed_page.pop("info"))  # SGF's own headers come first
    assert replayed == analysed_page  # the values, the engine's moves, the marks: the same page


def test_the_page_refuses_an_engines_move_that_is_not_legal_naming_the_record(analysed):
    folder, record = analysed
    annotated = GameRecord.load(folder / "g.analysis.sgf")
    words = annotated.headers[BEST_HEADER].split()
    words[0] = str(record.moves[1])  # Black's move where White is to move
    headers = {**annotated.headers, BEST_HEADER: " ".join(words)}
    bad = GameRecord(annotated.moves, annotated.size, annotated.start, annotated.result, headers)
    with pytest.raises(ValueError, match="g.sgf: Best entry 1 .* is not a legal move after 0 moves"):
        game_page(bad, "g.sgf")


def test_browser_draws_the_engines_move_and_the_marks(browser, analysed, tmp_path):
    from selenium.webdriver.common.by import By

    folder, record = analysed
    page = (folder / "g.analysis.html").read_text(encoding="utf-8")
    data = page_data(page)
    board = open_page(browser, tmp_path, record, page)
    assert errors(browser) == []

    def go(ply: int) -> None:
        if ply:
            browser.find_elements(By.CSS_SELECTOR, "#moves span")[ply - 1].click()
        else:
            browser.find_element(By.ID, "first").click()
        assert board.get_attribute("data-ply") == str(ply) and board_cells(browser) == cells_text(record.board(ply))

    def engines_move(ply: int) -> str:
        return (
            ""
            if data["best"][ply] is None
            else str(Move(data["best"][ply][0], data["best"][ply][1], data["best"][ply][2], 5))
        )

    blunder = data["marks"].index("??")  # the first blunder, from 0: played in the position after that many plies
    for ply in (0, blunder + 1, len(record.moves), blunder):
        go(ply)
        assert board.get_attribute("data-best") == engines_move(ply)
        shown = browser.execute_script("return getComputedStyle(document.getElementById('best-path')).display")
        assert (shown != "none") == (data["best"][ply] is not None)  # (a flat line has no height to be "displayed")
    assert engines_move(blunder) and engines_move(blunder) != str(record.moves[blunder])
    review = text_of(browser, "review")  # the position before the blunder: the better move, the one played
    assert review == f"Engine's move here: {engines_move(blunder)} (the green arrow); the game went " + (
        f"{record.moves[blunder]}?? (blunder)."
    )
    glyphs = browser.find_elements(By.CSS_SELECTOR, "#moves b.blunder")
    assert len(glyphs) == data["marks"].count("??") and glyphs[0].text == "??"
    go(blunder + 1)
    assert text_of(browser, "where").endswith(
        f"{record.moves[blunder]}?? by {record.board(blunder).turn.name.capitalize()}, blunder"
    )
    assert errors(browser) == []


def test_ctrl_c_keeps_the_evaluations_and_a_rerun_goes_on_from_them(tmp_path, capsys, monkeypatch):
    record = short_game(seed=4)
    evaluate = analyse_cli.evaluate
    calls: list[str] = []

    def counted(engine, text):
        calls.append(text)
        return evaluate(engine, text)

    def stopped_after_three(engine, text):
        if len(calls) == 3:
            raise KeyboardInterrupt
        return counted(engine, text)

    monkeypatch.setattr(analyse_cli, "evaluate", counted)
    (tmp_path / "fresh").mkdir()
    record.save(tmp_path / "fresh" / "g.sgf")
    assert main(["analyse", str(tmp_path / "fresh" / "g.sgf"), "--engine", "solver"]) == 0
    fresh, evaluations = capsys.readouterr().out, len(calls)
    assert evaluations > len(record.moves) + 1  # the positions after the engine's other moves too

    record.save(tmp_path / "g.sgf")
    calls.clear()
    monkeypatch.setattr(analyse_cli, "evaluate", stopped_after_three)
    assert main(["analyse", str(tmp_path / "g.sgf"), "--engine", "solver"]) == 130
    err = capsys.readouterr().err
    assert f"g: stopped; 3 positions kept in {tmp_path / 'g.analysis.json'}" in err
    assert not (tmp_path / "g.analysis.sgf").exists()
    assert len(json.loads((tmp_path / "g.analysis.json").read_text())["positions"]) == 3
    calls.clear()
    monkeypatch.setattr(analyse_cli, "evaluate", counted)
    assert main(["analyse", str(tmp_path / "g.sgf"), "--engine", "solver"]) == 0
    assert len(calls) == evaluations - 3  # only what was missing
    assert capsys.readouterr().out.splitlines()[:-1] == fresh.splitlines()[:-1]  # the last line names the files


def test_ctrl_c_with_workers_keeps_a_sealed_store_and_leaves_no_worker(tmp_path):
    record = short_game(seed=5, opening=2)
    record.save(tmp_path / "g.sgf")
    store = tmp_path / "g.analysis.json"
    command = [sys.executable, "-m", "amazons_cli", "analyse", str(tmp_path / "g.sgf"), "--workers", "2"]

    def started() -> bool:  # a worker has finished a position (the parent evaluates the first)
        return store.exists() and len(json.loads(store.read_text())["positions"]) >= 2

    err = ctrl_c([*command, "--engine", "uct:time=1"], started, "analyse")
    assert "positions kept in" in err
    kept = json.loads(store.read_text())["positions"]
    assert 2 <= len(kept) < len(record.moves) + 1
    from agents.analysis.store import EvaluationStore

    assert len(EvaluationStore.load(store, "uct:time=1")) == len(kept)  # sealed: read back, not refused


def test_two_workers_give_the_same_review_as_one_for_a_node_budget(tmp_path, capsys):
    record = GameRecord(short_game(seed=6).moves[:6], start=short_game(seed=6).start)
    engine = ["--engine", "uct:sims=300,seed=2"]
    for name, workers in (("one", "1"), ("two", "2")):
        record.save(tmp_path / f"{name}.sgf")
        assert main(["analyse", str(tmp_path / f"{name}.sgf"), *engine, "--workers", workers]) == 0
    one, two = (GameRecord.load(tmp_path / f"{name}.analysis.sgf") for name in ("one", "two"))
    assert one.headers == two.headers
    assert (tmp_path / "one.analysis.sgf").read_text() == (tmp_path / "two.analysis.sgf").read_text()


def test_threads_go_into_the_engines_spec_or_are_refused(tmp_path, capsys):
    record = GameRecord(short_game(seed=6).moves[:1], start=short_game(seed=6).start)
    record.save(tmp_path / "g.sgf")
    assert main(["analyse", str(tmp_path / "g.sgf"), "--engine", "uct:sims=40", "--threads", "2"]) == 0
    assert "engine uct:sims=40,threads=2" in capsys.readouterr().out
    for argv, message in (
        (["--engine", "solver", "--threads", "2"], "--threads: the solver engine runs on one thread"),
        (["--engine", "uct:sims=40", "--threads", "0"], "--threads 0: must be at least 1"),
        (["--engine", "uct:sims=40,threads=1", "--threads", "2"], "sets its own threads or takes none"),
    ):
        assert main(["analyse", str(tmp_path / "g.sgf"), *argv]) == 2
        assert message in capsys.readouterr().err
