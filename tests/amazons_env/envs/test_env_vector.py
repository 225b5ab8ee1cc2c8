"""AmazonsVectorEnv: equal to N single envs step by step, make_vec, autoreset, errors."""

import gymnasium
import numba
import numpy as np
import pytest

from amazons_env import IllegalMoveError, InvalidMoveError, Move
from amazons_env.envs.actions import parse_action
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.kernels.batch import step_batch
from amazons_env.envs.vector_env import AmazonsVectorEnv

from agents import Agent


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
        actions = np.array(
            [
                rng.integers(size**4)
                if rng.random() < 0.02
                else rng.choice(np.flatnonzero(infos["action_mask"][i]) if infos["action_mask"][i].any() else [0])
                for i, rng in enumerate(rngs)
            ]
        )
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
            assert np.array_equal(infos["rewards"][i], info["rewards"])
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


def test_copy_true_by_default_and_copy_false_returns_live_buffers():
    safe = AmazonsVectorEnv(2, size=6)  # the default, as gymnasium's own vector envs: fresh arrays
    assert safe.copy
    obs, infos = safe.reset()
    _, _, _, _, later = safe.step(np.full(2, parse_action("b1-b4", 6)))
    assert not obs[0, 3].any() and later is not infos and later["_phase"] is not infos["_phase"]
    fast = AmazonsVectorEnv(2, size=6, copy=False)  # the opt-in: read-only views
    obs, infos = fast.reset()
    _, _, _, _, later = fast.step(np.full(2, parse_action("b1-b4", 6)))
    assert obs[0, 3].all()  # the buffer now shows the arrow phase
    assert later is not infos  # a new dict all the same: wrappers add keys to it
    for array in (obs, infos["action_mask"], infos["rewards"], infos["player"]):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


@pytest.mark.parametrize("opponent", [None, "random"])
def test_infos_have_the_same_keys_and_dtypes_on_every_step(opponent):
    """Through game ends and autoresets, with and without an opponent; ``winner`` is -1 in a game
    being played and the colour that won in one that is over."""
    envs = AmazonsVectorEnv(3, size=4, opponent=opponent)
    _, infos = envs.reset(seed=1)
    shape = {k: (np.asarray(v).dtype, np.shape(v)) for k, v in infos.items()}
    ends = 0
    for _ in range(40):
        _, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
        assert {k: (np.asarray(v).dtype, np.shape(v)) for k, v in infos.items()} == shape
        assert (infos["winner"][~terminated] == -1).all()
        for i in np.flatnonzero(terminated):
            won = infos["rewards"][i].argmax()
            assert infos["winner"][i] == won and infos["rewards"][i, 1 - won] == -1
        ends += int(terminated.sum())
    assert ends >= 3


def test_gymnasium_episode_statistics_over_many_game_ends():
    """gymnasium's vector ``RecordEpisodeStatistics`` counts every game once (with aliased infos
    it raised ``key 'episode' already exists`` at the second game end)."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(AmazonsVectorEnv(4, size=4))
    envs.reset(seed=2)
    seen = 0
    for _ in range(60):
        _, _, terminated, _, infos = envs.step(envs.unwrapped.sample_legal_actions())
        if terminated.any():
            assert (infos["_episode"] == terminated).all()
            assert (infos["episode"]["l"][terminated] > 0).all()
        seen += int(terminated.sum())
    assert seen >= 4 and envs.episode_count == seen == len(envs.length_queue)


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
        envs.step(np.array([0, 6**4]))
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
        running = infos["winner"] == -1  # a finished game's mask shows every action (pgx's convention)
        assert masks[~running].all()
        draws = np.stack([envs.sample_legal_actions() for _ in range(300)])
        for i in np.flatnonzero(running):
            assert set(draws[:, i].tolist()) == set(np.flatnonzero(masks[i]).tolist())
        assert (draws[:, ~running] == 0).all()
        _, _, terminated, _, infos = envs.step(envs.sample_legal_actions())
        ended += int(terminated.sum())
    assert ended >= 4  # 60 steps of 4x4 games: several ended and were reset on the way


class FirstLegal(Agent):
    """The move whose queen action, then arrow action, is the lowest legal one: what
    ``mask.argmax()`` picks in each phase."""

    name = "first-legal"

    def select_move(self, board):
        n = board.size * board.size
        moves = board.legal_moves_array()
        key = (moves[:, 0] * n + moves[:, 1]) * n * n + moves[:, 1] * n + moves[:, 2]
        return Move(*moves[int(np.argmin(key))].tolist(), board.size)


def first_legal_policy(obs, mask):
    assert obs.shape[1:] == (9, 6, 6) and len(obs) == len(mask)
    assert (obs[:, 8] == obs[:, 8, :1, :1]).all()  # each game seen from one side
    return mask.argmax(axis=1)


@pytest.mark.parametrize("opponent", ["policy", "agent"])
@pytest.mark.parametrize("colour", ["white", "black"])
def test_opponent_matches_single_envs(opponent, colour):
    """A vector env with an opponent equals single envs with the same (deterministic) opponent,
    step by step, through game ends and autoresets."""
    size, num_envs = 6, 3
    made = first_legal_policy if opponent == "policy" else FirstLegal()
    vec = AmazonsVectorEnv(num_envs, size=size, opponent=made, learner_color=colour)
    singles = [AmazonsEnv(size=size, opponent=FirstLegal(), learner_color=colour) for _ in range(num_envs)]
    rngs = [np.random.default_rng(seed) for seed in range(num_envs)]
    obs, infos = vec.reset(seed=0)
    single = [env.reset(seed=0) for env in singles]
    ended, games = [False] * num_envs, 0
    for _ in range(150):
        for i, (o, info) in enumerate(single):
            assert np.array_equal(obs[i], o) and np.array_equal(infos["action_mask"][i], info["action_mask"])
            assert infos["player"][i] == info["player"] == ("white", "black").index(colour)
        actions = np.array(
            [
                rng.choice(np.flatnonzero(infos["action_mask"][i])) if infos["action_mask"][i].any() else 0
                for i, rng in enumerate(rngs)
            ]
        )
        obs, rewards, terminated, _, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:
                single[i], ended[i] = env.reset(), False
                assert rewards[i] == 0 and not terminated[i]
                continue
            o, r, term, _, info = env.step(int(actions[i]))
            single[i] = (o, info)
            assert (rewards[i], terminated[i]) == (r, term)
            assert np.array_equal(infos["rewards"][i], info["rewards"])
            ended[i] = term
            games += term
    assert games >= num_envs


def test_random_learner_colour_and_opponent_seeding():
    envs = AmazonsVectorEnv(64, size=4, opponent="random", learner_color="random")
    obs, infos = envs.reset(seed=3)
    colours = infos["player"].copy()
    assert 0 < colours.sum() < 64
    assert (obs[:, 8, 0, 0] == colours).all()  # every game is seen from the learner's side
    again = AmazonsVectorEnv(64, size=4, opponent="random", learner_color="random")
    assert np.array_equal(again.reset(seed=3)[0], obs)
    for _ in range(40):
        obs, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
        assert (obs[:, 8, 0, 0] == infos["player"]).all()
        assert np.array_equal(rewards, infos["rewards"][np.arange(64), infos["player"]])
        assert (rewards[~terminated] == 0).all() and (np.abs(rewards[terminated]) == 1).all()


def test_policy_opponent_errors_name_the_policy():
    envs = AmazonsVectorEnv(2, size=6, opponent=lambda obs, mask: np.zeros(len(obs), np.int64), learner_color="black")
    with pytest.raises(IllegalMoveError, match="opponent policy chose illegal action 0"):
        envs.reset()
    envs = AmazonsVectorEnv(2, size=6, opponent=lambda obs, mask: [0.5] * len(obs), learner_color="black")
    with pytest.raises(InvalidMoveError, match="opponent policy returned"):
        envs.reset()
    with pytest.raises(ValueError, match="opponent="):
        AmazonsVectorEnv(2, size=6, opponent=42)


# numba.config sets its settings at import (from the environment): mypy cannot see them
@pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2,  # type: ignore[attr-defined]
    reason="NUMBA_NUM_THREADS=1: one thread only",
)
def test_threads_give_the_same_games():
    runs = []
    for threads in (1, 2):
        envs = AmazonsVectorEnv(16, size=6, num_threads=threads, copy=True)
        obs, infos = envs.reset(seed=7)
        trace = []
        for _ in range(120):
            obs, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
            trace.append((obs, rewards, terminated, infos["rewards"]))
        runs.append(trace)
    for a, b in zip(*runs):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_num_threads_is_validated():
    for bad in (0, -1, 1.5, True, "2", 10**6, numba.config.NUMBA_NUM_THREADS + 1):
        with pytest.raises(ValueError, match="num_threads"):
            AmazonsVectorEnv(2, size=6, num_threads=bad)


def test_any_integer_layout_steps_as_contiguous_int64_actions():
    """The step kernel is called compiled for contiguous ``int64`` actions (no dispatch checks
    their type): every other integer layout is converted first, to the same step, and numba
    compiles nothing more."""
    envs = AmazonsVectorEnv(4, size=6)
    envs.reset(seed=0)
    envs.step(envs.sample_legal_actions())
    compiled = len(step_batch.signatures)
    for convert in (
        lambda a: a.astype(np.int32),
        lambda a: np.repeat(a, 2)[::2],
        lambda a: a.astype(np.uint16),
        lambda a: a.tolist(),
        lambda a: np.asfortranarray(a.astype(np.int8 if a.max() < 128 else np.int64)),
    ):
        actions = envs.sample_legal_actions()
        twin = envs.clone()
        expected = twin.step(actions)
        got = envs.step(convert(actions))
        assert np.array_equal(got[0], expected[0]) and np.array_equal(got[4]["action_mask"], expected[4]["action_mask"])
        assert np.array_equal(got[1], expected[1]) and np.array_equal(got[4]["phase"], expected[4]["phase"])
    assert len(step_batch.signatures) == compiled
    with pytest.raises(InvalidMoveError, match="out of range"):
        envs.step(np.full(4, 2**63, np.uint64))


@pytest.mark.parametrize(
    "obs_mode,encoding,mask_dtype", [("dict", "lines", "bool"), ("dict", "flat", "int8"), ("planes", "lines", "int8")]
)
def test_options_match_single_envs(obs_mode, encoding, mask_dtype):
    options = dict(obs_mode=obs_mode, action_encoding=encoding, mask_dtype=mask_dtype)
    vec = AmazonsVectorEnv(3, size=6, **options)
    singles = [AmazonsEnv(size=6, **options) for _ in range(3)]
    assert vec.single_observation_space == singles[0].observation_space
    assert vec.single_action_space == singles[0].action_space
    obs, infos = vec.reset(seed=0)
    single = [env.reset(seed=0) for env in singles]
    assert vec.observation_space.contains(obs)
    for _ in range(200):
        for i, pair in enumerate(single):
            if pair is None:  # ended on the last step: the vector env resets it now
                continue
            o, info = pair
            planes = (obs["observation"] if obs_mode == "dict" else obs)[i]
            assert np.array_equal(planes, o["observation"] if obs_mode == "dict" else o)
            assert infos["action_mask"].dtype == np.dtype(mask_dtype)
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
            if obs_mode == "dict":
                assert np.array_equal(obs["action_mask"][i], info["action_mask"])
        actions = vec.sample_legal_actions()
        obs, rewards, terminated, _, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if single[i] is None:
                single[i] = env.reset()
                continue
            o, r, term, _, info = env.step(int(actions[i]))
            single[i] = None if term else (o, info)
            assert rewards[i] == r and terminated[i] == term


def test_make_vec_passes_options():
    envs = gymnasium.make_vec(
        "Amazons-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        size=6,
        opponent="random",
        num_threads=1,
        obs_mode="dict",
        action_encoding="lines",
    )
    obs, infos = envs.reset(seed=0)
    assert obs["action_mask"].shape == (2, 1440) and envs.unwrapped.num_threads == 1
    assert envs.unwrapped.opponent == "random"
