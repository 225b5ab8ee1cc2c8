"""Broken peers on both sides of the engine protocols.

External engines (``uci`` agent): fake engines, small Python scripts, that hang, flood (in the
handshake or while thinking), fork, never finish the handshake, die mid-game or never answer a
move. Each must end in an
``EngineError`` (or a move) within its deadline, and leave no process behind: every fake engine
writes its own pid and those of the processes it starts to a file, and each is checked dead
(or a zombie waiting for init) after the agent is closed.

Our engine (``amazons engine``): ``stop`` answered within ``STOP_WAIT`` however the search was
started, ``isready`` answered during a search that would run for ever, numbers out of range
clamped, the ``Agent`` option refusing files and programs from the wire, Botzone's loop bounded
by its input.
"""

import io
import os
import sys
import textwrap
import time

import pytest

from amazons_env import Board, InvalidMoveError, Move

from agents.protocols.botzone import GRACE, BotzoneBot, botzone_to_move
from agents.protocols.uci_client import EngineError, UCIAgent
from agents.protocols.uci_engine import STOP_WAIT, UCIEngine
from agents.random_agent import RandomAgent

FAKE = textwrap.dedent(
    """
    import os, subprocess, sys, time
    mode, pids = sys.argv[1], sys.argv[2]
    def note(pid):
        with open(pids, "a") as f:
            f.write(f"{pid}\\n")
    note(os.getpid())
    if mode == "fork":  # a child that holds our output pipe and never reads stdin
        note(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)
    def say(text):
        print(text, flush=True)
    for line in sys.stdin:
        words = line.split()
        command = words[0] if words else ""
        if mode == "hang":
            continue
        if command == "uci":
            if mode == "flood":
                while True:
                    say("info string flooding " + "x" * 100)
            say("id name fake")
            say("option name Hash type spin default 16 min 1 max 1024")
            say("uciok")
        elif command == "isready" and mode != "no-ready":
            say("readyok")
        elif command == "go":
            if mode == "die":
                sys.exit(3)
            if mode == "silent":
                continue
            while mode == "flood-go":
                say("info depth 1 nodes 1")
            say("info depth \\u00b2 nodes 12 score cp " + "9" * 400)
            say("bestmove d1d6,d6g9")
        elif command == "quit":
            break
    """
)


@pytest.fixture
def fake(tmp_path):
    """A factory of fake engines: ``fake(mode, wrapped=False)`` -> (agent, pid file)."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    made = []

    def make_fake(mode, wrapped=False, **options):
        pids = tmp_path / f"{mode}.pids"
        command = f"{sys.executable} {script} {mode} {pids}"
        if wrapped:  # a wrapper that does not exec the engine: the shell stays, the engine is its child
            command = f"sh -c '{command}; true'"
        agent = UCIAgent(engine=command, time=0.2, grace=0.3, handshake=1.0, **options)
        made.append((agent, pids))
        return agent, pids

    yield make_fake
    for agent, pids in made:
        agent.close()
        assert_all_gone(pids)


def assert_all_gone(pids, within=3.0):
    """Every pid in the file ended (a zombie that init has not reaped yet counts as ended)."""
    if not pids.exists():
        return
    listed = [int(line) for line in pids.read_text().split()]
    by = time.monotonic() + within
    alive = listed
    while alive and time.monotonic() < by:
        alive = [pid for pid in listed if running(pid)]
        time.sleep(0.02)
    assert not alive, f"orphans left: {alive}"


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def timed(call):
    started = time.perf_counter()
    try:
        return call(), time.perf_counter() - started
    except EngineError as error:
        return error, time.perf_counter() - started


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states from /proc")


@needs_proc
@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("hang", "gave no 'uciok' within the handshake's 1 s; it said nothing"),
        ("flood", "gave no 'uciok' within the handshake's 1 s; its last line: 'info string flooding"),
        ("no-ready", "gave no 'readyok' within the handshake's 1 s; its last line: 'uciok'"),
    ],
)
def test_a_handshake_that_never_ends_fails_by_its_deadline(fake, mode, said):
    agent, _ = fake(mode)
    error, seconds = timed(lambda: agent.search(Board(10)))
    assert isinstance(error, EngineError) and said in str(error) and "fake_engine.py" in str(error)
    assert seconds < 3.0


@needs_proc
def test_an_engine_that_dies_or_never_answers_a_move_fails_naming_it(fake):
    dying, _ = fake("die")
    error, _ = timed(lambda: dying.search(Board(10)))
    assert isinstance(error, EngineError) and "exited (code 3) while thinking" in str(error)
    for mode in ("silent", "flood-go"):
        agent, _ = fake(mode)
        error, seconds = timed(lambda agent=agent: agent.search(Board(10)))
        assert isinstance(error, EngineError) and "gave no bestmove" in str(error) and seconds < 3.0


@needs_proc
@pytest.mark.parametrize("wrapped", [False, True])
def test_a_forking_or_wrapped_engine_is_ended_with_its_children(fake, wrapped):
    agent, pids = fake("fork", wrapped=wrapped)
    result = agent.search(Board(10))
    assert result.move == Move.parse("d1d6,d6g9") and result.depth == 0  # the garbled info is ignored
    started = time.perf_counter()
    agent.close()  # the child holding the pipe used to deadlock this
    assert time.perf_counter() - started < 3.0
    assert_all_gone(pids)


# -- our engine, under a GUI that pushes it ---------------------------------------------------------


def lines_of(engine):
    return engine.out.getvalue().splitlines()


@pytest.mark.parametrize(
    ("agent", "go"),
    [
        ("alphabeta", "go depth 99999999999999999999"),  # clamped, then a fixed-depth search for ever
        ("alphabeta", "go movetime 60000"),
        ("uct", "go btime 9" + "9" * 400 + " wtime 1000"),  # past a float: clamped, not an OverflowError
        ("uct:sims=100000000", "go infinite"),
    ],
    ids=["alphabeta-depth", "alphabeta-movetime", "uct-clock", "uct-infinite"],
)
def test_stop_is_answered_at_once_and_isready_during_any_search(agent, go):
    engine = UCIEngine(agent, io.StringIO())
    for line in ["isready", "position startpos moves d1d6,d6g9", go]:
        engine.handle(line)
    time.sleep(0.3)
    engine.handle("isready")
    assert lines_of(engine)[-1] == "readyok"
    started = time.perf_counter()
    engine.handle("stop")
    assert time.perf_counter() - started < STOP_WAIT + 0.5  # generous: a loaded machine
    answer = lines_of(engine)[-1].split()
    assert answer[0] == "bestmove"
    board = Board(10)
    board.push("d1d6,d6g9")
    assert board.is_legal(Move.parse(answer[1]))
    assert engine.wait(10.0)


class Stubborn(RandomAgent):
    """An agent whose move takes seconds and cannot be halted."""

    def select_move(self, board):
        time.sleep(1.0)
        return super().select_move(board)


def test_a_search_that_ignores_stop_is_answered_for_and_quit_does_not_wait():
    engine = UCIEngine("random", io.StringIO())
    engine.agent = Stubborn()
    engine.handle("position startpos")
    engine.handle("go movetime 5000")
    started = time.perf_counter()
    assert engine.handle("quit") is False
    assert time.perf_counter() - started < STOP_WAIT + 0.5
    out = lines_of(engine)
    assert "did not stop within" in out[-2] and out[-1] == "bestmove " + Board(10).legal_moves()[0].fsf()
    engine.wait()
    assert lines_of(engine) == out  # its own answer, come later, is dropped


def test_the_agent_option_takes_registered_agents_only_unless_files_are_allowed(tmp_path):
    script = tmp_path / "evil.py"
    witness = tmp_path / "ran"
    script.write_text(f"open({str(witness)!r}, 'w').close()\nclass Agent: pass\n")
    engine = UCIEngine("random", io.StringIO())
    for spec in (f"{script}:Agent", "os.path:join", "uci:/bin/sh", f"alphabeta:eval={script}:Agent"):
        engine.handle(f"setoption name Agent value {spec}")
        assert "over the protocol" in lines_of(engine)[-1], spec
    engine.handle("isready")
    assert not witness.exists() and engine.spec == "random"
    engine.handle("setoption name Agent value alphabeta:depth=1,eval=territory")
    assert engine.spec == "alphabeta:depth=1,eval=territory"
    trusting = UCIEngine("random", io.StringIO(), allow_files=True)
    trusting.handle(f"setoption name Agent value {script}:Agent")
    assert witness.exists()  # imported: allowed on the command line's word


def test_out_of_range_numbers_are_clamped_or_refused_with_a_line():
    engine = UCIEngine("random:seed=1", io.StringIO())
    engine.handle("setoption name MoveTime value 99999999999")
    engine.handle("setoption name Move Overhead value 1" + "0" * 500)
    engine.handle("position startpos")
    engine.handle("go movetime " + "9" * 400)
    engine.wait()
    out = lines_of(engine)
    assert "must be in 0..86400000" in out[0] and "must be in 0..5000" in out[1]
    assert "clamped to 31536000000" in out[2] and out[-1].startswith("bestmove")
    assert engine.movetime_ms == 0 and engine.overhead_ms == 50


def test_botzone_answers_by_its_time_when_the_agent_overruns(capsys):
    out = io.StringIO()
    bot = BotzoneBot(Stubborn(), out, seconds=0.1, keep_running=False)
    started = time.perf_counter()
    bot.run(iter(["1", "-1 -1 -1 -1 -1 -1"]))
    assert time.perf_counter() - started < 0.1 + GRACE + 0.5
    assert botzone_to_move(out.getvalue().splitlines()[0]) == Board(8).legal_moves()[0]
    assert "did not stop in time" in capsys.readouterr().err


def test_botzone_reads_no_further_than_its_input():
    bot = BotzoneBot(RandomAgent(seed=1), io.StringIO())
    started = time.perf_counter()
    for first, needs in (("99999999999999999999", "must be in 1..64"), ("40", "ended before its 79")):
        with pytest.raises(InvalidMoveError, match=needs):
            bot.run(iter([first, "-1 -1 -1 -1 -1 -1"]))
    assert time.perf_counter() - started < 1.0


def test_the_engine_command_reads_a_line_without_end_in_bounded_pieces(monkeypatch, capsys):
    from amazons_cli.main import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("x" * 200_000 + "\nuci\nquit\n"))
    assert main(["engine", "--agent", "random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert sum("unknown command" in line for line in out) == 4 and out[-1] == "uciok"  # 200,000 chars: 4 pieces
    assert max(len(line) for line in out) < 200  # the error lines quote a piece cut short
