"""Self-play files: the ``.npz`` shards and the ``manifest.json`` that lists them, written and read back checked.

A folder of self-play data (``training.selfplay.value``) holds ``shard-00000.npz``, ``shard-00001.npz``,
... and ``manifest.json``: the format version, the settings, per shard its file name, index,
games, positions, White wins, size in bytes and SHA-256, the totals, the ``data_hash`` of the
whole set and the ``sha256`` of the manifest itself (over its canonical JSON without that field).

Reading trusts nothing: ``read_manifest`` refuses a manifest that is not a regular file, too
large, not UTF-8 JSON, of another version, edited (its hash), malformed, or whose totals disagree
with its shards; a shard's ``file`` must be exactly ``shard-NNNNN.npz`` for its index (so it stays
in the folder), a regular file (no link, no device) of the recorded size and hash; ``load_shard``
checks the arrays' names, sizes (before decompressing), types and values. Every refusal is a
``ShardError`` (a ``ValueError``) naming the file.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> entry = write_shard(folder, 0, {"cells": np.full((1, 64), 4, np.uint8), "sides": np.zeros(1, np.int8),
...     "results": np.ones(1, np.int8), "values": np.zeros(1, np.float32), "plies": np.zeros(1, np.int16),
...     "games": np.zeros(1, np.int64)}, games=1, white_wins=1)
>>> write_manifest(folder, {"size": 6}, [entry])["positions"]
1
>>> read_manifest(folder)["shards"][0]["file"]
'shard-00000.npz'
>>> edited = (folder / "manifest.json").read_text().replace('"games": 1,', '"games": 2,')
>>> _ = (folder / "manifest.json").write_text(edited)
>>> read_manifest(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
training.data.shards.ShardError: self-play manifest .../manifest.json was edited: its sha256 does not match its content
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

import numpy as np

from amazons_env import core
from amazons_env.errors import InvalidFileError
from amazons_env.files import (
    PathLike,
    atomic_writer,
    checked_path,
    file_sha256,
    is_sealed,
    read_json,
    regular_file,
    seal,
    write_json,
)

__all__ = [
    "ShardError",
    "MANIFEST",
    "MANIFEST_VERSION",
    "shard_name",
    "write_shard",
    "write_manifest",
    "read_manifest",
    "shard_path",
    "SHARD_ARRAYS",
    "read_arrays",
    "check_arrays",
    "positions_in_range",
    "load_shard",
    "load_dataset",
]

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
_MAX_MANIFEST_BYTES = 64 << 20  # ~100 bytes per shard: far more shards than any run makes
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: every array of a self-play shard and its type (one row per position; ``cells``: the padded
#: board); a policy-value shard adds its targets (``training.data.policy_value.PV_ARRAYS``)
SHARD_ARRAYS = {
    "cells": np.uint8,
    "sides": np.int8,
    "results": np.int8,
    "values": np.float32,
    "plies": np.int16,
    "games": np.int64,
}
_ENTRY = {"file": str, "index": int, "games": int, "positions": int, "white_wins": int, "bytes": int, "sha256": str}


class ShardError(InvalidFileError):
    """A self-play manifest or shard that cannot be used: missing, malformed, edited or out of its folder."""


def shard_name(index: int) -> str:
    """The file name of shard ``index``: the only name a manifest may give it."""
    return f"shard-{index:05d}.npz"


def _folder(folder: Any) -> Path:
    return checked_path(folder, "self-play folder", ShardError)


def write_shard(
    folder: PathLike, index: int, data: dict[str, np.ndarray], games: int, white_wins: int
) -> dict[str, Any]:
    """Write shard ``index`` of ``folder`` atomically; its manifest entry."""
    path = _folder(folder) / shard_name(index)
    # np.savez_compressed stamps each member with the current time: fixed stamps make the same
    # arrays the same bytes, so the same games give the same SHA-256 and data hash in any run
    with atomic_writer(path) as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in data.items():
            member = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(member, "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, np.asanyarray(array), allow_pickle=False)
    return {
        "file": path.name,
        "index": int(index),
        "games": int(games),
        "positions": int(len(data["sides"])),
        "white_wins": int(white_wins),
        "bytes": path.stat().st_size,
        "sha256": file_sha256(path),
    }


def _totals(shards: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The totals a manifest holds for ``shards`` (sorted by index)."""
    return {
        "games": sum(s["games"] for s in shards),
        "positions": sum(s["positions"] for s in shards),
        "data_hash": hashlib.sha256("".join(s["sha256"] for s in shards).encode()).hexdigest()[:16],
    }


def write_manifest(folder: PathLike, settings: dict[str, Any], shards: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Write ``folder``'s manifest (atomically) listing ``shards``; return it."""
    shards = sorted(shards, key=lambda s: s["index"])
    manifest = seal({"format_version": MANIFEST_VERSION, "settings": settings, "shards": shards, **_totals(shards)})
    write_json(_folder(folder) / MANIFEST, manifest, indent=2)
    return manifest


def _check_entry(entry: Any, path: Path) -> dict[str, Any]:
    if (
        not isinstance(entry, dict)
        or set(entry) != set(_ENTRY)
        or not all(isinstance(entry[k], kind) and not isinstance(entry[k], bool) for k, kind in _ENTRY.items())
    ):
        raise ShardError(f"self-play manifest {path}: malformed shard entry {str(entry)[:200]}")
    if not (
        0 <= entry["index"] <= 99_999
        and entry["games"] >= 1
        and entry["positions"] >= 1
        and 0 <= entry["white_wins"] <= entry["games"]
        and entry["bytes"] >= 0
        and _HEX64.fullmatch(entry["sha256"])
    ):
        raise ShardError(f"self-play manifest {path}: shard entry out of range {str(entry)[:200]}")
    if entry["file"] != shard_name(entry["index"]):
        raise ShardError(
            f"self-play manifest {path}: shard {entry['index']} must be the file "
            f"{shard_name(entry['index'])} in its folder, not {entry['file'][:200]!r}"
        )
    return entry


def read_manifest(folder: PathLike) -> dict[str, Any]:
    """The checked manifest of a self-play folder (the shards themselves are checked when read)."""
    path = _folder(folder) / MANIFEST
    if not os.path.lexists(path):
        raise ShardError(f"no self-play manifest at {path}")
    manifest = read_json(path, "self-play manifest", limit=_MAX_MANIFEST_BYTES, follow_links=False, error=ShardError)
    keys = {"format_version", "settings", "shards", "games", "positions", "data_hash", "sha256"}
    if manifest.get("format_version") != MANIFEST_VERSION:
        raise ShardError(
            f"self-play manifest {path} has format_version {str(manifest.get('format_version'))[:50]}; "
            f"this code reads version {MANIFEST_VERSION} (rerun amazons selfplay into a new folder)"
        )
    if set(manifest) != keys:
        raise ShardError(
            f"self-play manifest {path} is malformed: expected the keys {sorted(keys)}, found {sorted(manifest)[:20]}"
        )
    if not is_sealed(manifest):
        raise ShardError(f"self-play manifest {path} was edited: its sha256 does not match its content")
    settings, shards = manifest["settings"], manifest["shards"]
    size = settings.get("size") if isinstance(settings, dict) else None
    if type(size) is not int or not core.MIN_SIZE <= size <= core.MAX_SIZE or not isinstance(shards, list):
        raise ShardError(f"self-play manifest {path} is malformed: settings {str(settings)[:200]} or shards")
    entries = [_check_entry(entry, path) for entry in shards]
    if len({e["index"] for e in entries}) != len(entries):
        raise ShardError(f"self-play manifest {path} lists a shard twice")
    # the totals are derived: recompute them to catch a manifest written by other code
    totals = _totals(sorted(entries, key=lambda e: e["index"]))
    if totals != {key: manifest[key] for key in totals}:
        raise ShardError(f"self-play manifest {path}: the totals disagree with the shards")
    return manifest


def shard_path(folder: PathLike, entry: dict[str, Any]) -> Path:
    """The file of a checked manifest ``entry``, itself checked: a regular file of the recorded size
    and SHA-256."""
    path = _folder(folder) / entry["file"]
    size = regular_file(path, "self-play shard", entry["bytes"], follow_links=False, error=ShardError)
    if size != entry["bytes"]:
        raise ShardError(f"self-play shard {path} has {size:,} bytes, its manifest says {entry['bytes']:,}")
    if file_sha256(path) != entry["sha256"]:
        raise ShardError(f"self-play shard {path} does not match its manifest's SHA-256 (truncated or edited)")
    return path


def read_arrays(path: Path, keys: Collection[str], limit: int, what: str = "self-play shard") -> dict[str, np.ndarray]:
    """The arrays ``keys`` of the ``.npz`` file ``path``, exactly those, refused (``ShardError``
    naming the file) if they would unpack to more than ``limit`` bytes: the sizes come from the zip
    directory, before anything is decompressed (and zip does not unpack past them)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = {info.filename for info in archive.infolist()}
            unpacked = sum(info.file_size for info in archive.infolist())
        if names != {key + ".npy" for key in keys} or unpacked > limit:
            raise ShardError(
                f"{what} {path}: expected the arrays {sorted(keys)} ({limit:,} bytes at most), "
                f"found {sorted(names)[:12]} ({unpacked:,} bytes)"
            )
        with np.load(path, allow_pickle=False) as archive:
            return {key: archive[key] for key in keys}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError) as error:
        if isinstance(error, ShardError):
            raise
        raise ShardError(f"{what} {path} cannot be read: {str(error)[:200]}") from None


def check_arrays(
    data: dict[str, np.ndarray], kinds: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]], what: str
) -> None:
    """Each array of ``data`` of its type in ``kinds`` and its shape in ``shapes``, else a
    ``ShardError`` naming ``what`` (the shard and its file) and the array."""
    for key, kind in kinds.items():
        if data[key].dtype != kind or data[key].shape != shapes[key]:
            raise ShardError(
                f"{what}: array {key} is {data[key].dtype}{list(data[key].shape)}, "
                f"expected {np.dtype(kind)}{list(shapes[key])}"
            )


def positions_in_range(data: dict[str, np.ndarray]) -> bool:
    """Whether the arrays of positions every shard holds (``sides``, ``results``, ``values``,
    ``plies``, ``cells``) hold only what a game can have.

    >>> row = dict(sides=np.int8([0]), results=np.int8([1]), values=np.float32([0.5]), plies=np.int16([3]))
    >>> row["cells"] = np.zeros((1, 16), np.uint8)
    >>> positions_in_range(row), positions_in_range({**row, "results": np.int8([0])})  # a result is +1 or -1
    (True, False)
    """
    return bool(
        np.isin(data["sides"], (0, 1)).all()
        and np.isin(data["results"], (-1, 1)).all()
        and np.isfinite(data["values"]).all()
        and (np.abs(data["values"]) <= 1).all()
        and (data["plies"] >= 0).all()
        and (data["cells"] <= core.WALL).all()
    )


def load_shard(path: Path, entry: dict[str, Any], size: int) -> dict[str, np.ndarray]:
    """The arrays of the shard at ``path`` (from ``shard_path``) of ``size`` x ``size`` boards, checked."""
    n, width = entry["positions"], size + 2
    shapes = {key: (n, width * width) if key == "cells" else (n,) for key in SHARD_ARRAYS}
    limit = sum(int(np.prod(shapes[k])) * np.dtype(t).itemsize + 1024 for k, t in SHARD_ARRAYS.items())
    data = read_arrays(path, list(SHARD_ARRAYS), limit)
    check_arrays(data, SHARD_ARRAYS, shapes, f"self-play shard {path}")
    if not positions_in_range(data):
        raise ShardError(f"self-play shard {path}: values out of range (sides, results, values, plies or cells)")
    return data


def load_dataset(folders: "Sequence[PathLike] | PathLike") -> tuple[dict[str, np.ndarray], str]:
    """All shards of one or more self-play folders, concatenated, and their combined data hash;
    every manifest and shard is checked (``ShardError`` naming the file)."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    if not isinstance(folders, (list, tuple)):
        raise ShardError(f"self-play folders {str(folders)[:100]!r}: give a folder or a list of folders")
    parts, hashes, sizes = [], [], set()
    for folder in folders:
        manifest = read_manifest(folder)
        size = manifest["settings"]["size"]
        sizes.add(size)
        hashes.append(manifest["data_hash"])
        parts += [load_shard(shard_path(folder, entry), entry, size) for entry in manifest["shards"]]
    if len(sizes) != 1:
        raise ShardError(f"self-play folders mix board sizes {sorted(sizes)}")
    if not parts:
        raise ShardError(f"no shards in {list(map(str, folders))}")
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    data_hash = hashes[0] if len(hashes) == 1 else hashlib.sha256("".join(hashes).encode()).hexdigest()[:16]
    return data, data_hash
