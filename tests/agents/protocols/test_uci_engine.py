"""``amazons engine --protocol uci`` driven by scripted UCI sessions: the handshake, positions and
``go``, bad commands, whole games, and the engine as a subprocess (every ``bestmove`` checked legal
by our rules and by Fairy-Stockfish's, pyffish)."""

import io
import subprocess
import sys

import pytest

from amazons_env import Board, Move

from agents.protocols.uci_engine import FEN_10, UCIEngine, fen

from tests.helpers.uci import bestmoves, fsf_legal, session

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
