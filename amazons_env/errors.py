"""The errors of the package: two families, as in python-chess, so that a caller can tell "what
I gave was wrong" from "something outside my input failed".

* ``AmazonsError`` (a ``ValueError``): bad input. What the caller gave (a move, a board, an
  argument, an option, a file) cannot be used; giving something else fixes it. Every input
  error was a ``ValueError`` before this root existed, so ``except ValueError`` still catches them.
* ``AmazonsRuntimeError`` (a ``RuntimeError``): a failure that is not the caller's input, such as
  an external engine that died or answered garbage, or a worker process or Ray cluster that was
  lost. The same call may work when tried again.

The tree (the module that defines each class in brackets, where it is not this one)::

    ValueError
     └── AmazonsError
          ├── InvalidMoveError        malformed notation
          ├── IllegalMoveError        a well-formed move that is not allowed where it was tried
          ├── InvalidPositionError    a board that cannot exist
          ├── InvalidArgumentError    any other argument that is not a value of its parameter
          │    ├── OptionError        an agent's or evaluator's option [agents.options]
          │    │    ├── UnknownOptionError      [agents.options]
          │    │    └── EngineOptionError       an option the UCI engine does not list [agents.protocols.uci_client]
          │    ├── LimitError         a search limit that is no valid bound [agents.time.limit]
          │    ├── GameOverError      a move asked of a search in a finished game [agents.search.agent]
          │    ├── TimeControlError   a game clock's reading or a time control (--tc) [agents.time.manager]
          │    └── BackendError       --backend, --ray-address, --workers; Ray not installed [agents.arena.backends]
          ├── UnreadableFileError     (also an OSError) a file that cannot be read at all
          ├── InvalidFileError        a file that was read but cannot be used
          │    ├── ModelFileError     a net or training-state file [agents.nets.safefiles]
          │    ├── ResultsFileError   an arena results file [agents.arena.files]
          │    ├── ShardError         a self-play manifest or shard [training.data.shards]
          │    └── LoopStateError     a train-loop state file [training.loop]
          └── TorchMissingError       (also an ImportError) the nn extra is not installed [agents.nets]
    RuntimeError
     └── AmazonsRuntimeError
          ├── EngineError             an external engine that could not start, died, hung or cheated
          │                           [agents.protocols.uci_client]
          └── WorkerError             a worker process, Ray worker or Ray cluster lost [agents.arena.backends]

A missing optional dependency (torch, Ray) is input: the caller asked for a feature that this
installation lacks, and installing the extra (the message says how) fixes it.

>>> issubclass(IllegalMoveError, ValueError), issubclass(AmazonsRuntimeError, ValueError)
(True, False)

Every refusal names the input it refused, through ``describe`` (so a 100,000-character text or a
4,300-digit number gives a short message, not a second error):

>>> describe("d1-d7/g7")
"'d1-d7/g7'"
>>> describe("d1-d7/g7 " * 100, limit=20)
"'d1-d7/g7 d1-d7/g7 d1'... (900 chars)"
>>> describe(10 ** 5000)
'<int of 16610 bits>'
"""

from __future__ import annotations

__all__ = [
    "AmazonsError",
    "InvalidMoveError",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidArgumentError",
    "UnreadableFileError",
    "InvalidFileError",
    "AmazonsRuntimeError",
    "describe",
]


class AmazonsError(ValueError):
    """The root of the input errors: what the caller gave cannot be used (see the module docstring)."""


class AmazonsRuntimeError(RuntimeError):
    """The root of the run-time failures: something that is not the caller's input failed, such
    as an external engine or a worker process (see the module docstring)."""


class InvalidMoveError(AmazonsError):
    """Malformed notation: a move, square or game record that cannot be read at all."""


class IllegalMoveError(AmazonsError):
    """A well-formed move that is not allowed in the position it was tried in."""


class InvalidPositionError(AmazonsError):
    """A board that cannot exist: wrong size, overlapping pieces, a side without queens, ..."""


class InvalidArgumentError(AmazonsError):
    """Any other argument that is not a valid value of its parameter: a symmetry number, a perft
    depth, a winner that is not a colour, ..."""


class UnreadableFileError(OSError, AmazonsError):
    """A file that cannot be read at all: missing, a directory, a bad path, not UTF-8 text.

    It is both an ``OSError`` (what ``open`` raises) and a ``ValueError`` (what every refusal of
    this package is), so either ``except`` catches it. Its message names the file."""


class InvalidFileError(AmazonsError):
    """A file (or a folder of them) that this package refuses to use: not what it wrote, edited,
    truncated, or made with other settings. Each kind of file has its subclass, defined beside
    the code that reads it. Its message names the file."""


def describe(value: object, limit: int = 60) -> str:
    """A short printable name of ``value`` for error messages: its ``repr``, cut to about
    ``limit`` characters with the full length noted. Never raises (a huge int, whose ``repr``
    would, or an object whose ``repr`` fails, gets a description of its type)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 192:
        return f"<int of {value.bit_length()} bits>"
    if isinstance(value, (str, bytes)) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} {'chars' if isinstance(value, str) else 'bytes'})"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any user object: its repr may raise anything
        return f"<{type(value).__name__} object>"
    return text if len(text) <= limit + 20 else f"{text[:limit]}... ({type(value).__name__})"
