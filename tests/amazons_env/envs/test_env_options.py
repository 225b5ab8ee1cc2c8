"""AmazonsEnv: both players' rewards, dict observations, queen-line actions, bool masks, masks that
are not the env's buffer, errors before reset, and the package-level imports."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import amazons_env
from amazons_env import InvalidMoveError, Move
from amazons_env.envs.actions import (
    ActionCodec,
    decode_line_action,
    encode_line_action,
    flat_to_line,
    line_actions_to_move,
    line_tables,
    line_to_flat,
    move_to_line_actions,
    num_actions,
    parse_action,
)
from amazons_env.envs.gym_env import AmazonsEnv


def play_until(env, rng, stop):
    """Random legal play until ``stop(info, reward, actor, phase)`` holds on a finished game's last step."""
    for _ in range(200):
        obs, info = env.reset(seed=int(rng.integers(10**6)))
        terminated = False
        while not terminated:
            actor, phase = info["player"], info["phase"]
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if not terminated:
                assert info["rewards"].tolist() == [0.0, 0.0] and reward == 0.0
        if stop(info, reward, actor, phase):
            return info, reward, actor
    raise AssertionError("no game ended as wanted")


@pytest.mark.parametrize("winner", [0, 1])
def test_rewards_of_both_players_when_a_game_is_won(winner):
    env = AmazonsEnv(size=4)
    info, reward, actor = play_until(env, np.random.default_rng(winner), lambda i, r, a, p: i["winner"] == winner)
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert info["rewards"].tolist() == expected and actor == winner and reward == 1.0


@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("phase", [0, 1])
def test_rewards_of_both_players_after_an_illegal_action(side, phase):
    env = AmazonsEnv(size=6)
    env.reset(seed=0)
    opening = ["b1-b4", "b4-b5", "e6-e3", "e3-e2"]  # a legal first turn of each side
    for text in opening[: 2 * side + phase]:
        env.step(parse_action(text, 6))
    assert (env.side_to_move, env.phase) == (side, phase)
    _, reward, terminated, _, info = env.step(parse_action("c3-c3", 6))
    assert terminated and info["illegal_action"] and reward == -1.0
    assert info["rewards"][side] == -1.0 and info["rewards"][1 - side] == 1.0 and info["winner"] == 1 - side


def test_rewards_with_an_opponent_are_per_colour_and_the_learner_reward_matches():
    for colour in ("white", "black"):
        env = AmazonsEnv(size=4, opponent="random", learner_color=colour)
        rng = np.random.default_rng(3)
        for _ in range(5):
            obs, info = env.reset(seed=int(rng.integers(100)))
            terminated = False
            while not terminated:
                obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            learner = 0 if colour == "white" else 1
            assert info["rewards"][learner] == reward and info["rewards"].sum() == 0 and abs(reward) == 1


def test_info_mask_is_not_the_env_buffer():
    env = AmazonsEnv(size=6)
    obs, info = env.reset(seed=0)
    before = env.action_masks()
    info["action_mask"][:] = 1
    env.action_masks()[:] = 0
    assert np.array_equal(env.action_masks(), before)
    _, _, _, _, info = env.step(parse_action("b1-b4", 6))
    info["action_mask"][:] = 0
    assert env.action_masks().sum() > 0 and len(env.legal_actions()) == env.action_masks().sum()


@pytest.mark.parametrize("what", ["phase", "board", "move_number", "side_to_move"])
def test_state_before_reset_raises_reset_needed(what):
    env = AmazonsEnv(size=6)
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        getattr(env, what)


def test_methods_before_reset_raise_reset_needed():
    env = AmazonsEnv(size=6)
    for call in (env.observation, env.action_masks, env.legal_actions):
        with pytest.raises(gymnasium.error.ResetNeeded):
            call()


def test_line_encoding_round_trips_and_tables_agree():
    for size in (4, 6, 10):
        to_flat, from_flat = line_tables(size)
        assert len(to_flat) == num_actions(size, "lines") == size * size * 8 * (size - 1)
        on_board = np.flatnonzero(to_flat >= 0)
        assert np.array_equal(from_flat[to_flat[on_board]], on_board)
        assert (from_flat >= 0).sum() == len(on_board)  # every queen-line slide has one line action
        for line in np.random.default_rng(size).choice(on_board, 50):
            sq, d, dist = decode_line_action(int(line), size)
            assert encode_line_action(sq, d, dist, size) == line
            assert flat_to_line(line_to_flat(int(line), size), size) == line
    move = Move.parse("d1-d7/g4", size=10)
    assert line_actions_to_move(*move_to_line_actions(move), size=10) == move
    with pytest.raises(InvalidMoveError, match="leaves"):
        line_to_flat(encode_line_action(0, 4, 1, 10), 10)  # a1 going south
    with pytest.raises(InvalidMoveError, match="queen line"):
        flat_to_line(parse_action("a1-b3", 10), 10)
    for bad in (-1, 7200, 1.5, "3", True):
        with pytest.raises(InvalidMoveError):
            decode_line_action(bad, 10)


@pytest.mark.parametrize(
    "obs_mode,encoding,mask_dtype", [("dict", "flat", "int8"), ("dict", "lines", "bool"), ("planes", "lines", "int8")]
)
def test_options_pass_check_env_and_match_the_flat_env(obs_mode, encoding, mask_dtype):
    size = 6
    env = AmazonsEnv(size=size, obs_mode=obs_mode, action_encoding=encoding, mask_dtype=mask_dtype)
    check_env(env, skip_render_check=True)
    reference = AmazonsEnv(size=size)
    to_flat = line_tables(size)[0]
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    ref_obs, ref_info = reference.reset(seed=1)
    for _ in range(300):
        mask = info["action_mask"]
        assert mask.dtype == np.dtype(mask_dtype) and mask.shape == (num_actions(size, encoding),)
        legal = np.flatnonzero(mask)
        flat = legal if encoding == "flat" else to_flat[legal]
        assert np.array_equal(np.sort(flat), np.flatnonzero(ref_info["action_mask"]))
        planes = obs["observation"] if obs_mode == "dict" else obs
        assert np.array_equal(planes, ref_obs)
        if obs_mode == "dict":
            assert np.array_equal(obs["action_mask"], mask) and env.observation_space.contains(obs)
        k = rng.integers(len(legal))
        obs, reward, terminated, _, info = env.step(int(legal[k]))
        ref_obs, ref_reward, ref_terminated, _, ref_info = reference.step(int(flat[k]))
        assert (reward, terminated) == (ref_reward, ref_terminated)
        if terminated:
            obs, info = env.reset()
            ref_obs, ref_info = reference.reset()


def test_off_board_line_action_is_illegal_not_out_of_range():
    env = AmazonsEnv(size=6, action_encoding="lines")
    env.reset()
    _, reward, terminated, _, info = env.step(encode_line_action(0, 4, 1, 6))  # a1 south
    assert terminated and reward == -1.0 and "leaves" in env.illegal_reason
    env = AmazonsEnv(size=6, action_encoding="lines", illegal_action="raise")
    env.reset()
    with pytest.raises(amazons_env.IllegalMoveError, match="leaves"):
        env.step(encode_line_action(0, 4, 1, 6))
    with pytest.raises(InvalidMoveError, match="out of range"):
        env.step(num_actions(6, "lines"))
    first = move_to_line_actions(Move.parse("b1-b4/b5", size=6))[0]
    assert env.step(first)[4]["phase"] == 1


@pytest.mark.parametrize(
    "option,value",
    [
        ("obs_mode", "image"),
        ("action_encoding", "lines2"),
        ("mask_dtype", "float32"),
        ("obs_mode", None),
        ("mask_dtype", 1),
    ],
)
def test_unknown_options_are_refused(option, value):
    with pytest.raises(ValueError, match=option):
        AmazonsEnv(size=6, **{option: value})
    with pytest.raises(ValueError, match=option):
        ActionCodec(6, **{{"action_encoding": "encoding"}.get(option, option): value})


def test_package_exports_and_make_gives_action_masks():
    assert amazons_env.AmazonsEnv is AmazonsEnv
    from amazons_env.envs.vector_env import AmazonsVectorEnv

    assert amazons_env.AmazonsVectorEnv is AmazonsVectorEnv
    env = gymnasium.make("Amazons-v0", size=6, obs_mode="dict")
    env.reset(seed=0)
    assert env.action_masks().sum() == 40
    with pytest.raises(AttributeError, match="no attribute"):
        amazons_env.NoSuchThing  # noqa: B018


def test_env_player_speaks_the_env_encoding():
    from agents.env_adapter import play_episode

    boards = []
    for encoding in ("flat", "lines"):
        env = AmazonsEnv(size=6, action_encoding=encoding, obs_mode="dict", illegal_action="raise")
        winner = play_episode(env, "random", "random", seed=3)
        boards.append((winner, env.board))
    assert boards[0] == boards[1] and boards[0][1].is_game_over()
