"""File integrity in one place: canonical JSON digests, atomic writes and checked reading.

Every file the package writes and later trusts (model configs, training states, self-play
manifests, arena results, the train-loop state) goes through here:

* ``canonical_json`` / ``json_sha256``: a JSON document's canonical text (sorted keys, no
  spaces, ASCII) and the SHA-256 of that text without the document's own ``sha256`` field, the
  integrity hash such a document carries; ``seal`` adds it, ``is_sealed`` checks it.
* ``file_sha256``: the SHA-256 of a file's bytes, read in blocks.
* ``atomic_writer`` / ``write_atomic`` / ``write_json``: a write goes to ``NAME.tmp`` in the same
  folder, is flushed to disk (``fsync``), then renamed over ``NAME`` (``os.replace``), so a kill
  at any moment leaves the old file or the new one, never a torn one. The temporary name is fixed,
  not random, so the next write of the same file replaces what a killed one left. **Links and
  special files:** a symbolic link at ``NAME`` is written through (its target, wherever it
  points, is replaced atomically, and the link stays), so a results file kept behind a link is
  updated; a folder, FIFO, device or socket at ``NAME`` is refused (``InvalidFileError``), never
  replaced by a regular file (``--html /dev/full`` used to turn the device into a file); a link
  at ``NAME.tmp`` is removed, not written through. ``check_writable`` is the same path check
  plus a probe write of ``NAME.tmp``, for a command to refuse an unwritable path (a read-only
  folder, a name too long) before its work starts, with the operating system's own error.
* ``checked_path``, ``regular_file``, ``read_json``: reading that trusts nothing: a path that is a
  path, a regular file (not a folder, link or device) of bounded size, UTF-8 JSON that is an
  object, of the expected format version, with the expected keys. Each refusal is an ``error``
  (``amazons_env.errors.InvalidFileError`` unless the caller names its own subclass) naming the
  file and the problem.
* ``read_text``: a text file (a game record, a results file) read as UTF-8 up to a size, every
  failure an ``UnreadableFileError`` naming the file.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "state.json")
>>> write_json(path, seal({"format_version": 1, "done": ["a"]}))
>>> document = read_json(path, "state", version=1, keys=("done",))
>>> is_sealed(document), document["sha256"] == json_sha256({"done": ["a"], "format_version": 1})
(True, True)
>>> read_json(path, "state", version=2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidFileError: state ...state.json has format_version 1; this code reads version 2
>>> checked_path("", "model config")
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidFileError: model config '': give a path
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator, Optional, Sequence, Union

from amazons_env.errors import InvalidFileError, UnreadableFileError, describe

__all__ = [
    "PathLike",
    "canonical_json",
    "json_sha256",
    "seal",
    "is_sealed",
    "file_sha256",
    "atomic_writer",
    "writable_target",
    "check_writable",
    "write_atomic",
    "write_json",
    "checked_path",
    "regular_file",
    "read_json",
    "read_text",
    "MAX_JSON_BYTES",
]

PathLike = Union[str, "os.PathLike[str]"]
#: the default size cap of a JSON file read back (configs, states and manifests are far smaller)
MAX_JSON_BYTES = 16 << 20


# -- digests -------------------------------------------------------------------------------------


def canonical_json(document: Any) -> str:
    """The canonical JSON text of ``document``: sorted keys, no spaces, ASCII only.

    >>> canonical_json({"b": [1, 2], "a": "é"})
    '{"a":"\\\\u00e9","b":[1,2]}'
    """
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def json_sha256(document: dict[str, Any]) -> str:
    """The integrity hash a JSON document carries in its ``sha256`` field: the SHA-256 of its
    canonical JSON without that field (so the hash does not depend on how the file is indented)."""
    body = {k: v for k, v in document.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body).encode("ascii")).hexdigest()


def seal(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with its ``sha256`` field (last) set to ``json_sha256``."""
    body = {k: v for k, v in document.items() if k != "sha256"}
    return {**body, "sha256": json_sha256(body)}


def is_sealed(document: dict[str, Any]) -> bool:
    """Whether ``document`` carries a ``sha256`` field that matches its content."""
    return document.get("sha256") == json_sha256(document)


def file_sha256(path: PathLike) -> str:
    """The SHA-256 of the file at ``path`` (read in blocks: any size)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- atomic writes -------------------------------------------------------------------------------


def writable_target(path: PathLike) -> Path:
    """The file that writing ``path`` replaces: ``path`` itself, or the target of the symbolic
    link at ``path`` (followed to its end); ``InvalidFileError`` naming ``path`` when what is
    there is not a regular file (a folder, FIFO, device, socket).

    >>> import tempfile
    >>> writable_target(tempfile.gettempdir())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidFileError: cannot write ...: it is a folder, not a regular file
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target  # a new file (or a link to one not made yet)
    except OSError:
        return target  # the write itself will say what is wrong (a name too long, a folder not there)
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO, device or socket"
        raise InvalidFileError(f"cannot write {os.fspath(path)!r}: it is {kind}, not a regular file")
    return target


def _temporary(target: Path) -> tuple[Path, int]:
    """``NAME.tmp`` beside ``target``, opened for writing (a link left there is removed first)."""
    temporary = target.with_name(target.name + ".tmp")
    if os.path.islink(temporary):
        temporary.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    return temporary, os.open(temporary, flags, 0o666)


def check_writable(path: PathLike) -> None:
    """Refuse, before any work, a ``path`` that ``atomic_writer`` could not write: what
    ``writable_target`` refuses, and the operating system's error (naming ``path``) of creating
    ``NAME.tmp`` there (a read-only or missing folder, no permission, a name too long)."""
    target = writable_target(path)
    try:
        temporary, descriptor = _temporary(target)
    except OSError as error:
        raise type(error)(error.errno, error.strerror, os.fspath(path)) from None
    os.close(descriptor)
    temporary.unlink(missing_ok=True)


@contextmanager
def atomic_writer(path: PathLike) -> Iterator[IO[bytes]]:
    """A binary handle on ``PATH.tmp`` that becomes ``path`` when the ``with`` block ends
    normally (flushed and ``fsync``-ed first); when the block raises, ``path`` is left as it was
    and the temporary file removed. A link at ``path`` is written through, a special file
    refused (module docstring)."""
    target = writable_target(path)
    temporary, descriptor = _temporary(target)
    handle = os.fdopen(descriptor, "wb")
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        if error.filename is not None or error.errno is None:
            raise
        raise type(error)(error.errno, error.strerror, os.fspath(path)) from None  # disk full: name the file
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomic(path: PathLike, data: Union[bytes, str]) -> None:
    """Write ``data`` (text is written as UTF-8) to ``path`` atomically (``atomic_writer``); text
    that UTF-8 cannot hold (a lone surrogate) is refused naming the file, before it is touched.

    >>> write_atomic("page.html", "a " + chr(0xDC80) + " b")
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidFileError: cannot write 'page.html': character 2 is '\udc80', which UTF-8 cannot hold
    """
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as error:
            raise InvalidFileError(
                f"cannot write {os.fspath(path)!r}: character {error.start} is "
                f"{data[error.start : error.start + 1]!r}, which UTF-8 cannot hold"
            ) from None
    with atomic_writer(path) as handle:
        handle.write(data)


def write_json(
    path: PathLike, document: Any, indent: Optional[int] = 2, sort_keys: bool = False, allow_nan: bool = True
) -> None:
    """Write ``document`` as JSON (``indent``, ``sort_keys`` as ``json.dumps`` takes them, a final
    newline) to ``path`` atomically. ``allow_nan=False`` refuses NaN and infinities (which
    strict JSON readers refuse) with a ``ValueError`` before anything is written."""
    write_atomic(path, json.dumps(document, indent=indent, sort_keys=sort_keys, allow_nan=allow_nan) + "\n")


# -- checked reading -----------------------------------------------------------------------------


def checked_path(path: Any, what: str, error: type[ValueError] = InvalidFileError) -> Path:
    """``path`` as a ``Path``, or ``error`` when it is no usable path (not a string or path
    object, empty, or holding a NUL)."""
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"{what} {str(path)[:100]!r}: give a path, not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text or "\0" in text:
        raise error(f"{what} {str(text)[:100]!r}: give a path")
    return Path(text)


def regular_file(
    path: Path, what: str, limit: int, follow_links: bool = True, error: type[ValueError] = InvalidFileError
) -> int:
    """The size of ``path`` if it is a regular file of at most ``limit`` bytes, else ``error``.
    With ``follow_links`` a link is followed (a link to a device or a folder is refused like the
    thing itself); without, a link is refused (a file that must stay inside its folder)."""
    try:
        status = os.stat(path) if follow_links else os.lstat(path)
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as problem:
        raise error(f"{what} {path} cannot be read: {problem.strerror}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise error(f"{what} {path} is {kind}")
    if status.st_size > limit:
        raise error(f"{what} {path} has {status.st_size:,} bytes, more than the {limit:,} allowed")
    return status.st_size


def read_json(
    path: Any,
    what: str,
    version: Optional[int] = None,
    keys: Sequence[str] = (),
    limit: int = MAX_JSON_BYTES,
    follow_links: bool = True,
    error: type[ValueError] = InvalidFileError,
) -> dict[str, Any]:
    """The JSON object in the file ``path`` (a ``what``, e.g. "model config"): a regular file
    (``regular_file``) of UTF-8 JSON, not nested absurdly deep, an object; of ``format_version``
    ``version`` unless that is None; holding all ``keys``. Else ``error`` naming the file."""
    path = checked_path(path, what, error)
    regular_file(path, what, limit, follow_links, error)
    try:
        document = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as problem:  # JSON and UTF-8 errors, numbers of 4,300+ digits
        reason = "nested too deeply" if isinstance(problem, RecursionError) else str(problem)[:200]
        raise error(f"{what} {path} is not valid JSON (truncated?): {reason}") from None
    except OSError as problem:
        raise error(f"{what} {path} cannot be read: {problem.strerror}") from None
    if not isinstance(document, dict):
        raise error(f"{what} {path} is not a JSON object")
    found = document.get("format_version")
    if version is not None and (found != version or isinstance(found, bool)):
        raise error(f"{what} {path} has format_version {str(found)[:50]}; this code reads version {version}")
    for key in keys:
        if key not in document:
            raise error(f"{what} {path} lacks {key!r}")
    return document


def read_text(path: PathLike, max_bytes: Optional[int] = None) -> tuple[str, str]:
    """The UTF-8 text of the file at ``path`` and the path as a string (how errors name it).
    Every failure is an ``UnreadableFileError`` naming the file: a path that is not a path, a
    missing file, a directory, a file over ``max_bytes`` (None: any size; no more than that is
    read), bytes that are not UTF-8 (with their offset).

    >>> read_text("no/such/file.sgf")
    Traceback (most recent call last):
    ...
    amazons_env.errors.UnreadableFileError: cannot read 'no/such/file.sgf': No such file or directory
    """
    try:
        source = os.fspath(path)
    except TypeError:
        raise UnreadableFileError(f"expected a file path, got {describe(path)}") from None
    shown = describe(source, 300)  # a path is worth showing whole
    try:
        with open(source, "rb") as handle:
            data = handle.read(-1 if max_bytes is None else max_bytes + 1)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise UnreadableFileError(f"cannot read {shown}: {reason}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise UnreadableFileError(
            f"cannot read {shown}: larger than {max_bytes} bytes, the most read (max_bytes; a game is far smaller)"
        )
    try:
        return data.decode("utf-8"), os.fsdecode(source)
    except UnicodeDecodeError as error:
        raise UnreadableFileError(
            f"{shown} is not UTF-8 text: byte {error.start} is {data[error.start : error.start + 1]!r}"
        ) from None
