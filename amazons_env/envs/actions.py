"""Action encodings of the two-phase env, and the mask and observation options built on them.

Two encodings of one slide (a queen move, or the arrow's flight from the queen that just moved):

* ``"flat"`` (default): ``from_square * N*N + to_square``, ``N**4`` actions (10,000 on 10x10, of
  which few are ever legal); ``encode_action``, ``decode_action``, ``action_to_str``,
  ``parse_action``, ``move_to_actions`` and ``actions_to_move`` convert.
* ``"lines"``: queen lines, ``(from_square * 8 + direction) * (N - 1) + distance - 1``,
  ``N*N*8*(N-1)`` actions (7,200 on 10x10; 1,440 on 6x6). Directions are ``DIRECTIONS``, as
  ``(rank step, file step)``: N, NE, E, SE, S, SW, W, NW. Actions that leave the board are never
  legal. This is the queen-line head of MiniZero's Amazons net, with the arrow as another slide.

>>> line = encode_line_action(3, 0, 6, size=10)   # d1, north, 6 squares: d1-d7
>>> line, line_to_flat(line, 10), flat_to_line(363, 10) == line
(221, 363, True)
>>> from amazons_env import Move
>>> move_to_line_actions(Move.parse("b1-b4/b5", size=6))
(42, 760)
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np
from gymnasium import spaces
from numba import njit

from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.move import Move
from amazons_env.squares import check_size, parse_square, square_name

__all__ = [
    "ENCODINGS",
    "OBS_MODES",
    "MASK_DTYPES",
    "DIRECTIONS",
    "num_actions",
    "encode_action",
    "decode_action",
    "action_to_str",
    "parse_action",
    "move_to_actions",
    "actions_to_move",
    "line_tables",
    "encode_line_action",
    "decode_line_action",
    "line_to_flat",
    "flat_to_line",
    "move_to_line_actions",
    "line_actions_to_move",
    "BoolMaskDiscrete",
    "ActionCodec",
]

ENCODINGS = ("flat", "lines")
OBS_MODES = ("planes", "dict")
MASK_DTYPES = ("int8", "bool")
DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


def num_actions(size: int, encoding: str = "flat") -> int:
    """The number of actions of ``encoding`` on a ``size`` x ``size`` board.

    >>> num_actions(10), num_actions(10, "lines")
    (10000, 7200)
    """
    size = check_size(size)
    if not isinstance(encoding, str) or encoding not in ENCODINGS:
        raise InvalidArgumentError(f"action_encoding={describe(encoding)}: use one of {list(ENCODINGS)}")
    return size**4 if encoding == "flat" else size * size * 8 * (size - 1)


# -- the flat encoding --------------------------------------------------------------------------


def encode_action(from_square: int, to_square: int, size: int = 10) -> int:
    """The action sliding from ``from_square`` to ``to_square`` (public squares).

    >>> encode_action(3, 63)   # d1 -> d7 on 10x10
    363
    """
    nn = size * size
    for name, value in (("from_square", from_square), ("to_square", to_square)):
        if not 0 <= value < nn:
            raise InvalidMoveError(f"{name}={describe(value)} is not a square of a {size}x{size} board")
    return from_square * nn + to_square


def decode_action(action: int, size: int = 10) -> tuple[int, int]:
    """``(from_square, to_square)`` of ``action``; ``InvalidMoveError`` if out of range.

    >>> decode_action(363)
    (3, 63)
    """
    nn = size * size
    if isinstance(action, bool):
        raise InvalidMoveError(f"action {action!r} is a bool, not an integer action")
    try:
        value = operator.index(action)
    except TypeError:
        raise InvalidMoveError(f"action {describe(action)} is not an integer action") from None
    if not 0 <= value < nn * nn:
        raise InvalidMoveError(
            f"action {describe(value)} is out of range for a {size}x{size} board (0 <= action < {nn * nn})"
        )
    return value // nn, value % nn


def action_to_str(action: int, size: int = 10) -> str:
    """``"d1-d7"`` for the slide of ``action`` (a queen move or the arrow's flight)."""
    frm, to = decode_action(action, size)
    return f"{square_name(frm, size)}-{square_name(to, size)}"


def parse_action(text: str, size: int = 10) -> int:
    """The action written ``"d1-d7"`` (or ``"d1d7"``).

    >>> parse_action("d1-d7") == encode_action(3, 63)
    True
    """
    cleaned = text.strip().lower().replace("-", "") if isinstance(text, str) else ""
    for split in range(2, len(cleaned) - 1):
        try:
            return encode_action(parse_square(cleaned[:split], size), parse_square(cleaned[split:], size), size)
        except InvalidMoveError:
            continue
    raise InvalidMoveError(f"{describe(text)} is not an action: expected two squares like 'd1-d7'")


def move_to_actions(move: Move) -> tuple[int, int]:
    """The two actions of a full turn: the queen's slide, then the arrow shot from its new square."""
    size = move.size
    return (encode_action(move.from_square, move.to_square, size), encode_action(move.to_square, move.arrow, size))


def actions_to_move(queen_action: int, arrow_action: int, size: int = 10) -> Move:
    """The ``Move`` made of a queen action and the arrow action that follows it."""
    frm, to = decode_action(queen_action, size)
    shooter, arrow = decode_action(arrow_action, size)
    if shooter != to:
        raise InvalidMoveError(
            f"arrow action {action_to_str(arrow_action, size)} is not shot from {square_name(to, size)}, "
            f"where queen action {action_to_str(queen_action, size)} ends"
        )
    return Move(frm, to, arrow, size)


# -- the queen-line encoding ---------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def line_tables(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(to_flat, from_flat)``: ``to_flat[line]`` is the flat action of a queen-line action (-1 if
    it leaves the board), ``from_flat[flat]`` the line action of a flat one (-1 if not on a queen
    line). Read-only ``int64`` arrays, built once per size."""
    n = check_size(size)
    reach = n - 1
    to_flat = np.full(n * n * 8 * reach, -1, np.int64)
    from_flat = np.full(n**4, -1, np.int64)
    for sq in range(n * n):
        rank, file = divmod(sq, n)
        for d, (dr, df) in enumerate(DIRECTIONS):
            for dist in range(1, n):
                r, f = rank + dr * dist, file + df * dist
                if 0 <= r < n and 0 <= f < n:
                    line = (sq * 8 + d) * reach + dist - 1
                    flat = sq * n * n + r * n + f
                    to_flat[line] = flat
                    from_flat[flat] = line
    to_flat.flags.writeable = False
    from_flat.flags.writeable = False
    return to_flat, from_flat


def _index(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise InvalidMoveError(f"{name} {value!r} is a bool, not an integer action")
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidMoveError(f"{name} {describe(value)} is not an integer action") from None


def encode_line_action(from_square: int, direction: int, distance: int, size: int = 10) -> int:
    """The queen-line action sliding ``distance`` squares from ``from_square`` along
    ``DIRECTIONS[direction]`` (it may leave the board: such actions exist and are never legal)."""
    n = check_size(size)
    for name, value, high in (
        ("from_square", from_square, n * n),
        ("direction", direction, 8),
        ("distance", distance - 1, n - 1),
    ):
        if not 0 <= _index(value, name) < high:
            raise InvalidMoveError(f"{name}={describe(value)} is out of range on a {n}x{n} board")
    return (from_square * 8 + direction) * (n - 1) + distance - 1


def decode_line_action(action: int, size: int = 10) -> tuple[int, int, int]:
    """``(from_square, direction, distance)`` of a queen-line action."""
    n = check_size(size)
    value = _index(action, "action")
    if not 0 <= value < num_actions(n, "lines"):
        raise InvalidMoveError(f"line action {describe(value)} is out of range for a {n}x{n} board")
    rest, dist = divmod(value, n - 1)
    sq, d = divmod(rest, 8)
    return sq, d, dist + 1


def line_to_flat(action: int, size: int = 10) -> int:
    """The flat action of a queen-line action; ``InvalidMoveError`` if it leaves the board."""
    sq, d, dist = decode_line_action(action, size)
    flat = int(line_tables(size)[0][action])
    if flat < 0:
        raise InvalidMoveError(
            f"line action {action} (square {sq}, direction {DIRECTIONS[d]}, distance {dist}) "
            f"leaves the {size}x{size} board"
        )
    return flat


def flat_to_line(action: int, size: int = 10) -> int:
    """The queen-line action of a flat action; ``InvalidMoveError`` if it is not a queen line."""
    frm, to = decode_action(action, size)
    line = int(line_tables(size)[1][frm * size * size + to])
    if line < 0:
        raise InvalidMoveError(f"flat action {action} ({frm} -> {to}) is not along a queen line")
    return line


def move_to_line_actions(move: Move) -> tuple[int, int]:
    """The two queen-line actions of a full turn (queen slide, then the arrow)."""
    return tuple(flat_to_line(a, move.size) for a in move_to_actions(move))  # type: ignore[return-value]


def line_actions_to_move(queen_action: int, arrow_action: int, size: int = 10) -> Move:
    """The ``Move`` of a queen-line queen action and the arrow action that follows it."""
    return actions_to_move(line_to_flat(queen_action, size), line_to_flat(arrow_action, size), size)


@njit(cache=True)
def _line_masks(nlegal, done, legal, from_flat, out):
    """Row ``i`` of ``out``: 1 at the line action of each of the ``nlegal[i]`` legal flat actions,
    or everywhere where the game is over (``done[i]``: the vector env's finished-game mask)."""
    for i in range(out.shape[0]):
        out[i, :] = done[i] != 0
        for k in range(nlegal[i]):
            out[i, from_flat[legal[i, k]]] = 1


class BoolMaskDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample(mask=...)`` also takes a bool mask (gymnasium's wants int8):
    the action space of an env with ``mask_dtype="bool"``, so that ``space.sample(mask)`` with
    the env's own mask works (PettingZoo's ``api_test`` does it). Equal to ``Discrete(n)``.

    >>> BoolMaskDiscrete(4).sample(mask=np.array([False, False, True, False]))
    np.int64(2)
    """

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        if isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
            mask = mask.view(np.int8)
        return super().sample(mask, probability)


class ActionCodec:
    """One env's choice of action encoding, mask dtype and observation mode: its spaces, and the
    conversions between its actions and masks and the flat ones the kernels use.

    >>> codec = ActionCodec(6, "lines", "bool", "dict")
    >>> codec.n, codec.observation_space(spaces.Box(0, 1, (9, 6, 6), np.int8))["action_mask"].dtype
    (1440, dtype('bool'))
    """

    def __init__(self, size: int, encoding: str = "flat", mask_dtype: str = "int8", obs_mode: str = "planes") -> None:
        for name, value, allowed in (
            ("action_encoding", encoding, ENCODINGS),
            ("mask_dtype", mask_dtype, MASK_DTYPES),
            ("obs_mode", obs_mode, OBS_MODES),
        ):
            if not isinstance(value, str) or value not in allowed:
                raise InvalidArgumentError(f"{name}={describe(value)}: use one of {list(allowed)}")
        self.size = check_size(size)
        self.encoding, self.obs_mode = encoding, obs_mode
        self.mask_dtype = np.dtype(np.bool_ if mask_dtype == "bool" else np.int8)
        self.n = num_actions(size, encoding)
        self.flat = encoding == "flat"
        # the queen-line tables (built once per size; the flat encoding never reads them)
        self._to_flat, self._from_flat = line_tables(size)
        # where to_flat is -1, index the extra zero appended to a flat mask (never legal)
        self._gather = np.where(self._to_flat < 0, size**4, self._to_flat)
        # batches map off-board line actions to flat 0 (a1 to a1: in range, never legal)
        self._to_flat_batch = np.maximum(self._to_flat, 0)

    def action_space(self) -> spaces.Discrete:
        return BoolMaskDiscrete(self.n) if self.mask_dtype == np.bool_ else spaces.Discrete(self.n)

    def mask_space(self, batch: tuple[int, ...] = ()) -> spaces.Box[Any]:
        return spaces.Box(0, 1, (*batch, self.n), self.mask_dtype)

    def observation_space(self, planes: spaces.Space[Any], batch: tuple[int, ...] = ()) -> spaces.Space[Any]:
        if self.obs_mode == "planes":
            return planes
        return spaces.Dict({"observation": planes, "action_mask": self.mask_space(batch)})

    def to_flat(self, action: Any) -> int:
        """This encoding's ``action`` as a flat action; off-board line actions map to -1 (illegal).
        ``InvalidMoveError`` if it is not an integer in range."""
        if self.flat:
            frm, to = decode_action(action, self.size)
            return frm * self.size * self.size + to
        value = _index(action, "action")
        if not 0 <= value < self.n:
            raise InvalidMoveError(
                f"action {describe(value)} is out of range for a {self.size}x{self.size} board "
                f"(0 <= action < {self.n}, action_encoding='lines')"
            )
        return int(self._to_flat[value])

    def to_flat_batch(self, actions: np.ndarray) -> np.ndarray:
        """``int64`` actions (already range-checked against ``n``) as flat ones; an off-board line
        action becomes flat action 0 (from a1 to a1, never legal)."""
        return actions if self.flat else self._to_flat_batch[actions]

    def from_flat_batch(self, actions: np.ndarray) -> np.ndarray:
        """Flat actions in this encoding (those not on a queen line, such as the 0 that
        ``sample_legal_actions`` gives a finished game, become 0)."""
        return actions if self.flat else np.maximum(self._from_flat[actions], 0)

    def mask(self, flat_mask: np.ndarray) -> np.ndarray:
        """A flat ``int8`` mask (or a batch of them) in this encoding and dtype (always a new array)."""
        if self.flat:
            return flat_mask.astype(self.mask_dtype)
        padded = np.concatenate([flat_mask, np.zeros((*flat_mask.shape[:-1], 1), flat_mask.dtype)], axis=-1)
        return padded[..., self._gather].astype(self.mask_dtype, copy=False)

    def masks_from_legal(self, nlegal: np.ndarray, done: np.ndarray, legal: np.ndarray, out: np.ndarray) -> None:
        """Line masks of a batch into ``out`` from the kernels' legal-action lists; all ones in the
        rows of the games that are over (``done``)."""
        _line_masks(nlegal, done, legal, self._from_flat, out.view(np.int8))

    def observation(self, planes: np.ndarray, mask: np.ndarray) -> Any:
        return planes if self.obs_mode == "planes" else {"observation": planes, "action_mask": mask}
