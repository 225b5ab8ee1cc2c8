"""The words of a plain move list (``records.GameRecord``'s text format, described in the
``records`` docstring): its tag lines ``[Key "value"]`` and the words between its comments and
move numbers, read one line at a time, and a tag line written back.

>>> list(items('[White "me"]\\n1. d1-d7/g7 {a comment} 2. a7a6,a6a5 # to the end\\n1-0', "<text>"))
[('tag', ('White', 'me'), 1), ('word', 'd1-d7/g7', 2), ('word', 'a7a6,a6a5', 2), ('word', '1-0', 3)]
>>> tag_line("Event", 'a "quoted"\\nline')
'[Event "a \\\\"quoted\\\\"\\\\nline"]'
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from amazons_env.errors import InvalidMoveError, describe
from amazons_env.records import sgf

__all__ = ["items", "tag_line"]

_TAG_RE = re.compile(r'\[\s*([A-Za-z][\w-]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*\Z')
_NUMBER_RE = re.compile(r"[0-9]+\.+")
_TAG_START_RE = re.compile(r"[^\S\n]*\[")  # a tag line starts with '[' (after blanks)
_PIECE_RE = re.compile(r"[#;{}]|[^#;{}\s]+|\s+")  # a move list line's pieces, read one at a time


def items(text: str, source: str) -> Iterator[tuple[str, Any, int]]:
    """A move list's tags ``("tag", (key, value), line)`` and its other words (moves, results)
    ``("word", text, line)``, comments and move numbers left out, as they are read (by position
    in ``text``: a long line is never copied whole). ``InvalidMoveError`` naming ``source`` and
    the line for a malformed tag or an unbalanced comment."""
    depth = opened = pos = line_no = 0
    while pos <= len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line_no += 1
        if depth == 0 and _TAG_START_RE.match(text, pos, end):
            raw = text[pos:end].strip()
            m = _TAG_RE.match(raw)
            if m is None:
                raise InvalidMoveError(f'{sgf.where(source, line_no)}: {describe(raw)} is not a tag like [Size "10"]')
            yield "tag", (m.group(1), _unquote(m.group(2))), line_no
            pos = end + 1
            continue
        for piece in _PIECE_RE.finditer(text, pos, end):
            word = piece.group()
            if word == "{":
                depth, opened = depth + 1, line_no
            elif word == "}":
                if depth == 0:
                    raise InvalidMoveError(f"{sgf.where(source, line_no)}: '}}' without '{{'")
                depth -= 1
            elif depth:
                continue
            elif word in ("#", ";"):
                break  # a comment to the end of the line
            elif not word.isspace():
                if _NUMBER_RE.match(word):
                    word = _NUMBER_RE.sub("", word, count=1)
                if word:
                    yield "word", word, line_no
        pos = end + 1
    if depth:
        raise InvalidMoveError(f"{sgf.where(source, opened)}: comment '{{' is never closed")


def tag_line(key: str, value: str) -> str:
    """The tag line of ``key`` and ``value`` (backslashes, quotes and newlines escaped), which
    ``items`` reads back as they are."""
    return f'[{key} "{_quote(value)}"]'


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)
