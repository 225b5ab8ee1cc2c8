"""Game clocks and pondering in the arena (``agents.arena.games``, ``amazons match --tc/--ponder``):
every move is charged to its side's clock, a side whose clock runs out loses on time (and its
results still read back), ponder searches hit or miss and end with the game, ``uci:`` engines get
the clocks and ``go ponder``, and a move's limit (``--time``) reaches every searching agent."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import asdict

import pytest

from amazons_env import Board

from agents import make
from agents.arena import match, play_game
from agents.arena.files import check_result
from agents.arena.games import ClockedGame, OutOfTime
from agents.base import Agent
from agents.pondering import Ponderer, Thinking, expected_reply
from agents.protocols.uci_client import UCIAgent
from agents.time.control import TimeControl
from agents.time.limit import Limit
from agents.time.manager import move_limit

from amazons_cli.main import main


class Sleeper(Agent):
    """Plays the first legal move after ``seconds`` of sleep: a player that uses its clock up."""

    name = "sleeper"

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def select_move(self, board):
        time.sleep(self.seconds)
        return board.legal_moves()[0]


def test_every_move_is_charged_to_its_clock_and_a_spent_clock_loses_on_time():
    tc = TimeControl(0.25, 0.01)
    result = play_game(Sleeper(0.1), make("random", seed=1), Board(6), tc=tc)
    # White's third move ends past 0.25 + 2 * 0.01 s: it loses on time, that move not played
    assert (result.ended, result.winner, result.plies, result.moves) == ("time", 1, 4, (2, 2))
    assert result.seconds[0] == pytest.approx(0.2, abs=0.05)
    config = {"pairs": [[result.white, result.black]], "size": 6, "opening": 0}
    game = {**json.loads(json.dumps(asdict(result))), "pair": f"{result.white} vs {result.black}"}
    assert check_result(game, config) is None  # a loss on time reads back
    assert "open game" in check_result({**game, "winner": 0}, config)  # the loser is the side to move
    assert "not 'moves' or 'time'" in check_result({**game, "ended": "flag"}, config)
    finished = play_game(make("random", seed=2), make("random", seed=3), Board(6), tc=TimeControl(60.0))
    assert finished.ended == "moves" and sum(finished.seconds) < 60.0


def test_a_clocked_game_gives_searches_the_time_managers_limit():
    seen = []
    uct = make("uct:time=5")
    original = uct.search

    def spy(board, limit=None, **kwargs):
        seen.append((board.copy(), limit))
        return original(board, limit, **kwargs)

    uct.search = spy
    game = ClockedGame((uct, make("random", seed=1)), TimeControl(2.0, 0.05))
    board = Board(6)
    clocks = game.current_limit()
    assert clocks == Limit(white_clock=2.0, black_clock=2.0, white_inc=0.05, black_inc=0.05)
    game.move(board)
    assert seen[0][1] == move_limit(board, clocks, game.overhead)  # the allotment, not uct's own 5 s
    assert 0 < game.left[0] < 2.05 and game.left[1] == 2.0  # charged, then the increment added
    board.push(board.legal_moves()[0])
    game.left[1] = 0.0  # nothing left: any move is too late
    with pytest.raises(OutOfTime, match="Black ran out of time"):
        game.move(board)


def test_ponder_searches_hit_or_miss_and_end_with_the_game():
    agent = make("uct:time=0.05", seed=1)
    player = Ponderer(agent)
    board = Board(6)
    first = player.search_on_clock(board, None).move
    board.push(first)
    assert player.ponder(board, None) and player.thinking is not None and player.thinking.pondering
    expected = player.thinking.board
    assert expected == expected_reply(board, agent.last_result)
    hit = player.search_on_clock(expected, Limit(white_clock=5.0, black_clock=5.0))  # the expected reply: a hit
    assert expected.is_legal(hit.move) and player.thinking is None
    expected.push(hit.move)
    assert player.ponder(expected, None)
    thinking = player.thinking
    other = expected.copy()
    replies = [m for m in other.legal_moves() if m != thinking.board.move_stack[-1]]
    other.push(replies[0])  # not the expected reply: the ponder search is stopped, a fresh one runs
    assert other.is_legal(player.search_on_clock(other, None).move) and thinking.done()
    other.push(player.agent.last_result.move)
    player.ponder(other, None)
    player.stop_pondering()
    assert player.thinking is None


def test_a_whole_game_with_pondering_leaves_no_thread_behind():
    before = threading.active_count()
    white, black = make("uct:time=0.02", seed=1), make("uct:time=0.02", seed=2)
    result = play_game(white, black, Board(6), tc=TimeControl(1.0, 0.02), ponder=True)
    assert result.ended in ("moves", "time") and result.plies == len(result.record)
    assert threading.active_count() == before


def test_a_non_pondering_agent_cannot_be_made_to_ponder():
    uct = make("uct:time=0.02")
    with pytest.raises(ValueError, match="against itself"):
        ClockedGame((uct, uct), None, ponder=True)  # one tree cannot think for both sides at once
    with pytest.raises(ValueError, match="cannot ponder"):
        Ponderer(make("alphabeta:depth=1"))
    with pytest.raises(ValueError, match="cannot ponder"):
        Thinking(make("random"), Board(6), ponder=True)


def test_match_records_its_time_control_and_ponder_and_refuses_another_on_resume(tmp_path):
    path = str(tmp_path / "tc.json")
    result = match("random", "random", games=2, size=6, workers=1, progress=False, json_path=path, tc="0.5+0.1")
    assert [r["ended"] for r in result["results"]] == ["moves", "moves"] and result["time_losses"] == {"a": 0, "b": 0}
    assert json.load(open(path))["config"]["tc"] == "0.5+0.1"
    with pytest.raises(ValueError, match="tc differ"):
        match("random", "random", games=2, size=6, workers=1, progress=False, json_path=path, tc="1+0.1")
    with pytest.raises(ValueError, match="ponder differ"):
        match("random", "random", games=2, size=6, workers=1, progress=False, json_path=path, tc="0.5+0.1", ponder=True)
    with pytest.raises(ValueError, match="not both"):
        match("random", "random", games=2, size=6, time=1.0, tc="1+0")
    with pytest.raises(ValueError, match="ponder='yes'"):
        match("random", "random", games=2, size=6, ponder="yes")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [(["--tc", "1+x"], "time control '1+x'"), (["--tc", "0"], "minutes"), (["--tc", "1", "--time", "1"], "not both")],
)
def test_the_command_refuses_a_bad_time_control(arguments, words, capsys):
    assert main(["match", "random", "random", "--games", "2", "--size", "6", "--quiet", *arguments]) == 2
    assert words in capsys.readouterr().err


ENGINE = f"{sys.executable} -m amazons_cli.main engine --agent uct:time=0.05"


def test_a_uci_engine_is_given_the_clocks_and_ponders_on_its_opponents_time():
    with UCIAgent(engine=ENGINE) as engine:
        engine.reset()
        sent = []
        send = engine._send

        def record(line):
            sent.append(line)
            send(line)

        engine._send = record
        clocks = Limit(white_clock=2.0, black_clock=3.0, white_inc=0.05, black_inc=0.05)
        board = Board(6)
        board.push(engine.search_on_clock(board, clocks).move)
        assert sent[-1] == "go wtime 2000 btime 3000 winc 50 binc 50"
        assert engine.ponder(board, clocks) and sent[-1].startswith("go ponder wtime 2000")
        expected = engine._pondering.copy()
        hit = engine.search_on_clock(expected, clocks)  # the expected reply was played
        assert sent[-1] == "ponderhit" and expected.is_legal(hit.move)
        expected.push(hit.move)
        assert engine.ponder(expected, clocks)
        other = expected.copy()
        other.push(next(m for m in other.legal_moves() if m != engine._pondering.move_stack[-1]))
        missed = engine.search_on_clock(other, clocks)  # another reply: stopped, then searched afresh
        assert sent[-3:-1] == ["stop", engine._position(other)] and other.is_legal(missed.move)
        sent.clear()
        result = play_game(engine, make("uct:time=0.02", seed=1), Board(6), tc=TimeControl(3.0, 0.05), ponder=True)
        assert result.ended == "moves" and result.plies == len(result.record)
    goes = [line for line in sent if line.startswith("go")]
    assert goes and all("wtime" in line and "binc 50" in line for line in goes)
    assert any(line.startswith("go ponder") for line in goes)


def test_a_games_move_limit_reaches_every_agent_that_searches_within_a_time():
    """``play_game(limit=...)`` (``amazons match --time``) passes each move's ``Limit`` to the
    searches in place of their own (``think``); an agent that does not search plays as it would."""
    seen = []
    uct = make("uct:time=5", seed=1)
    original = uct.search

    def spy(board, limit=None, **kwargs):
        seen.append(limit)
        return original(board, limit, **kwargs)

    uct.search = spy
    result = play_game(uct, make("random", seed=1), Board(5), limit=Limit(time=0.02, depth=3))
    assert result.plies > 0 and seen and all(limit == Limit(time=0.02) for limit in seen)
    with pytest.raises(ValueError, match="not both"):
        play_game(uct, make("random"), Board(5), tc=TimeControl(1.0), limit=Limit(time=0.02))
    with pytest.raises(ValueError, match="limit must be a Limit"):
        play_game(uct, make("random"), Board(5), limit=0.02)  # type: ignore[arg-type]
