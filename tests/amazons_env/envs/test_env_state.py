"""``get_state``/``set_state``/``clone`` of the envs (``env_state``): a restored env (or a clone)
steps exactly as the original did from the saved point; states are copies; bad ones are refused."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from amazons_env import AmazonsEnv, AmazonsVectorEnv, core
from amazons_env.envs.batch_opponents import UniformRandom
from amazons_env.errors import InvalidArgumentError


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(map(_same, a, b))
    return bool(np.array_equal(a, b))


def _single_steps(env: AmazonsEnv, seed: int, count: int) -> list:
    rng, seen = np.random.default_rng(seed), []
    for _ in range(count):
        action = int(rng.choice(env.legal_actions()))
        step = env.step(action)
        seen.append(step)
        if step[2]:
            seen.append(env.reset())
    return seen


@pytest.mark.parametrize("options", [{}, {"action_encoding": "lines", "obs_mode": "dict"}])
def test_a_restored_single_env_steps_as_the_original(options):
    env = AmazonsEnv(size=5, **options)
    env.reset(seed=3)
    _single_steps(env, 0, 7)  # into an arrow phase
    saved = env.get_state()
    twin = env.clone()
    first = _single_steps(env, 1, 40)
    env.set_state(saved)
    assert _same(_single_steps(env, 1, 40), first)
    assert _same(_single_steps(twin, 1, 40), first)
    env.set_state(saved)  # a state restores any number of times
    assert _same(_single_steps(env, 1, 40), first)


def test_the_single_env_state_holds_the_learner_and_the_generator():
    env = AmazonsEnv(size=5, opponent=FirstLegal(), learner_color="random")
    env.reset(seed=5)
    saved = env.get_state()
    colours = [env.reset()[1]["player"] for _ in range(6)]
    env.set_state(saved)
    assert [env.reset()[1]["player"] for _ in range(6)] == colours


class FirstLegal:
    """A board-level player without a generator of its own."""

    def select_move(self, board):
        return board.legal_moves()[0]


def _vector_steps(envs: AmazonsVectorEnv, count: int) -> list:
    seen = []
    for _ in range(count):
        seen.append(envs.step(envs.sample_legal_actions()))
    return seen


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"opponent": UniformRandom, "learner_color": "random"},
        {"action_encoding": "lines", "mask_dtype": "bool", "obs_mode": "dict"},
    ],
)
def test_a_restored_vector_env_steps_as_the_original(options):
    if options.get("opponent") is UniformRandom:
        options = {**options, "opponent": UniformRandom()}
    envs = AmazonsVectorEnv(5, size=4, **options)
    envs.reset(seed=2)
    _vector_steps(envs, 9)
    saved = envs.get_state()
    first = _vector_steps(envs, 60)  # through game ends and autoresets
    envs.set_state(saved)
    assert _same(_vector_steps(envs, 60), first)
    envs.set_state(saved)
    twin = envs.clone()
    assert twin is not envs and _same(_vector_steps(twin, 60), first)


def test_a_state_is_a_copy_and_read_only():
    envs = AmazonsVectorEnv(3, size=5)
    envs.reset(seed=0)
    saved = envs.get_state()
    before = {k: v.copy() for k, v in saved.arrays.items()}
    _vector_steps(envs, 5)
    assert _same(saved.arrays, before)
    with pytest.raises(ValueError):
        saved.arrays["cells"][0, 0] = 1
    env = AmazonsEnv(size=5)
    env.reset(seed=0)
    state = env.get_state()
    env.step(int(env.legal_actions()[0]))
    assert state.arrays[3][0, 1] == 0  # the meta row's phase, still the queen phase's


def test_bad_states_are_refused_by_name_and_change_nothing():
    envs = AmazonsVectorEnv(3, size=5)
    envs.reset(seed=0)
    other = AmazonsVectorEnv(2, size=5)
    other.reset(seed=0)
    before = envs.get_state()
    with pytest.raises(InvalidArgumentError, match="num_envs=3"):
        envs.set_state(other.get_state())
    with pytest.raises(InvalidArgumentError, match="6x6"):
        envs.set_state(AmazonsVectorEnv(3, size=6).get_state())
    with pytest.raises(InvalidArgumentError, match="VectorEnvState"):
        envs.set_state("state")
    assert _same(envs.get_state().arrays, before.arrays)
    env = AmazonsEnv(size=5)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.get_state()
    env.reset(seed=0)
    with pytest.raises(InvalidArgumentError, match="EnvState"):
        env.set_state(before)


def test_the_batched_random_opponent_plays_legal_turns():
    """Its turns are played by one kernel (``kernels.batch.random_replies``): every position the
    learner sees is one a legal game reaches (an arrow per full turn, the mask the rules' moves)."""
    from amazons_env.envs.batch_opponents import board_of

    envs = AmazonsVectorEnv(8, size=5, opponent=UniformRandom(), learner_color="random", action_encoding="flat")
    obs, infos = envs.reset(seed=4)
    for _ in range(80):
        obs, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
        for i in np.flatnonzero(~terminated & (infos["phase"] == 0) & (infos["winner"] < 0)):
            board = board_of(envs._replies.view, int(i))
            assert int(board.turn) == infos["player"][i]
            assert int(np.count_nonzero(board.cells == core.ARROW)) == infos["move_number"][i]
            queen_moves = {(m.from_square, m.to_square) for m in board.legal_moves()}
            assert {divmod(int(a), 25) for a in np.flatnonzero(infos["action_mask"][i])} == queen_moves
