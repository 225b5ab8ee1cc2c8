"""The game viewer page (``amazons_env.drawing.html``) and the per-move values it draws
(``amazons_env.move_values``): the page's HTML and data, then the page itself in headless Chromium
(skipped, saying why, where selenium, Chromium or its driver is missing)."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import pytest

from amazons_env import Board, GameRecord, InvalidMoveError
from amazons_env.drawing.html import cells_text, game_page, result_text, save_game_page
from amazons_env.errors import InvalidArgumentError
from amazons_env.move_values import VALUES_HEADER, format_values, parse_values, record_values

from tests.helpers.game_page import board_cells, errors, open_page, page_data, text_of
from tests.helpers.games import filling_game

HOSTILE = {
    "White": '</script><script>alert("w")</script>',
    "Black": "<!-- b & 'c' \u2603 @GAME@",
    "Event": "</SCRIPT ><img src=x onerror=alert(1)>",
}


@pytest.fixture(scope="module")
def long_game() -> GameRecord:
    record = filling_game()
    assert len(record.moves) == 92 and record.board().is_game_over()
    return record


def with_values(record: GameRecord, headers: dict[str, str] = HOSTILE) -> GameRecord:
    """``record`` with ``headers`` and a value for every ply but the first (a swinging curve)."""
    values = [None] + [round(math.sin(ply / 7), 3) for ply in range(1, len(record.moves))]
    return GameRecord(
        record.moves, record.size, record.start, record.result, {**headers, VALUES_HEADER: format_values(values)}
    )


class Structure(HTMLParser):
    """Checks that every element is closed in order and collects the attributes that could load
    something (src, href) and the scripts."""

    VOID = {"meta", "link", "input", "br", "img", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.loads: list[tuple[str, str]] = []
        self.scripts = 0
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.scripts += tag == "script"
        self.loads += [(name, value) for name, value in attrs if name in ("src", "href", "xlink:href")]
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()


def test_page_is_well_formed_html_that_loads_nothing(long_game):
    page = game_page(with_values(long_game))
    parser = Structure()
    parser.feed(page)
    parser.close()
    assert parser.doctype.lower() == "doctype html" and parser.open == []
    assert parser.scripts == 2  # the game's JSON and the viewer
    assert parser.loads == [("href", "data:,")]  # the empty icon: no favicon request
    assert not re.search(r"https?://|//[a-z]|@import|url\(", page, re.I)


def test_page_data_is_the_record(long_game):
    record = with_values(long_game)
    data = page_data(game_page(record))
    assert data["size"] == 10 and data["files"] == "abcdefghij"
    assert data["start"] == cells_text(Board(10)) and data["turn"] == 0
    assert data["final"] == cells_text(long_game.board())
    assert data["moves"] == [s for m in long_game.moves for s in (m.from_square, m.to_square, m.arrow)]
    assert data["values"] == record_values(record) and data["values"][0] is None and len(data["values"]) == 92
    assert data["result"] == result_text(long_game) and data["result"].endswith("won.") and data["over"]


def test_record_text_is_escaped_and_reaches_the_page_unchanged(long_game):
    page = game_page(with_values(long_game))
    assert "<script>alert" not in page and "<!-- b" not in page and "<img" not in page.lower()
    data = page_data(page)
    assert (data["white"], data["black"]) == (HOSTILE["White"], HOSTILE["Black"])
    assert data["info"] == [["Event", HOSTILE["Event"]]]
    title = re.search("<title>(.*)</title>", page).group(1)
    assert title.startswith("&lt;/script&gt;&lt;script&gt;alert(&quot;w&quot;)") and "@GAME@" in title


def test_a_92_ply_10x10_game_with_values_is_under_200_kb(long_game):
    size = len(game_page(with_values(long_game)).encode())
    assert size < 200_000
    assert size < 20_000  # the moves are numbers replayed by the page, not one picture per ply


@pytest.mark.parametrize("size", [4, 5, 8, 12])
def test_every_board_size_and_a_custom_start_with_black_to_move(size):
    board = Board(size)
    for _ in range(3):
        board.push(board.legal_moves()[-1])
    start = Board.from_text(board.text())  # Black to move, arrows on the board
    played = start.copy()
    for _ in range(2):
        played.push(played.legal_moves()[0])
    data = page_data(game_page(GameRecord(played.move_stack, size, start.text())))
    assert data["turn"] == 1 and data["files"] == "abcdefghijkl"[:size] and len(data["moves"]) == 6
    assert data["start"] == cells_text(start) and data["final"] == cells_text(played)
    assert data["values"] is None and data["result"] == "Unfinished after 2 moves." and not data["over"]


def test_save_refuses_bad_paths_and_changes_nothing(tmp_path, long_game):
    path = tmp_path / "game.html"
    save_game_page(long_game, path)
    assert path.read_text(encoding="utf-8") == game_page(long_game)
    for bad in (tmp_path / "missing" / "game.html", tmp_path, "", "a\0b", 3):
        with pytest.raises(InvalidArgumentError, match="page"):
            save_game_page(long_game, bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html"]
    with pytest.raises(InvalidArgumentError, match="GameRecord"):
        game_page("1. d1-d7/g7")


def test_values_round_trip_through_both_record_formats(long_game):
    record = with_values(long_game, {})
    for text in (record.to_sgf(), record.to_movelist()):
        assert record_values(GameRecord.parse(text)) == record_values(record)
    assert record_values(long_game) is None
    assert record_values(GameRecord(long_game.moves, headers={VALUES_HEADER: format_values([None] * 92)})) is None


@pytest.mark.parametrize(
    "text, why",
    [
        ("0.5", "holds 1 entries for 2 moves"),
        ("0.5 nan", "entry 2 is 'nan'"),
        ("inf -", "entry 1"),
        ("0.5 0,5", "entry 2"),
    ],
)
def test_malformed_values_are_refused_by_name(text, why):
    with pytest.raises(InvalidMoveError, match=f"game.sgf: Values {why}"):
        parse_values(text, 2, "game.sgf")
    record = GameRecord(["b1-b4/b5", "a5-a4/a3"], size=6, headers={VALUES_HEADER: text})
    with pytest.raises(InvalidMoveError, match="game.sgf: Values"):
        game_page(record, "game.sgf")


@pytest.mark.parametrize("bad", [math.nan, math.inf, True, "0.5"])
def test_values_that_are_no_finite_numbers_are_not_written(bad):
    with pytest.raises(InvalidArgumentError, match=r"values\[1\]"):
        format_values([0.5, bad])


# -- the page in a real browser --------------------------------------------------------------------


def test_browser_replays_the_92_ply_game_step_by_step_and_to_its_end(browser, tmp_path, long_game):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    board = open_page(browser, tmp_path, long_game)
    assert errors(browser) == []
    assert board.get_attribute("data-ply") == "0" and board_cells(browser) == cells_text(long_game.board(0))
    assert text_of(browser, "status") == "White to move" and not browser.find_element(By.ID, "values").is_displayed()
    body = browser.find_element(By.TAG_NAME, "body")
    for ply in (1, 2, 3):
        body.send_keys(Keys.ARROW_RIGHT)
        assert board.get_attribute("data-ply") == str(ply)
        assert board_cells(browser) == cells_text(long_game.board(ply))
    assert text_of(browser, "where") == f"Move 3/92: {long_game.moves[2]} by White"
    body.send_keys(Keys.ARROW_LEFT)
    assert board_cells(browser) == cells_text(long_game.board(2)) and text_of(browser, "status") == "White to move"
    body.send_keys(Keys.END)
    assert board.get_attribute("data-ply") == "92" and board_cells(browser) == cells_text(long_game.board())
    assert "." not in board_cells(browser)  # the board is full
    assert text_of(browser, "status") == result_text(long_game)
    entries = browser.find_elements(By.CSS_SELECTOR, "#moves span")
    assert [e.get_attribute("textContent") for e in entries] == [f"{n}. {m}" for n, m in enumerate(long_game.moves, 1)]
    assert entries[-1].get_attribute("class") == "cur"
    entries[40].click()  # move 41
    assert board.get_attribute("data-ply") == "41" and board_cells(browser) == cells_text(long_game.board(41))
    assert [e.get_attribute("data-ply") for e in browser.find_elements(By.CSS_SELECTOR, "#moves .cur")] == ["41"]
    browser.find_element(By.ID, "first").click()
    assert board.get_attribute("data-ply") == "0"
    browser.find_element(By.ID, "last").click()
    assert board.get_attribute("data-ply") == "92"
    assert errors(browser) == []


def test_browser_shows_the_value_curve_and_names_as_text(browser, tmp_path, long_game):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    record = with_values(long_game)
    board = open_page(browser, tmp_path, record)
    assert browser.execute_script("return [document.scripts.length, document.images.length]") == [2, 0]
    assert text_of(browser, "players") == f"{HOSTILE['White']} (White) vs {HOSTILE['Black']} (Black)"
    assert HOSTILE["Event"] in text_of(browser, "info")
    curve = browser.find_element(By.ID, "curve")
    assert curve.is_displayed()
    points = browser.find_element(By.ID, "curve-line").get_attribute("points").split()
    assert len(points) == 91  # one per value: the first ply has none
    width = curve.size["width"]
    ActionChains(browser).move_to_element_with_offset(curve, width / 4, 0).click().perform()
    ply = int(board.get_attribute("data-ply"))
    assert abs(ply - 92 * 3 / 4) <= 2  # the offset is from the centre: three quarters along
    assert board_cells(browser) == cells_text(long_game.board(ply))
    shown = text_of(browser, "value").removeprefix("Value for White after this move: ")
    assert abs(float(shown) - record_values(record)[ply - 1]) <= 0.0051
    assert errors(browser) == []


def test_browser_shows_an_unfinished_game_and_a_resignation(browser, tmp_path, long_game):
    from selenium.webdriver.common.by import By

    unfinished = GameRecord(long_game.moves[:11])
    board = open_page(browser, tmp_path, unfinished)
    browser.find_element(By.ID, "last").click()
    assert board.get_attribute("data-ply") == "11" and board_cells(browser) == cells_text(unfinished.board())
    assert text_of(browser, "status") == "Black to move. Unfinished after 11 moves."
    resigned = GameRecord(long_game.moves[:11], result="1-0")
    open_page(browser, tmp_path, resigned)
    browser.find_element(By.ID, "last").click()
    assert text_of(browser, "status") == "Black resigned after 11 moves: White won."
    assert errors(browser) == []


def test_browser_says_when_the_moves_do_not_reach_the_recorded_position(browser, tmp_path, long_game):
    from selenium.webdriver.common.by import By

    page = game_page(long_game)
    damaged = page.replace(f'"final":"{cells_text(long_game.board())}"', f'"final":"{cells_text(Board(10))}"')
    assert damaged != page
    board = open_page(browser, tmp_path, long_game, damaged)
    log = browser.get_log("browser")
    assert any("damaged game" in entry["message"] for entry in log)  # the console log is read
    browser.find_element(By.ID, "last").click()
    assert board.get_attribute("data-ply") == "92"
    assert text_of(browser, "status").startswith("Damaged record: the moves do not reach")


def test_the_result_and_the_curves_axes_are_on_the_page_itself(long_game):
    """Seen without stepping to the end, and without the script: the result under the players,
    the value curve's axes (+1 White wins to -1 Black wins, by move)."""
    page = game_page(with_values(long_game))
    result = re.search(r'<p id="result">(.*?)</p>', page).group(1)
    assert result == result_text(long_game) and result.endswith("won.")
    y_axis = re.search(r'<div id="y-axis" class="axis">(.*?)</div>', page).group(1)
    assert re.findall(r"<span>(.*?)</span>", y_axis) == ["+1 White wins", "0 even", "&minus;1 Black wins"]
    x_axis = re.search(r'<div id="x-axis" class="axis">(.*?)</div>', page).group(1)
    assert re.findall(r"<span>(.*?)</span>", x_axis) == ["start", "move", str(len(long_game.moves))]
    resigned = game_page(GameRecord(long_game.moves[:3], result="0-1", headers={"White": "<b>"}))
    assert '<p id="result">White resigned after 3 moves: Black won.</p>' in resigned
