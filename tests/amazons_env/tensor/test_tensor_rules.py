"""The torch rules (``amazons_env.tensor``) against the numba envs, which run the rules core.

Positions come two ways on every size 4..12 (random play from the start, random layouts); at
each, masks in both encodings, observations, next states, rewards, termination and the winner
must equal ``AmazonsEnv``'s, through a queen step, an arrow step and what follows, with illegal
actions mixed in. Whole games replay in lock-step on a batch and on one env per game, and
perft(2) from the 8x8 and 10x10 starts equals ``amazons_env.perft``'s. The bigger sweep
(>= 100,000 positions) is ``benchmarks/rules/tensor_rules_sweep.py``.
"""

import contextlib
import random

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amazons_env import Board
from amazons_env.core import MAX_QUEENS, MAX_SIZE, MIN_SIZE
from amazons_env.envs.actions import flat_to_line, num_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.errors import InvalidArgumentError, InvalidMoveError
from amazons_env.perft import perft
from amazons_env.tensor import (
    TensorGames,
    TensorState,
    from_boards,
    initial_state,
    legal_counts,
    legal_mask,
    observe,
    random_actions,
    select,
    step,
    to_boards,
    where,
)
from amazons_env.tensor import reach as tensor_reach

from tests.strategies import custom_positions, positions

# the lock-step replays also run on an accelerator where there is one
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def queen_columns(fixed):
    """With ``fixed``, the CPU runs the accelerators' path: ``MAX_QUEENS`` queen columns, no
    synchronisation (see ``reach.queen_bound``)."""
    with pytest.MonkeyPatch.context() as patch:
        if fixed:
            patch.setattr(tensor_reach, "queen_bound", lambda device: MAX_QUEENS)
        yield


def env_action(flat_action, encoding, size):
    """``flat_action`` in ``encoding`` (a flat action off every queen line: an off-board line)."""
    if encoding == "flat":
        return flat_action
    try:
        return flat_to_line(flat_action, size)
    except InvalidMoveError:
        return 4 * (size - 1)  # a1 south: off the board, never legal


def assert_matches(state, game, env, obs, mask, encoding):
    """Game ``game`` of ``state`` against ``env``'s last ``obs`` and mask."""
    ours_obs, ours_mask = observe(state, encoding)
    assert np.array_equal(ours_obs[game].cpu().numpy(), obs)
    assert np.array_equal(ours_mask[game].cpu().numpy(), np.asarray(mask, bool))
    assert int(legal_counts(state)[game]) == int(np.asarray(mask).sum())
    assert int(state.phase[game]) == env.phase and int(state.move_number[game]) == env.move_number
    assert int(state.side[game]) == int(env.side_to_move)
    assert to_boards(select(state, torch.tensor([game])))[0] == env.board


def play_actions(state, env, obs, info, encoding, rng, steps):
    """Step ``state`` (one game) and ``env`` together ``steps`` times with mostly legal actions."""
    size = env.size
    for _ in range(steps):
        assert_matches(state, 0, env, obs, info["action_mask"], encoding)
        legal = np.flatnonzero(info["action_mask"])
        if rng.random() < 0.15:
            action = rng.randrange(num_actions(size, encoding))
        else:
            action = int(rng.choice(legal))
        obs, reward, terminated, _, info = env.step(action)
        state, rewards, done = step(state, torch.tensor([action]), encoding)
        assert np.array_equal(rewards[0].numpy(), info["rewards"])
        assert bool(done[0]) == terminated == bool(state.terminated[0])
        assert int(state.winner[0]) == info.get("winner", -1)
        if terminated:
            ours_obs, ours_mask = observe(state, encoding)
            assert np.array_equal(ours_obs[0].numpy(), obs) and not ours_mask.any()
            again, rewards, done = step(state, torch.tensor([action]), encoding)
            assert all(torch.equal(x, y) for x, y in zip(again, state)) and not rewards.any() and done.all()
            return
    assert_matches(state, 0, env, obs, info["action_mask"], encoding)


@SETTINGS
@given(positions, st.sampled_from(["flat", "lines"]), st.booleans(), st.randoms(use_true_random=False))
def test_positions_and_their_next_steps_match_the_env(board, encoding, fixed, rng):
    with queen_columns(fixed):
        check_position(board, encoding, rng)


def check_position(board, encoding, rng):
    state = from_boards([board])
    if board.is_game_over():
        assert state.terminated.tolist() == [True] and state.winner.tolist() == [1 - int(board.turn)]
        assert not legal_mask(state, encoding).any()
        return
    env = AmazonsEnv(board.size, action_encoding=encoding, mask_dtype="bool")
    obs, info = env.reset(options={"position": board})
    play_actions(state, env, obs, info, encoding, rng, steps=4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("encoding", "fixed"), [("flat", False), ("lines", True)])
def test_whole_games_replay_in_lock_step_on_a_batch(encoding, fixed, device):
    """Games of every size, one batch per size, played to the end on the tensors and on one env per
    game: every step's planes, masks, rewards and outcome equal, illegal actions included."""
    with queen_columns(fixed):
        replay_games(encoding, device)


def replay_games(encoding, device):
    rng = random.Random(7)
    for size in range(MIN_SIZE, MAX_SIZE + 1):
        games = 2
        envs = [AmazonsEnv(size, action_encoding=encoding, mask_dtype="bool") for _ in range(games)]
        outs = [env.reset() for env in envs]
        state = initial_state(games, size, device)
        live = [True] * games
        while any(live):
            actions = []
            for g, env in enumerate(envs):
                if live[g]:
                    assert_matches(state, g, env, outs[g][0], outs[g][1]["action_mask"], encoding)
                legal = np.flatnonzero(outs[g][1]["action_mask"])
                illegal = rng.random() < 0.004 or not len(legal)
                actions.append(rng.randrange(num_actions(size, encoding)) if illegal else int(rng.choice(legal)))
            state, rewards, done = step(state, torch.tensor(actions, device=device), encoding)
            rewards, done = rewards.cpu(), done.cpu()
            for g, env in enumerate(envs):
                if not live[g]:
                    assert not rewards[g].any() and done[g]
                    continue
                obs, _, terminated, _, info = env.step(actions[g])
                outs[g] = (obs, info)
                assert np.array_equal(rewards[g].numpy(), info["rewards"]) and bool(done[g]) == terminated
                if terminated:
                    live[g] = False
                    assert int(state.winner[g]) == info["winner"]
                    assert np.array_equal(observe(state, encoding)[0][g].cpu().numpy(), obs)


@SETTINGS
@given(
    st.integers(MIN_SIZE, MAX_SIZE).flatmap(lambda n: st.lists(custom_positions(n), min_size=2, max_size=6)),
    st.sampled_from(["flat", "lines"]),
)
def test_a_batch_of_positions_equals_its_games_one_by_one(boards, encoding):
    """Games of a batch with different queen counts (padded queen lists) as when alone."""
    batch = from_boards(boards)
    obs, mask = observe(batch, encoding)
    actions = random_actions(batch, encoding, torch.Generator().manual_seed(1))
    after, rewards, done = step(batch, actions, encoding)
    for g, board in enumerate(boards):
        alone = from_boards([board])
        alone_obs, alone_mask = observe(alone, encoding)
        assert torch.equal(alone_obs[0], obs[g]) and torch.equal(alone_mask[0], mask[g])
        single = step(alone, actions[g : g + 1], encoding)
        assert all(torch.equal(x[0], y[g]) for x, y in zip(single[0], after))
        assert torch.equal(single[1][0], rewards[g]) and bool(single[2][0]) == bool(done[g])


def children(state, encoding="lines"):
    """Every state one step (one phase) below the games of ``state``."""
    mask = legal_mask(state, encoding)
    games, actions = mask.nonzero(as_tuple=True)
    return step(select(state, games), actions, encoding)[0]


@pytest.mark.parametrize("size", [8, 10])
def test_perft_2_equals_the_core(size):
    depth_one = children(children(initial_state(1, size)))
    assert depth_one.batch_size == perft(Board(size), 1)
    assert int(legal_counts(children(depth_one, "flat")).sum()) == perft(Board(size), 2)


def test_random_actions_are_legal_in_both_encodings_and_reproducible():
    state = from_boards([Board(6), Board.from_text("1q2q1/q4q/6/6/Q4Q/1Q2Q1 b"), Board(6)])
    state = where(torch.tensor([False, False, True]), step(state, random_actions(state))[0], state)
    for encoding in ("flat", "lines"):
        for seed in range(5):
            actions = random_actions(state, encoding, torch.Generator().manual_seed(seed))
            assert legal_mask(state, encoding).gather(1, actions[:, None]).all()
    one, two = (random_actions(state, generator=torch.Generator().manual_seed(3)) for _ in range(2))
    assert torch.equal(one, two)


def test_tensor_games_steps_and_resets_some_games():
    games = TensorGames(3, size=5, encoding="lines")
    obs, mask = games.reset(seed=1)
    obs, rewards, terminated, mask = games.step(games.random_actions())
    assert games.state.phase.tolist() == [1, 1, 1] and mask.shape == (3, 25 * 8 * 4)
    obs, mask = games.reset(torch.tensor([True, False, True]))
    assert games.state.phase.tolist() == [0, 1, 0]
    assert torch.equal(obs, observe(games.state, "lines")[0]) and torch.equal(mask, legal_mask(games.state, "lines"))


def test_the_accelerator_path_reads_nothing_back_from_the_device(monkeypatch):
    """With fixed queen columns (as on an accelerator) and ``check_range=False``, an env step
    reads no tensor value on the host: no synchronisation, so a CUDA graph can capture it."""
    state, start = initial_state(4, 6), initial_state(4, 6)
    with queen_columns(True):
        for _ in range(3):
            state = step(state, random_actions(state), check_range=False)[0]

        def refuse(*args, **kwargs):
            raise AssertionError("read a value from the device")

        for name in ("item", "tolist", "nonzero", "__bool__", "__int__", "__index__", "numpy"):
            monkeypatch.setattr(torch.Tensor, name, refuse)
        for encoding in ("flat", "lines"):
            actions = random_actions(state, encoding)
            after, rewards, terminated = step(state, actions, encoding, check_range=False)
            after = where(terminated, start, after)
            observe(after, encoding), legal_counts(after)


def test_unchecked_out_of_range_actions_lose_like_illegal_ones():
    state = initial_state(3, 6)
    actions = torch.tensor([-5, 6**4, int(random_actions(state)[2])])
    after, rewards, terminated = step(state, actions, check_range=False)
    assert terminated.tolist() == [True, True, False] and after.winner.tolist() == [1, 1, -1]
    assert rewards.tolist() == [[-1.0, 1.0], [-1.0, 1.0], [0.0, 0.0]]


def test_step_leaves_its_inputs_alone():
    state = initial_state(2, 6)
    copies = [field.clone() for field in state]
    actions = random_actions(state)
    kept = actions.clone()
    step(state, actions)
    assert all(torch.equal(a, b) for a, b in zip(state, copies)) and torch.equal(actions, kept)


@pytest.mark.parametrize(
    ("actions", "error", "named"),
    [
        ([1, 2], InvalidArgumentError, "actions"),
        (torch.tensor([1.0, 2.0]), InvalidArgumentError, "actions"),
        (torch.tensor([True, False]), InvalidArgumentError, "actions"),
        (torch.tensor([1, 2, 3]), InvalidArgumentError, "actions"),
        (torch.tensor([[1, 2]]), InvalidArgumentError, "actions"),
        (torch.tensor([0, 6**4]), InvalidMoveError, "actions"),
        (torch.tensor([-1, 0]), InvalidMoveError, "actions"),
    ],
)
def test_bad_actions_raise_a_value_error_naming_them(actions, error, named):
    state = initial_state(2, 6)
    with pytest.raises(error, match=named) as caught:
        step(state, actions)
    assert isinstance(caught.value, ValueError)


def test_bad_arguments_raise_value_errors_naming_them():
    state = initial_state(2, 6)
    cases = [
        (lambda: step(state, torch.tensor([0, 0]), "queens"), "encoding"),
        (lambda: legal_mask(state, "bits"), "encoding"),
        (lambda: step(state, torch.tensor([0, 1440]), "lines"), "actions"),
        (lambda: legal_mask(tuple(state)), "state"),
        (lambda: legal_mask(state._replace(cells=state.cells.long())), "state.cells"),
        (lambda: legal_mask(state._replace(side=state.side.int())), "state.side"),
        (lambda: legal_mask(state._replace(terminated=state.terminated[:1])), "state.terminated"),
        (lambda: initial_state(0, 6), "batch_size"),
        (lambda: initial_state(2, 3), "size"),
        (lambda: initial_state(2, 6, device="no-such-device"), "device"),
        (lambda: from_boards([]), "boards"),
        (lambda: from_boards([Board(6), Board(8)]), "sizes"),
        (lambda: where(torch.tensor([True]), state, state), "mask"),
        (lambda: initial_state(True, 6), "batch_size"),
        (lambda: TensorGames(2, 6, encoding="planes"), "encoding"),
        (lambda: TensorGames(2, 6).reset(seed=-1), "seed"),
        (lambda: TensorGames(2, 6).reset(torch.tensor([1, 0])), "which"),
    ]
    for call, named in cases:
        with pytest.raises(ValueError, match=named):
            call()


def test_state_is_a_named_tuple_of_the_agreed_fields():
    assert TensorState._fields == (
        "cells",
        "side",
        "phase",
        "shooter",
        "vacated",
        "move_number",
        "terminated",
        "winner",
    )
