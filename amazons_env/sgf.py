"""SGF (FF[4]) reading and writing pieces for Amazons (GM[18]) records; ``records`` builds on them.

Points are two letters, the file then the row counted from the top: on 10x10 ``"dj"`` is d1.

>>> point(3, 10), square("dj", 10, "<sgf>")
('dj', 3)
"""

from __future__ import annotations

import re
from typing import Optional

from .errors import InvalidMoveError, describe
from .move import Move

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
            return Move(*(square(value[i:i + 2], size, place) for i in (0, 2, 4)), size=size)
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

    It is iterative (variations nested 100,000 deep are no problem) and linear in the text: the
    line number is counted forward from the last one found, never from the start again.

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

    def skip_space(self) -> None:
        m = _SPACE_RE.match(self.text, self.pos)
        self.pos = m.end()

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def collection(self) -> list[list[tuple[Node, int]]]:
        """The main line of every game tree in the text."""
        if self.peek() != "(":
            raise self.error("SGF must start with '(;'")
        games = []
        while self.peek() == "(":
            nodes = self.game_tree()
            if not nodes:
                raise self.error("SGF game tree has no nodes")
            games.append(nodes)
        if self.peek():
            raise self.error(f"expected '(' to start another game, found {describe(self.peek())}")
        return games

    def game_tree(self) -> list[tuple[Node, int]]:
        """The main-line nodes of the game tree that starts at ``(``. Nested variations are
        tracked on an explicit stack of ``[on the main line, has had a variation]`` pairs."""
        self.pos += 1  # '('
        nodes: list[tuple[Node, int]] = []
        stack = [[True, False]]
        while stack:
            top = stack[-1]
            ch = self.peek()
            if ch == ";" and not top[1]:
                self.pos += 1
                line = self.line()
                node = self.node()
                if top[0]:
                    nodes.append((node, line))
            elif ch == "(":
                self.pos += 1
                stack.append([top[0] and not top[1], False])
                top[1] = True
            elif ch == ")":
                self.pos += 1
                stack.pop()
            else:
                found = describe(ch) if ch else "the end of the text"
                expected = "'(' or ')'" if top[1] else "';', '(' or ')'"
                raise self.error(f"expected {expected} in the game tree, found {found}")
        return nodes

    def node(self) -> Node:
        props: Node = {}
        while True:
            self.skip_space()
            m = _IDENT_RE.match(self.text, self.pos)
            if m is None:
                return props
            self.pos = m.end()
            ident = "".join(c for c in m.group() if c.isupper())  # FF[3] allowed lowercase: 'AddWhite'
            if self.peek() != "[":
                raise self.error(f"property {describe(ident)} has no value")
            values = props.setdefault(ident, [])
            while self.peek() == "[":
                values.append(self.value())

    def value(self) -> str:
        """The text of ``[...]``: ``\\`` escapes the next character, an escaped newline is dropped."""
        m = _VALUE_RE.match(self.text, self.pos + 1)
        if m is None:
            raise self.error("property value '[' is never closed")
        self.pos = m.end()
        return _ESCAPE_RE.sub(lambda e: "" if e.group(1) == "\n" else e.group(1), m.group(1))


_SPACE_RE = re.compile(r"\s*")
_IDENT_RE = re.compile(r"[A-Za-z]+")
_VALUE_RE = re.compile(r"((?:[^\\\]]|\\.)*+)\]", re.DOTALL)  # possessive: linear on unclosed values
_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)
