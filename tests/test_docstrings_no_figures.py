"""Docstrings state contracts, not measurements: a measured figure (a ratio such as ``3.2x``, a
rate such as ``45k sims/s``, a time such as ``1.7 ms``, a share such as ``38%``, a size such as
``250 MB``) in a docstring or a ``#:`` doc comment of the package fails here. Measured figures
drift from the code that made them; they live in ``benchmarks/README.md``, beside the script and
command that measure them (``docs/benchmarks-history.md`` keeps the earlier ones).

Doctest examples are left out (their output is what the code prints, not a claim), and so are
the statistics' confidence levels (``95% interval``). A number that is a contract, not a
measurement (a bound the code enforces), goes in ``CONTRACTS`` with the words around it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("amazons_env", "agents", "training", "amazons_cli")

FIGURE = re.compile(
    r"""(?x)
      (?<![\w.])\d+(?:\.\d+)?x(?!\w)                                   # a ratio: 3.2x (not 10x10 nor 0x1f)
    | (?<![\w.])~\s?\d[\d,.]*[kKM]?                                     # an estimate: ~45k
    | \d[\d,.]*\s?[kKM]?\s?(?:[a-zA-Z-]+\s)?(?:[a-z]+/s|per\s(?:CPU\s|wall\s)?second)\b  # a rate: 45k sims/s
    | (?<![\w.])\d[\d,.]*\s?(?:ms|us|µs|ns)\b                          # a time: 1.7 ms
    | (?<![\w.])\d+\.\d+\s?s\b                                         # seconds to a decimal: 0.4 s
    | (?<![\w.])\d+(?:\.\d+)?\s?%(?!\s+(?:Wilson\s+)?(?:confidence\s+)?(?:intervals?|CI)\b)  # a share: 38%
    | (?<![\w.])\d[\d,.]*\s?[kMG]B\b                                   # a size: 250 MB
    """
)

#: numbers that are contracts (a bound the code enforces), each as (module path, the words around it)
CONTRACTS = {
    ("agents/protocols/uci_go.py", "(at least 10 ms)"),
    ("agents/time/control.py", "a minute and 0.1 s a move"),
}


def _without_examples(text: str) -> str:
    """``text`` without its doctest examples (``>>>`` and ``...`` lines and the output under them)
    and its code spans (a literal such as ``time=0.5`` is an input, not a claim)."""
    kept, in_example = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
        elif not stripped:
            in_example = False
        if not in_example:
            kept.append(line)
    return re.sub(r"``.*?``", "``code``", "\n".join(kept), flags=re.DOTALL)


def _documentation(path: Path) -> list[tuple[int, str]]:
    """Each docstring (module, class, function, and the string after an assignment) and ``#:``
    comment of the module at ``path``, with its first line number."""
    source = path.read_text(encoding="utf-8")
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, child in enumerate(body):
            if not (isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant)):
                continue
            if not isinstance(child.value.value, str):
                continue
            first = i == 0 and isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            after_assignment = i > 0 and isinstance(body[i - 1], (ast.Assign, ast.AnnAssign))
            if first or after_assignment:
                found.append((child.lineno, child.value.value))
    for number, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith("#:"):
            found.append((number, line.lstrip()[2:]))
    return found


def figures(path: Path) -> list[tuple[int, str, str]]:
    """The figures in the documentation of the module at ``path``: line, the figure, its words around."""
    name = path.relative_to(ROOT).as_posix()
    out = []
    for first, text in _documentation(path):
        text = _without_examples(text)
        for match in FIGURE.finditer(text):
            around = text[max(0, match.start() - 40) : match.end() + 40]
            if any(module == name and words in around.replace("\n", " ") for module, words in CONTRACTS):
                continue
            out.append((first + text[: match.start()].count("\n"), match.group().strip(), " ".join(around.split())))
    return out


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_pattern_knows_a_figure_from_a_board_size():
    found = [m.group().strip() for m in FIGURE.finditer(_without_examples(_FIGURES_AND_NOT))]
    assert found == ["3.2x", "45k sims/s", "1.7 ms", "38%", "0.4 s", "250 MB", "~2"], found


_FIGURES_AND_NOT = (
    "3.2x faster; 45k sims/s; 1.7 ms a call; 38% of its clock; 0.4 s; 250 MB; ~2 of them. "
    "Not: a 10x10 board, NxN, 0x1f, a 95% interval, the 95% Wilson\n  interval, move 20, ``hint: b1-b4/b5 (0.5 s)``."
)


def test_doctest_examples_are_not_claims():
    text = _without_examples("Text 1.7 ms.\n\n>>> f()\n'0.5 s'\n...     g('2.5 s')\n3.5 s\n\nMore, 4.5 s.")
    assert [m.group() for m in FIGURE.finditer(text)] == ["1.7 ms", "4.5 s"], text


def test_no_measured_figure_in_the_package_documentation():
    found = []
    for path in _modules():
        name = path.relative_to(ROOT).as_posix()
        for line, figure, around in figures(path):
            found.append(f"{name}:{line}: {figure!r} in '...{around}...'")
    assert not found, (
        "measured figures in docstrings (state the contract; the figure goes in benchmarks/README.md with "
        "its command; a number the code enforces goes in CONTRACTS): " + "".join(f"\n  {f}" for f in found)
    )
