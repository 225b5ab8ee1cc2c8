"""The fuzz targets of ``fuzz/fuzz.py``: for each public parser, loader and constructor, a
function that turns a seeded ``random.Random`` into one hostile ``Case``.

A target is registered with ``@target(name, weight, setup)``: ``setup(folder)`` runs once per
worker process (it may write valid files under ``folder`` to mutate), and the target function
``(rng, ctx) -> Case`` builds one input. Inputs are mutations of valid ones (so they get past the
first checks) or hostile values (wrong types, NaN, huge numbers, Unicode digits, 100,000-character
texts, deep nesting, missing or non-UTF-8 files).
"""

from __future__ import annotations

import itertools
import math
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from amazons_env import Board, Color, GameRecord, Move
from amazons_env.errors import describe

__all__ = ["Case", "TARGETS", "target", "names_input"]


@dataclass
class Case:
    """One input: ``call()`` runs it; ``shown`` describes it in the report; a refusal must name
    one of ``names``; ``check()`` (after a refusal) raises ``AssertionError`` if state changed;
    ``edited``: the input is an edited file, so a success means it was trusted; ``accept``: other
    documented exceptions that count as clean (gymnasium's ``ResetNeeded``)."""

    call: Callable[[], Any]
    shown: str
    names: tuple = ()
    check: Optional[Callable[[], None]] = None
    edited: bool = False
    accept: tuple = ()


@dataclass
class Target:
    name: str
    weight: float
    setup: Optional[Callable[[Path], Any]]
    make: Callable[[random.Random, Any], Case]


TARGETS: dict[str, Target] = {}


def target(name: str, weight: float = 1.0, setup: Optional[Callable[[Path], Any]] = None):
    def register(fn: Callable[[random.Random, Any], Case]) -> Callable[[random.Random, Any], Case]:
        TARGETS[name] = Target(name, weight, setup, fn)
        return fn

    return register


def names_input(message: str, names: tuple) -> bool:
    """Whether ``message`` names one of ``names``: its short description, or (for text) its first
    characters as written or escaped, (for a number) its digits, (for a path) the path, (for a
    dict) a key or value, (for a short list or array) an element."""
    lowered = message.lower()
    todo = list(names)  # first the inputs themselves, then what is inside them (breadth first)
    for value in itertools.islice(todo, len(names) + 50):  # a few levels in, not 3,000 into a nested list
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        fragments = {describe(value)[:24]}
        if isinstance(value, str):
            stripped = value.strip()
            fragments |= {stripped[:16], repr(stripped)[1:-1][:16]} if stripped else {"''"}
        elif isinstance(value, (int, float, np.generic)) and not describe(value).startswith("<"):
            fragments.add(str(value))
        elif isinstance(value, dict) and len(value) <= 10:
            todo += [*value, *value.values()]
        elif isinstance(value, (list, tuple)) and len(value) <= 10:
            todo += list(value)
        elif isinstance(value, np.ndarray) and value.size <= 10:
            todo += value.ravel().tolist()
        if any(f and f.lower() in lowered for f in fragments):
            return True
    return False


# -- hostile values and text mutations ---------------------------------------------------------


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: list[Callable[[], Any]] = [
    lambda: None,
    lambda: True,
    lambda: False,
    lambda: 0,
    lambda: -1,
    lambda: -5,
    lambda: 1,
    lambda: 2,
    lambda: 7,
    lambda: 10**20,
    lambda: 10**5000,
    lambda: -(10**5000),
    lambda: 1.5,
    lambda: 10.0,
    lambda: math.nan,
    lambda: math.inf,
    lambda: -math.inf,
    lambda: "",
    lambda: "10",
    lambda: "x",
    lambda: "٨",
    lambda: "²",
    lambda: b"10",
    lambda: [],
    lambda: [1],
    lambda: (0, 1),
    lambda: {},
    lambda: {"a": 1},
    lambda: np.int64(3),
    lambda: np.int32(-1),
    lambda: np.float64(2.0),
    lambda: np.array([0, 1]),
    lambda: np.array(5),
    lambda: np.zeros((2, 2)),
    lambda: object(),
    lambda: _nested(3000),
    lambda: "a" * 100_000,
    lambda: Color.BLACK,
    lambda: complex(1, 1),
    lambda: "9" * 5000,
    lambda: iter(range(10**12)),
]
ODD = [
    "٣",
    "²",
    "¹",
    "\u212a",
    "ａ",
    "１",
    "\x00",
    "\u200b",
    "\u00a0",
    "\ufeff",
    "\U0001f600",
    "\r",
    "\n",
    "\t",
    "\\",
    "]",
    "[",
    "(",
    ")",
    ";",
    ":",
    ",",
    "=",
    "/",
    "-",
    "x",
    '"',
    "{",
    "}",
    "#",
    "e",
    "inf",
    "nan",
    "-1",
    "0",
    "999",
    "1e9",
    "9" * 5000,
    "1" * 400,
    "\udcff",
]


def hostile(rng: random.Random) -> Any:
    return rng.choice(HOSTILE)()


def size_or_hostile(rng: random.Random, size: int, p: float = 0.1) -> Any:
    return hostile(rng) if rng.random() < p else size


def mutate(rng: random.Random, text: str, alphabet: str) -> str:
    """1 to 4 random edits of ``text``: odd characters, deletions, repeats, truncation, runs of
    spaces; 1 in 40 grows it past 100,000 characters."""
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randint(0, len(text))
        j = min(len(text), i + rng.randint(1, 8))
        if op == 0:
            text = text[:i] + rng.choice(ODD) + text[i:]
        elif op == 1:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif op == 2:
            text = text[:i] + text[j:]
        elif op == 3:
            text = text[:i] + text[i:j] * rng.choice([2, 3, 50, 2000]) + text[j:]
        elif op == 4 and i < len(text):
            text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
        elif op == 5:
            text = text[:i]
        elif op == 6:
            text = text.upper() if rng.random() < 0.5 else text.swapcase()
        else:
            text = text[:i] + rng.choice([" ", "\n", "\t"]) * rng.choice([1, 100, 50_000]) + text[i:]
    if rng.random() < 1 / 40:
        chunk = text[: rng.randint(1, 40)] or "x"
        text = text + chunk * (100_000 // len(chunk) + 1)
    return text


def short(value: Any) -> str:
    return describe(value, 50)


# -- a pool of valid games to mutate -----------------------------------------------------------


def random_board(rng: random.Random, size: int, plies: int) -> Board:
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves_array()
        if len(moves) == 0:
            break
        f, t, a = moves[rng.randrange(len(moves))]
        board.push_unchecked(Move(int(f), int(t), int(a), size))
    return board


def game_pool(_folder: Path) -> list[Board]:
    rng = random.Random(0)
    return [random_board(rng, rng.choice([4, 6, 6, 8, 10, 12]), rng.randint(0, 40)) for _ in range(40)]


def board_state(board: Board) -> tuple:
    return (board.text(), board.cells.tobytes(), board.queens.tobytes(), board.queen_counts.tobytes(), board.move_stack)


def unchanged(board: Board) -> Callable[[], None]:
    before = board_state(board)

    def check() -> None:
        assert board_state(board) == before, "the board changed"

    return check


MOVE_CHARS = "abcdefghijklm0123456789-x/(),  "
POSITION_CHARS = "Qq*0123456789/ wb-"
RECORD_CHARS = '[]"{};#.*abcdefghij0123456789-/, \nSizeStartResult10'
SGF_CHARS = "()[];\\:WBAEGMSZPLRF+abcdefghijkl0123456789 \n"


# -- amazons_env targets -------------------------------------------------------------------------


@target("move_parse", 3, game_pool)
def _move_parse(rng: random.Random, pool: list[Board]) -> Case:
    board = rng.choice(pool)
    moves = board.move_stack or [Move.parse("b1-b4/b5", 6)]
    move = rng.choice(moves)
    text = mutate(rng, rng.choice([str(move), move.fsf()]), MOVE_CHARS)
    size = size_or_hostile(rng, move.size)
    return Case(lambda: Move.parse(text, size), f"Move.parse({short(text)}, {short(size)})", (text, size))


@target("move_init", 1)
def _move_init(rng: random.Random, _ctx: Any) -> Case:
    args = [rng.randrange(100) if rng.random() < 0.6 else hostile(rng) for _ in range(3)]
    from_square, to_square, arrow = args
    size = size_or_hostile(rng, 10, 0.3)
    return Case(
        lambda: Move(from_square, to_square, arrow, size=size),
        f"Move({', '.join(map(short, args))}, size={short(size)})",
        (*args, size),
    )


@target("parse_square", 1.5)
def _parse_square(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env import parse_square

    name = mutate(rng, rng.choice(["d1", "j10", "a12", "b2", "l12"]), MOVE_CHARS)
    size = size_or_hostile(rng, rng.choice([6, 10, 12]), 0.3)
    return Case(lambda: parse_square(name, size), f"parse_square({short(name)}, {short(size)})", (name, size))


@target("squares", 1)
def _squares(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env import square, square_file, square_name, square_rank

    functions: list[Callable[..., Any]] = [square, square_name, square_file, square_rank]
    fn = rng.choice(functions)
    args = [rng.randrange(-3, 150) if rng.random() < 0.6 else hostile(rng) for _ in range(2 if fn is square else 1)]
    size = size_or_hostile(rng, rng.choice([6, 10, 12]), 0.3)
    return Case(lambda: fn(*args, size), f"{fn.__name__}({', '.join(map(short, args))}, {short(size)})", (*args, size))


@target("position", 3, game_pool)
def _position(rng: random.Random, pool: list[Board]) -> Case:
    text = mutate(rng, rng.choice(pool).text(), POSITION_CHARS)
    if rng.random() < 0.2:
        size = size_or_hostile(rng, rng.choice([6, 8, 10]), 0.5)
        return Case(lambda: Board(size, position=text), f"Board({short(size)}, position={short(text)})", (text, size))
    return Case(lambda: Board.from_text(text), f"Board.from_text({short(text)})", (text,))


@target("from_squares", 1.5, game_pool)
def _from_squares(rng: random.Random, pool: list[Board]) -> Case:
    board = rng.choice(pool)
    groups = [list(g) for g in board.layout()]
    for group in groups:
        if rng.random() < 0.3:
            group.append(rng.randrange(-3, board.size**2 + 3) if rng.random() < 0.5 else hostile(rng))
    args: list[Any] = [board.size, *groups, board.turn]
    k = rng.randrange(5)
    args[k] = hostile(rng) if rng.random() < 0.7 else args[k]
    return Case(
        lambda: Board.from_squares(*args),
        f"Board.from_squares({', '.join(map(short, args))})",
        (*args, "size", "white", "black", "arrows", "turn"),
    )  # or the argument by its name


@target("board_ops", 3, game_pool)
def _board_ops(rng: random.Random, pool: list[Board]) -> Case:
    board = rng.choice(pool).copy()
    op = rng.choice(["push", "is_legal", "piece_at", "transform"])
    if op in ("push", "is_legal"):
        moves = board.legal_moves()
        if moves and rng.random() < 0.7:
            arg: Any = mutate(rng, str(rng.choice(moves)), MOVE_CHARS)
        elif rng.random() < 0.5:
            arg = Move.parse("b1-b4/b5", 6) if board.size != 6 else Move.parse("a1-a2/a3", 8)
        else:
            arg = hostile(rng)
    else:
        arg = rng.randrange(-150, 150) if rng.random() < 0.5 else hostile(rng)
    return Case(
        lambda: getattr(board, op)(arg), f"Board({board.text()!r}).{op}({short(arg)})", (arg,), unchanged(board)
    )


@target("symmetry", 1)
def _symmetry(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env import transform_move, transform_square

    sym = rng.randrange(-2, 10) if rng.random() < 0.6 else hostile(rng)
    if rng.random() < 0.5:
        sq = rng.randrange(-5, 105) if rng.random() < 0.6 else hostile(rng)
        size = size_or_hostile(rng, 10, 0.2)
        return Case(
            lambda: transform_square(sq, sym, size),
            f"transform_square({short(sq)}, {short(sym)}, {short(size)})",
            (sq, sym, size),
        )
    move = Move.parse("d1-d7/g7") if rng.random() < 0.7 else hostile(rng)
    return Case(lambda: transform_move(move, sym), f"transform_move({short(move)}, {short(sym)})", (move, sym))


@target("movelist", 3, game_pool)
def _movelist(rng: random.Random, pool: list[Board]) -> Case:
    text = mutate(rng, GameRecord.from_board(rng.choice(pool)).to_movelist(), RECORD_CHARS)
    size = None if rng.random() < 0.8 else size_or_hostile(rng, 10, 0.7)
    return Case(
        lambda: GameRecord.from_movelist(text, size, source="<fuzz>"),
        f"GameRecord.from_movelist({short(text)}, {short(size)})",
        ("<fuzz>", size),
    )


def _sgf_text(rng: random.Random, pool: list[Board]) -> str:
    kind = rng.random()
    if kind < 0.05:
        depth = rng.choice([10, 1000, 15_000])  # 15,000 deep: 105,000 characters
        return "(;GM[18]" + "(;C[x]" * depth + ")" * depth + ")"
    if kind < 0.1:
        return "(;GM[18]" + ";C[x]" * rng.choice([100, 20_000]) + ")"
    return mutate(rng, GameRecord.from_board(rng.choice(pool)).to_sgf(), SGF_CHARS)


@target("sgf", 3, game_pool)
def _sgf(rng: random.Random, pool: list[Board]) -> Case:
    text = _sgf_text(rng, pool)
    reader = rng.choice([GameRecord.from_sgf, GameRecord.sgf_collection])
    return Case(lambda: reader(text, source="<fuzz>"), f"GameRecord.{reader.__name__}({short(text)})", ("<fuzz>",))


@target("record_init", 1.5, game_pool)
def _record_init(rng: random.Random, pool: list[Board]) -> Case:
    record = GameRecord.from_board(rng.choice(pool))
    fields: dict[str, Any] = {
        "moves": list(record.moves),
        "size": record.size,
        "start": record.start,
        "result": record.result,
        "headers": {"White": "a"},
    }
    key = rng.choice(list(fields))
    fields[key] = (
        hostile(rng)
        if rng.random() < 0.7
        else (mutate(rng, record.start, POSITION_CHARS) if key == "start" else [*fields["moves"], "zz"])
    )
    return Case(lambda: GameRecord(**fields), f"GameRecord({key}={short(fields[key])})", ("record",))


def _files(folder: Path) -> tuple[list[Board], Path]:
    pool = game_pool(folder)
    (folder / "a-directory").mkdir(exist_ok=True)
    return pool, folder


def hostile_path(rng: random.Random, folder: Path) -> Any:
    return rng.choice(
        [
            "",
            "a\x00b",
            str(folder / "a-directory"),
            str(folder / "missing.sgf"),
            5,
            None,
            b"\xff.sgf",
            "x" * 5000,
            folder,
        ]
    )


@target("record_load", 1.5, _files)
def _record_load(rng: random.Random, ctx: tuple[list[Board], Path]) -> Case:
    pool, folder = ctx
    if rng.random() < 0.2:
        path = hostile_path(rng, folder)
    else:
        record = GameRecord.from_board(rng.choice(pool))
        data = (record.to_sgf() if rng.random() < 0.5 else record.to_movelist()).encode()
        if rng.random() < 0.5:
            i = rng.randrange(len(data) + 1)
            data = data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + data[i:]
        path = folder / f"record{rng.randrange(10**9)}.sgf"
        path.write_bytes(data)
    loaders: list[Callable[..., Any]] = [GameRecord.load, GameRecord.load_all]
    loader = rng.choice(loaders)

    def call() -> Any:
        try:
            return loader(path)
        finally:
            if isinstance(path, Path) and path.name.startswith("record"):
                path.unlink()

    return Case(call, f"GameRecord.{loader.__name__}({short(path)})", (path,))


def _perft_setup(folder: Path) -> list[Board]:
    from amazons_env.perft import perft

    perft(Board(4), 2)  # compile (or load from numba's cache) before the clock runs
    return game_pool(folder)


@target("perft", 0.5, _perft_setup)
def _perft(rng: random.Random, pool: list[Board]) -> Case:
    from amazons_env.perft import perft
    from amazons_env.squares import as_int

    board = rng.choice(pool).copy() if rng.random() < 0.9 else hostile(rng)
    depth = rng.choice([0, 1]) if rng.random() < 0.3 else hostile(rng)
    whole = as_int(depth)
    if whole is not None and whole > 1:
        depth = -whole  # a valid large depth is a legitimately long run, not a hang
    check = unchanged(board) if isinstance(board, Board) else None
    return Case(lambda: perft(board, depth), f"perft({short(board)}, {short(depth)})", (board, depth), check)
