"""The arena: colours alternate, seeds reproduce, statistics are right, runs resume."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from amazons_env import Board, GameRecord

from agents.arena import (
    elo,
    format_match,
    format_tournament,
    load_results,
    match,
    score_interval,
    summarize,
    tournament,
    with_option,
)
from agents.arena import matches as arena
from agents.arena.files import record_name, save_results
from agents.options import OptionError

from amazons_cli.main import main

from tests.helpers.interrupt import ctrl_c

FAST = dict(size=6, workers=1, progress=False)


def test_statistics():
    low, high = score_interval(5, 10)
    assert low == pytest.approx(1 - high) and 0.2 < low < 0.3
    assert score_interval(0, 10)[0] == 0.0 and score_interval(10, 10)[1] == pytest.approx(1.0)
    assert elo(0.5, 10) == 0.0
    assert elo(0.75, 100) == pytest.approx(190.85, abs=0.01)
    assert elo(1.0, 10) == pytest.approx(-elo(0.0, 10)) == pytest.approx(400 * 1.2787536, rel=1e-6)


def test_a_match_won_or_lost_in_full_says_its_elo_is_unbounded():
    def game(index, winner):
        return {"pair": "a vs b", "index": index, "winner": winner, "plies": 30, "seconds": [1.0, 1.0],
                "max_seconds": [0.1, 0.1], "nodes": [10, 10], "moves": [15, 15]}  # fmt: skip

    one_win = format_match(summarize([game(0, 0)], "a", "b"))
    assert "1-0" in one_win and "Elo +inf (95% CI -234 to +inf; unbounded: no game lost)" in one_win
    assert "Elo -inf (95% CI -inf to +234; unbounded: no game won)" in format_match(summarize([game(0, 1)], "a", "b"))
    even = format_match(summarize([game(0, 0), game(1, 0)], "a", "b"))  # White won both: 1-1
    assert "Elo +0 (95% CI" in even and "inf" not in even
    assert elo(1.0, 1) > 0 and elo(0.0, 1) < 0  # the stored figures stay finite, and on the right side


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
    for key in ("games", "score", "score_ci95", "elo", "elo_ci95", "per_colour", "move_seconds", "sha256"):
        assert key in saved
    assert saved["games"] == 2 and len(list(records.iterdir())) == 2
    # an interrupted run: the file holds one game; the rerun plays only what is missing
    saved["results"] = saved["results"][:1]
    save_results(path, saved)
    kept = saved["results"][0]
    resumed = match("random", "two-iteration:depth=1", games=4, seed=1, json_path=path, **FAST)
    assert resumed["games"] == 4 and resumed["results"][0] == kept
    with pytest.raises(ValueError, match="different run"):
        match("random", "two-iteration:depth=1", games=4, seed=2, json_path=path, **FAST)
    # a smaller --games reports fewer games and deletes none from the file
    fewer = match("random", "two-iteration:depth=1", games=2, seed=1, json_path=path, **FAST)
    assert fewer["games"] == 2 and len(json.load(open(path))["results"]) == 4


def test_read_results_reads_any_runs_file_checked_against_its_own_config(tmp_path):
    from agents.arena.files import read_results

    path = str(tmp_path / "m.json")
    match("random", "two-iteration:depth=1", games=2, seed=1, json_path=path, **FAST)
    assert [g["record"] for g in read_results(path)] == [g["record"] for g in json.load(open(path))["results"]]
    edited(path, lambda p: p["results"][0].update(white="mcts"))  # rehashed: the config check catches it
    with pytest.raises(ValueError, match="colours|not one of this run's"):
        read_results(path)
    for content in ("not json", "[1]"):
        Path(path).write_text(content)
        with pytest.raises(ValueError, match="not a results file"):
            read_results(path)
    with pytest.raises(ValueError, match="'nothing.json': no such results file"):
        read_results("nothing.json")


def edited(path, change, rehash=True):
    payload = json.load(open(path))
    change(payload)
    if rehash:
        save_results(path, payload)
    else:
        json.dump(payload, open(path, "w"))


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda p: p["results"].append(dict(p["results"][0])), "second entry"),
        (lambda p: p["results"][0].update(winner=1 - p["results"][0]["winner"]), "recorded winner"),
        (lambda p: p["results"][0]["record"].__setitem__(0, "a1-a2/a3"), "does not replay"),
        (lambda p: p["results"][0].update(white="mcts"), "colours"),
        (lambda p: p["results"][0].pop("record"), "not a game result"),
        (lambda p: p["results"][0].update(index="0"), "index is not a int"),
        (lambda p: p.update(results={}), "not a results file"),
        (lambda p: p.pop("sha256"), "no sha256"),
    ],
)
def test_edited_results_files_are_refused(tmp_path, edit, words):
    path = str(tmp_path / "m.json")
    match("random", "random:seed=1", games=2, json_path=path, **FAST)
    edited(path, edit, rehash=words != "no sha256")  # recomputed: the content checks must catch it
    with pytest.raises(ValueError, match=words) as info:
        match("random", "random:seed=1", games=2, json_path=path, **FAST)
    assert path in str(info.value)
    if words != "no sha256":  # the same edit without recomputing the checksum: caught by it
        match("random", "random:seed=1", games=2, json_path=str(tmp_path / "n.json"), **FAST)
        edited(str(tmp_path / "n.json"), edit, rehash=False)
        with pytest.raises(ValueError, match="sha256 check fails|not a results file"):
            load_results(str(tmp_path / "n.json"), {})


def test_unreadable_results_files_name_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for content in (b"\xff\xfe not utf-8", b"[" * 100000, b"{}", b"not json"):
        Path("bad.json").write_bytes(content)
        with pytest.raises(ValueError, match="bad.json"):
            match("random", "random", games=2, json_path="bad.json", **FAST)


def test_records_carry_the_result_in_either_format_and_long_specs_are_hashed(tmp_path):
    long = "random" + ":seed=7" + ",seed=7" * 40  # a valid spec of ~250 characters
    for fmt in ("txt", "sgf"):
        path, out = str(tmp_path / f"{fmt}.json"), tmp_path / fmt
        result = match(long, "random", games=2, json_path=path, records_dir=str(out), records_format=fmt, **FAST)
        files = sorted(out.iterdir())
        assert len(files) == 2 and all(f.suffix == "." + fmt and len(f.name) < 100 for f in files)
        for game, file in zip(result["results"], files):
            record = GameRecord.load(file)
            assert int(record.winner) == game["winner"] and record.headers["White"] == game["white"]
            assert [str(m) for m in record.moves] == game["record"]
        assert len(json.load(open(path))["results"]) == 2
    assert record_name("a" * 300, 1) != record_name("a" * 299 + "b", 1)


def test_an_agent_against_itself_is_counted_by_slot():
    # four games that White won: each slot was White twice, so 2-2 (by name it was "4-0")
    games = [
        {
            "pair": "random vs random",
            "index": i,
            "winner": 0,
            "white": "random",
            "black": "random",
            "plies": 10,
            "seconds": [1.0, 2.0],
            "max_seconds": [0.5, 0.7],
            "nodes": [0, 0],
            "moves": [5, 5],
        }
        for i in range(4)
    ]
    summary = summarize(games, "random", "random")
    assert (summary["a_wins"], summary["b_wins"]) == (2, 2) and summary["score"] == 0.5
    assert summary["per_colour"]["a_white"] == {"games": 2, "a_wins": 2, "b_wins": 0}
    assert summary["move_seconds"]["a"] == {"mean": 0.3, "max": 0.7}
    result = match("random", "random", games=4, seed=3, **FAST)
    first_slot_wins = sum(1 for g in result["results"] if g["winner"] == g["index"] % 2)
    assert result["a_wins"] == first_slot_wins and result["a_wins"] + result["b_wins"] == 4
    assert "seconds per move, mean/max" in format_match(result)


def test_two_workers(tmp_path):
    result = match("random", "random", games=2, seed=5, size=6, workers=2, progress=False)
    serial = match("random", "random", games=2, seed=5, **FAST)
    assert [g["record"] for g in result["results"]] == [g["record"] for g in serial["results"]]


def test_tournament_and_cli(tmp_path, capsys):
    specs = ["random", "two-iteration:depth=1,eval=basic", "move-then-arrow:depth=1"]
    result = tournament(specs, games=2, seed=0, **FAST)
    assert len(result["matches"]) == 3 and len(result["results"]) == 6
    assert sum(row["games"] for row in result["standings"]) == 12
    assert "wins/losses" in format_tournament(result)
    path = str(tmp_path / "cli.json")
    argv = ["match", "random", "classic:depth=1", "--games", "2", "--size", "6", "--workers", "1", "--quiet"]
    assert main([*argv, "--json", path]) == 0
    assert "score" in capsys.readouterr().out and json.load(open(path))["games"] == 2
    assert main(["tournament", "random", "--games", "2", "--size", "6", "--quiet"]) == 2  # needs two agents


def test_an_option_is_added_only_to_agents_that_take_it():
    assert with_option("random", "threads", 2) == "random"
    assert with_option("uct:sims=200", "threads", 2) == "uct:sims=200,threads=2"
    assert with_option("uct:threads=1", "threads", 2) == "uct:threads=1"
    assert with_option("uct", "threads", 2) == "uct:threads=2"


def test_an_option_an_agent_refuses_is_an_error_not_dropped():
    with pytest.raises(OptionError, match="threads"):
        with_option("uct", "threads", 0)  # beyond the option's range: refused, not ignored
    with pytest.raises(OptionError, match="nosuchagent"):
        with_option("nosuchagent", "threads", 1)


def test_play_game_refuses_illegal_moves():
    class Cheat(arena.Agent):
        name = "cheat"

        def select_move(self, board):
            return Board(6).legal_moves()[0].__class__.parse("a1-a2/a3", size=6)

    with pytest.raises(ValueError, match="illegal"):
        arena.play_game(Cheat(), Cheat(), Board(6))


def run_script(tmp_path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_an_unguarded_script_plays_in_process_and_says_why(tmp_path):
    done = run_script(
        tmp_path,
        """
        from agents.arena import match
        result = match("random", "random", games=2, size=6, workers=2, progress=False)
        print("games", result["games"])
        """,
    )
    assert done.returncode == 0 and "games 2" in done.stdout, done.stderr
    assert "__main__" in done.stderr and "playing in this process" in done.stderr


def test_ctrl_c_stops_the_workers_keeps_the_games_and_prints_one_line(tmp_path):
    path = tmp_path / "m.json"
    command = [sys.executable, "-m", "amazons_cli", "match", "random", "mcts:sims=200", "--size", "6"]
    ctrl_c([*command, "--games", "200", "--workers", "2", "--json", str(path)], path.exists, "match")
    assert load_results(str(path), json.load(open(path))["config"])  # the finished games are kept


def test_paths_that_cannot_be_written_are_refused_before_the_first_game(tmp_path):
    afile = tmp_path / "file"
    afile.write_text("")
    for kwargs, words in (
        (dict(json_path=""), "give a file system path"),
        (dict(json_path=str(tmp_path / "no" / "m.json")), "folder does not exist"),
        (dict(json_path=str(tmp_path)), "a directory"),
        (dict(json_path="a\0b"), "give a file system path"),
        (dict(records_dir=str(afile)), "is a file"),
        (dict(records_dir=str(tmp_path), records_format="pdf"), "record format"),
    ):
        with pytest.raises(ValueError, match=words):
            match("random", "mcts:time=10", games=2, **kwargs, **FAST)  # would take minutes if it started


@pytest.mark.parametrize("time", [0, -1, float("nan"), float("inf"), "1", True])
def test_arena_time_must_be_positive_seconds(time):
    with pytest.raises(ValueError, match="time="):
        match("random", "alphabeta", games=2, size=6, time=time, workers=1, progress=False)
    with pytest.raises(ValueError, match="time="):
        tournament(["random", "alphabeta"], games=2, size=6, time=time, workers=1, progress=False)


def test_arena_time_is_every_moves_limit_not_a_rewritten_spec():
    """``time=`` reaches the games as each move's ``Limit`` (``play_game(limit=...)``): the specs
    stay as given in the results, and the time is recorded in their config."""
    result = match("random", "two-iteration:depth=1", games=2, size=5, time=0.05, workers=1, progress=False)
    assert {(r["white"], r["black"]) for r in result["results"]} == {
        ("random", "two-iteration:depth=1"),
        ("two-iteration:depth=1", "random"),
    }
