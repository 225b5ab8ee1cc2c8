"""The options of ``amazons engine --protocol uci`` (``agents.protocols.uci_engine``): the lines
``uci`` lists (``option_lines``), ``setoption``'s words (``parse_setoption``), a spin's value held
to its range (``spin_value``) and the agent specs the ``Agent`` option takes (``wire_spec``).

**No code from the wire.** The ``Agent`` option takes registered agent specs only
(``wire_spec``): not ``FILE.py:CLASS`` or ``package.module:CLASS`` (importing runs the file), and
not ``uci:`` (it starts a program), anywhere in the spec. A GUI, a bridge or a remote service
that drives the engine can then choose among our agents, never run a file of the machine it
runs on. The command line that starts the engine is trusted: ``--agent`` takes any spec, and
``amazons engine --allow-agent-files`` (``UCIEngine(allow_files=True)``) lets ``setoption``
name files too.
"""

from __future__ import annotations

from amazons_env.errors import InvalidArgumentError, describe

from agents.registry import AGENTS, Registry, parse_spec

__all__ = ["option_lines", "parse_setoption", "spin_value", "wire_spec", "SPINS", "STARTS_PROGRAMS", "VARIANT"]

VARIANT = "amazons"
#: the options that ``uci`` lists as spins, with their ranges (``setoption`` refuses others)
SPINS = {"movetime": (0, 86_400_000), "move overhead": (0, 5_000)}
#: registered agents that run a program: refused over the wire like files (``wire_spec``)
STARTS_PROGRAMS = ("uci",)


def option_lines(spec: str, movetime_ms: int, overhead_ms: int) -> list[str]:
    """The ``option`` lines that ``uci`` lists, with the agent ``spec`` and the spins' values."""
    lines = [
        f"option name UCI_Variant type combo default {VARIANT} var {VARIANT}",
        f"option name Agent type string default {spec}",
    ]
    for name, (low, high) in SPINS.items():
        default = movetime_ms if name == "movetime" else overhead_ms
        lines.append(
            f"option name {'MoveTime' if name == 'movetime' else 'Move Overhead'} type spin"
            f" default {default} min {low} max {high}"
        )
    return lines + ["option name Ponder type check default false"]


def parse_setoption(args: list[str]) -> tuple[str, str]:
    """The option's name (lower case) and value of ``setoption name NAME [value VALUE]``."""
    text = " ".join(args)
    if not text.startswith("name "):
        raise InvalidArgumentError("expected 'setoption name NAME [value VALUE]'")
    name, _, value = text[5:].partition(" value ")
    return name.strip().lower(), value.strip()


def spin_value(name: str, value: str) -> int:
    """The spin ``name``'s ``value`` as a whole number in its range; else ``InvalidArgumentError``."""
    try:
        number = int(value)
    except ValueError:
        raise InvalidArgumentError(f"{name} {describe(value)} is not a whole number") from None
    low, high = SPINS[name]
    if number < 0:
        raise InvalidArgumentError(f"{name} {number} is negative")
    if not low <= number <= high:
        raise InvalidArgumentError(f"{name} {describe(value)}: must be in {low}..{high}")
    return number


def wire_spec(spec: str) -> str:
    """``spec`` if it names registered agents and evaluators only (module docstring: no code
    from the wire); else ``InvalidArgumentError`` saying why. Any option value that is a spec with a
    ``:`` is held to the same rule.

    >>> wire_spec("alphabeta:eval=territory,depth=2")
    'alphabeta:eval=territory,depth=2'
    >>> wire_spec("/tmp/x.py:Agent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: agent '/tmp/x.py:Agent' over the protocol: only registered agents, ...
    """
    name, options = parse_spec(spec)
    known = set(AGENTS.available())  # loading the agents registers the evaluators they use
    known |= set(Registry.BY_KIND["evaluator"].available())
    for text in [name] + [str(v).partition(":")[0] for v in options.values() if ":" in str(v)]:
        if text in STARTS_PROGRAMS:
            raise InvalidArgumentError(
                f"agent {describe(spec)} over the protocol: {text!r} starts a program"
                " (start the engine with --allow-agent-files to allow it)"
            )
        if text not in known:
            raise InvalidArgumentError(
                f"agent {describe(spec)} over the protocol: only registered agents, not a file or module"
                " (start the engine with --allow-agent-files to allow them)"
            )
    return spec
