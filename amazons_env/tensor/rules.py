"""The rules on tensors: legal masks, one step and the observation planes of ``AmazonsEnv``,
for a batch of games on any device. Pure functions of ``(state, action)``: inputs are never
changed. Action ids, masks, rewards and planes are those of ``AmazonsEnv`` with the same
``action_encoding`` (``"flat"``: ``from * N*N + to``; ``"lines"``: ``(from * 8 + direction) *
(N-1) + distance - 1``), so one game replays on both.

>>> from amazons_env import Move
>>> from amazons_env.envs.actions import move_to_actions
>>> from amazons_env.tensor.state import initial_state
>>> state = initial_state(2, size=6)
>>> legal_mask(state).sum(dim=1).tolist(), legal_mask(state, "lines").shape
([40, 40], torch.Size([2, 1440]))
>>> queen, arrow = move_to_actions(Move.parse("b1-b4/b5", size=6))
>>> state, rewards, terminated = step(state, torch.tensor([queen, queen]))
>>> state.phase.tolist(), state.shooter.tolist(), state.vacated.tolist()
([1, 1], [19, 19], [1, 1])
>>> state, rewards, terminated = step(state, torch.tensor([arrow, 0]))   # game 1: illegal arrow
>>> state.side.tolist(), terminated.tolist(), state.winner.tolist(), rewards.tolist()
([1, 0], [False, True], [-1, 1], [[0.0, 0.0], [-1.0, 1.0]])
>>> observation(state).shape
torch.Size([2, 9, 6, 6])
"""

from __future__ import annotations

import torch

from amazons_env.envs.actions import num_actions
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.tensor.reach import has_queen_move, mover_reach, mover_sources, reaches, side_queens
from amazons_env.tensor.state import TensorState, check_encoding, check_state
from amazons_env.tensor.tables import tables

__all__ = ["legal_mask", "legal_counts", "step", "observation", "observe"]

EMPTY, ARROW = 0, 3


def _rows(targets: torch.Tensor, reach: torch.Tensor) -> torch.Tensor:
    """``bool[B, Q, N*N]``: each source's reach as a row over the squares. Off-board targets
    (``N*N``) all land in an extra column with ``False``; a real square occurs at most once
    per source, so the scatter writes each entry once."""
    b, q = targets.shape[:2]
    nn = (targets.shape[-1] + 1) ** 2
    rows = torch.zeros(b, q, nn + 1, dtype=torch.bool, device=targets.device)
    rows.scatter_(2, targets.view(b, q, -1), reach.view(b, q, -1))
    return rows[:, :, :nn]


def _mask(sources: torch.Tensor, rows: torch.Tensor, playing: torch.Tensor, nn: int) -> torch.Tensor:
    """The mask ``[B, nn * R]`` whose row ``sources[b, j]`` (``R`` entries) is ``rows[b, j]`` in
    the games ``playing``, the rest ``False``: the flat mask from ``_rows``, the lines mask from
    the reach itself. Written a source's row at a time (repeated sources hold equal rows):
    contiguous writes, where a scatter of single entries would wander over the whole output."""
    b = sources.shape[0]
    rows = rows.flatten(2)
    mask = torch.zeros(b, nn, rows.shape[-1], dtype=torch.bool, device=sources.device)
    index = torch.arange(b, device=sources.device)[:, None]
    mask[index, sources] = rows & playing[:, None, None]
    return mask.view(b, -1)


def legal_mask(state: TensorState, encoding: str = "flat") -> torch.Tensor:
    """``bool[B, A]``: the legal actions of the current phase (all ``False`` in a finished game)."""
    check_state(state)
    encoding = check_encoding(encoding)
    sources, targets, reach, _ = mover_reach(state)
    return _mask(sources, _rows(targets, reach) if encoding == "flat" else reach, ~state.terminated, state.size**2)


def legal_counts(state: TensorState) -> torch.Tensor:
    """``int64[B]``: the number of legal actions of the current phase (the mask's sum, without
    building it; 0 in a finished game).

    >>> from amazons_env.tensor.state import initial_state
    >>> legal_counts(initial_state(1, size=10)).tolist()
    [80]
    """
    check_state(state)
    _, _, reach, distinct = mover_reach(state)
    counts = (reach.flatten(2).sum(dim=2) * distinct).sum(dim=1)
    return torch.where(state.terminated, 0, counts)


def _observed(state: TensorState, encoding: str | None) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(planes, mask)`` (no mask when ``encoding`` is None). The side to move's legal set and
    the opponent's queen moves come from one ``reaches`` over both source lists."""
    b, n = state.batch_size, state.size
    nn = n * n
    flat = state.cells.flatten(1)
    sources, _ = mover_sources(state)
    q = sources.shape[1]
    opponent = side_queens(flat, state.side ^ 1)
    targets, reach = reaches(flat, torch.cat([sources, opponent], dim=1), tables(n, state.device).rays)
    rows = _rows(targets, reach)
    mask = None
    if encoding is not None:
        mover = rows[:, :q] if encoding == "flat" else reach[:, :q]
        mask = _mask(sources, mover, ~state.terminated, nn)
    side = state.side[:, None]
    squares = torch.arange(nn, device=state.device)
    arrow_phase = ((state.phase == 1) & ~state.terminated)[:, None]
    planes = torch.stack(  # in ``amazons_env.envs.planes``'s order
        [
            flat == (side + 1),
            flat == (2 - side),
            flat == ARROW,
            arrow_phase.expand(b, nn),
            arrow_phase & (squares == state.shooter[:, None]),
            arrow_phase & (squares == state.vacated[:, None]),
            rows[:, :q].any(dim=1),
            rows[:, q:].any(dim=1),
            (side == 1).expand(b, nn),
        ],
        dim=1,
    )
    return planes.to(torch.int8).view(b, NUM_PLANES, n, n), mask


def observe(state: TensorState, encoding: str = "flat") -> tuple[torch.Tensor, torch.Tensor]:
    """``(observation(state), legal_mask(state, encoding))`` computed together (the side to
    move's reach is shared)."""
    check_state(state)
    planes, mask = _observed(state, check_encoding(encoding))
    assert mask is not None  # an encoding was given
    return planes, mask


def observation(state: TensorState) -> torch.Tensor:
    """``int8[B, 9, N, N]``: ``AmazonsEnv``'s planes seen by the side to move."""
    check_state(state)
    return _observed(state, None)[0]


def _check_actions(
    actions: object, state: TensorState, encoding: str, check_range: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """The actions as ``int64`` clamped into range, and where they were out of range."""
    b = state.batch_size
    if not isinstance(actions, torch.Tensor):
        raise InvalidArgumentError(f"actions={describe(actions)}: use an integer tensor of shape ({b},)")
    integer = not (actions.dtype.is_floating_point or actions.dtype.is_complex or actions.dtype == torch.bool)
    if actions.shape != (b,) or not integer:
        raise InvalidArgumentError(
            f"actions has shape {tuple(actions.shape)} and dtype {actions.dtype}: use an integer tensor of shape ({b},)"
        )
    if actions.device != state.device:
        raise InvalidArgumentError(f"actions are on {actions.device}, the state on {state.device}")
    actions = actions.to(torch.int64)
    high = num_actions(state.size, encoding)
    outside = (actions < 0) | (actions >= high)
    if check_range and bool(outside.any()):
        bad = actions[outside][:5].tolist()
        raise InvalidMoveError(f"actions {bad} are out of range (0 <= action < {high}, encoding={encoding!r})")
    return actions.clamp(0, high - 1), outside


def step(
    state: TensorState, actions: torch.Tensor, encoding: str = "flat", *, check_range: bool = True
) -> tuple[TensorState, torch.Tensor, torch.Tensor]:
    """One phase of every game: ``(next_state, rewards float32[B, 2], terminated bool[B])``.

    ``rewards`` is this step's reward of [White, Black] (``AmazonsEnv``'s ``info["rewards"]``:
    +1/-1 on the step a game ends, else 0). An illegal action loses for the side that made it;
    a game ends when an arrow leaves the opponent without a queen move. Finished games are left
    as they are (reward 0); ``terminated`` is ``next_state.terminated``. Out-of-range actions
    raise ``InvalidMoveError`` (``InvalidArgumentError`` for a wrong shape, dtype or device);
    ``check_range=False`` skips that check, which reads from the device (a synchronisation):
    an out-of-range action then loses like any illegal action."""
    check_state(state)
    encoding = check_encoding(encoding)
    actions, outside = _check_actions(actions, state, encoding, check_range)
    b, n = state.batch_size, state.size
    nn, reach_len = n * n, n - 1
    table = tables(n, state.device)
    if encoding == "flat":
        frm, to = actions // nn, actions % nn
        line = table.line_of_flat[actions]
    else:
        line = actions
        frm = actions // (8 * reach_len)
    on_line = line >= 0
    line = line.clamp(min=0)
    direction, distance = (line // reach_len) % 8, line % reach_len
    path = table.rays[frm, direction]  # [B, N-1]
    if encoding == "lines":
        to = path.gather(1, distance[:, None])[:, 0]
        on_line = to < nn
    flat = state.cells.flatten(1)
    blocked = torch.zeros_like(flat[:, :1], dtype=torch.bool)
    free = torch.gather(torch.cat([flat == EMPTY, blocked], 1), 1, path)
    clear = free.cummin(dim=1).values.gather(1, distance[:, None])[:, 0]
    playing = ~state.terminated
    queen_phase = state.phase == 0
    source_ok = torch.where(queen_phase, flat.gather(1, frm[:, None])[:, 0] == state.side + 1, frm == state.shooter)
    legal = on_line & clear & source_ok & playing & ~outside
    illegal = playing & ~legal
    moves, shots = legal & queen_phase, legal & ~queen_phase
    to = to.clamp(max=nn - 1)
    rows = torch.arange(b, device=state.device)

    cells = flat.clone()
    piece = (state.side + 1).to(cells.dtype)
    cells[rows, frm] = torch.where(moves, torch.zeros_like(piece), cells[rows, frm])
    landing = torch.where(moves, piece, torch.where(shots, torch.full_like(piece, ARROW), cells[rows, to]))
    cells[rows, to] = landing

    side = torch.where(shots, state.side ^ 1, state.side)
    stuck = shots & ~has_queen_move(cells, side, table.neighbours)
    ended = illegal | stuck
    # an illegal action loses for its side; a stuck opponent loses to the side that shot
    winner = torch.where(illegal, state.side ^ 1, torch.where(stuck, state.side, state.winner))
    minus = torch.full_like(frm, -1)
    next_state = TensorState(
        cells.view(b, n, n),
        side,
        torch.where(moves, 1, torch.where(shots, 0, state.phase)),
        torch.where(moves, to, torch.where(shots, minus, state.shooter)),
        torch.where(moves, frm, torch.where(shots, minus, state.vacated)),
        state.move_number + shots.to(torch.int64),
        state.terminated | ended,
        winner,
    )
    # +1 to the winner, -1 to the loser where the game ended (one_hot would read the device)
    colours = torch.arange(2, device=state.device)
    rewards = (winner[:, None] == colours).to(torch.float32) * 2 - 1
    rewards = torch.where(ended[:, None], rewards, 0.0)
    return next_state, rewards, next_state.terminated
