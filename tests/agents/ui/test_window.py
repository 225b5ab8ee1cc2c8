"""The game window (``amazons play --gui``) under SDL's dummy video driver: clicks at square centres,
keys and buttons in; the game's state, the status line and the window's pixels out. Games on 6x6
against fast seeded engines, so every run is the same."""

from __future__ import annotations

import sys
import time
from typing import Iterator

import numpy as np
import pytest

from amazons_env import Board, Color, GameRecord, Move, parse_square
from amazons_env.drawing.render import rgb_array

from agents.ui.opponent import make_player
from agents.ui.window_drawing import COLOURS, frame_width, value_split
from agents.ui.window_layout import Layout

from amazons_cli.main import main

TINT = tuple(rgb_array(np.zeros((4, 4), np.uint8), last=(0,))[-1, 0])  # the last move's tint, as drawn
BLUE = tuple(rgb_array(np.zeros((4, 4), np.uint8), targets=(0,), cell=40)[-20, 20])  # a target's dot


@pytest.fixture
def pygame(monkeypatch):
    module = pytest.importorskip("pygame", reason="the game window needs pygame: pip install -e '.[render]'")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a display
    return module


@pytest.fixture
def window(pygame, tmp_path) -> Iterator:
    """``window(spec, human)``: an open window against ``make_player(spec, seed=1)`` on 6x6 that
    saves into ``tmp_path``; closed after the test."""
    from agents.ui.window import ClickGame

    opened = []

    def open_window(spec: str = "random", human: Color = Color.WHITE, size=(720, 480)) -> ClickGame:
        click_game = ClickGame(make_player(spec, seed=1), human, Board(6), size=size, folder=tmp_path)
        click_game.open()
        opened.append(click_game)
        settle(click_game)
        return click_game

    yield open_window
    for click_game in opened:
        click_game.close()


def settle(click_game) -> None:
    """Step until the engine has answered (it thinks on a thread), then once more to draw."""
    click_game.step()
    deadline = time.monotonic() + 30
    while click_game.game.busy:
        assert time.monotonic() < deadline, "the engine did not answer in 30 s"
        time.sleep(0.002)
        click_game.step()
    click_game.step()


def post_click(pygame, click_game, square: int, button: int = 1) -> None:
    pos = click_game.layout.square_box(square).centre
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))


def post_key(pygame, key: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))


def post_button(pygame, click_game, name: str) -> None:
    pos = click_game.layout.buttons[name].centre
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))


def play_by_clicks(pygame, click_game, move: Move) -> None:
    for square in (move.from_square, move.to_square, move.arrow):
        post_click(pygame, click_game, square)
    click_game.step()


def pixel(click_game, pos: tuple[int, int]) -> tuple[int, ...]:
    return tuple(click_game.screen.get_at(pos))[:3]


def corner(click_game, square: int, inset: int = 1) -> tuple[int, ...]:
    box = click_game.layout.square_box(square)
    return pixel(click_game, (box.x + inset, box.y + inset))


def assert_marked(click_game, move: Move) -> None:
    """The last move's marks: from tinted, to tinted and framed, the arrow framed; each distinct."""
    inside = frame_width(click_game.layout.cell) + 1  # past the frame, off the piece
    assert corner(click_game, move.to_square) == COLOURS["to frame"]
    assert corner(click_game, move.to_square, inside) == TINT
    assert corner(click_game, move.arrow) == COLOURS["arrow frame"]
    if move.arrow == move.from_square:  # shot back where the queen came from: tinted and framed
        assert corner(click_game, move.arrow, inside) == TINT
    else:
        assert corner(click_game, move.from_square) == TINT
        assert corner(click_game, move.arrow, inside) not in (TINT, COLOURS["to frame"], COLOURS["arrow frame"])


def test_a_whole_game_by_clicks_against_uct(pygame, window):
    click_game = window("uct:sims=30")
    game, layout = click_game.game, click_game.layout
    assert pixel(click_game, layout.value.centre) == COLOURS["panel"]  # no engine move yet: no value
    while not game.over:
        side = game.board.turn.name.capitalize()
        assert game.status().startswith(f"{side} (you) to move: click a queen")
        move = game.board.legal_moves()[-1]
        play_by_clicks(pygame, click_game, move)
        assert_marked(click_game, move)
        if game.over:
            break
        assert game.status().startswith("Black (uct) to move: uct is thinking")
        settle(click_game)
        assert_marked(click_game, game.board.peek())
        assert game.move_lines() == [f"{i}. {m}" for i, m in enumerate(game.board.move_stack, 1)]
        # the value bar: White's share from the left, then Black's, as the engine's value says
        value = game.value()
        assert value is not None and -1 <= value <= 1
        split = value_split(layout.value, value)
        if layout.value.x + 3 < split < layout.value.x + layout.value.w - 3:
            assert pixel(click_game, (split - 2, layout.value.centre[1])) == COLOURS["value white"]
            assert pixel(click_game, (split + 2, layout.value.centre[1])) == COLOURS["value black"]
    winner = game.board.winner
    assert winner is not None
    who = "you" if winner == Color.WHITE else "uct"
    assert f"no move for {winner.other.name.capitalize()}. {winner.name.capitalize()} ({who}) wins." in game.status()


def test_a_half_made_move_shows_its_targets_and_cancels(pygame, window):
    click_game = window()
    game = click_game.game
    b1, b4 = parse_square("b1", 6), parse_square("b4", 6)
    post_click(pygame, click_game, parse_square("c3", 6))  # an empty square: nothing picked
    post_click(pygame, click_game, b1)
    click_game.step()
    assert game.picked == b1 and "click where it goes" in game.status()
    dot = click_game.layout.square_box(b4).centre
    assert pixel(click_game, dot) == BLUE
    post_click(pygame, click_game, parse_square("f6", 6))  # not a target, not our queen: dropped
    post_click(pygame, click_game, b1)
    post_click(pygame, click_game, b4)
    click_game.step()
    assert (
        "click where it shoots" in game.status() and pixel(click_game, click_game.layout.square_box(b1).centre) == BLUE
    )
    post_click(pygame, click_game, b1, button=3)  # right click cancels
    click_game.step()
    assert game.picked is None and "click a queen" in game.status()
    post_click(pygame, click_game, b1)
    post_key(pygame, pygame.K_ESCAPE)  # so does Escape
    click_game.step()
    assert game.picked is None and game.board.ply == 0


def test_undo_restores_the_position_by_key_and_by_button(pygame, window):
    click_game = window()
    game = click_game.game
    post_key(pygame, pygame.K_u)
    click_game.step()
    assert "Nothing to undo: you have not moved yet." in game.status()
    play_by_clicks(pygame, click_game, Move.parse("b1-b4/b5", 6))
    settle(click_game)
    after_one = game.board.copy()
    play_by_clicks(pygame, click_game, game.board.legal_moves()[0])
    settle(click_game)
    assert game.board.ply == 4
    post_key(pygame, pygame.K_u)
    click_game.step()
    assert game.board == after_one and game.board.move_stack == after_one.move_stack
    assert_marked(click_game, game.board.peek())
    post_button(pygame, click_game, "undo")
    click_game.step()
    assert game.board == Board(6) and game.board.ply == 0 and "Took back b1-b4/b5" in game.status()


def test_an_undo_while_the_engine_thinks_drops_its_answer(pygame, window):
    click_game = window("uct:sims=300")
    game = click_game.game
    play_by_clicks(pygame, click_game, Move.parse("b1-b4/b5", 6))
    assert game.busy
    game.undo()
    settle(click_game)
    assert game.board.ply == 0 and game.status().startswith("White (you) to move")


def test_hint_shows_a_legal_move_on_the_board_and_in_the_status(pygame, window):
    click_game = window("uct:sims=30")
    game = click_game.game
    # the click handled as step() handles it, the status read before step() polls the search: a
    # 30-simulation search can finish within one step, so a status read after it could miss "thinking"
    click_game.mouse(click_game.layout.buttons["hint"].centre, 1)
    assert game.busy and "hint: uct is thinking" in game.status()
    settle(click_game)
    hint = game.hint
    assert hint is not None and game.board.is_legal(hint.move)
    assert f"hint: {hint.move} (value" in game.status()
    for square in (hint.move.from_square, hint.move.to_square, hint.move.arrow):
        assert corner(click_game, square) == COLOURS["hint"]
    play_by_clicks(pygame, click_game, hint.move)  # played, the hint goes
    assert game.hint is None
    settle(click_game)
    # an engine that does not search gives no hint, and says so
    click_game = window("random")
    post_key(pygame, pygame.K_h)
    settle(click_game)
    assert click_game.game.hint is None and "does not search" in click_game.game.status()


def test_save_says_where_the_file_went(pygame, window, tmp_path, monkeypatch):
    from agents.ui.window import ClickGame

    monkeypatch.chdir(tmp_path)  # the default folder is the current one: the notice names it in full
    click_game = ClickGame(make_player("random", seed=1), Color.WHITE, Board(6), size=(720, 480))
    click_game.game.save()
    (path,) = tmp_path.glob("amazons-*.sgf")
    assert click_game.game.notice == f"Saved 0 moves to {path}"


def test_save_writes_an_sgf_that_reads_back(pygame, window, tmp_path):
    click_game = window()
    game = click_game.game
    play_by_clicks(pygame, click_game, Move.parse("b1-b4/b5", 6))
    settle(click_game)
    post_key(pygame, pygame.K_s)
    post_button(pygame, click_game, "save")  # twice in a second: a second file, not the first overwritten
    click_game.step()
    paths = sorted(tmp_path.glob("amazons-*.sgf"))
    assert len(paths) == 2 and any(f"Saved 2 moves to {path}" in game.status() for path in paths)
    for path in paths:
        record = GameRecord.load(path)
        assert record.moves == tuple(game.board.move_stack) and record.board() == game.board
        assert record.result is None and record.headers == {"White": "human", "Black": "random"}


def test_resign_ends_the_game_with_the_right_winner(pygame, window, tmp_path):
    click_game = window(human=Color.BLACK)  # the engine opens
    game = click_game.game
    assert game.board.ply == 1 and game.status().startswith("Black (you) to move")
    assert game.value() is None and pixel(click_game, click_game.layout.value.centre) == COLOURS["panel"]
    post_button(pygame, click_game, "resign")
    click_game.step()
    assert game.over and "Black resigned. White (random) wins." in game.status()
    post_click(pygame, click_game, game.board.legal_moves()[0].from_square)  # the game is over: no move
    post_key(pygame, pygame.K_h)
    post_key(pygame, pygame.K_s)
    click_game.step()
    assert game.picked is None and not game.busy
    assert GameRecord.load(next(tmp_path.glob("*.sgf"))).result == "1-0"
    post_key(pygame, pygame.K_u)
    click_game.step()
    assert not game.over and "Resignation taken back." in game.status()
    post_key(pygame, pygame.K_n)  # a new game: the engine opens again
    settle(click_game)
    assert game.board.ply == 1 and not game.over


def test_resizing_lays_the_window_out_again(pygame, window):
    click_game = window()
    before = click_game.layout
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(1000, 760), w=1000, h=760))
    click_game.step()
    layout = click_game.layout
    assert click_game.screen.get_size() == (1000, 760) and layout.cell > before.cell
    for square in range(36):
        assert layout.square_at(layout.square_box(square).centre) == square
    assert layout.board.x + layout.board.w <= layout.panel.x and layout.status.y + layout.status.h == 760
    play_by_clicks(pygame, click_game, Move.parse("e1-e4/e5", 6))  # clicks land on the new squares
    assert_marked(click_game, click_game.game.board.peek())
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(50, 50), w=50, h=50))
    click_game.step()
    assert click_game.screen.get_size() == (240, 180)  # no smaller than the board and panel need


def test_the_move_list_scrolls_and_follows_the_game(pygame, window):
    click_game = window("random", size=(240, 180))
    game = click_game.game
    for _ in range(4):
        play_by_clicks(pygame, click_game, game.board.legal_moves()[0])
        settle(click_game)
    rows = click_game.layout.move_rows()
    assert 0 < rows < game.board.ply == 8 and click_game.first_line is None
    post_key(pygame, pygame.K_HOME)
    click_game.step()
    assert click_game.first_line == 0
    pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-1))  # wheel down: towards the end
    click_game.step()
    assert click_game.first_line == (3 if 3 < 8 - rows else None)  # None: at the end, following it
    post_key(pygame, pygame.K_END)
    click_game.step()
    assert click_game.first_line is None


def test_closing_and_q_stop_the_window(pygame, window):
    click_game = window()
    post_key(pygame, pygame.K_q)
    click_game.step()
    assert not click_game.running
    click_game = window()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert click_game.run() == 0 and pygame.display.get_surface() is None


def test_bad_window_arguments_are_named(pygame):
    from agents.ui.window import ClickGame

    with pytest.raises(ValueError, match="window size"):
        ClickGame(make_player("random"), Color.WHITE, Board(6), size=(10, 10))
    with pytest.raises(ValueError, match="human="):
        ClickGame(make_player("random"), 2, Board(6))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="folder="):
        ClickGame(make_player("random"), Color.WHITE, Board(6), folder=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window size"):
        Layout.of(640, float("nan"), 6)  # type: ignore[arg-type]


def test_f1_shows_the_keys_on_a_card_and_a_failed_save_says_why(pygame, window, tmp_path):
    from agents.ui.window_layout import KEYS

    click_game = window()
    assert "F1 or ?: the keys" in click_game.game.status()
    post_key(pygame, pygame.K_F1)
    click_game.step()
    # a card over the board, a line per key at the panel's text size (not squeezed into the status line)
    assert click_game.keys_shown and click_game.game.status().endswith("F1 or ?: back to the board")
    board = click_game.layout.board
    assert pixel(click_game, (board.x + 2, board.y + 2)) == COLOURS["key card"]
    assert board.h >= (len(KEYS) + 1) * click_game.layout.row  # each line is a full row high
    post_key(pygame, pygame.K_F1)
    click_game.step()
    assert not click_game.keys_shown and pixel(click_game, (board.x + 2, board.y + 2)) != COLOURS["key card"]
    post_key(pygame, pygame.K_F1)
    post_click(pygame, click_game, 0)  # a click puts the card away and plays nothing
    click_game.step()
    assert not click_game.keys_shown and click_game.game.picked is None
    click_game.game.folder = tmp_path / "no" / "such" / "folder"
    post_key(pygame, pygame.K_s)
    click_game.step()
    assert "Cannot save to" in click_game.game.status() and not list(tmp_path.rglob("*.sgf"))


def test_the_window_without_pygame_says_what_to_do(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame now fails, installed or not
    assert main(["play", "random", "--size", "6", "--gui"]) == 2
    assert "--gui needs pygame" in capsys.readouterr().err


def test_the_window_without_a_display_says_what_to_do(monkeypatch, capsys):
    pytest.importorskip("pygame", reason="the game window needs pygame: pip install -e '.[render]'")
    monkeypatch.setenv("SDL_VIDEODRIVER", "no-such-driver")
    assert main(["play", "random", "--size", "6", "--gui"]) == 2
    assert "--gui cannot open a window" in capsys.readouterr().err
