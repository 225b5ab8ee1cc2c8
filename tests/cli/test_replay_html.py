"""``amazons replay FILE --html OUT.html`` and ``amazons match ... --html DIR``: games as web pages."""

from __future__ import annotations

import json

import pytest

from amazons_env import GameRecord
from amazons_env.drawing.html import cells_text, game_page
from amazons_env.move_values import VALUES_HEADER, format_values

from amazons_cli.main import main

from tests.helpers.game_page import page_data
from tests.helpers.games import filling_game


def game(size: int = 6, seed: int = 1, **headers: str) -> GameRecord:
    record = filling_game(size, seed)
    values = format_values([0.1 * (ply % 5) for ply in range(len(record.moves))])
    return GameRecord(record.moves, size, result=record.result, headers={**headers, VALUES_HEADER: values})


@pytest.mark.parametrize("suffix", ["sgf", "txt"])
def test_replay_writes_the_record_as_a_page(tmp_path, capsys, suffix):
    record = game(White="me & <you>", Black="b")
    source, out = tmp_path / f"game.{suffix}", tmp_path / "game.html"
    record.save(source)
    assert main(["replay", str(source), "--html", str(out)]) == 0
    assert f"{out}: game 1 of {source}, {len(record.moves)} moves, as a web page" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page == game_page(GameRecord.load(source))
    data = page_data(page)
    assert data["white"] == "me & <you>" and data["final"] == cells_text(record.board())
    assert len(data["values"]) == len(record.moves)


def test_replay_a_game_of_a_collection_and_a_move_list_without_size(tmp_path):
    games = [game(seed=1), game(size=8, seed=2)]
    collection, out = tmp_path / "games.sgf", tmp_path / "second.html"
    GameRecord.save_all(games, collection)
    assert main(["replay", str(collection), "--game", "2", "--html", str(out)]) == 0
    assert page_data(out.read_text())["final"] == cells_text(games[1].board())
    moves = tmp_path / "moves.txt"
    moves.write_text("1. b1-b4/b5\n2. a5-a4/a3\n")
    assert main(["replay", str(moves), "--size", "6", "--html", str(out)]) == 0
    data = page_data(out.read_text())
    assert data["size"] == 6 and data["values"] is None and data["result"] == "Unfinished after 2 moves."


def test_replay_html_refusals_name_the_input_and_write_nothing(tmp_path, capsys):
    source = tmp_path / "game.sgf"
    game().save(source)
    assert main(["replay", str(source), "--html", str(tmp_path / "no" / "game.html")]) == 2
    assert "page" in capsys.readouterr().err
    source.write_text(source.read_text().replace("XH[Values=", "XH[Values=x "))
    assert main(["replay", str(source), "--html", str(tmp_path / "game.html")]) == 2
    assert f"{source}: Values holds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", str(source), "--all", "--html", str(tmp_path / "game.html")])
    assert exit_info.value.code == 2 and "not allowed with" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.sgf"]


def test_match_writes_a_page_per_game_with_the_engines_values(tmp_path, capsys):
    pages, results = tmp_path / "pages", tmp_path / "m.json"
    argv = ["match", "random", "alphabeta:depth=1", "--size", "6", "--games", "2", "--workers", "1", "--quiet"]
    assert main([*argv, "--json", str(results), "--html", str(pages)]) == 0
    assert f"2 game pages in {pages}" in capsys.readouterr().out
    stored = json.loads(results.read_text())["results"]
    names = {"random_vs_alphabeta-depth_1_0000.html": 0, "alphabeta-depth_1_vs_random_0001.html": 1}
    assert sorted(p.name for p in pages.iterdir()) == sorted(names)
    for name, index in names.items():
        data = page_data((pages / name).read_text())
        result = stored[index]
        assert (data["white"], data["black"]) == (result["white"], result["black"])
        assert len(data["moves"]) == 3 * result["plies"]
        engine = 1 - index  # alphabeta is Black in game 0, White in game 1
        assert [v is not None for v in data["values"]] == [ply % 2 == engine for ply in range(result["plies"])]
        final = GameRecord(result["record"], size=6).board()
        assert data["final"] == cells_text(final) and data["result"].endswith("won.")


def test_match_refuses_a_pages_folder_that_is_a_file_before_the_first_game(tmp_path, capsys):
    afile = tmp_path / "pages"
    afile.write_text("")
    argv = ["match", "random", "mcts:time=10", "--size", "6", "--games", "2", "--workers", "1", "--quiet"]
    assert main([*argv, "--html", str(afile), "--json", str(tmp_path / "m.json")]) == 2  # would take minutes
    assert "pages folder" in capsys.readouterr().err and not (tmp_path / "m.json").exists()
