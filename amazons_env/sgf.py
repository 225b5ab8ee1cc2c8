"""SGF (FF[4]) reading and writing pieces for Amazons (GM[18]) records; ``records`` builds on them.

Points are two letters, the file then the row counted from the top: on 10x10 ``"dj"`` is d1.

>>> point(3, 10), square("dj", 10, "<sgf>")
('dj', 3)
"""

from __future__ import annotations

import re
from typing import Optional

from amazons_env.errors import InvalidMoveError, describe
from amazons_env.move import Move

__all__ = ["SgfParser", "point", "square", "move_text", "parse_move", "escape", "where"]

Node = dict[str, list[str]]


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
        nodes: list[tuple[Node, int]] = []
        stack: list[list[bool]] = []  # per open tree: [on the main line, has had a variation]
        node: Optional[Node] = None  # the node whose properties are being read
        text, pos = self.text, 0
        while True:
            m = _TOKEN_RE.match(text, pos)
            # every alternative is a named group, and the last two take any character or the end
            assert m is not None and m.lastgroup is not None
            kind = m.lastgroup
            self.pos, pos = m.start("ident" if kind == "values" else kind), m.end()
            if kind == "open":
                if stack:
                    top = stack[-1]
                    stack.append([top[0] and not top[1], False])
                    top[1] = True
                else:
                    nodes, stack = [], [[True, False]]
                node = None
            elif kind == "node" and stack and not stack[-1][1]:
                node = {}
                if stack[-1][0]:
                    nodes.append((node, self.line()))
            elif kind == "close" and stack:
                stack.pop()
                node = None
                if not stack:
                    if not nodes:
                        raise self.error("SGF game tree has no nodes")
                    games.append(nodes)
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
                return games
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
