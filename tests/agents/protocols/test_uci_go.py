"""The engine's ``go``: the limit read from its arguments and the clocks (one source of truth with the
time manager), the limit passed to the search, answers from a thread, and pondering (``go ponder``,
``ponderhit``, ``stop``)."""

import io
import time

import pytest

from amazons_env import Board, Move

from agents import Limit, SearchAgent, SearchResult
from agents.protocols.uci_engine import UCIEngine
from agents.protocols.uci_go import go_limit, parse_go
from agents.time.manager import allot, move_limit

from tests.helpers.uci import Recorder, bestmoves, session

# -- go: limits and pondering ------------------------------------------------------------------------


def test_go_limit_from_movetime_a_clock_and_defaults():
    board, black = Board(10), Board(position="3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 b")
    assert go_limit({"movetime": 500}, board, overhead_ms=50) == Limit(time=0.45)
    assert go_limit({"movetime": 5}, board) == Limit(time=0.01)  # never below 10 ms
    # a clock: the time manager's allotment, one source of truth with the arena's --tc
    clock = {"wtime": 60000, "btime": 1000, "winc": 100}
    assert go_limit(clock, board, overhead_ms=30) == allot(board, 60.0, 0.1, None, 0.03)
    clocks = Limit(white_clock=60.0, black_clock=1.0, white_inc=0.1)
    assert go_limit(clock, black, overhead_ms=30) == move_limit(black, clocks, 0.03)
    assert go_limit({**clock, "movestogo": 2}, board, overhead_ms=0) == allot(board, 60.0, 0.1, 2, 0.0)
    assert go_limit({"wtime": -50, "btime": 10}, board) == allot(board, 0.0)  # below zero reads 0
    assert go_limit({"btime": 1000}, board) is None  # White to move: Black's clock alone is no limit
    assert go_limit({}, board) is None and go_limit({"depth": 3}, board, movetime_ms=800) == Limit(depth=3)
    assert go_limit({}, board, movetime_ms=800, overhead_ms=0) == Limit(time=0.8)
    assert parse_go("depth 3 infinite".split()) == {"depth": 3, "infinite": 1}
    assert parse_go("ponder wtime 10 btime -3".split()) == {"ponder": 1, "wtime": 10, "btime": -3}
    for bad in ("depth", "depth -1", "nodes x", "speed 3", "winc -1"):
        with pytest.raises(ValueError):
            parse_go(bad.split())


def test_go_limit_reads_depth_time_and_nodes():
    board = Board(10)
    assert go_limit({"depth": 2, "movetime": 500}, board) == Limit(depth=2)  # depth alone: no time with it
    assert go_limit({"movetime": 300, "nodes": 10}, board, overhead_ms=0) == Limit(time=0.3, nodes=10)
    assert go_limit({}, board) is None and go_limit({"infinite": 1}, board, movetime_ms=800) is None


def test_go_passes_a_limit_the_search_honours_and_leaves_the_agent_unchanged():
    out = io.StringIO()
    engine = UCIEngine("random", out, overhead_ms=50)
    engine.agent = recorder = Recorder()
    for line in ["position startpos", "go depth 3 nodes 50", "go movetime 300", "go nodes 50"]:
        engine.handle(line)
    engine.wait()
    # nodes is not the recorder's: dropped, and with nothing left the agent's own limit is used
    assert recorder.seen == [Limit(depth=3), Limit(time=0.25), Limit(time=5.0)]
    assert recorder.limit == Limit(time=5.0)
    info = out.getvalue().splitlines()[0].split()
    assert info[:7] == ["info", "depth", "1", "score", "cp", "25", "nodes"] and info[7] == "7"


class Patient(SearchAgent):
    """A search that ponders: it thinks until its deadline, wherever another thread moves it, then
    plays the first legal move and expects the reply that is the first legal move after it."""

    name = "patient"
    PONDERS = True

    def __init__(self):
        super().__init__(Limit(time=0.05))
        self.deadlines = []

    def _search(self, board, limit, deadline):
        self.deadlines.append(deadline)
        while not deadline.passed():
            time.sleep(0.002)
        move = board.legal_moves()[0]
        board.push(move)
        reply = None if board.is_game_over() else board.legal_moves()[0]
        board.pop()
        return SearchResult(move, 0.0, stats={"ponder": reply})


def patient_engine():
    out = io.StringIO()
    engine = UCIEngine("random", out)
    engine.agent = Patient()
    return engine, out


def test_clocked_go_is_answered_from_a_thread_with_the_expected_reply():
    engine, out = patient_engine()
    for line in ["position startpos moves d1d6,d6g9", "go wtime 10000 btime 10000 winc 100 binc 100", "isready"]:
        engine.handle(line)
    assert out.getvalue().splitlines() == ["readyok"]  # the loop answered while the search thinks
    engine.wait()
    *_, info, answer = out.getvalue().splitlines()
    words = answer.split()
    assert info.startswith("info ") and words[0] == "bestmove" and words[2] == "ponder"
    board = Board(10)
    board.push("d1d6,d6g9")
    board.push(Move.parse(words[1]))
    assert board.is_legal(Move.parse(words[3]))
    # the search stopped where the time manager said (the agent's clock keeps a little back)
    deadline = engine.agent.deadlines[0]
    assert deadline.stop - deadline.start <= allot(board, 10.0, 0.1, None, 0.05).time


@pytest.mark.parametrize("how", ["ponderhit", "stop"])
def test_go_ponder_thinks_until_ponderhit_or_stop(how):
    engine, out = patient_engine()
    engine.handle("position startpos moves d1d6,d6g9 a7a5,a5b5")  # the expected reply played
    engine.handle("go ponder wtime 2000 btime 3000")
    deadline = engine.thought.thinking.deadline
    assert not engine.thought.thinking.wait(0.2)  # no deadline: it thinks on until told
    assert deadline.stop == float("inf") and not bestmoves(out.getvalue().splitlines())
    before = time.perf_counter()
    engine.handle(how)
    engine.wait()
    if how == "ponderhit":  # this move's time from the hit on, from the clocks sent with go ponder
        board = Board(10)
        board.push("d1d6,d6g9")
        assert before <= deadline.stop <= time.perf_counter() + allot(board, 2.0, overhead=0.05).time
    else:
        assert deadline.stop <= time.perf_counter()
    answers = bestmoves(out.getvalue().splitlines())
    board = Board(10)
    for text in ("d1d6,d6g9", "a7a5,a5b5"):
        board.push(text)
    assert len(answers) == 1 and board.is_legal(Move.parse(answers[0]))
    engine.handle("ponderhit")  # already answered: no second answer
    assert len(bestmoves(out.getvalue().splitlines())) == 1


def test_the_ponder_option_takes_true_or_false():
    out = session(["setoption name Ponder value true", "setoption name Ponder value false", "setoption name Ponder"])
    assert out == ["info string error: setoption: ponder '': use true or false"]


def test_an_abandoned_ponder_search_is_ended_without_an_answer():
    engine, out = patient_engine()
    for line in ["position startpos", "go ponder movetime 100", "position startpos moves d1d6,d6g9", "go movetime 60"]:
        engine.handle(line)
    engine.wait()
    answers = bestmoves(out.getvalue().splitlines())
    board = Board(10)
    board.push("d1d6,d6g9")
    assert len(answers) == 1 and board.is_legal(Move.parse(answers[0]))


def test_an_agent_that_cannot_ponder_holds_its_move_until_ponderhit():
    out = session(["position startpos", "go ponder movetime 50", "isready", "ponderhit", "quit"])
    assert out.index("readyok") < next(i for i, line in enumerate(out) if line.startswith("bestmove"))
    assert len(bestmoves(out)) == 1 and Board(10).is_legal(Move.parse(bestmoves(out)[0]))
