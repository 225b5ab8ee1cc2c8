"""Game records: a plain move list and SGF (FF[4] GM[18]), read and written through ``GameRecord``.

>>> record = GameRecord(["d1-d7/g7", "a7a6,a6a5"], headers={"White": "me"})
>>> print(record.to_movelist())
[Size "10"]
[White "me"]
<BLANKLINE>
1. d1-d7/g7
2. a7-a6/a5
<BLANKLINE>
>>> record.to_sgf()
'(;FF[4]GM[18]SZ[10]PL[W]PW[me];W[djddgd];B[adaeaf])\\n'
>>> GameRecord.from_sgf(record.to_sgf()) == record
True
>>> record.board().turn
Color.WHITE

**Colour convention.** White moves first, from a4 d1 g1 j4 on 10x10 (the ICGA rules; smaller
boards: see ``start_layout``). SGF's own default has Black move first, and Amazons SGF files in the
wild label the first player ``B``. So when an SGF record has no set-up (``AW``/``AB``), the colour
letters are read as labels only: whoever moves first in the file is the side to move of the start
position, i.e. our White, and the player names (``PB``/``PW``) and result (``RE``) are swapped
with the colours. We write SGF with true colours (``PL[W]`` and ``W[...]`` first), which reads back
unchanged. A record with set-up (``AW`` White queens, ``AB`` Black queens, ``AA`` arrows, ``PL``
side to move; written for custom start positions) is read with its colours as they are.

**The move list** is plain text: optional tag lines ``[Key "value"]`` (``Size``, ``Start`` the
start position text, ``Result``, and any others, kept in ``headers``), then the moves separated by
whitespace or newlines, in either notation (``d1-d7/g7`` or ``d1d7,d7g7``). Move numbers (``1.``,
``12...``), a final result (``1-0``, ``0-1``, ``*``) and comments (``#`` or ``;`` to the end of the
line, ``{...}``) are skipped.

**SGF points** are two letters, the file (``a`` = file a) then the row counted from the *top*
(``a`` = the highest rank), so ``d1-d7/g7`` is ``W[djddgd]`` on 10x10. Only the main line is read.

Malformed records raise ``InvalidMoveError`` naming the input and the line; an illegal move raises
``IllegalMoveError`` naming its number and the position it was tried in.

Many games (an arena's output) go in one file as an SGF collection: ``GameRecord.save_all(records,
path)`` and ``GameRecord.load_all(path)``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

from amazons_env.board import Board
from amazons_env.errors import IllegalMoveError, InvalidArgumentError, InvalidMoveError, InvalidPositionError, describe
from amazons_env.files import PathLike, read_text, write_atomic
from amazons_env.move import Move
from amazons_env.records import movelist, sgf
from amazons_env.squares import Color, as_int, check_size

__all__ = ["GameRecord", "RESULTS", "MAX_RECORD_BYTES"]

RESULTS = ("1-0", "0-1")
#: the largest record file ``GameRecord.load``/``load_all`` read unless told otherwise (``max_bytes``):
#: a game is well under a kilobyte, a collection of a hundred thousand games fits
MAX_RECORD_BYTES = 64 << 20
_STRUCTURAL = ("Size", "Start", "Result")
_KEY_RE = re.compile(r"[A-Za-z][\w-]*\Z")


@dataclass(frozen=True)
class GameRecord:
    """A game: where it started, the moves, how it ended, and free-form headers.

    ``moves`` may be ``Move`` objects or move text; ``start`` is a position text (``None``: the
    standard start of ``size``); ``size`` defaults to the start's size, else 10; ``result`` is
    ``"1-0"``, ``"0-1"`` or ``None`` (unfinished or unknown). The record is checked on creation:
    an illegal move raises ``IllegalMoveError``, a result that contradicts a finished game raises
    ``InvalidMoveError``.

    >>> record = GameRecord.from_board(Board(6))
    >>> record.size, record.moves, record.result
    (6, (), None)
    """

    moves: tuple[Move, ...] = ()
    # None asks for the default; a record always holds the int and the position text
    size: int = None  # type: ignore[assignment]
    start: str = None  # type: ignore[assignment]
    result: Optional[str] = None
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._finish("record")

    def __hash__(self) -> int:
        return hash((self.moves, self.size, self.start, self.result, tuple(self.headers.items())))

    def _finish(self, source: str) -> None:
        """Normalise the fields and replay the game (``source`` names the input in errors)."""
        board = self._start_board(source)
        set_ = object.__setattr__
        set_(self, "size", board.size)
        set_(self, "start", board.text())
        set_(self, "headers", _check_headers(self.headers, source))
        if not (self.result is None or isinstance(self.result, str) and self.result in RESULTS):
            raise InvalidMoveError(f"{source}: result {describe(self.result)} is not '1-0', '0-1' or None")
        try:
            sequence = None if isinstance(self.moves, (str, bytes)) else iter(self.moves)
        except TypeError:  # not iterable (a number, a 0-d array)
            sequence = None
        if sequence is None:
            raise InvalidMoveError(
                f"{source}: moves must be a sequence of moves (Move or move text), not {describe(self.moves)}"
            )
        moves = []
        for number, move in enumerate(sequence, 1):
            moves.append(_push(board, move, number, source))
        set_(self, "moves", tuple(moves))
        winner = board.winner
        if winner is not None and self.result is not None and self.result != RESULTS[winner]:
            raise InvalidMoveError(
                f"{source}: result {self.result} contradicts the final position {board.text()!r}, "
                f"where {winner.name.lower()} has won"
            )

    def _start_board(self, source: str) -> Board:
        try:
            size = None if self.size is None else check_size(self.size)
            if self.start is None:
                return Board(size=10 if size is None else size)
            board = Board.from_text(self.start)
        except InvalidPositionError as error:
            raise InvalidMoveError(f"{source}: {error}") from None
        if size is not None and size != board.size:
            raise InvalidMoveError(
                f"{source}: size {describe(self.size)} disagrees with the start position {describe(self.start)}"
            )
        return board

    # -- building and replaying --------------------------------------------------------------

    @classmethod
    def from_board(
        cls, board: Board, result: Optional[str] = None, headers: Optional[dict[str, str]] = None
    ) -> "GameRecord":
        """The record of ``board``'s game so far (its set-up position and move stack). ``result``
        defaults to the outcome when the game is over."""
        if not isinstance(board, Board):
            raise InvalidMoveError(f"GameRecord.from_board needs a Board, got {describe(board)}")
        start = board.copy()
        while start.ply:
            start.pop()
        outcome = board.outcome()  # None while the game goes on
        if result is None and outcome is not None:
            result = outcome.result()
        return cls(tuple(board.move_stack), board.size, start.text(), result, {} if headers is None else headers)

    def board(self, plies: Optional[int] = None) -> Board:
        """A fresh ``Board`` with the first ``plies`` moves (default: all) pushed on the start."""
        count = len(self.moves) if plies is None else as_int(plies)
        if count is None or not 0 <= count <= len(self.moves):
            raise InvalidArgumentError(f"plies={describe(plies)}: the record has 0 to {len(self.moves)} plies")
        board = Board.from_text(self.start)
        for move in self.moves[:count]:
            board.push_unchecked(move)
        return board

    @property
    def winner(self) -> Optional[Color]:
        """The winner by the recorded result, else ``None``."""
        return None if self.result is None else Color(RESULTS.index(self.result))

    def is_standard_start(self) -> bool:
        return self.start == Board(self.size).text()

    # -- move list -------------------------------------------------------------------------------

    def to_movelist(self) -> str:
        """The record as a plain move list, one numbered move per line."""
        tags = {"Size": str(self.size)}
        if not self.is_standard_start():
            tags["Start"] = self.start
        tags.update(self.headers)
        if self.result is not None:
            tags["Result"] = self.result
        lines = [movelist.tag_line(key, value) for key, value in tags.items()]
        lines.append("")
        lines += [f"{number}. {move}" for number, move in enumerate(self.moves, 1)]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_movelist(cls, text: str, size: Optional[int] = None, source: str = "<move list>") -> "GameRecord":
        """Read a plain move list (see the module docstring). ``size`` is used when the text has
        neither a ``Size`` tag nor a ``Start`` position (default 10). Each move is played as it
        is read: an illegal one fails before the rest of the text is read."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"{source}: expected move list text, got {type(text).__name__}")
        headers: dict[str, str] = {}
        record: Optional[GameRecord] = None  # made at the first move, once the tags have been read
        board = Board(10)
        moves: list[Move] = []
        result_token = None

        def begin() -> GameRecord:
            made = cls.__new__(cls)
            fields = _movelist_fields(headers, size, result_token, source)
            _init(made, (), *fields, source)  # checks size, start, headers
            return made

        for kind, value, line_no in movelist.items(text, source):
            if kind == "tag":
                key, tag_value = value
                if record is not None and key in ("Size", "Start"):
                    raise InvalidMoveError(f"{sgf.where(source, line_no)}: the {key} tag must come before the moves")
                headers[key] = tag_value
                continue
            if result_token is not None:
                raise InvalidMoveError(
                    f"{sgf.where(source, line_no)}: {describe(value)} after the result {result_token!r}"
                )
            if value in (*RESULTS, "*"):
                result_token = value
                continue
            if record is None:
                record = begin()
                board = Board.from_text(record.start)
            try:
                move = Move.parse(value, record.size)
            except InvalidMoveError as error:
                raise InvalidMoveError(f"{sgf.where(source, line_no)}: {error}") from None
            moves.append(_push(board, move, len(moves) + 1, source))
        record = cls.__new__(cls)
        _init(record, moves, *_movelist_fields(headers, size, result_token, source), source)
        return record

    # -- SGF -----------------------------------------------------------------------------------------

    def to_sgf(self) -> str:
        """The record as SGF FF[4] GM[18] with true colours (see the module docstring)."""
        return sgf.write_game(Board.from_text(self.start), self.moves, self.headers, self.result)

    @classmethod
    def from_sgf(cls, text: str, source: str = "<sgf>") -> "GameRecord":
        """Read the main line of an SGF game record (FF[4] GM[18]; see the module docstring). Each
        move is played as it is read: an illegal one fails before the rest of the text is read."""
        events = sgf.SgfParser(text, source).main_lines()
        later: list[int] = []  # the number of the next game, once one is read

        def first_game() -> Iterator[tuple[sgf.Node, int]]:
            for game, node, line in events:
                if game:
                    later.append(game)
                    return
                yield node, line

        def play(board: Board, move: Move, number: int) -> None:
            _push(board, move, number, source)

        record = cls.__new__(cls)
        _init(record, *sgf.read_game(first_game(), source, play), source)
        if later:
            games = 1 + len({game for game, _, _ in events} | set(later))
            raise InvalidMoveError(
                f"{source}: holds {games} games; read them with GameRecord.sgf_collection or GameRecord.load_all"
            )
        return record

    @classmethod
    def sgf_collection(cls, text: str, source: str = "<sgf>") -> list["GameRecord"]:
        """Every game of an SGF collection ``(;...)(;...)``, in order."""
        return [cls._from_sgf_nodes(nodes, source) for nodes in sgf.SgfParser(text, source).collection()]

    @classmethod
    def _from_sgf_nodes(cls, nodes: list[tuple[sgf.Node, int]], source: str) -> "GameRecord":
        record = cls.__new__(cls)
        _init(record, *sgf.read_game(nodes, source), source)
        return record

    # -- files -------------------------------------------------------------------------------------

    def save(self, path: PathLike) -> None:
        """Write the record to ``path``: SGF if it ends in ``.sgf``, else a move list; atomically
        (``amazons_env.files.write_atomic``: a link written through, a special file refused)."""
        text = self.to_sgf() if os.fspath(path).lower().endswith(".sgf") else self.to_movelist()
        write_atomic(path, text)

    @classmethod
    def load(cls, path: PathLike, size: Optional[int] = None, max_bytes: int = MAX_RECORD_BYTES) -> "GameRecord":
        """Read a record from ``path``: SGF if the text starts with ``(``, else a move list.
        ``UnreadableFileError`` (an ``OSError`` and a ``ValueError``) if the file cannot be read
        as UTF-8 text or is larger than ``max_bytes``."""
        text, source = read_text(path, max_bytes)
        return cls.parse(text, size, source=source)

    @staticmethod
    def save_all(records: Iterable["GameRecord"], path: PathLike) -> None:
        """Write several records to one file as an SGF collection (one game tree per line)."""
        write_atomic(path, "".join(record.to_sgf() for record in records))

    @classmethod
    def load_all(cls, path: PathLike, max_bytes: int = MAX_RECORD_BYTES) -> list["GameRecord"]:
        """Every game of an SGF collection file (see ``save_all``), of at most ``max_bytes``."""
        text, source = read_text(path, max_bytes)
        return cls.sgf_collection(text, source=source)

    @classmethod
    def parse(cls, text: str, size: Optional[int] = None, source: str = "<record>") -> "GameRecord":
        """Read SGF or a move list, whichever ``text`` is."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"{source}: expected record text, got {type(text).__name__}")
        if text.lstrip().startswith("("):
            return cls.from_sgf(text, source)
        return cls.from_movelist(text, size, source)


def _init(
    record: GameRecord,
    moves: Iterable[Move],
    size: Optional[int],
    start: Optional[str],
    result: Optional[str],
    headers: dict[str, str],
    source: str,
) -> None:
    """Fill a record made with ``__new__`` and check it, naming ``source`` in errors."""
    for name, value in (
        ("moves", tuple(moves)),
        ("size", size),
        ("start", start),
        ("result", result),
        ("headers", headers),
    ):
        object.__setattr__(record, name, value)
    record._finish(source)


def _movelist_fields(
    headers: dict[str, str], size: Optional[int], result_token: Optional[str], source: str
) -> tuple[Optional[int], Optional[str], Optional[str], dict[str, str]]:
    """A move list's ``(size, start, result, headers)`` from its tags (not changed), the
    ``size`` asked for and the result token that ended its moves, if any."""
    headers = dict(headers)
    tag_size = headers.pop("Size", None)
    start = headers.pop("Start", None)
    result = headers.pop("Result", None)
    if result == "*":
        result = None
    if result_token in RESULTS:
        if result is not None and result != result_token:
            raise InvalidMoveError(f"{source}: Result tag {describe(result)} disagrees with {result_token!r}")
        result = result_token
    if tag_size is not None:
        size = sgf.read_size(tag_size, source)
    elif start is not None:
        size = None
    return size, start, result, headers


def _check_headers(headers: object, source: str) -> dict[str, str]:
    """The headers as a ``str -> str`` dict (number values become text); ``InvalidMoveError`` if
    not a mapping, or a key is reserved or not a word, or a value is not text or a number."""
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise InvalidMoveError(f"{source}: headers must be a dict of names to text, not {describe(headers)}")
    checked = {}
    for key, value in headers.items():
        if not isinstance(key, str) or not _KEY_RE.match(key) or key in _STRUCTURAL:
            raise InvalidMoveError(
                f"{source}: header name {describe(key)} is reserved or not a word "
                "(letters, digits, '_' or '-', starting with a letter)"
            )
        if (
            isinstance(value, float)
            or isinstance(value, int)
            and not isinstance(value, bool)
            and value.bit_length() <= 64
        ):
            value = str(value)
        if not isinstance(value, str):
            raise InvalidMoveError(f"{source}: header {key} must be text or a number, not {describe(value)}")
        checked[key] = value
    return checked


def _push(board: Board, move: Union[Move, str], number: int, source: str) -> Move:
    colour = board.turn.name.lower()
    try:
        if isinstance(move, str):
            move = Move.parse(move, board.size)
        board.push(move)
    except IllegalMoveError as error:
        raise IllegalMoveError(f"{source}: move {number} ({colour}): {error}") from None
    except InvalidMoveError as error:
        raise InvalidMoveError(f"{source}: move {number} ({colour}): {error}") from None
    return move
