"""A long proof's state on disk: the transposition table with the position it proves, so that a
search stopped with Ctrl-C resumes where it was (``amazons solve --state FILE``).

One ``.npz`` file (``numpy``'s zip of arrays, read with ``allow_pickle=False``): the table's
arrays and a JSON header (position, board size, table bits, nodes searched so far, format
version) that carries the SHA-256 of the arrays' bytes and its own (``amazons_env.files.seal``).
It is written atomically (``files.atomic_writer``: a kill leaves the old file or the new one),
and read back only if every check holds (``ProofFileError`` naming the file otherwise).

>>> import os, tempfile
>>> from agents.search.solver.table import new_table, probe, store
>>> table, start = new_table(4, 4), "1qq1/q2q/Q2Q/1QQ1 w"
>>> store(table, np.uint64(12345), 7, 9, 1)
>>> path = os.path.join(tempfile.mkdtemp(), "proof.npz")
>>> write_state(path, start, 99, table)
>>> back, nodes = read_state(path, start)
>>> found, phi, delta = probe(back, np.uint64(12345))
>>> nodes, bool(found), int(phi), int(delta), back.entries.shape == table.entries.shape
(99, True, 7, 9, True)
>>> read_state(path, "1qq1/q2q/Q2Q/1QQ1 b")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
agents...ProofFileError: proof state ...proof.npz proves '1qq1/q2q/Q2Q/1QQ1 w', not '1qq1/q2q/Q2Q/1QQ1 b'
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np

from amazons_env.errors import InvalidFileError
from amazons_env.files import PathLike, atomic_writer, checked_path, is_sealed, regular_file, seal

from agents.search.solver.table import Table

__all__ = ["ProofFileError", "write_state", "read_state", "FORMAT_VERSION", "MAX_BYTES"]

FORMAT_VERSION = 2  # 2: the table's entries as rows of two words (``table``)
MAX_BYTES = 1 << 34  # a 2**30-entry table is 20 GiB; refuse anything larger than that could be
WHAT = "proof state"


class ProofFileError(InvalidFileError):
    """A proof state file that cannot be resumed from: missing parts, a checksum that does not
    hold, or another position's proof; the message names the file."""


def _digest(table: Table) -> str:
    sha = hashlib.sha256()
    for name in Table._fields:
        sha.update(np.ascontiguousarray(getattr(table, name)).tobytes())
    return sha.hexdigest()


def write_state(path: PathLike, position: str, nodes: int, table: Table) -> None:
    """Save ``table`` (the proof of ``position`` after ``nodes`` nodes) to ``path`` atomically."""
    header = seal(
        {
            "format_version": FORMAT_VERSION,
            "position": position,
            "nodes": int(nodes),
            "entries": int(table.entries.shape[0]),
            "arrays_sha256": _digest(table),
        }
    )
    arrays = {name: getattr(table, name) for name in Table._fields}
    with atomic_writer(path) as handle:
        np.savez(handle, header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8), **arrays)


def read_state(path: PathLike, position: str) -> tuple[Table, int]:
    """The table saved at ``path`` and the nodes searched so far, if it proves ``position`` and
    every check holds; else ``ProofFileError`` naming the file."""
    path = checked_path(path, WHAT, ProofFileError)
    regular_file(path, WHAT, MAX_BYTES, error=ProofFileError)
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(bytes(data["header"]).decode("utf-8"))
            table = Table(*(np.array(data[name]) for name in Table._fields))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, io.UnsupportedOperation) as problem:
        raise ProofFileError(f"{WHAT} {path} cannot be read (truncated or not ours?): {str(problem)[:200]}") from None
    if not isinstance(header, dict) or not is_sealed(header) or header.get("format_version") != FORMAT_VERSION:
        raise ProofFileError(f"{WHAT} {path}: its header is not one this code wrote (or it was edited)")
    if header.get("position") != position:
        raise ProofFileError(f"{WHAT} {path} proves {header.get('position')!r}, not {position!r}")
    if header.get("arrays_sha256") != _digest(table):
        raise ProofFileError(f"{WHAT} {path}: the table does not match its checksum (damaged or edited)")
    entries = table.work.shape[0]
    if entries & (entries - 1) or table.entries.shape != (entries, 2) or table.entries.dtype != np.uint64:
        raise ProofFileError(f"{WHAT} {path}: the table's arrays do not fit together")
    return table, int(header["nodes"])
