"""The arena's files: the results JSON, checked on every read, and one record file per game.

**Results** (``save_results``/``load_results``): the payload carries ``sha256``, the SHA-256 of
its canonical JSON (sorted keys, no spaces) without that field (``amazons_env.files.json_sha256``),
and is written atomically (``amazons_env.files.write_json``). On read the checksum is verified
and then every game is checked on its own: the fields and their types, one entry per (pairing,
game number), the pairing one of the run's, the colours those of the game number, and the record
replayed from the start to a finished game won by the recorded winner in the recorded number of
plies. A file that fails is refused with an error naming it, never used in part.

**Records** (``save_record``): ``DIR/<pairing>_<game>.txt`` (move list) or ``.sgf``, carrying the
players, the result and the engines' values of the moves (``amazons_env.move_values``), as
``result_record`` builds them; ``save_pages`` writes the same records as web pages
(``amazons_env.drawing.html``). A pairing too long for a file name is shortened and made unique by a
hash of the whole.

>>> record_name("random vs alphabeta:time=0.5", 3)
'random_vs_alphabeta-time_0.5_0003'
>>> len(record_name("x" * 500 + " vs y", 0))
69
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any, Optional

from amazons_env import GameRecord
from amazons_env.drawing.html import save_game_page
from amazons_env.errors import InvalidArgumentError, InvalidFileError
from amazons_env.files import check_writable, is_sealed, read_text, seal, write_json
from amazons_env.move_values import VALUES_HEADER, format_values

__all__ = [
    "ResultsFileError",
    "save_results",
    "load_results",
    "read_results",
    "check_result",
    "record_name",
    "save_record",
    "result_record",
    "save_pages",
    "check_paths",
    "RECORD_FORMATS",
]

RECORD_FORMATS = ("txt", "sgf")
_MAX_NAME = 64  # characters of the pairing kept in a record's file name before it is hashed
#: every game's fields and their JSON types
_FIELDS = {
    "white": str,
    "black": str,
    "winner": int,
    "plies": int,
    "opening": int,
    "record": list,
    "seconds": list,
    "max_seconds": list,
    "nodes": list,
    "moves": list,
    "size": int,
    "index": int,
    "pair": str,
}
#: a field that results files written before it existed lack: per ply, None or a finite number
_VALUES = "values"
#: another: how the game ended, "moves" (the loser had none; the default) or "time" (the loser,
#: to move after the record, ran out of time: ``agents.arena.games.OutOfTime``)
_ENDED = "ended"


class ResultsFileError(InvalidFileError):
    """A results file that is not what the arena wrote: edited, damaged or of another run."""


def save_results(path: str, payload: dict[str, Any]) -> None:
    """Write ``payload`` with its checksum, atomically; NaN or an infinity is refused (strict JSON)."""
    write_json(path, seal(payload), indent=1, allow_nan=False)


def load_results(path: Optional[str], config: Optional[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games stored at ``path`` by a run with ``config`` (``[]`` if there is no file); with
    ``config=None``, by whatever run wrote the file (checked against the file's own config)."""
    if path is None or not os.path.exists(path):
        return []
    text, shown = read_text(path)

    def refuse(why: str) -> ResultsFileError:
        return ResultsFileError(f"{shown}: {why}; move it away or use another --json path")

    try:
        payload = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise refuse(f"not a results file ({type(error).__name__}: {str(error)[:80]})") from None
    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("results"), list)
        or not isinstance(payload.get("config"), dict)
    ):
        raise refuse("not a results file (no config and results)")
    if "sha256" not in payload:
        raise refuse("it has no sha256 check (written by an older version, or not by the arena)")
    if not is_sealed(payload):
        raise refuse("its sha256 check fails: it was edited or damaged after the arena wrote it")
    old = payload["config"]
    if config is None:
        config = old
    differs = sorted(k for k in config if k != "games" and old.get(k) != config[k])
    if differs:
        raise ResultsFileError(
            f"{shown} holds results of a different run (its {', '.join(differs)} differ); use another --json path"
        )
    seen: set[tuple[str, int]] = set()
    for number, result in enumerate(payload["results"]):
        why = check_result(result, config)
        if why is None and (result["pair"], result["index"]) in seen:
            why = "a second entry for this game"
        if why is not None:
            raise refuse(f"entry {number}: {why}")
        seen.add((result["pair"], result["index"]))
    return list(payload["results"])


def read_results(path: str) -> list[dict[str, Any]]:
    """The games of the results file at ``path``, whatever run wrote it (checked as ``load_results``
    checks them, against the file's own config): for readers of finished matches."""
    if not os.path.exists(path):
        raise ResultsFileError(f"{path!r}: no such results file")
    return load_results(path, None)


def _no_constant(name: str) -> None:
    raise ResultsFileError(f"{name} is not a JSON number")  # json.loads would take NaN and Infinity


def check_result(result: Any, config: dict[str, Any]) -> Optional[str]:
    """Why ``result`` is not a game of the run ``config`` describes, or ``None`` if it is."""
    if not isinstance(result, dict) or set(result) - {_VALUES, _ENDED} != set(_FIELDS):
        return "not a game result (fields " + ", ".join(sorted(_FIELDS)) + ", optionally values and ended)"
    for key, kind in _FIELDS.items():
        value = result[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{key} is not a {kind.__name__}"
    for key in ("seconds", "max_seconds", "nodes", "moves"):
        pair = result[key]
        if len(pair) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in pair):
            return f"{key} is not two numbers >= 0"
    pairs = {f"{a} vs {b}": (a, b) for a, b in config.get("pairs", [])}
    if result["pair"] not in pairs:
        return f"pairing {result['pair'][:80]!r} is not one of this run's"
    a, b = pairs[result["pair"]]
    if result["index"] < 0 or (result["white"], result["black"]) != ((a, b) if result["index"] % 2 == 0 else (b, a)):
        return "the players or colours do not match the game number"
    if result["size"] != config.get("size") or result["opening"] != config.get("opening"):
        return "size or opening differs from the run's"
    if not all(isinstance(m, str) for m in result["record"]):
        return "the record is not a list of moves"
    values = result.get(_VALUES, [None] * len(result["record"]))
    if (
        not isinstance(values, list)
        or len(values) != len(result["record"])
        or not all(v is None or isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    ):
        return "values is not one number or null per move"
    try:
        board = GameRecord(tuple(result["record"]), size=result["size"]).board()
    except ValueError as error:
        return f"the record does not replay ({str(error)[:120]})"
    ended = result.get(_ENDED, "moves")
    if ended == "time":  # the side to move after the record ran out of time in an open game
        if board.is_game_over() or 1 - int(board.turn) != result["winner"] or board.ply != result["plies"]:
            return "the record does not end in an open game with the recorded loser on time to move"
        return None
    if ended != "moves":
        return f"ended {str(ended)[:20]!r} is not 'moves' or 'time'"
    winner = board.winner  # None while the game is open
    if winner is None or int(winner) != result["winner"] or board.ply != result["plies"]:
        return "the record does not end in the recorded winner's win after the recorded plies"
    return None


_PROBE = ".amazons-write-probe"  # the file a folder's writability is tried with (removed at once)


def check_paths(
    json_path: Optional[str], records_dir: Optional[str], records_format: str, pages_dir: Optional[str] = None
) -> None:
    """Refuse, before the first game, a results path or a records or pages folder that cannot be written."""
    if records_format not in RECORD_FORMATS:
        raise InvalidArgumentError(f"record format {records_format!r}: use one of {', '.join(RECORD_FORMATS)}")
    for what, path in (("results file", json_path), ("records folder", records_dir), ("pages folder", pages_dir)):
        if path is None:
            continue
        if not isinstance(path, str) or not path or "\0" in path:
            raise InvalidArgumentError(f"{what} path {path!r}: give a file system path")
        if what != "results file":
            if os.path.exists(path) and not os.path.isdir(path):
                raise InvalidArgumentError(f"{what} {path!r} is a file")
            os.makedirs(path, exist_ok=True)  # an OSError names the folder: read-only, a name too long
            check_writable(os.path.join(path, _PROBE))
        elif os.path.isdir(path) or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise InvalidArgumentError(f"results file {path!r}: a directory, or its folder does not exist")
        else:
            check_writable(path)  # a read-only folder or a name too long: refused now, not after a game


def record_name(pair: str, index: int) -> str:
    """A file name (no suffix) for game ``index`` of ``pair``: only letters, digits and ``._-``;
    a long pairing is cut and made unique with a hash of it."""
    name = re.sub(r"[^\w.-]+", "_", pair.replace(":", "-").replace(",", "_"), flags=re.ASCII).strip("_")
    if len(name) > _MAX_NAME:
        name = f"{name[: _MAX_NAME - 13]}-{hashlib.sha256(pair.encode()).hexdigest()[:12]}"
    return f"{name}_{index:04d}"


def result_record(result: dict[str, Any]) -> GameRecord:
    """The record of the game ``result``: players, round, result, moves and, when an engine gave
    any, the values of the moves (the ``Values`` header)."""
    headers = {"White": result["white"], "Black": result["black"], "Round": str(result["index"] + 1)}
    values = result.get(_VALUES, ())
    if any(value is not None for value in values):
        headers[VALUES_HEADER] = format_values(values)
    return GameRecord(
        tuple(result["record"]), size=result["size"], result=("1-0", "0-1")[result["winner"]], headers=headers
    )


def save_record(directory: str, result: dict[str, Any], fmt: str = "txt") -> str:
    """Write the game ``result`` (``result_record``) to ``directory``; returns the path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{record_name(result['pair'], result['index'])}.{fmt}")
    result_record(result).save(path)
    return path


def save_pages(directory: str, results: list[dict[str, Any]]) -> list[str]:
    """Write every game of ``results`` to ``directory`` as a web page (``save_game_page``), named
    by its players in colour order and its number: ``DIR/<white>_vs_<black>_<game>.html``;
    returns the paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for result in results:
        name = record_name(f"{result['white']} vs {result['black']}", result["index"])
        path = os.path.join(directory, f"{name}.html")
        save_game_page(result_record(result), path)
        paths.append(path)
    return paths
