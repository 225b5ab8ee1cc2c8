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
with its axes labelled (+1 White wins to -1 Black wins, by move; a click jumps to that ply).
The result is written into the page itself, escaped, the rest filled in by its script.

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
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import PathLike, checked_path, write_atomic
from amazons_env.move import Move
from amazons_env.move_values import VALUES_HEADER, record_values
from amazons_env.squares import FILE_NAMES, Color

__all__ = ["game_page", "save_game_page", "result_text", "cells_text", "Position", "Record"]


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


#: headers the page shows in its own places (the players, the value curve), not in the list of others
_SHOWN_APART = ("White", "Black", VALUES_HEADER)
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


def game_page(record: Record, source: str = "<record>") -> str:
    """The web page of ``record`` (see the module docstring); ``source`` names the record in the
    error for a malformed ``Values`` header (``InvalidMoveError``)."""
    if not isinstance(record, Record):
        raise InvalidArgumentError(f"game_page needs a GameRecord, got {type(record).__name__}")
    start, final = record.board(0), record.board()
    size = record.size
    white, black = (record.headers.get(side, "?") for side in ("White", "Black"))
    game: dict[str, Any] = {
        "size": size,
        "files": FILE_NAMES[:size],
        "colours": COLOURS,
        "start": cells_text(start),
        "turn": int(start.turn),
        "moves": [square for move in record.moves for square in (move.from_square, move.to_square, move.arrow)],
        "final": cells_text(final),
        "values": record_values(record, source),
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
    }
    # one pass, so that a title holding "@GAME@" stays text
    return re.sub("@(TITLE|GAME|RESULT|PLIES)@", lambda m: parts[m.group(1)], _PAGE)


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
"use strict";
(function () {
  const G = JSON.parse(document.getElementById("game").textContent);
  const n = G.size, plies = G.moves.length / 3, C = G.colours;
  const board = document.getElementById("board"), NS = board.namespaceURI;
  const CELL = 40, M = 20, SIDE = n * CELL + 2 * M;
  const $ = (id) => document.getElementById(id);
  document.documentElement.style.setProperty("--mark", C.mark);

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    parent.appendChild(node);
    return node;
  }
  const squareName = (sq) => G.files[sq % n] + (Math.floor(sq / n) + 1);
  const moveAt = (p) => G.moves.slice(3 * p, 3 * p + 3);
  const notation = (p) => {
    const m = moveAt(p);
    return squareName(m[0]) + "-" + squareName(m[1]) + "/" + squareName(m[2]);
  };
  const colourOf = (p) => ((G.turn + p) % 2 ? "Black" : "White");  // the side to move after p plies

  // replay: positions[p] is the cells after p plies; a move that does not fit stops the replay
  const positions = [G.start];
  let problem = null;
  for (let p = 0; p < plies; p++) {
    const cells = positions[p].split(""), [from, to, arrow] = moveAt(p);
    const queen = colourOf(p) === "White" ? "Q" : "q";
    if (cells[from] !== queen || cells[to] !== ".") {
      problem = "move " + (p + 1) + " (" + notation(p) + ") does not fit its position";
      break;
    }
    cells[to] = queen;
    cells[from] = ".";
    if (cells[arrow] !== ".") {
      problem = "move " + (p + 1) + " (" + notation(p) + ") shoots at an occupied square";
      break;
    }
    cells[arrow] = "*";
    positions.push(cells.join(""));
  }
  const last = positions.length - 1;
  if (!problem && positions[last] !== G.final) problem = "the moves do not reach the recorded final position";
  if (problem) console.error("damaged game: " + problem);

  // the board: squares, a queen and an arrow per square (shown as the position needs), the marks
  board.setAttribute("viewBox", "0 0 " + SIDE + " " + SIDE);
  el("rect", { width: SIDE, height: SIDE, fill: C.background }, board);
  const squares = [], queens = [], arrows = [];
  for (let sq = 0; sq < n * n; sq++) {
    const file = sq % n, rank = Math.floor(sq / n), x = M + file * CELL, y = M + (n - 1 - rank) * CELL;
    const cx = x + CELL / 2, cy = y + CELL / 2, d = CELL * 0.3;
    const fill = (file + rank) % 2 === 0 ? C.dark : C.light;
    const name = squareName(sq);
    squares.push(el("rect", { x: x, y: y, width: CELL, height: CELL, fill: fill, "data-square": name }, board));
    queens.push(el("circle", { cx: cx, cy: cy, r: CELL * 0.36, "stroke-width": 2 }, board));
    const cross = "M" + (cx - d) + "," + (cy - d) + "L" + (cx + d) + "," + (cy + d)
      + "M" + (cx - d) + "," + (cy + d) + "L" + (cx + d) + "," + (cy - d);
    arrows.push(el("path", { d: cross, stroke: C.arrow, "stroke-width": 5, "stroke-linecap": "round" }, board));
  }
  const markLook = { width: CELL - 3, height: CELL - 3, fill: "none", stroke: C.mark, "stroke-width": 3 };
  const marks = [0, 1, 2].map(() => el("rect", markLook, board));
  for (let i = 0; i < n; i++) {
    const fileY = SIDE - 5, rankY = M + (n - 1 - i) * CELL + CELL / 2 + 4;
    el("text", { x: M + i * CELL + CELL / 2, y: fileY, "text-anchor": "middle" }, board).textContent = G.files[i];
    el("text", { x: M / 2, y: rankY, "text-anchor": "middle" }, board).textContent = String(i + 1);
  }

  // the side panel: players, other headers, the move list
  $("players").textContent = G.white + " (White) vs " + G.black + " (Black)";
  $("info").textContent = [n + "x" + n, plies + " move" + (plies === 1 ? "" : "s")]
    .concat(G.info.map((pair) => pair[0] + ": " + pair[1])).join(" \\u00b7 ");
  const list = $("moves"), entries = [];
  if (plies && G.turn === 1) list.appendChild(document.createElement("i"));  // Black's column first
  for (let p = 0; p < plies; p++) {
    const entry = document.createElement("span");
    entry.textContent = (p + 1) + ". " + notation(p);
    entry.setAttribute("data-ply", p + 1);
    entry.addEventListener("click", () => show(p + 1));
    list.appendChild(entry);
    entries.push(entry);
  }
  const slider = $("slider");
  slider.max = last;

  // the value curve, White's view: up is good for White
  const W = 300, H = 100, curve = $("curve");
  const cx = (p) => (plies ? (p / plies) * W : 0);
  const cy = (v) => H / 2 - Math.max(-1, Math.min(1, v)) * (H / 2 - 4);
  let cursor = null;
  if (G.values) {
    $("values").hidden = false;
    el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, stroke: "#bbb", "stroke-width": 1 }, curve);
    const points = [];
    G.values.forEach((v, p) => { if (v !== null) points.push(cx(p + 1).toFixed(1) + "," + cy(v).toFixed(1)); });
    const thin = { fill: "none", "vector-effect": "non-scaling-stroke" };
    el("polyline", { ...thin, id: "curve-line", points: points.join(" "), stroke: C.mark, "stroke-width": 1.5 }, curve);
    cursor = el("line", { ...thin, y1: 0, y2: H, stroke: C.arrow, "stroke-width": 1 }, curve);
    curve.addEventListener("click", (event) => {
      const box = curve.getBoundingClientRect();
      show(Math.round(((event.clientX - box.left) / box.width) * plies));
    });
  }

  let ply = 0, current = null;
  function show(p) {
    ply = Math.max(0, Math.min(last, p));
    const cells = positions[ply];
    for (let sq = 0; sq < n * n; sq++) {
      const piece = cells[sq], queen = queens[sq];
      squares[sq].setAttribute("data-piece", piece);
      queen.style.display = piece === "Q" || piece === "q" ? "" : "none";
      queen.setAttribute("fill", piece === "Q" ? C.white : C.black);
      queen.setAttribute("stroke", piece === "Q" ? C.white_edge : C.black_edge);
      arrows[sq].style.display = piece === "*" ? "" : "none";
    }
    marks.forEach((mark, i) => {
      mark.style.display = ply ? "" : "none";
      if (ply) {
        const sq = moveAt(ply - 1)[i];
        mark.setAttribute("x", M + (sq % n) * CELL + 1.5);
        mark.setAttribute("y", M + (n - 1 - Math.floor(sq / n)) * CELL + 1.5);
      }
    });
    board.setAttribute("data-ply", ply);
    board.setAttribute("data-position", cells);
    if (current) current.classList.remove("cur");
    current = ply ? entries[ply - 1] : null;
    if (current) {
      current.classList.add("cur");
      current.scrollIntoView({ block: "nearest" });
    }
    slider.value = ply;
    $("where").textContent = ply ? "Move " + ply + "/" + plies + ": " + notation(ply - 1) + " by " + colourOf(ply - 1)
      : "Start position";
    $("status").textContent = problem && ply === last ? "Damaged record: " + problem
      : ply === plies && G.over ? G.result : colourOf(ply) + " to move" + (ply === plies ? ". " + G.result : "");
    if (cursor) {
      cursor.setAttribute("x1", cx(ply));
      cursor.setAttribute("x2", cx(ply));
      const v = ply ? G.values[ply - 1] : null;
      $("value").textContent = v === null ? "No value for this move."
        : "Value for White after this move: " + (v > 0 ? "+" : "") + v.toFixed(2);
    }
  }

  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(ply - 1));
  $("forward").addEventListener("click", () => show(ply + 1));
  $("last").addEventListener("click", () => show(last));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to);
  });
  show(0);
})();
</script>
</body>
</html>
"""
