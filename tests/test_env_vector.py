"""AmazonsVectorEnv: equal to N single envs step by step, make_vec, autoreset, errors."""

import gymnasium
import numpy as np
import pytest

from amazons_env import IllegalMoveError, InvalidMoveError
from amazons_env.env import AmazonsEnv, parse_action
from amazons_env.vector import AmazonsVectorEnv


@pytest.mark.parametrize("size,num_envs,steps", [(6, 8, 400), (8, 3, 300)])
def test_vector_env_equals_single_envs(size, num_envs, steps):
    vec = AmazonsVectorEnv(num_envs, size=size)
    singles = [AmazonsEnv(size=size) for _ in range(num_envs)]
    rngs = [np.random.default_rng(seed) for seed in range(num_envs)]
    obs, infos = vec.reset(seed=0)
    single = [env.reset(seed=0) for env in singles]
    ended = [False] * num_envs
    games_ended = 0
    for _ in range(steps):
        for i, (o, info) in enumerate(single):
            assert np.array_equal(obs[i], o)
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
            for key in ("player", "phase", "move_number"):
                assert infos[key][i] == info[key], key
        # random masked actions; 1 in 50 is an arbitrary (usually illegal) action
        actions = np.array([rng.integers(size ** 4) if rng.random() < 0.02 else
                            rng.choice(np.flatnonzero(infos["action_mask"][i]) if infos["action_mask"][i].any()
                                       else [0]) for i, rng in enumerate(rngs)])
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:  # next-step autoreset: the vector env resets this game now
                single[i] = env.reset()
                assert rewards[i] == 0 and not terminated[i] and not infos["illegal_action"][i]
                ended[i] = False
                continue
            o, r, term, trunc, info = env.step(int(actions[i]))
            single[i] = (o, info)
            assert (rewards[i], terminated[i], truncated[i]) == (r, term, trunc)
            assert infos["illegal_action"][i] == info.get("illegal_action", False)
            ended[i] = term
            games_ended += term
    assert games_ended >= num_envs


def test_make_vec_and_partial_reset():
    envs = gymnasium.make_vec("Amazons-v0", num_envs=4, vectorization_mode="vector_entry_point", size=6)
    assert isinstance(envs.unwrapped, AmazonsVectorEnv) and envs.num_envs == 4
    obs, infos = envs.reset(seed=0)
    first = parse_action("b1-b4", 6)
    envs.step(np.full(4, first))
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert infos["phase"].tolist() == [0, 1, 0, 1]
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP


def test_copy_false_returns_live_buffers_and_copy_true_does_not():
    fast = AmazonsVectorEnv(2, size=6, copy=False)
    obs, infos = fast.reset()
    fast.step(np.full(2, parse_action("b1-b4", 6)))
    assert obs[0, 3].all()  # the buffer now shows the arrow phase
    safe = AmazonsVectorEnv(2, size=6)
    obs, infos = safe.reset()
    safe.step(np.full(2, parse_action("b1-b4", 6)))
    assert not obs[0, 3].any()


def test_vector_errors():
    with pytest.raises(ValueError, match="num_envs"):
        AmazonsVectorEnv(0)
    with pytest.raises(ValueError, match="illegal_action"):
        AmazonsVectorEnv(2, illegal_action="skip")
    envs = AmazonsVectorEnv(2, size=6, illegal_action="raise")
    with pytest.raises(gymnasium.error.ResetNeeded):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(gymnasium.error.ResetNeeded, match="first reset"):
        envs.reset(options={"reset_mask": np.array([True, False])})
    obs, infos = envs.reset()
    with pytest.raises(InvalidMoveError, match="shape"):
        envs.step(np.zeros(3, np.int64))
    with pytest.raises(InvalidMoveError, match="shape"):
        envs.step(np.zeros(2, np.float64))
    with pytest.raises(InvalidMoveError, match="game 1: action 1296 is out of range"):
        envs.step(np.array([0, 6 ** 4]))
    good = parse_action("b1-b4", 6)
    with pytest.raises(IllegalMoveError, match="game 0: illegal action a1-a2"):
        envs.step(np.array([parse_action("a1-a2", 6), good]))
    assert envs.step(np.array([good, good]))[4]["phase"].tolist() == [1, 1]  # nothing had changed
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"mask": None})
    with pytest.raises(ValueError, match="bool array"):
        envs.reset(options={"reset_mask": [1, 0]})


def test_sample_legal_actions_plays_through_game_ends():
    """Every sampled action of a running game is in its mask, repeated draws cover all its legal
    actions, and ``step(sample_legal_actions())`` goes on through the autoreset steps."""
    envs = AmazonsVectorEnv(4, 4, copy=False)
    _, infos = envs.reset(seed=5)
    ended = 0
    for _ in range(60):
        masks = infos["action_mask"].copy()
        running = masks.any(axis=1)
        draws = np.stack([envs.sample_legal_actions() for _ in range(300)])
        for i in np.flatnonzero(running):
            assert set(draws[:, i].tolist()) == set(np.flatnonzero(masks[i]).tolist())
        assert (draws[:, ~running] == 0).all()
        _, _, terminated, _, infos = envs.step(envs.sample_legal_actions())
        ended += int(terminated.sum())
    assert ended >= 4  # 60 steps of 4x4 games: several ended and were reset on the way
