"""A game as one self-contained web page: the board, the move list, the value curve, stepping.

``game_page(record)`` is the HTML text of a viewer for a ``GameRecord``: it needs no network, no
server and no other file (the style, the script and the pictures are inline), so it opens in any
browser, from a mail or a folder. The page holds the start position's cells and the moves as
square numbers; its own small move applier replays them, so a game of any length costs a few
bytes per move (a 92-ply 10x10 game: about 12 KB) and every board size works. It checks its
replay against the record's final position (written beside the moves) and says so if they differ.

What the page shows: the board as SVG (``amazons_env.drawing.svg``'s colours and pieces, the last
move's squares outlined), how the game ended (at every move, under the players), whose turn it is,
the move list in the project's notation (the current move highlighted, a click jumps there),
buttons and a slider to step, the keys Left/Right (back, forward) and Home/End (start, end), and,
when the record carries the engines' values (``amazons_env.move_values``), their curve for White
with its axes labelled (+1 White wins to -1 Black wins, by move; a click jumps to that ply),
and, when it carries an engine's review (``amazons_env.move_review``, written by ``amazons
analyse``), the engine's move in each position drawn on the board as an arrow (the queen's path,
then its shot, dashed), each move's mark (``?!``, ``?``, ``??``) in the move list and, in the
panel, the engine's move beside the one played. The result is written into the page itself,
escaped, the rest filled in by its script (``amazons_env.drawing.viewer_script``).

Everything that comes from the record (names, headers) reaches the page as JSON text inside a
``<script type="application/json">`` with ``<``, ``>`` and ``&`` escaped, and the script puts it
on the page as text, never as markup: a name like ``</script><b>`` shows as written.

>>> from amazons_env.records import GameRecord
>>> page = game_page(GameRecord(["b1-b4/b5"], size=6, headers={"White": "<me>"}))
>>> page.startswith("<!DOCTYPE html>"), "<me>" in page, "\\\\u003cme\\\\u003e" in page
(True, False, True)
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from typing import Any, Optional, Protocol, runtime_checkable

from amazons_env.drawing.svg import COLOURS
from amazons_env.drawing.viewer_script import VIEWER_SCRIPT
from amazons_env.errors import InvalidArgumentError, InvalidMoveError
from amazons_env.files import PathLike, checked_path, write_atomic
from amazons_env.move import Move
from amazons_env.move_review import BEST_HEADER, MARKS, MARKS_HEADER, parse_best, parse_marks
from amazons_env.move_values import VALUES_HEADER, record_values
from amazons_env.squares import FILE_NAMES, Color

__all__ = ["game_page", "save_game_page", "result_text", "cells_text", "review_of", "Position", "Record"]


class Position(Protocol):
    """What the page reads of a position (``Board`` has it)."""

    @property
    def size(self) -> int: ...

    @property
    def turn(self) -> Color: ...

    @property
    def winner(self) -> Optional[Color]: ...

    def is_game_over(self) -> bool: ...

    def piece_at(self, square: int) -> Optional[str]: ...

    def is_legal(self, move: Move) -> bool: ...


@runtime_checkable
class Record(Protocol):
    """What the page reads of a game record (``GameRecord`` has it). Protocols, as in ``svg``,
    keep this module below ``board`` and ``records`` in the imports."""

    @property
    def size(self) -> int: ...

    @property
    def moves(self) -> Sequence[Move]: ...

    @property
    def headers(self) -> dict[str, str]: ...

    @property
    def winner(self) -> Optional[Color]: ...

    def board(self, plies: Optional[int] = None) -> Position: ...


#: headers the page shows in its own places (the players, the value curve, the review), not in the list of others
_SHOWN_APART = ("White", "Black", VALUES_HEADER, BEST_HEADER, MARKS_HEADER)
#: the colour of the engine's move drawn on the board (apart from the last move's outline)
BEST_COLOUR = "#1b9e4b"
#: what must not appear raw inside a <script> element: "</script" ends it, "<!--" changes its parsing
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def cells_text(board: Position) -> str:
    """One character per square, in square order (a1, b1, ..., then rank 2): ``Q`` White queen,
    ``q`` Black queen, ``*`` arrow, ``.`` empty; how the page holds a position.

    >>> from amazons_env import Board
    >>> cells_text(Board(4))
    '.QQ.Q..Qq..q.qq.'
    """
    return "".join(board.piece_at(square) or "." for square in range(board.size * board.size))


def result_text(record: Record) -> str:
    """How the game of ``record`` ended, in words, or that it is unfinished.

    >>> from amazons_env.records import GameRecord
    >>> result_text(GameRecord(["b1-b4/b5"], size=6))
    'Unfinished after 1 move.'
    >>> result_text(GameRecord(["b1-b4/b5"], size=6, result="1-0"))
    'Black resigned after 1 move: White won.'
    """
    plies = len(record.moves)
    moves = f"{plies} move{'s' if plies != 1 else ''}"
    final = record.board()
    winner = record.winner if record.winner is not None else final.winner
    if winner is None:
        return f"Unfinished after {moves}."
    how = "has no move" if final.is_game_over() else "resigned"
    return f"{winner.other.name.capitalize()} {how} after {moves}: {winner.name.capitalize()} won."


def review_of(record: Record, source: str = "<record>") -> tuple[Optional[list[Any]], Optional[list[str]]]:
    """The review ``record`` carries, as the page holds it: per position the engine's move as
    its three square numbers (or None), per move its mark (or ""); None for a header it lacks.
    ``InvalidMoveError`` naming ``source`` for a malformed header or an engine's move that is not
    legal in its position.

    >>> from amazons_env.records import GameRecord
    >>> review_of(GameRecord(["a1-a2/b1"], start="q3/4/4/Q1*1 w", headers={"Best": "a1-b1/b3 -", "Marks": "??"}))
    ([[0, 1, 9], None], ['??'])
    """
    best_text, marks_text = record.headers.get(BEST_HEADER), record.headers.get(MARKS_HEADER)
    plies = len(record.moves)
    marks = None if marks_text is None else parse_marks(marks_text, plies, source)
    if best_text is None:
        return None, marks
    best: list[Any] = []
    for ply, move in enumerate(parse_best(best_text, record.size, plies + 1, source)):
        if move is not None and not record.board(ply).is_legal(move):
            raise InvalidMoveError(f"{source}: Best entry {ply + 1} ({move}) is not a legal move after {ply} moves")
        best.append(None if move is None else [move.from_square, move.to_square, move.arrow])
    return best, marks


def game_page(record: Record, source: str = "<record>") -> str:
    """The web page of ``record`` (see the module docstring); ``source`` names the record in the
    error for a malformed ``Values``, ``Best`` or ``Marks`` header (``InvalidMoveError``)."""
    if not isinstance(record, Record):
        raise InvalidArgumentError(f"game_page needs a GameRecord, got {type(record).__name__}")
    start, final = record.board(0), record.board()
    size = record.size
    white, black = (record.headers.get(side, "?") for side in ("White", "Black"))
    best, marks = review_of(record, source)
    game: dict[str, Any] = {
        "size": size,
        "files": FILE_NAMES[:size],
        "colours": {**COLOURS, "best": BEST_COLOUR},
        "start": cells_text(start),
        "turn": int(start.turn),
        "moves": [square for move in record.moves for square in (move.from_square, move.to_square, move.arrow)],
        "final": cells_text(final),
        "values": record_values(record, source),
        "best": best,
        "marks": marks,
        "markWords": {glyph: word for word, glyph in MARKS.items()},
        "white": white,
        "black": black,
        "info": [[key, value] for key, value in record.headers.items() if key not in _SHOWN_APART],
        "result": result_text(record),
        "over": record.winner is not None or final.winner is not None,
    }
    data = json.dumps(game, separators=(",", ":"), allow_nan=False)
    parts = {
        "TITLE": html.escape(f"{white} vs {black}, Amazons {size}x{size}"),
        "RESULT": html.escape(game["result"]),  # in the page itself: seen at any move, without the script
        "PLIES": str(len(record.moves)),
        "GAME": re.sub("[<>&]", lambda m: _SCRIPT_ESCAPES[m.group()], data),
        "SCRIPT": VIEWER_SCRIPT,
    }
    # one pass, so that a title holding "@GAME@" stays text
    return re.sub("@(TITLE|GAME|RESULT|PLIES|SCRIPT)@", lambda m: parts[m.group(1)], _PAGE)


def save_game_page(record: Record, path: PathLike, source: str = "<record>") -> None:
    """Write ``game_page(record)`` to ``path`` (atomically: a reader never sees half a page).
    ``InvalidArgumentError`` naming ``path`` when it is no file path, its folder does not exist,
    or it cannot be written."""
    target = checked_path(path, "page", InvalidArgumentError)
    if target.is_dir() or not target.parent.is_dir():
        raise InvalidArgumentError(f"page {os.fspath(target)!r}: a folder, or its folder does not exist")
    text = game_page(record, source)
    try:
        write_atomic(target, text)
    except OSError as error:
        raise InvalidArgumentError(f"cannot write page {os.fspath(target)!r}: {error.strerror or error}") from None


# The page. Its script builds the board from the game's JSON; the DOM it keeps up to date is what
# tests read: the board's data-ply and data-position, each square's data-piece.
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>@TITLE@</title>
<style>
body { font-family: sans-serif; margin: 1em; background: #fbfaf7; color: #222; }
main { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
#board { width: min(94vw, 82vh, 640px); height: auto; display: block; user-select: none; }
#panel { flex: 1; min-width: 16em; max-width: 30em; }
h1 { font-size: 1.2em; margin: 0 0 .3em; }
#info, #where, #value { color: #555; margin: .2em 0; }
#status { font-weight: bold; margin: .5em 0; }
#controls { display: flex; gap: .3em; align-items: center; margin: .5em 0; }
#controls button { min-width: 2.6em; font-size: 1em; }
#slider { flex: 1; }
#moves { display: grid; grid-template-columns: 1fr 1fr; max-height: 40vh; overflow-y: auto;
  border: 1px solid #ddd; padding: .3em; font-family: monospace; }
#moves span { padding: .1em .4em; cursor: pointer; border-radius: .2em; }
#moves span:hover { background: #eee; }
#moves span.cur { background: var(--mark); color: #fff; }
#moves b { margin-left: .15em; }
#moves b.inaccuracy { color: #b8860b; }
#moves b.mistake { color: #d2691e; }
#moves b.blunder { color: #c0142b; }
#moves span.cur b { color: #fff; }
#review { margin: .3em 0; }
#curve { width: 100%; height: auto; cursor: crosshair; border: 1px solid #ddd; }
#chart { display: grid; grid-template-columns: auto 1fr; column-gap: .4em; }
#y-axis { display: flex; flex-direction: column; justify-content: space-between; text-align: right; }
#x-axis { display: flex; justify-content: space-between; }
.axis { font-size: .8em; color: #555; margin: .6em 0 .2em; }
#y-axis.axis, #x-axis.axis { margin: 0; }
#result { margin: .3em 0; }
.hint { font-size: .85em; color: #777; }
</style>
</head>
<body>
<script type="application/json" id="game">@GAME@</script>
<main>
<svg id="board" font-family="sans-serif" font-size="12" role="img" aria-label="board"></svg>
<section id="panel">
<h1 id="players"></h1>
<p id="info"></p>
<p id="result">@RESULT@</p>
<p id="status" aria-live="polite"></p>
<p id="where"></p>
<p id="review" hidden></p>
<div id="controls">
<button id="first" title="start (Home)">|&lt;</button>
<button id="back" title="back (Left)">&lt;</button>
<input id="slider" type="range" min="0" value="0" aria-label="move">
<button id="forward" title="forward (Right)">&gt;</button>
<button id="last" title="end (End)">&gt;|</button>
</div>
<div id="moves"></div>
<div id="values" hidden>
<p class="axis">The engines' value for White after each move (a click goes there):</p>
<div id="chart">
<div id="y-axis" class="axis"><span>+1 White wins</span><span>0 even</span><span>&minus;1 Black wins</span></div>
<svg id="curve" viewBox="0 0 300 100" preserveAspectRatio="none"></svg>
<span></span>
<div id="x-axis" class="axis"><span>start</span><span>move</span><span>@PLIES@</span></div>
</div>
<p id="value"></p>
</div>
<p class="hint">Keys: Left/Right step, Home/End jump; click a move to go there.</p>
</section>
</main>
<script>
@SCRIPT@
</script>
</body>
</html>
"""
