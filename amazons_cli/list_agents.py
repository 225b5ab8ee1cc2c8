"""``amazons agents [NAME ...]``: every agent and evaluator with its options, defaults and help,
printed from the registries' schemas (``agents.options``), the same ones that check the options.

>>> print(describe(AGENTS, "random"))
random  Plays a legal move chosen uniformly at random (seeded).
  seed  int >= 0 or none  default none  seed of the agent's random choices (the arena sets it per game)
"""

from __future__ import annotations

import argparse
import difflib

from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import EVALUATORS
from agents.registry import AGENTS, DEFAULT_OPPONENT, STRONGEST, Registry, format_spec

__all__ = ["describe", "HELP", "add_arguments", "run"]

HELP = "list the agents and evaluators with every option, its default and a line of help"

USAGE = """A spec is NAME or NAME:key=value,key=value (e.g. alphabeta:time=0.5,eval=territory).
Your own agent: path/to/file.py:Class[:key=value,...] or package.module:Class[:...] (a class or
function taking the options as keywords and returning an agents.Agent)."""


def mark(name: str) -> str:
    """How ``name`` ranks in strength, if it is one of ``STRONGEST``, whether it is the default
    opponent (the strongest installed) and, if it is stronger than that, the extra it needs.

    >>> mark("uct-net").startswith("[strongest"), mark("random")
    (True, '')
    """
    ranks = {agent: rank for rank, (agent, _, _) in enumerate(STRONGEST)}
    if name not in ranks:
        return ""
    rank = ranks[name]
    words = ["strongest" if rank == 0 else f"{rank + 1}{'nd' if rank == 1 else 'rd' if rank == 2 else 'th'} strongest"]
    if name == DEFAULT_OPPONENT:
        words.append("the default opponent")
    elif rank < ranks[DEFAULT_OPPONENT]:
        extra = STRONGEST[rank][1]
        words.append(f'needs the {extra} extra: pip install "amazons[{extra}]"')
    return "[" + "; ".join(words) + "]"


def describe(registry: Registry, name: str) -> str:
    """The entry of ``name``: its first docstring line (after its mark among agents), then a row per option."""
    schema = registry.schema(name)
    rows = [
        (o.name, o.range_text(), "default " + (format_spec("", {"": o.default})[2:] or '""'), o.help)
        for o in schema.options.values()
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    marked = mark(name) if registry is AGENTS else ""
    lines = [f"{name}  {marked + '  ' if marked else ''}{schema.doc}".rstrip()]
    lines += [f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}".rstrip() for a, b, c, d in rows]
    if schema.forward:
        lines.append(f"  (other options go to its {schema.options[schema.forward].type}, {schema.forward}=)")
    if schema.passthrough:
        lines.append(f"  ({schema.passthrough})")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="agents or evaluators to show (default: all), or your own as FILE.py:CLASS",
    )


def run(args: argparse.Namespace) -> int:
    chosen = set(args.names)
    known = set(AGENTS.available()) | set(EVALUATORS.available())
    custom = sorted(n for n in chosen if ":" in n)  # your own: FILE.py:CLASS or module:CLASS
    unknown = sorted(chosen - known - set(custom))
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidArgumentError(
            f"unknown agent or evaluator {unknown[0]!r}{hint}; available: {', '.join(sorted(known))}"
        )
    for title, registry in (("Agents", AGENTS), ("Evaluators (eval=NAME, options after the agent's)", EVALUATORS)):
        names = [n for n in registry.available() if not chosen or n in chosen] + (custom if registry is AGENTS else [])
        if names:
            entries = [describe(registry, n) for n in names]  # a bad custom name fails before any output
            print(f"{title}:\n")
            print("\n\n".join(entries), end="\n\n")
    if not chosen:
        print(USAGE)
        print(
            f"Default opponent (play, match, engine): {DEFAULT_OPPONENT}, the strongest agent installed here "
            f"(strongest first: {', '.join(agent for agent, _, _ in STRONGEST)}; "
            "README, 'Strength at equal time per move')."
        )
    return 0
