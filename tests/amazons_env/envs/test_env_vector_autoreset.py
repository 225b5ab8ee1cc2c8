"""AmazonsVectorEnv as gymnasium's vector-env clients see it: the attributes of gymnasium's own
vector envs (``autoreset_mode`` beside ``metadata["autoreset_mode"]``, which TorchRL reads), and
the ``Disabled`` autoreset mode, where the caller resets ended games through ``reset_mask``."""

from typing import Optional

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from amazons_env import Board, InvalidArgumentError
from amazons_env.core import EMPTY
from amazons_env.envs.kernels import game as K
from amazons_env.envs.vector_env import AmazonsVectorEnv

from tests.helpers.env_reference import expected_mask

# SyncVectorEnv's plumbing to its Python sub-envs (one object per game): a batched env has no
# sub-envs to list, call or configure
SUB_ENV_PLUMBING = {"envs", "env_fns", "call", "get_attr", "set_attr", "observation_mode"}


def test_it_has_every_attribute_of_gymnasiums_sync_vector_env():
    sync = gymnasium.make_vec("Amazons-v0", num_envs=2, vectorization_mode="sync", size=6)
    ours = gymnasium.make_vec("Amazons-v0", num_envs=2, vectorization_mode="vector_entry_point", size=6)
    missing = {name for name in dir(sync) if not name.startswith("_") and not hasattr(ours, name)}
    assert missing == SUB_ENV_PLUMBING
    for name in ("num_envs", "single_observation_space", "single_action_space", "autoreset_mode", "closed"):
        assert getattr(ours, name) == getattr(sync, name), name
    assert ours.metadata["autoreset_mode"] is ours.autoreset_mode is AutoresetMode.NEXT_STEP
    assert ours.render_mode is None and ours.spec is not None and ours.spec.id == "Amazons-v0"
    ours.reset(seed=3)
    assert isinstance(ours.np_random, np.random.Generator) and ours.np_random_seed == 3
    ours.close()
    assert ours.closed


@pytest.mark.parametrize("mode", ["Disabled", AutoresetMode.DISABLED])
def test_the_mode_is_per_instance_in_the_attribute_and_the_metadata(mode):
    envs = gymnasium.make_vec("Amazons-v0", num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=mode)
    assert envs.autoreset_mode is envs.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    assert AmazonsVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # the class keeps the default
    assert AmazonsVectorEnv(2, 6).autoreset_mode is AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("mode", ["SameStep", AutoresetMode.SAME_STEP, "next_step", "", 0, None, ["Disabled"]])
def test_a_mode_it_does_not_implement_is_refused_by_name(mode):
    with pytest.raises(InvalidArgumentError, match="autoreset_mode=.*'NextStep', 'Disabled'"):
        AmazonsVectorEnv(2, 6, autoreset_mode=mode)


def _play_until_a_game_ends(envs: AmazonsVectorEnv) -> tuple[np.ndarray, np.ndarray]:
    """Random legal steps from a fresh reset until some game ends: the last observations and
    which games ended."""
    envs.reset(seed=0)
    for _ in range(500):
        obs, _, terminated, _, _ = envs.step(envs.sample_legal_actions())
        if terminated.any():
            return obs, terminated
    raise AssertionError("no game of 6x6 ended in 500 steps")


@pytest.mark.parametrize("opponent", [None, "random"])
def test_disabled_refuses_to_step_an_ended_game_until_the_caller_resets_it(opponent):
    envs = AmazonsVectorEnv(4, 6, copy=True, opponent=opponent, autoreset_mode="Disabled")
    last, ended = _play_until_a_game_ends(envs)
    masks = envs.action_masks()
    with pytest.raises(gymnasium.error.ResetNeeded, match=f"game {np.flatnonzero(ended)[0]} has ended .*reset_mask"):
        envs.step(envs.sample_legal_actions())
    assert np.array_equal(envs.action_masks(), masks), "a refused step changed a game"
    obs, infos = envs.reset(options={"reset_mask": ended})
    assert np.array_equal(obs[~ended], last[~ended]), "the games still running were reset or stepped"
    assert (infos["move_number"][ended] == 0).all() and not np.array_equal(obs[ended], last[ended])
    _, _, terminated, _, _ = envs.step(envs.sample_legal_actions())  # every game runs again
    assert not terminated[ended].any()


def test_next_step_still_resets_an_ended_game_on_the_following_step():
    envs = AmazonsVectorEnv(4, 6, copy=True)
    _, ended = _play_until_a_game_ends(envs)
    _, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
    assert (rewards[ended] == 0).all() and not terminated[ended].any()
    assert (infos["move_number"][ended] == 0).all()


def _position(envs: AmazonsVectorEnv, i: int) -> tuple[Board, Optional[tuple[int, int]]]:
    """Game ``i`` as ``expected_mask`` takes it, from the kernels' arrays: the board before a
    pending queen move, and that move (public squares) in the arrow phase."""
    cells, meta, pub = envs._games.cells[i].copy(), envs._games.meta[i], envs._geometry.pub
    pending = None
    if meta[K.PHASE] == 1:
        src, dst = int(meta[K.SRC]), int(meta[K.DST])
        cells[src], cells[dst] = cells[dst], EMPTY
        pending = (int(pub[src]), int(pub[dst]))
    return Board.from_cells(envs.size, cells, int(meta[K.SIDE])), pending


def _first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched policy opponent (its half-turns go through ``step_some``, ``"random"``'s through
    its own kernel)."""
    return masks.argmax(axis=1)


@pytest.mark.parametrize("mode", ["NextStep", "Disabled"])
@pytest.mark.parametrize("encoding,mask_dtype", [("flat", "int8"), ("lines", "bool")])
@pytest.mark.parametrize("opponent", [None, "random", _first_legal])
def test_masks_follow_the_positions_and_show_every_action_while_a_game_is_over(mode, encoding, mask_dtype, opponent):
    """Every step, partial reset and refused step: a running game's mask is its position's (a
    ``Board``'s legal actions), a finished game's shows every action (its ``action_masks()`` row
    none) until the game restarts, by an autoreset or through ``reset_mask``."""
    envs = AmazonsVectorEnv(
        4, 6, copy=True, opponent=opponent, action_encoding=encoding, mask_dtype=mask_dtype, autoreset_mode=mode
    )
    rng = np.random.default_rng(5)
    _, infos = envs.reset(seed=5)
    finished_seen = restarted = 0
    for _ in range(160):
        over = infos["winner"] >= 0
        masks, listed = infos["action_mask"], envs.action_masks()
        for i in range(4):
            if over[i]:
                assert masks[i].all() and not listed[i].any(), i
            else:
                expected = envs._codec.mask(expected_mask(*_position(envs, i)))
                assert np.array_equal(masks[i], expected) and np.array_equal(listed[i], expected), i
        finished_seen += int(over.sum())
        if over.any() and mode == "Disabled":
            with pytest.raises(gymnasium.error.ResetNeeded):
                envs.step(envs.sample_legal_actions())
        if (over.any() and mode == "Disabled") or rng.random() < (0.5 if over.any() else 0.05):
            # some games restart, running or over; in NextStep a finished game may wait for its autoreset
            which = (rng.random(4) < 0.4) | (over if mode == "Disabled" else False)
            _, infos = envs.reset(options={"reset_mask": which})
            restarted += int((which & over).sum())
            continue
        actions = envs.sample_legal_actions()
        wild = rng.random(4) < 0.02  # an illegal action ends a game too
        actions[wild] = rng.integers(envs.single_action_space.n, size=int(wild.sum()))
        _, _, _, _, infos = envs.step(actions)
    assert finished_seen >= 4 and restarted >= 2
