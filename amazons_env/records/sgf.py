"""SGF (FF[4]) for Amazons (GM[18]): points and moves, the parser of collections, and one game's
fields to and from SGF text (``write_game``, ``read_game``); ``records.GameRecord`` builds on them.

Points are two letters, the file then the row counted from the top: on 10x10 ``"dj"`` is d1.

>>> point(3, 10), square("dj", 10, "<sgf>")
('dj', 3)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Optional

from amazons_env.board import Board
from amazons_env.core import MAX_SIZE, MIN_SIZE
from amazons_env.errors import InvalidMoveError, InvalidPositionError, describe
from amazons_env.move import Move
from amazons_env.squares import Color

__all__ = [
    "SgfParser",
    "SGF_HEADERS",
    "point",
    "square",
    "move_text",
    "parse_move",
    "escape",
    "where",
    "read_size",
    "write_game",
    "read_game",
]

Node = dict[str, list[str]]

# the move list's header names and their SGF properties
SGF_HEADERS = {
    "White": "PW",
    "Black": "PB",
    "Event": "EV",
    "Site": "PC",
    "Date": "DT",
    "Round": "RO",
    "Annotator": "AN",
    "Comment": "GC",
    "TimeControl": "TM",
    "Application": "AP",
}
_HEADER_OF_SGF = {v: k for k, v in SGF_HEADERS.items()}
_SETUP = frozenset(("AW", "AB", "AA", "AE"))
_EXTRA = "XH"  # SGF property that carries headers with no SGF name: XH[Key=value]
_SIZE_RE = re.compile(r"\s*0*([0-9]{1,2})\s*(?::\s*0*([0-9]{1,2})\s*)?\Z")


def where(source: str, line: Optional[int] = None) -> str:
    """``"game.sgf, line 3"``: how errors name a place in the input."""
    return f"{source}, line {line}" if line is not None else source


def point(sq: int, size: int) -> str:
    """The SGF point of public square ``sq``."""
    file, rank = sq % size, sq // size
    return chr(97 + file) + chr(97 + size - 1 - rank)


def move_text(move: Move) -> str:
    """The SGF value of a move: three points, ``"djddgd"`` for d1-d7/g7 on 10x10."""
    return "".join(point(s, move.size) for s in (move.from_square, move.to_square, move.arrow))


def square(text: str, size: int, place: str) -> int:
    """The public square of SGF point ``text``; ``place`` (see ``where``) names it in errors."""
    text = text.strip()
    if len(text) != 2 or not all("a" <= c < chr(97 + size) for c in text):
        raise InvalidMoveError(f"{place}: {describe(text)} is not an SGF point of a {size}x{size} board")
    return (size - 1 - (ord(text[1]) - 97)) * size + ord(text[0]) - 97


def parse_move(value: str, size: int, place: str) -> Move:
    """An SGF move ``djddgd`` (also accepted: our notations, ``d1-d7/g7``)."""
    value = value.strip()
    try:
        if re.fullmatch(r"[a-z]{6}", value):
            frm, to, arrow = (square(value[i : i + 2], size, place) for i in (0, 2, 4))
            return Move(frm, to, arrow, size)
        return Move.parse(value, size)
    except InvalidMoveError as error:
        message = str(error) if str(error).startswith(place) else f"{place}: {error}"
        raise InvalidMoveError(f"{message} (SGF move {describe(value)})") from None


def escape(value: str) -> str:
    """An SGF text value: ``]`` and ``\\`` escaped with a backslash."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def read_size(text: str, where: str) -> int:
    """``SZ[8]``, ``SZ[8:8]`` or a ``Size`` tag: a square board size from 4 to 12 (ASCII digits)."""
    m = _SIZE_RE.match(text)
    if (
        m is None
        or (m.group(2) is not None and m.group(2) != m.group(1))
        or not MIN_SIZE <= int(m.group(1)) <= MAX_SIZE
    ):
        raise InvalidMoveError(
            f"{where}: board size {describe(text)} is not a square size from {MIN_SIZE} to {MAX_SIZE}"
        )
    return int(m.group(1))


def write_game(start: Board, moves: Iterable[Move], headers: Mapping[str, str], result: Optional[str]) -> str:
    """A game as SGF FF[4] GM[18] with true colours (``records`` explains the convention): the
    set-up of ``start`` unless it is the standard start, ``headers`` as their SGF properties (or
    ``XH[Key=value]``), ``result`` (``"1-0"``, ``"0-1"`` or None) as ``RE``."""
    n = start.size
    props = [f"FF[4]GM[18]SZ[{n}]"]
    if start.text() != Board(n).text():
        white, black, arrows = start.layout()
        for ident, squares in (("AW", white), ("AB", black), ("AA", arrows)):
            if squares:
                props.append(ident + "".join(f"[{point(s, n)}]" for s in squares))
    props.append("PL[W]" if start.turn == Color.WHITE else "PL[B]")
    for key, value in headers.items():
        known = SGF_HEADERS.get(key)
        props.append(f"{known}[{escape(value)}]" if known else f"{_EXTRA}[{escape(key + '=' + value)}]")
    if result is not None:
        props.append("RE[W+]" if result == "1-0" else "RE[B+]")
    colour = start.turn
    nodes = []
    for move in moves:
        nodes.append(f";{'W' if colour == Color.WHITE else 'B'}[{move_text(move)}]")
        colour = colour.other
    return "(;" + "".join(props) + "".join(nodes) + ")\n"


def read_game(
    nodes: Iterable[tuple[Node, int]], source: str, play: Optional[Callable[[Board, Move, int], None]] = None
) -> tuple[list[Move], int, Optional[str], Optional[str], dict[str, str]]:
    """The main line of one game tree (``SgfParser.collection``'s nodes with their lines, or
    ``SgfParser.main_lines``' as they are read) as the fields of a record: ``(moves, size, start,
    result, headers)``; ``start`` is None for the standard start. Colours follow ``records``'
    convention; errors name ``source`` and the line. ``play(board, move, number)``, if given,
    plays each move on the start position as it is read (and raises on an illegal one), so a
    bad move fails before the rest of the text is read."""
    nodes = iter(nodes)
    root, line_of = next(nodes)
    at_root = where(source, line_of)
    game = root.get("GM", ["18"])[0].strip()
    if game != "18":
        raise InvalidMoveError(f"{at_root}: GM[{_cut(game)}] is not Amazons (GM[18])")
    size = read_size(root["SZ"][0], at_root) if root.get("SZ", [""])[0].strip() else 10
    setup = any(k in root for k in ("AW", "AB", "AA"))
    player = root.get("PL", [""])[0].strip().upper()
    if player not in ("W", "B", ""):
        raise InvalidMoveError(f"{at_root}: PL[{_cut(player)}] is not W or B")

    def start_of(first: str) -> Optional[str]:
        """The set-up position's text with ``first`` to move (None: no set-up, the standard start)."""
        if not setup:
            return None
        try:
            squares = {k: [square(p, size, at_root) for p in root.get(k, [])] for k in ("AW", "AB", "AA")}
            turn = Color.BLACK if first == "B" else Color.WHITE
            return Board.from_squares(size, squares["AW"], squares["AB"], squares["AA"], turn).text()
        except InvalidPositionError as error:
            raise InvalidMoveError(f"{at_root}: {error}") from None

    labels: list[str] = []
    moves = []
    board: Optional[Board] = None  # the game as played so far (with ``play``), from its first move
    # who moves first: set-up's PL, else the first move's label (without set-up the labels are
    # only labels: whoever moves first in the file is our White), else PL, else White
    first = player if setup and player else None
    for index, (node, line_no) in enumerate(itertools.chain([(root, line_of)], nodes)):
        if index and not _SETUP.isdisjoint(node):
            raise InvalidMoveError(
                f"{where(source, line_no)}: set-up (AW/AB/AA/AE) after the first node is not supported"
            )
        for ident in ("W", "B"):
            for value in node.get(ident, []):
                first = ident if first is None else first
                if ident != (first if len(labels) % 2 == 0 else "BW"[first == "B"]):
                    raise InvalidMoveError(
                        f"{source}: move {len(labels) + 1} is labelled {ident}, "
                        f"but the colours must alternate starting with {first}"
                    )
                moves.append(parse_move(value, size, where(source, line_no)))
                labels.append(ident)
                if play is not None:
                    if board is None:
                        start = start_of(first)
                        board = Board(size) if start is None else Board.from_text(start)
                    play(board, moves[-1], len(moves))
    first = first or player or "W"
    start = start_of(first)
    swap = first == "B" and not setup  # SGF's Black moved first: that is our White
    headers: dict[str, str] = {}
    for ident, values in root.items():
        if ident == _EXTRA:
            for value in values:
                key, _, val = value.partition("=")
                headers[key] = val
        elif ident in _HEADER_OF_SGF:
            if swap and ident in ("PW", "PB"):
                ident = "PB" if ident == "PW" else "PW"
            headers[_HEADER_OF_SGF[ident]] = values[0]
    result = None
    outcome = root.get("RE", [""])[0].strip().upper()[:2]
    if outcome in ("W+", "B+"):
        result = "1-0" if (outcome == "W+") != swap else "0-1"
    return moves, size, start, result, headers


def _cut(value: str, limit: int = 40) -> str:
    """A property value as it appears in an error message: at most ``limit`` characters."""
    return value if len(value) <= limit else f"{value[:limit]}... ({len(value)} chars)"


class SgfParser:
    """A small SGF reader: for each game tree, the nodes of its main line (the first variation at
    every branch), each with the line it starts on. Errors are ``InvalidMoveError`` naming the line.

    One regular expression reads a whole token (a bracket, a ``;``, or a property with all its
    values) and a loop with an explicit stack follows the nesting, so reading is linear in the
    text and variations nested 100,000 deep are no problem; the line number is counted forward
    from the last one found, never from the start again.

    >>> SgfParser("(;GM[18](;W[djddgd])(;W[gjgegg]))", "<sgf>").collection()
    [[({'GM': ['18']}, 1), ({'W': ['djddgd']}, 1)]]
    """

    def __init__(self, text: str, source: str) -> None:
        if not isinstance(text, str):
            raise InvalidMoveError(f"{source}: expected SGF text, got {type(text).__name__}")
        self.text, self.source, self.pos = text, source, 0
        self._line_pos, self._line = 0, 1  # the line of text[_line_pos], counted so far

    def line(self) -> int:
        """The line of the current position (positions only move forward, so this is linear)."""
        if self.pos >= self._line_pos:
            self._line += self.text.count("\n", self._line_pos, self.pos)
            self._line_pos = self.pos
        return self._line

    def error(self, message: str) -> InvalidMoveError:
        return InvalidMoveError(f"{where(self.source, self.line())}: {message}")

    def collection(self) -> list[list[tuple[Node, int]]]:
        """The main line of every game tree in the text."""
        games: list[list[tuple[Node, int]]] = []
        for game, node, line in self.main_lines():
            if game == len(games):
                games.append([])
            games[game].append((node, line))
        return games

    def main_lines(self) -> Iterator[tuple[int, Node, int]]:
        """``(game, node, line)`` for each node of each game tree's main line, as the text is
        read: a node once its properties are read, a game (numbered from 0) once it ends, so a
        reader that stops early reads no further (``collection`` gathers them all)."""
        games = 0
        nodes: list[tuple[Node, int]] = []  # the main line's nodes not yet handed out (the last one is being read)
        stack: list[list[bool]] = []  # per open tree: [on the main line, has had a variation]
        node: Optional[Node] = None  # the node whose properties are being read
        text, pos = self.text, 0
        while True:
            m = _TOKEN_RE.match(text, pos)
            # every alternative is a named group, and the last two take any character or the end
            assert m is not None and m.lastgroup is not None
            kind = m.lastgroup
            self.pos, pos = m.start("ident" if kind == "values" else kind), m.end()
            if kind != "values" and nodes:  # the node being read is complete once anything but a property follows
                yield from ((games, *done) for done in nodes)
                nodes.clear()
            if kind == "open":
                if stack:
                    top = stack[-1]
                    stack.append([top[0] and not top[1], False])
                    top[1] = True
                else:
                    stack = [[True, False]]
                    started = False  # the game has a node
                node = None
            elif kind == "node" and stack and not stack[-1][1]:
                node = {}
                if stack[-1][0]:
                    nodes.append((node, self.line()))
                    started = True
            elif kind == "close" and stack:
                stack.pop()
                node = None
                if not stack:
                    if not started:
                        raise self.error("SGF game tree has no nodes")
                    games += 1
            elif kind == "values" and node is not None:
                ident = m.group("ident")
                if not ident.isupper():  # FF[3] allowed 'AddWhite' for AW
                    ident = "".join(c for c in ident if c.isupper())
                if text.startswith("[", pos):
                    self.pos = pos
                    raise self.error("property value '[' is never closed")
                if not m.group("values"):
                    raise self.error(f"property {describe(ident)} has no value")
                values = node.setdefault(ident, [])
                for value in _VALUE_RE.findall(m.group("values")):
                    values.append(_ESCAPE_RE.sub(_unescape, value))
            elif kind == "end" and not stack and games:
                return
            else:
                found = describe(text[self.pos]) if kind != "end" else "the end of the text"
                if not games and not stack:
                    raise self.error("SGF must start with '(;'")
                if not stack:
                    raise self.error(f"expected '(' to start another game, found {found}")
                expected = "'(' or ')'" if stack[-1][1] else "';', '(' or ')'"
                raise self.error(f"expected {expected} in the game tree, found {found}")


def _unescape(m: re.Match) -> str:
    """``\\`` escapes the next character; an escaped newline is dropped (a soft line break)."""
    return "" if m.group(1) == "\n" else m.group(1)


_VALUE = r"\[(?:[^\\\]]|\\.)*+\]"  # possessive: an unclosed value is scanned once, not backtracked
_TOKEN_RE = re.compile(
    rf"\s*+(?:(?P<open>\()|(?P<node>;)|(?P<close>\))"
    rf"|(?P<ident>[A-Za-z]++)\s*+(?P<values>(?:{_VALUE}\s*+)*+)|(?P<end>\Z)|(?P<other>.))",
    re.S,
)
_VALUE_RE = re.compile(r"\[((?:[^\\\]]|\\.)*+)\]", re.S)
_ESCAPE_RE = re.compile(r"\\(.)", re.S)
