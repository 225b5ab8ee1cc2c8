"""Reading the files we write (JSON configs, safetensors tensors) without trusting them.

Every reader here checks, before it allocates anything sized by the file: that the path is a
path (not ``""``, not with a NUL), names a regular file (not a directory, link or device) of a
bounded size; that JSON is UTF-8, not nested absurdly deep, an object of the expected format
version with the expected keys; that a safetensors header lists exactly the expected tensors
with the expected types and shapes, laid out end to end to the file's last byte. Each refusal
is a ``ModelFileError`` (a ``ValueError``) naming the file and the problem.

>>> checked_path("", "model config")
Traceback (most recent call last):
    ...
agents.nets.safefiles.ModelFileError: model config '': give a path
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
from pathlib import Path
from typing import Any, Optional, Union

__all__ = ["ModelFileError", "PathLike", "checked_path", "regular_file", "json_sha256", "file_sha256", "read_json",
           "read_header", "DTYPES"]

PathLike = Union[str, "os.PathLike[str]"]
_MAX_JSON_BYTES = 16 << 20
_MAX_HEADER_BYTES = 16 << 20
# safetensors' names of the torch dtypes our files hold, and their sizes in bytes
DTYPES = {"float32": ("F32", 4), "float64": ("F64", 8), "float16": ("F16", 2), "bfloat16": ("BF16", 2),
          "int64": ("I64", 8), "int32": ("I32", 4), "uint8": ("U8", 1), "bool": ("BOOL", 1)}

_BY_CODE = {code: (code, width) for code, width in DTYPES.values()}


class ModelFileError(ValueError):
    """A model or training-state file that cannot be used: missing, truncated, tampered,
    malformed, mismatched or too new."""


def checked_path(path: Any, what: str, error: type[ValueError] = ModelFileError) -> Path:
    """``path`` as a ``Path``, or ``error`` when it is no usable path."""
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"{what} {str(path)[:100]!r}: give a path, not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text or "\0" in text:
        raise error(f"{what} {str(text)[:100]!r}: give a path")
    return Path(text)


def regular_file(path: Path, what: str, limit: int, follow_links: bool = True,
                 error: type[ValueError] = ModelFileError) -> int:
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


def json_sha256(document: dict[str, Any]) -> str:
    """The integrity hash a JSON document we write carries in its ``sha256`` field: SHA-256 of
    its canonical form (sorted keys, no spaces) without that field."""
    body = {k: v for k, v in document.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def file_sha256(path: PathLike) -> str:
    """The SHA-256 of the file at ``path`` (read in blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json(name: Path, what: str, version: int, keys: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object in file ``name`` (a ``what``, e.g. "model config"), of format ``version``
    and with all ``keys``; else ``ModelFileError`` naming the file and the problem."""
    name = checked_path(name, what)
    regular_file(name, what, _MAX_JSON_BYTES)
    try:
        config = json.loads(name.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:  # JSON and UTF-8 errors, numbers of 4,300+ digits
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        raise ModelFileError(f"{what} {name} is not valid JSON (truncated?): {reason}") from None
    except OSError as error:
        raise ModelFileError(f"{what} {name} cannot be read: {error.strerror}") from None
    if not isinstance(config, dict):
        raise ModelFileError(f"{what} {name} is not a JSON object")
    found = config.get("format_version")
    if found != version or isinstance(found, bool):
        raise ModelFileError(f"{what} {name} has format_version {str(found)[:50]}; this code reads version {version}")
    for key in keys:
        if key not in config:
            raise ModelFileError(f"{what} {name} lacks {key!r}")
    return config


def read_header(path: Path, what: str, expected: dict[str, tuple[Optional[str], list[int]]],
                limit: int) -> dict[str, str]:
    """Check the safetensors file ``path`` against ``expected`` (``{name: (torch dtype name or
    None for any of ``DTYPES``, shape)}``) from its header alone, before its data is read; return
    its metadata. The file must hold exactly those tensors, laid out end to end to its last byte,
    and be at most ``limit`` bytes."""
    size = regular_file(path, what, limit)
    try:
        with open(path, "rb") as handle:
            start = handle.read(8)
            length = struct.unpack("<Q", start)[0] if len(start) == 8 else -1
            if not 2 <= length <= min(_MAX_HEADER_BYTES, size - 8):
                raise ModelFileError(f"{what} {path} is not a safetensors file (header length {length})")
            header = json.loads(handle.read(length).decode("utf-8"))
    except (ValueError, RecursionError):  # JSON and UTF-8 errors, numbers of 4,300+ digits
        raise ModelFileError(f"{what} {path} is not a safetensors file (unreadable header)") from None
    except OSError as error:
        raise ModelFileError(f"{what} {path} cannot be read: {error.strerror}") from None
    if not isinstance(header, dict):
        raise ModelFileError(f"{what} {path} is not a safetensors file (header not an object)")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ModelFileError(f"{what} {path}: malformed metadata")
    if set(header) != set(expected):
        wrong = sorted(set(header) ^ set(expected))
        raise ModelFileError(f"{what} {path} does not hold the expected tensors: {[str(n)[:60] for n in wrong[:5]]}")
    end = 0
    for name in sorted(expected, key=lambda n: _offsets(header[n])):
        dtype, shape = expected[name]
        entry = header[name]
        found = entry.get("dtype") if isinstance(entry, dict) else None
        code, width = DTYPES[dtype] if dtype is not None else _BY_CODE.get(found, ("F32", 4))
        count = 1
        for extent in shape:
            count *= extent
        if found != code or entry.get("shape") != shape or _offsets(entry) != (end, end + count * width):
            raise ModelFileError(f"{what} {path}: tensor {name} is not {code}{shape} at bytes {end}.."
                                 f"{end + count * width} (found {str(entry)[:200]})")
        end += count * width
    if 8 + length + end != size:
        raise ModelFileError(f"{what} {path} has {size:,} bytes, its header describes {8 + length + end:,}")
    return metadata


def _offsets(entry: Any) -> tuple[int, int]:
    """A header entry's ``data_offsets`` (``(-1, -1)`` when malformed, which no check accepts)."""
    offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
    if isinstance(offsets, list) and len(offsets) == 2 and all(type(x) is int for x in offsets):
        return offsets[0], offsets[1]
    return -1, -1
