"""``TensorState``: a batch of Amazons games as torch tensors on one device (pgx-style pure state).

``cells`` is ``int8[B, N, N]`` indexed ``[rank, file]`` with the rules core's values (0 empty,
1 White queen, 2 Black queen, 3 arrow); flattened it is indexed by public squares
``rank * N + file`` (a1 = 0), as ``Board``, ``Move`` and ``AmazonsEnv``. Between the two steps
of a turn the moved queen already stands on ``shooter`` and ``vacated`` is empty, as in the
envs. ``side``, ``phase``, ``shooter``, ``vacated``, ``move_number`` and ``winner`` are
``int64[B]``, ``terminated`` is ``bool[B]``. The functions here never change their inputs.

>>> state = initial_state(3, size=6)
>>> state.cells.shape, state.side.tolist(), state.phase.tolist()
(torch.Size([3, 6, 6]), [0, 0, 0], [0, 0, 0])
>>> to_boards(select(state, torch.tensor([0])))[0] == Board(6)
True
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from amazons_env import core
from amazons_env.board import Board
from amazons_env.envs.actions import ENCODINGS
from amazons_env.errors import InvalidArgumentError, InvalidPositionError, describe
from amazons_env.squares import as_int, check_size

__all__ = [
    "TensorState",
    "initial_state",
    "from_boards",
    "to_boards",
    "select",
    "where",
    "check_state",
    "check_encoding",
]


class TensorState(NamedTuple):
    """A batch of ``B`` games (see the module docstring for the fields' meaning)."""

    cells: torch.Tensor  # int8 [B, N, N]
    side: torch.Tensor  # int64 [B]: 0 White, 1 Black to move
    phase: torch.Tensor  # int64 [B]: 0 queen move, 1 arrow
    shooter: torch.Tensor  # int64 [B]: square of the queen that must shoot, -1 in the queen phase
    vacated: torch.Tensor  # int64 [B]: the square it left, -1 in the queen phase
    move_number: torch.Tensor  # int64 [B]: full turns completed
    terminated: torch.Tensor  # bool [B]
    winner: torch.Tensor  # int64 [B]: -1 while playing, else 0 (White) or 1 (Black)

    @property
    def size(self) -> int:
        return int(self.cells.shape[-1])

    @property
    def batch_size(self) -> int:
        return int(self.cells.shape[0])

    @property
    def device(self) -> torch.device:
        return self.cells.device


def _grid(board: Board) -> np.ndarray:
    n = board.size
    return board.cells[core.padded_index(n)].astype(np.int8).reshape(n, n)


def _device(device: torch.device | str | None) -> torch.device:
    try:
        return torch.device("cpu" if device is None else device)
    except (RuntimeError, TypeError):
        raise InvalidArgumentError(f"device={describe(device)} is not a torch device") from None


def initial_state(batch_size: int, size: int = 10, device: torch.device | str | None = None) -> TensorState:
    """``batch_size`` games at the start position of ``size`` (White to move), on ``device``."""
    count = as_int(batch_size)
    if count is None or count < 1:
        raise InvalidArgumentError(f"batch_size={describe(batch_size)}: use an integer >= 1")
    batch_size = count
    size = check_size(size)
    dev = _device(device)
    cells = torch.from_numpy(_grid(Board(size))).to(dev).expand(batch_size, size, size).clone()
    zeros = torch.zeros(batch_size, dtype=torch.int64, device=dev)
    minus = torch.full_like(zeros, -1)
    return TensorState(cells, zeros, zeros.clone(), minus, minus.clone(), zeros.clone(), zeros.bool(), minus.clone())


def from_boards(boards: Sequence[Board], device: torch.device | str | None = None) -> TensorState:
    """The positions of ``boards`` (one size), queen phase, side to move as each board's turn.
    A board whose side to move has no move is a finished game (``terminated``, the other side
    the winner)."""
    boards = list(boards) if not isinstance(boards, Board) else [boards]
    if not boards or not all(isinstance(b, Board) for b in boards):
        raise InvalidArgumentError(f"boards={describe(boards)}: give a non-empty sequence of Board")
    size = boards[0].size
    if any(b.size != size for b in boards):
        raise InvalidPositionError(f"boards of several sizes: {sorted({b.size for b in boards})}; use one size")
    dev = _device(device)
    cells = torch.from_numpy(np.stack([_grid(b) for b in boards])).to(dev)
    side = torch.tensor([int(b.turn) for b in boards], dtype=torch.int64, device=dev)
    over = torch.tensor([b.is_game_over() for b in boards], dtype=torch.bool, device=dev)
    minus = torch.full_like(side, -1)
    winner = torch.where(over, side ^ 1, minus)
    return TensorState(cells, side, torch.zeros_like(side), minus, minus.clone(), torch.zeros_like(side), over, winner)


def to_boards(state: TensorState) -> list[Board]:
    """Each game as a ``Board`` (no move history); in the arrow phase, the position before the
    pending queen move (as ``AmazonsEnv.board``)."""
    check_state(state)
    n = state.size
    cells = state.cells.reshape(state.batch_size, n * n).cpu().numpy()
    side, phase = state.side.cpu().numpy(), state.phase.cpu().numpy()
    shooter, vacated = state.shooter.cpu().numpy(), state.vacated.cpu().numpy()
    boards = []
    for g in range(state.batch_size):
        row = cells[g].copy()
        if phase[g] == 1:
            row[vacated[g]], row[shooter[g]] = row[shooter[g]], core.EMPTY
        white, black, arrows = (np.flatnonzero(row == v).tolist() for v in (1, 2, 3))
        boards.append(Board.from_squares(n, white, black, arrows, int(side[g])))
    return boards


def select(state: TensorState, index: torch.Tensor) -> TensorState:
    """The games picked by ``index`` (a bool mask ``[B]`` or integer indices)."""
    return TensorState(*(field[index] for field in state))


def where(mask: torch.Tensor, a: TensorState, b: TensorState) -> TensorState:
    """Per game, ``a``'s game where ``mask`` (``bool[B]``) is true, else ``b``'s (partial resets)."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.shape != a.side.shape:
        raise InvalidArgumentError(f"mask={describe(mask)}: use a bool tensor of shape {tuple(a.side.shape)}")
    return TensorState(*(torch.where(mask.view(-1, *[1] * (x.dim() - 1)), x, y) for x, y in zip(a, b)))


def check_state(state: object, name: str = "state") -> TensorState:
    """``state`` if it is a well-formed ``TensorState`` (shapes, dtypes, one device), else
    ``InvalidArgumentError`` naming it. Reads no values (no device synchronisation)."""
    if not isinstance(state, TensorState):
        raise InvalidArgumentError(f"{name}={describe(state)} is not a TensorState")
    cells = state.cells
    if not isinstance(cells, torch.Tensor) or cells.dim() != 3 or cells.shape[1] != cells.shape[2]:
        raise InvalidArgumentError(f"{name}.cells={describe(cells)}: use an int8 tensor [B, N, N]")
    if cells.dtype != torch.int8 or not core.MIN_SIZE <= cells.shape[1] <= core.MAX_SIZE:
        raise InvalidArgumentError(
            f"{name}.cells has dtype {cells.dtype} and size {cells.shape[1]}: use int8 and N in "
            f"{core.MIN_SIZE}..{core.MAX_SIZE}"
        )
    for field, value in zip(TensorState._fields[1:], state[1:]):
        dtype = torch.bool if field == "terminated" else torch.int64
        if not isinstance(value, torch.Tensor) or value.shape != cells.shape[:1] or value.dtype != dtype:
            raise InvalidArgumentError(
                f"{name}.{field}={describe(value)}: use a {dtype} tensor of shape {tuple(cells.shape[:1])}"
            )
        if value.device != cells.device:
            raise InvalidArgumentError(f"{name}.{field} is on {value.device}, {name}.cells on {cells.device}")
    return state


def check_encoding(encoding: object) -> str:
    """``encoding`` if it is an action encoding (``"flat"`` or ``"lines"``), else
    ``InvalidArgumentError`` naming it."""
    if not isinstance(encoding, str) or encoding not in ENCODINGS:
        raise InvalidArgumentError(f"encoding={describe(encoding)}: use one of {list(ENCODINGS)}")
    return encoding
