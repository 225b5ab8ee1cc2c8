"""Fuzz targets for the rules core and its notations (see ``fuzz_targets`` for the registry and the
hostile values): moves, squares, positions, board operations, symmetries, move lists, SGF, game
records and perft, each mutated from a pool of random valid games. A refused call on a board must
leave the board as it was.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

from fuzz_targets import Case, hostile, mutate, short, size_or_hostile, target

from amazons_env import Board, GameRecord, Move

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
