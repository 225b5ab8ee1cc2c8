"""SGF (FF[4]) reading and writing pieces for Amazons (GM[18]) records; ``records`` builds on them.

Points are two letters, the file then the row counted from the top: on 10x10 ``"dj"`` is d1.

>>> point(3, 10), square("dj", 10, "<sgf>")
('dj', 3)
"""

from __future__ import annotations

import re
from typing import Optional

from .errors import InvalidMoveError
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
        raise InvalidMoveError(f"{place}: {text!r} is not an SGF point of a {size}x{size} board")
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
        raise InvalidMoveError(f"{message} (SGF move {value!r})") from None


def escape(value: str) -> str:
    """An SGF text value: ``]`` and ``\\`` escaped with a backslash."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


class SgfParser:
    """A small SGF reader: for each game tree, the nodes of its main line (the first variation at
    every branch), each with the line it starts on. Errors are ``InvalidMoveError`` naming the line."""

    def __init__(self, text: str, source: str) -> None:
        if not isinstance(text, str):
            raise InvalidMoveError(f"{source}: expected SGF text, got {type(text).__name__}")
        self.text, self.source, self.pos = text, source, 0

    def error(self, message: str) -> InvalidMoveError:
        line = self.text.count("\n", 0, self.pos) + 1
        return InvalidMoveError(f"{where(self.source, line)}: {message}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def collection(self) -> list[list[tuple[Node, int]]]:
        """The main line of every game tree in the text."""
        if self.peek() != "(":
            raise self.error("SGF must start with '(;'")
        games = []
        while self.peek() == "(":
            nodes = self.game_tree(main=True)
            if not nodes:
                raise self.error("SGF game tree has no nodes")
            games.append(nodes)
        if self.peek():
            raise self.error(f"expected '(' to start another game, found {self.peek()!r}")
        return games

    def game_tree(self, main: bool) -> list[tuple[Node, int]]:
        self.pos += 1  # '('
        nodes = []
        while self.peek() == ";":
            self.pos += 1
            line = self.text.count("\n", 0, self.pos) + 1
            nodes.append((self.node(), line))
        first = True
        while self.peek() == "(":
            branch = self.game_tree(main and first)
            if main and first:
                nodes += branch
            first = False
        if self.peek() != ")":
            found = self.peek() or "the end of the text"
            raise self.error(f"expected ';', '(' or ')' in the game tree, found {found!r}")
        self.pos += 1
        return nodes if main else []

    def node(self) -> Node:
        props: Node = {}
        while self.peek().isalpha():
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            ident = "".join(c for c in self.text[start:self.pos] if c.isupper())
            if self.peek() != "[":
                raise self.error(f"property {ident!r} has no value")
            values = props.setdefault(ident, [])
            while self.peek() == "[":
                values.append(self.value())
        return props

    def value(self) -> str:
        self.pos += 1  # '['
        out = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                self.pos += 1
                if self.pos < len(self.text) and self.text[self.pos] != "\n":
                    out.append(self.text[self.pos])
            elif ch == "]":
                self.pos += 1
                return "".join(out)
            else:
                out.append(ch)
            self.pos += 1
        raise self.error("property value '[' is never closed")
