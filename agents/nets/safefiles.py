"""Reading the model files we write (JSON configs, safetensors tensors) without trusting them.

The generic checks live in ``amazons_env.files`` (a path that is a path, a regular file of
bounded size, UTF-8 JSON that is an object of the expected format version with the expected
keys, the canonical JSON digest, the file digest); here they refuse with ``ModelFileError``, and
``read_header`` adds what is particular to safetensors: the header lists exactly the expected
tensors with the expected types and shapes, laid out end to end to the file's last byte. Each
refusal is a ``ModelFileError`` (a ``ValueError``) naming the file and the problem.

>>> checked_path("", "model config")
Traceback (most recent call last):
    ...
agents.nets.safefiles.ModelFileError: model config '': give a path
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from amazons_env import files
from amazons_env.errors import InvalidFileError
from amazons_env.files import MAX_JSON_BYTES, PathLike, file_sha256, json_sha256

__all__ = [
    "ModelFileError",
    "PathLike",
    "checked_path",
    "regular_file",
    "json_sha256",
    "file_sha256",
    "read_json",
    "read_header",
    "DTYPES",
]

_MAX_HEADER_BYTES = 16 << 20
# safetensors' names of the torch dtypes our files hold, and their sizes in bytes
DTYPES = {
    "float32": ("F32", 4),
    "float64": ("F64", 8),
    "float16": ("F16", 2),
    "bfloat16": ("BF16", 2),
    "int64": ("I64", 8),
    "int32": ("I32", 4),
    "uint8": ("U8", 1),
    "bool": ("BOOL", 1),
}

_BY_CODE = {code: (code, width) for code, width in DTYPES.values()}


class ModelFileError(InvalidFileError):
    """A model or training-state file that cannot be used: missing, truncated, tampered,
    malformed, mismatched or too new."""


def checked_path(path: Any, what: str, error: type[ValueError] = ModelFileError) -> Path:
    """``amazons_env.files.checked_path``, refusing with ``ModelFileError`` unless told otherwise."""
    return files.checked_path(path, what, error)


def regular_file(
    path: Path, what: str, limit: int, follow_links: bool = True, error: type[ValueError] = ModelFileError
) -> int:
    """``amazons_env.files.regular_file``, refusing with ``ModelFileError`` unless told otherwise."""
    return files.regular_file(path, what, limit, follow_links, error)


def read_json(name: Path, what: str, version: int, keys: Sequence[str]) -> dict[str, Any]:
    """The JSON object in file ``name`` (a ``what``, e.g. "model config"), of format ``version``
    and with all ``keys`` (``amazons_env.files.read_json``); else ``ModelFileError``."""
    return files.read_json(name, what, version, keys, MAX_JSON_BYTES, error=ModelFileError)


def read_header(
    path: Path, what: str, expected: Mapping[str, tuple[Optional[str], list[int]]], limit: int
) -> dict[str, str]:
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
        if dtype is not None:
            code, width = DTYPES[dtype]
        else:  # any of DTYPES: the one the header names (another name, or no name, fails below)
            code, width = _BY_CODE.get(found, ("F32", 4)) if isinstance(found, str) else ("F32", 4)
        count = 1
        for extent in shape:
            count *= extent
        if found != code or entry.get("shape") != shape or _offsets(entry) != (end, end + count * width):
            raise ModelFileError(
                f"{what} {path}: tensor {name} is not {code}{shape} at bytes {end}.."
                f"{end + count * width} (found {str(entry)[:200]})"
            )
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
