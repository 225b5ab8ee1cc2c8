"""The engine protocols both ways: ``amazons engine --protocol uci`` driven by scripted UCI sessions
(every ``bestmove`` checked legal by our rules and by Fairy-Stockfish's, pyffish), the Botzone mode
on scripted 8x8 exchanges, and the ``uci`` agent driving our own engine as an external process."""

import gc
import io
import subprocess
import sys
import time

import pytest

from amazons_env import Board, InvalidMoveError, Move

from agents import Limit, SearchAgent, SearchResult, make
from agents.arena import play_game
from agents.protocols.botzone import KEEP_RUNNING, NO_MOVE, BotzoneBot, botzone_to_move, move_to_botzone
from agents.protocols.uci_client import EngineError, EngineOptionError, UCIAgent
from agents.protocols.uci_engine import FEN_10, UCIEngine, fen
from agents.protocols.uci_go import go_limit, parse_go
from agents.time.manager import allot, move_limit

ENGINE = f"{sys.executable} -m amazons_cli.main engine --agent random"


def session(lines, agent="random:seed=1"):
    """Run UCI command lines through an in-process engine; its output lines."""
    out = io.StringIO()
    engine = UCIEngine(agent, out)
    engine.run(lines)
    return out.getvalue().splitlines()


def bestmoves(output):
    return [line.split()[1] for line in output if line.startswith("bestmove")]


def fsf_legal(fen_text, moves, answer):
    """Whether Fairy-Stockfish (pyffish) lists ``answer`` after ``moves`` from ``fen_text`` (10x10)."""
    pyffish = pytest.importorskip("pyffish")
    return answer in pyffish.legal_moves("amazons", fen_text, moves)


# -- UCI, engine side ---------------------------------------------------------------------------------


def test_uci_handshake_lists_variant_agent_and_time_options():
    out = session(["uci", "isready", "quit", "uci"])
    assert out[0] == "id name amazons (random:seed=1)"
    assert "option name UCI_Variant type combo default amazons var amazons" in out
    assert any(line.startswith("option name Agent type string default random:seed=1") for line in out)
    assert any(line.startswith("option name MoveTime type spin") for line in out)
    assert "option name Ponder type check default false" in out
    assert out[-2:] == ["uciok", "readyok"]  # nothing after quit


@pytest.mark.parametrize("agent", ["random:seed=2", "alphabeta:depth=1"])
def test_scripted_uci_session_plays_legal_moves_in_every_position(agent):
    moves = ["d1d6,d6g9", "a7a5,a5b5", "g1g5,g5h6"]
    fen8 = "2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1"
    script = [
        "uci",
        "setoption name UCI_Variant value amazons",
        "isready",
        "ucinewgame",
        "position startpos",
        "go movetime 50",
        f"position startpos moves {' '.join(moves)}",
        "go wtime 3000 btime 2000 winc 10 binc 10",
        f"position fen {FEN_10} moves {' '.join(moves[:2])}",
        "go depth 1",
        f"position fen {fen8} moves c1c5,c5f5",
        "go movestogo 5 wtime 500 btime 500",
        "position fen 1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1",
        "go",
        "quit",
    ]
    answers = bestmoves(session(script, agent))
    assert len(answers) == 5
    positions = [
        (FEN_10, []),
        (FEN_10, moves),
        (FEN_10, moves[:2]),
        (fen8, ["c1c5,c5f5"]),
        ("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w", []),
    ]
    for (start, played), answer in zip(positions, answers, strict=True):
        board = Board(position=start)
        for text in played:
            board.push(text)
        assert board.is_legal(Move.parse(answer, board.size)), (start, played, answer)
        if board.size == 10:
            assert fsf_legal(start, played, answer)


def test_go_infinite_holds_the_move_until_stop():
    out = session(["position startpos", "go infinite", "isready", "stop", "stop", "quit"])
    assert out.index("readyok") < next(i for i, line in enumerate(out) if line.startswith("bestmove"))
    assert len(bestmoves(out)) == 1


def test_bad_commands_get_an_error_line_and_the_engine_goes_on():
    out = session(
        [
            "bogus command",
            "setoption name Nope value 1",
            "setoption name UCI_Variant value chess",
            "setoption name Agent value alphabeta:dept=2",
            "setoption name MoveTime value -5",
            "position startpos moves d1d6,d6g9 e9e8,e8e7",  # e9 holds no Black queen
            "go movetime 10",
            "position fen 3q2q3/10 w",
            "go",
            "position startpos",
            "go movetime ten",
            "d",
            "quit",
        ]
    )
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 10, out
    assert "unknown command 'bogus command'" in errors[0] and "unknown option 'nope'" in errors[1]
    assert "chess" in errors[2] and "dept" in errors[3] and "negative" in errors[4]
    assert bestmoves(out)[:2] == ["(none)", "(none)"]  # no position after a bad `position`
    board = Board(10)
    assert board.is_legal(Move.parse(bestmoves(out)[2]))  # a bad `go` is still answered
    assert f"Fen: {FEN_10}" in out


def test_finished_game_answers_none():
    lone = "Q*2/**2/4/3q w"  # White's queen is walled in
    assert Board(position=lone).is_game_over()
    assert bestmoves(session([f"position fen {lone}", "go movetime 10", "quit"])) == ["(none)"]


def test_uci_game_to_the_end_on_6x6():
    """Two engines' moves fed back through `position ... moves`: a whole game of legal moves."""
    board = Board(6)
    start = fen(board)
    engines = [UCIEngine("random:seed=7", io.StringIO()), UCIEngine("alphabeta:depth=1", io.StringIO())]
    while not board.is_game_over():
        engine = engines[board.ply % 2]
        engine.handle(f"position fen {start} moves {' '.join(m.fsf() for m in board.move_stack)}")
        engine.handle("go movetime 20")
        engine.wait()
        answer = engine.out.getvalue().splitlines()[-1].split()[1]
        board.push(Move.parse(answer, 6))
    assert board.ply > 6


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


class Recorder(SearchAgent):
    """A search that plays the first legal move and records the limit of each of its moves."""

    name = "recorder"
    LIMITS = ("time", "depth")

    def __init__(self):
        super().__init__(Limit(time=5.0))
        self.seen = []

    def _search(self, board, limit, deadline):
        self.seen.append(limit)
        return SearchResult(board.legal_moves()[0], 0.25, depth=1, nodes=7)


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


def test_botzone_passes_its_time_per_move_as_a_limit():
    recorder = Recorder()
    BotzoneBot(recorder, io.StringIO(), seconds=0.2, keep_running=False).run(iter(["1", NO_MOVE]))
    BotzoneBot(recorder, io.StringIO(), keep_running=False).run(iter(["1", NO_MOVE]))
    assert recorder.seen == [Limit(time=0.2), Limit(time=5.0)]


def test_engine_subprocess_answers_a_scripted_session():
    script = "uci\nisready\nposition startpos moves d1d6,d6g9\ngo movetime 100\nbogus\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "amazons_cli", "engine", "--agent", "random:seed=3"],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "uciok" in lines and "readyok" in lines
    assert any(line.startswith("info string error: unknown command") for line in lines)
    answer = bestmoves(lines)[0]
    board = Board(10)
    board.push("d1d6,d6g9")
    assert board.is_legal(Move.parse(answer))
    assert fsf_legal(FEN_10, ["d1d6,d6g9"], answer)


# -- Botzone ----------------------------------------------------------------------------------------


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


# -- the uci agent: an external engine ----------------------------------------------------------------


def test_uci_agent_plays_a_game_against_random_through_our_engine():
    with UCIAgent(engine=ENGINE, time=0.05) as agent:
        assert agent._proc is None  # nothing runs until a game starts
        agent.reset()  # starts the engine before the game: its start-up is not thinking time
        process = agent._proc
        result = play_game(agent, make("random", seed=2), Board(6))
        assert result.plies > 6 and agent.last_result is not None
        agent.reset()  # ucinewgame, same process
        assert agent._proc is process and process.poll() is None
        agent.seed(1)
        board = Board(8)
        assert board.is_legal(agent.select_move(board))
    assert process.poll() is not None  # closed on leaving the block


def test_uci_agent_from_a_spec_and_its_process_ends_on_garbage_collection():
    agent = make(f"uci:{ENGINE},time=0.05")  # the bare first value is the engine
    assert agent.spec == f"uci:engine={ENGINE},time=0.05" and make(agent.spec).argv == agent.argv
    assert agent.prove == 0  # an engine's moves are its own: no proven-move shortcut of ours
    board = Board(10)
    board.push("d1d6,d6g9")
    assert agent._position(board) == "position startpos moves d1d6,d6g9"
    assert board.is_legal(agent.select_move(board))
    process = agent._proc
    del agent
    gc.collect()
    assert process.wait(timeout=10) is not None


def test_uci_agent_refuses_bad_options_and_engines():
    with pytest.raises(ValueError, match="not an executable"):
        UCIAgent(engine="/no/such/engine")
    with pytest.raises(ValueError, match="engine=PATH is required"):
        UCIAgent()
    with pytest.raises(ValueError, match="not an executable"):
        make("uci:/no/such/engine,time=1")
    with pytest.raises(ValueError, match="grace"):
        make(f"uci:{ENGINE},grace=0")
    with pytest.raises(ValueError, match="time"):
        UCIAgent(engine=ENGINE, time=-1)
    agent = UCIAgent(engine=ENGINE, Movetme=100)
    with pytest.raises(EngineOptionError, match=r"has no option 'Movetme' \(did you mean 'MoveTime'\?\)"):
        agent.select_move(Board(6))
    assert agent._proc is None  # killed, not left behind


HUNG = """import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ''
    if word == 'uci': print('uciok', flush=True)
    if word == 'isready': print('readyok', flush=True)
    if word == 'go' and ILLEGAL: print('bestmove a1a2,a2a3', flush=True)
"""


@pytest.mark.parametrize("illegal", [False, True])
def test_uci_agent_times_out_a_silent_engine_and_refuses_illegal_answers(tmp_path, illegal):
    script = tmp_path / "engine.py"
    script.write_text(HUNG.replace("ILLEGAL", str(illegal)))
    agent = UCIAgent(engine=f"{sys.executable} {script}", time=0.05, grace=0.3)
    with pytest.raises(EngineError, match="illegal move" if illegal else "gave no bestmove"):
        agent.select_move(Board(6))
    assert agent._proc is None
