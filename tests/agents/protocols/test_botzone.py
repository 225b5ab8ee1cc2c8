"""The Botzone mode of ``amazons engine --protocol botzone`` on scripted 8x8 exchanges: its
coordinates, keep-running and history requests, its time per move, and bad input."""

import io
import subprocess
import sys

import pytest

from amazons_env import Board, InvalidMoveError, Move

from agents import Limit, make
from agents.protocols.botzone import KEEP_RUNNING, NO_MOVE, BotzoneBot, botzone_to_move, move_to_botzone

from tests.helpers.uci import Recorder

# -- Botzone ----------------------------------------------------------------------------------------


def test_botzone_passes_its_time_per_move_as_a_limit():
    recorder = Recorder()
    BotzoneBot(recorder, io.StringIO(), seconds=0.2, keep_running=False).run(iter(["1", NO_MOVE]))
    BotzoneBot(recorder, io.StringIO(), keep_running=False).run(iter(["1", NO_MOVE]))
    assert recorder.seen == [Limit(time=0.2), Limit(time=5.0)]


def test_botzone_coordinates_match_its_start_position():
    """Botzone's Black (first mover) starts at (2,0) (5,0) (0,2) (7,2): our White's c1 f1 a3 h3."""
    layout = Board(8).layout()
    assert sorted(y * 8 + x for x, y in [(2, 0), (5, 0), (0, 2), (7, 2)]) == list(layout.white)
    assert sorted(y * 8 + x for x, y in [(0, 5), (2, 7), (5, 7), (7, 5)]) == list(layout.black)
    move = Move.parse("c1-c5/f5", size=8)
    assert move_to_botzone(move) == "2 0 2 4 5 4" and botzone_to_move("2 0 2 4 5 4") == move
    for bad in ("1 2 3", "0 0 0 0 0 8", "a b c d e f"):
        with pytest.raises(InvalidMoveError):
            botzone_to_move(bad)


def replay(lines):
    """The board after Botzone lines (skipping the empty first request)."""
    board = Board(8)
    for line in lines:
        if not line.startswith("-1"):
            board.push(botzone_to_move(line))
    return board


def test_botzone_first_mover_keep_running_exchange():
    """Botzone's side of a keep-running game: each request is sent after reading our answer."""
    out = io.StringIO()
    opponent = make("random", seed=5)
    played = [NO_MOVE]

    def botzone():
        yield "1"
        yield NO_MOVE  # we are Botzone's Black: we move first
        for turn in (2, 3):
            lines = out.getvalue().splitlines()
            assert lines[-1] == KEEP_RUNNING
            played.append(lines[-2])
            played.append(move_to_botzone(opponent.select_move(replay(played))))
            yield str(turn)  # a lone turn number before the request is skipped
            yield played[-1]

    BotzoneBot(make("random", seed=4), out).run(botzone())
    lines = out.getvalue().splitlines()
    assert len(lines) == 6 and lines[1::2] == [KEEP_RUNNING] * 3
    board = replay(played + [lines[-2]])  # raises if any of our answers was illegal
    assert board.ply == 5 and board.turn == 1


def test_botzone_second_mover_from_history_without_keep_running():
    black_first = "2 0 2 4 5 4"  # Botzone's Black (our White): c1-c5/f5
    ours = "0 5 0 3 3 3"  # what we answered then: a6-a4/d4
    their_second = "5 0 5 3 5 1"  # f1-f4/f2
    out = io.StringIO()
    BotzoneBot(make("random", seed=8), out, keep_running=False).run(
        iter(["2", black_first, ours, their_second, "data line", "global data"])
    )
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    board = replay([black_first, ours, their_second])
    assert board.turn == 1 and board.is_legal(botzone_to_move(lines[0]))


def test_botzone_subprocess_answers_the_first_turn_and_keeps_running():
    done = subprocess.run(
        [sys.executable, "-m", "amazons_cli", "engine", "--protocol", "botzone", "--agent", "random:seed=2"],
        input=f"1\n{NO_MOVE}\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    answer, keep = done.stdout.splitlines()
    assert keep == KEEP_RUNNING and Board(8).is_legal(botzone_to_move(answer))


def test_botzone_refuses_bad_input_and_answers_no_move_when_lost():
    with pytest.raises(InvalidMoveError, match="illegal"):
        BotzoneBot(make("random"), io.StringIO()).run(iter(["1", "0 0 0 1 0 2"]))
    with pytest.raises(InvalidMoveError, match="turn number"):
        BotzoneBot(make("random"), io.StringIO()).run(iter(["hello"]))
    with pytest.raises(InvalidMoveError, match="ended"):
        BotzoneBot(make("random"), io.StringIO()).run(iter(["2", NO_MOVE]))
    out = io.StringIO()
    bot = BotzoneBot(make("random"), out, keep_running=False)
    bot.board = Board.from_text("Q*2/**2/4/3q w")
    bot._respond()
    assert out.getvalue() == NO_MOVE + "\n"
