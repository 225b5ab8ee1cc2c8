"""``amazons play``, ``watch`` and ``replay``: scripted games on 6x6 against the random agent (the
pygame window of ``play --gui``: test_window.py)."""

from __future__ import annotations

import io
import re
import sys
from typing import Sequence

import pytest

from amazons_env import Board, Color, GameRecord, Move, square_name

from agents.ui.human_moves import take_back
from agents.ui.opponent import make_player
from agents.ui.terminal import TerminalGame

from amazons_cli.main import main
from amazons_cli.replay import Replay


def scripted(game: TerminalGame, lines: list[str]):
    """A ``read`` for ``game``: the given lines first, then the first legal move each turn (in
    turn: standard notation, Fairy-Stockfish notation, two halves), then the end of input."""
    queue = list(lines)

    def read(prompt: str) -> str:
        if not queue:
            if game.over:
                raise EOFError
            move = game.board.legal_moves()[0]
            style = game.board.ply // 2 % 3
            if style == 2:
                queue.append(square_name(move.arrow, move.size))
            queue.insert(0, (str(move), move.fsf(), str(move).partition("/")[0])[style])
        line = queue.pop(0)
        game.out.write(f"{prompt}{line}\n")
        return line

    return read


def new_game(human: Color = Color.WHITE, lines: Sequence[str] = (), seed: int = 1) -> TerminalGame:
    game = TerminalGame(make_player("random", seed=seed), human, Board(6), out=io.StringIO())
    game.read = scripted(game, list(lines))
    return game


def test_a_whole_game_with_bad_input_queries_undo_and_save(tmp_path):
    path = tmp_path / "game.sgf"
    game = new_game(
        lines=[
            "",
            "help",
            "xyz",
            "k9",
            "b6",
            "b1-b6/b5",
            "a2-a4/a6",
            "c3",
            "b1",  # the targets of the queen on b1
            "b1-b4",
            "b4",
            "b5",  # a slide, a bad arrow, the arrow: the move and the reply
            "undo",  # both taken back
            "undo",  # nothing left to take back
            "b1-b4",
            "undo",  # a half-made move cancelled
            "b1b4,b4b5",  # the same move in Fairy-Stockfish notation
            f"save {tmp_path / 'middle.txt'}",
            "save",
            f"save {tmp_path / 'no' / 'dir.sgf'}",
        ]
    )
    assert game.run() == 0
    text = game.out.getvalue()
    for expected in (
        "Moves:   e1-e2/a6 or e1e2,e2a6",  # help, in squares of this 6x6 board
        "'xyz' is not a move",
        "square 'k9' is off a 6x6 board",
        "b6 is a Black queen; your queens are Q",
        "b1-b6/b5 is not legal: the queen on b1 cannot reach b6",
        "a2-a4/a6 is not legal: from a4 the arrow cannot reach a6",
        "c3 is empty",
        "b1 can move to: a1 c1 d1 b2 c2 b3 d3 b4 e4 b5",
        "b1-b4: the arrow can go to b1 b2 d2 a3 b3 c3 a4 c4 d4 e4 f4 b5 c5 d6",
        "1. White, arrow from b4> b4",
        "random is thinking...",
        "Took back b1-b4/b5 ",
        "Nothing to undo",
        "Move cancelled.",
        "Saved 2 moves to",
        "save needs a file name",
        "cannot save to",
        "Game over after",
    ):
        assert expected in text, expected
    assert "Traceback" not in text
    board = game.board
    assert board.is_game_over() and board.move_stack[0] == Move.parse("b1-b4/b5", 6)
    middle = GameRecord.load(tmp_path / "middle.txt")
    assert [str(m) for m in middle.moves[:1]] == ["b1-b4/b5"] and len(middle.moves) == 2
    # after the end: moves are refused, the game saves as SGF and loads back to the same position
    game.read = scripted(game, ["a1", f"save {path}"])
    assert game.run() == 0
    assert "The game is over: undo, save FILE or quit." in game.out.getvalue()
    record = GameRecord.load(path)
    assert record.board() == board and record.moves == tuple(board.move_stack)
    assert record.result == board.outcome().result()
    assert record.headers == {"White": "human", "Black": "random"}


def test_a_non_move_is_named_as_typed_and_the_diagram_marks_the_last_move():
    game = new_game(lines=["b1-b1", "b1-b1/b2", "b1-b4/b4", "b1b4,b4b4", "b1-b4/b5", "quit"])
    assert game.run() == 0
    text = game.out.getvalue()
    assert "Move(" not in text  # the constructor's words, which the player did not type
    assert "b1-b1: a queen must move to another square" in text
    for typed in ("b1-b1/b2", "b1-b4/b4", "b1b4,b4b4"):
        assert f"'{typed}' is not a move: a queen must leave its square, and its arrow the queen's new square" in text
    reply = game.board.peek()  # the engine's reply to b1-b4/b5: its three squares in brackets
    diagram = text[text.rindex(" 6 ") :]
    marks = [(rank, file) for rank, line in zip(range(6, 0, -1), diagram.splitlines()) for file in range(6)
             if line[2 + 2 * file] == "["]  # fmt: skip
    n = 6
    assert sorted(marks) == sorted({(s // n + 1, s % n) for s in (reply.from_square, reply.to_square, reply.arrow)})


def test_help_speaks_in_squares_of_the_board_played():
    from agents.ui.terminal import help_text

    for size in (4, 6, 8, 10, 12):
        moves = help_text(size).splitlines()[0]
        typed = moves.split()[1]
        assert Board(size).is_legal(Move.parse(typed, size)), (size, moves)


def test_playing_black_the_agent_moves_first_and_undo_keeps_its_first_move():
    game = new_game(Color.BLACK, ["undo", "quit"])
    assert game.run() == 0
    assert game.board.ply == 1 and "Nothing to undo" in game.out.getvalue()
    game.handle(str(game.board.legal_moves()[0]))
    assert game.board.ply == 3
    game.handle("undo")
    assert game.board.ply == 1 and game.board.turn == Color.BLACK


def test_take_back_stops_before_the_humans_last_move():
    board = Board(6)
    for _ in range(3):
        board.push(board.legal_moves()[0])
    moves = board.move_stack
    assert take_back(board, Color.BLACK) == moves[1:] and board.ply == 1
    assert take_back(board, Color.BLACK) == [] and board.ply == 1
    assert take_back(board, Color.WHITE) == moves[:1] and board.ply == 0


def test_resign_then_save_records_the_result(tmp_path):
    game = new_game(Color.WHITE, ["b1-b4/b5", "resign", "b1", "resign", f"save {tmp_path / 'r.sgf'}"])
    assert game.run() == 0
    text = game.out.getvalue()
    assert "you resigned. random wins." in text and "The game is already over." in text
    record = GameRecord.load(tmp_path / "r.sgf")
    assert record.result == "0-1" and len(record.moves) == 2
    game.handle("undo")
    assert not game.over and "Resignation taken back." in game.out.getvalue()


def test_ctrl_c_and_end_of_input_exit_cleanly():
    game = new_game()

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    game.read = interrupt
    assert game.run() == 130 and game.out.getvalue().endswith("interrupted\n")
    game = new_game()
    game.read = lambda prompt: (_ for _ in ()).throw(EOFError)
    assert game.run() == 0


HINT_LINE = re.compile(r"hint: (\S+) \(value [+-][01]\.\d\d for White, \d+\.\d s\)")


def test_hint_and_eval_answer_in_notation_at_any_point_and_not_after_the_end():
    game = TerminalGame(make_player("uct:sims=200,seed=1"), Color.WHITE, Board(6), out=io.StringIO())
    lines = ["help", "hint", "eval", "b1-b4/b5", "hint", "undo", "hint", "b1-b4", "eval alphabeta:depth=1"]
    game.read = scripted(game, lines + ["hint random", "hint nosuch", "resign", "hint", "eval", "quit"])
    assert game.run() == 0
    text = game.out.getvalue()
    assert "hint (the engine's best move for you" in text and "eval (the value and, for uct" in text  # help
    first, later, after_undo = HINT_LINE.findall(text)
    assert first == after_undo  # a fresh engine each time, seeded by its spec: the same hint
    reply = re.search(r"uct is thinking\.\.\. (\S+/\S+) \(", text)
    assert reply is not None
    board = Board(6)
    assert board.is_legal(Move.parse(first, 6))
    board.push("b1-b4/b5")
    board.push(reply.group(1))
    assert board.is_legal(Move.parse(later, 6))
    table = re.search(rf"eval: value [+-][01]\.\d\d for White, best {first} \(\d+\.\d s\)\n  move +visits\n", text)
    assert table is not None
    rows = re.findall(r"^  (\S+) +(\d+\.\d)%(?:  best)?$", text[table.end() :], re.M)[:5]
    assert len(rows) == 5 and all(Board(6).is_legal(Move.parse(move, 6)) for move, _ in rows)
    shares = [float(share) for _, share in rows]
    assert shares == sorted(shares, reverse=True) and sum(shares) <= 100.05
    assert re.search(r"1\. White, arrow from b4> eval alphabeta:depth=1\nalphabeta is thinking\.\.\. eval: ", text)
    assert "'random' does not search" in text and "nosuch" in text and "Traceback" not in text
    assert text.count("The game is over: no hint (undo, save FILE or quit).") == 2


def test_the_hint_finds_the_only_winning_move_and_the_finished_game_gets_one_line():
    position = "******/**Q***/*q2**/*****1/******/*****1 w"  # c5-c4/c5 wins; any other move loses
    game = TerminalGame(make_player("alphabeta:depth=2"), Color.WHITE, Board.from_text(position), out=io.StringIO())
    game.read = scripted(game, ["hint", "c5-c4/c5", "hint", "quit"])
    assert game.run() == 0
    text = game.out.getvalue()
    assert "hint: c5-c4/c5 (value +1.00 for White, a proven win, " in text and "You win!" in text
    assert text.rstrip().endswith(
        "game over> hint\nThe game is over: no hint (undo, save FILE or quit).\ngame over> quit"
    )


def test_the_play_command_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("b1\nb1-b4/b5\nundo\nfoo\n"))
    assert main(["play", "random", "--size", "6", "--seed", "3", "--time", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "You play White (Q) against random on 6x6" in out
    assert "b1 can move to:" in out and "random is thinking..." in out and "Took back b1-b4/b5" in out
    assert "'foo' is not a move" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--opponent", "random", "--size", "6", "--color", "black", "--seed", "3"]) == 0
    assert "You play Black (q)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "random", "--size", "3"], "board size"),
        (["play", "no-such-agent"], "no-such-agent"),
        (["play", "random", "--opponent", "mcts"], "two opponents"),
        (["watch", "random", "random", "--opening", "-1"], "--opening"),
        (["replay", "no/such/file.sgf"], "no/such/file.sgf"),
    ],
)
def test_bad_arguments_get_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--time", "-1"],
        ["play", "--time", "nan"],
        ["play", "--time", "0"],
        ["watch", "a", "b", "--delay", "inf"],
        ["play", "--color", "red"],
    ],
)
def test_bad_numbers_are_refused_by_the_parser(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2


@pytest.mark.parametrize("command", ["play", "watch", "replay"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0 and f"usage: amazons {command}" in capsys.readouterr().out


def test_watch_then_replay(tmp_path, capsys):
    path = tmp_path / "watched.sgf"
    assert (
        main(["watch", "random", "random:seed=5", "--size", "6", "--delay", "0", "--opening", "2", "--save", str(path)])
        == 0
    )
    out = capsys.readouterr().out
    record = GameRecord.load(path)
    board = record.board()
    assert board.is_game_over() and record.result == board.outcome().result()
    assert out.count("is thinking") == len(record.moves) - 2  # the opening plies are not thought
    assert f"{str(board)}\n" in out and f"won.\nSaved {len(record.moves)} moves" in out

    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count("   a b c d e f") == len(record.moves) + 1
    assert out.rstrip().endswith("won.") and str(board) in out

    answers = iter(["", "", "b", "5", "zz", "99", "0", "b", "q"])
    replay = Replay(record, io.StringIO(), lambda prompt: next(answers))
    assert replay.run() == 0 and replay.position == 0
    text = replay.out.getvalue()
    assert "Move 2/" in text and "Move 5/" in text and "'zz'" in text and "'99'" in text
    assert "Already at the start." in text


def test_replay_picks_a_game_of_a_collection(tmp_path, capsys):
    path = tmp_path / "two.sgf"
    GameRecord.save_all([GameRecord(["b1-b4/b5"], size=6), GameRecord(["e1-e4/e5"], size=6)], path)
    assert main(["replay", str(path), "--game", "2", "--all"]) == 0
    out = capsys.readouterr().out
    assert "Game 2 of 2" in out and "Move 1/1: e1-e4/e5 by White" in out and "Unfinished" in out
    assert main(["replay", str(path), "--game", "3"]) == 2
    assert "holds 2 games" in capsys.readouterr().err
