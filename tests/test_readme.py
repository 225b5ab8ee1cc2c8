"""The README's Python examples run as written: every ```python block of README.md is executed,
each alone in a fresh namespace, in a temporary working directory (blocks may write files).
A statement that is a bare expression followed by a comment holding a Python literal, such as
``len(board.legal_moves())   # 2176``, must evaluate to that literal.

A block that cannot run here says so in the README on the line before its fence, with the
reason: ``<!-- no-test: needs a display -->``. Such blocks are skipped with that reason.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
# the fence of a python block, the heading above it, and an optional no-test marker just before it
_BLOCK = re.compile(r"(?:<!--\s*no-test:\s*(?P<why>.*?)\s*-->\n)?```python\n(?P<code>.*?)^```", re.S | re.M)
_HEADING = re.compile(r"^#+ (.+)$", re.M)


def _blocks() -> list:
    text = README.read_text(encoding="utf-8")
    params = []
    for match in _BLOCK.finditer(text):
        headings = _HEADING.findall(text, 0, match.start())
        line = text.count("\n", 0, match.start("code")) + 1
        title = headings[-1] if headings else "top"
        marks = [pytest.mark.skip(reason=match["why"])] if match["why"] else []
        params.append(pytest.param(match["code"], line, id=f"line {line}: {title}", marks=marks))
    return params


BLOCKS = _blocks()


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 4, "README.md lost its ```python examples (or this test no longer finds them)"


def _literal_comments(code: str) -> dict[int, str]:
    """Line number -> the text of that line's trailing comment, for comments that are a literal."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            text = token.string[1:].strip()
            try:
                ast.literal_eval(text)
            except (ValueError, SyntaxError):
                continue
            found[token.start[0]] = text
    return found


def _with_claims_checked(code: str) -> ast.Module:
    """``code`` with each bare expression whose comment is a literal turned into an assertion."""
    tree = ast.parse(code)
    claims = _literal_comments(code)
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Expr) and node.end_lineno in claims:
            claim = claims[node.end_lineno]
            check = ast.parse(f"assert __value == ({claim}), 'README claims ' + {claim!r} + ', got ' + repr(__value)")
            tree.body[i] = ast.copy_location(
                ast.Assign(targets=[ast.Name("__value", ast.Store())], value=node.value, lineno=node.lineno), node
            )
            tree.body.insert(i + 1, ast.copy_location(check.body[0], node))
    return ast.fix_missing_locations(tree)


@pytest.mark.parametrize("code, line", BLOCKS)
def test_readme_block_runs(code, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    compiled = compile(_with_claims_checked(code), f"README.md (block at line {line})", "exec")
    exec(compiled, {"__name__": "readme_block"})


def test_a_wrong_claim_in_a_block_fails():
    with pytest.raises(AssertionError, match="README claims 5, got 4"):
        exec(compile(_with_claims_checked("2 + 2   # 5\n"), "claim", "exec"), {})


def test_the_readme_agent_is_the_example_file():
    """ "This is ``examples/my_agent.py``" stays true."""
    example = (README.parent / "examples" / "my_agent.py").read_text(encoding="utf-8")
    agent_blocks = [p.values[0] for p in BLOCKS if "class Mobility(Agent)" in p.values[0]]
    assert agent_blocks and agent_blocks[0] in example
