r"""Griffe extension: the doctest examples of our docstrings rendered as Python sessions.

Our docstrings are prose with bare doctest examples (``>>>`` lines and their output), which
Markdown would read as nested quotes; this puts each example in a fenced ``pycon`` block before
mkdocstrings renders the docstring, and drops the ``# doctest:`` directives that only the test
runner reads. ``mkdocs.yml`` names this file in the python handler's ``extensions``.

>>> fenced("Text.\n\n>>> 1 + 1  # doctest: +ELLIPSIS\n2\n\nMore.").split("\n")
['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["fenced", "DoctestBlocks"]

_DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")


def fenced(text: str) -> str:
    """``text`` with each doctest example (a ``>>>`` line, its ``...`` lines and its output, up
    to a blank line) fenced at its own indentation."""
    out: list[str] = []
    indent = None  # the open fence's indentation, None outside an example
    for line in text.split("\n"):
        stripped = line.lstrip()
        if indent is not None and (not stripped or len(line) - len(stripped) < len(indent)):
            out.append(indent + "```")
            indent = None
        if indent is None and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(indent + "```pycon")
        out.append(_DIRECTIVE.sub("", line) if indent is not None else line)
    if indent is not None:
        out.append(indent + "```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fences the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fenced(obj.docstring.value)
