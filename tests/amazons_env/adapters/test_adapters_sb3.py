"""``amazons_env.adapters.sb3`` with Stable-Baselines3's and sb3-contrib's own objects: MaskablePPO
trains on the vector env through ``AmazonsVecEnv`` with ``AmazonsPlanesPolicy`` (or ``CnnPolicy``
with ``PlanesExtractor``) and no other code.

Without SB3 (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from amazons_env.adapters.sb3 import AmazonsPlanesPolicy, AmazonsVecEnv, PlanesExtractor, QueenLineHead
from amazons_env.envs.actions import decode_line_action, num_actions
from amazons_env.envs.vector_env import AmazonsVectorEnv
from amazons_env.errors import InvalidArgumentError

SIZE = 5


def lines_env(games: int, size: int = SIZE, **options) -> AmazonsVecEnv:
    return AmazonsVecEnv(AmazonsVectorEnv(games, size=size, action_encoding="lines", opponent="random", **options))


def test_maskable_ppo_trains_with_the_queen_line_policy_and_never_takes_an_illegal_action():
    """``illegal_action="raise"`` turns any unmasked choice into an error; the same untrained
    policy without the masks does choose illegal actions, so the masks are what keeps it legal."""
    env = VecMonitor(lines_env(8, learner_color="random", illegal_action="raise"))
    model = MaskablePPO(AmazonsPlanesPolicy, env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0  # games ended and were reset
    assert isinstance(model.policy.action_net, QueenLineHead)
    obs = env.reset()
    legal = np.stack(env.env_method("action_masks")).astype(bool)
    masked, _ = model.predict(obs, action_masks=legal)
    unmasked, _ = model.predict(obs)
    rows = np.arange(len(obs))
    assert legal[rows, masked].all() and not legal[rows, unmasked].all()


@pytest.mark.parametrize("size", [4, 7])
def test_the_head_gives_each_action_the_logit_of_its_square_direction_and_distance(size):
    """Logit of action ``encode_line_action(square, d, k)`` = the 1x1 convolution's output
    channel ``d * (N - 1) + k - 1`` at ``square`` (``rank * N + file``), for every action."""
    torch.manual_seed(size)
    head = QueenLineHead(3, size)
    features = torch.randn(2, 3 * size * size)
    logits = head(features)
    squares = features.reshape(2, 3, size * size)
    weight, bias = head.conv.weight[:, :, 0, 0], head.conv.bias
    for action in range(num_actions(size, "lines")):
        square, direction, distance = decode_line_action(action, size)
        expected = (
            squares[:, :, square] @ weight[direction * (size - 1) + distance - 1]
            + bias[direction * (size - 1) + distance - 1]
        )
        assert torch.allclose(logits[:, action], expected, atol=1e-5)


@pytest.mark.parametrize("direction", [0, 2, 5])
def test_a_policy_that_prefers_one_direction_plays_it_in_the_env(direction):
    """Zero weights and a bias favouring ``direction`` (longer slides more): the masked
    deterministic policy slides its queen, then its arrow, that way whenever the env allows it,
    as far as it may; so the head's order is the env's action encoding."""
    env = lines_env(16, learner_color="random")
    model = MaskablePPO(AmazonsPlanesPolicy, env, n_steps=8, batch_size=8, seed=0, device="cpu")
    conv = model.policy.action_net.conv
    with torch.no_grad():
        conv.weight.zero_()
        conv.bias.zero_()
        conv.bias[direction * (SIZE - 1) : (direction + 1) * (SIZE - 1)] = torch.arange(1.0, SIZE) + 10
    env.seed(0)
    obs = env.reset()
    checked = 0
    for _ in range(12):
        legal = env.action_masks().astype(bool)
        actions, _ = model.predict(obs, action_masks=legal, deterministic=True)
        for row, action in zip(legal, actions):
            options = [decode_line_action(a, SIZE) for a in np.flatnonzero(row)]
            along = [a for a in options if a[1] == direction]
            if along:
                checked += 1
                _, chosen_direction, chosen_distance = decode_line_action(int(action), SIZE)
                assert chosen_direction == direction and chosen_distance == max(a[2] for a in along)
        obs, *_ = env.step(actions)
    assert checked > 20


def test_the_policy_refuses_other_encodings_a_policy_hidden_layer_and_features_not_per_square():
    flat = AmazonsVecEnv(AmazonsVectorEnv(2, size=4))
    with pytest.raises(InvalidArgumentError, match="action_encoding='lines'"):
        MaskablePPO(AmazonsPlanesPolicy, flat, device="cpu")
    env = lines_env(2, size=4)
    with pytest.raises(InvalidArgumentError, match="net_arch"):
        MaskablePPO(AmazonsPlanesPolicy, env, device="cpu", policy_kwargs={"net_arch": {"pi": [64], "vf": [64]}})
    with pytest.raises(InvalidArgumentError, match="not a multiple"):
        MaskablePPO(
            AmazonsPlanesPolicy,
            env,
            device="cpu",
            policy_kwargs={"features_extractor_kwargs": {"square_features": None, "features_dim": 40}},
        )


@pytest.mark.parametrize("obs_mode", ["planes", "dict"])
def test_step_wait_resets_ended_games_and_keeps_their_last_observation(obs_mode):
    vector_env = AmazonsVectorEnv(3, size=4, obs_mode=obs_mode, autoreset_mode="Disabled")
    env = AmazonsVecEnv(vector_env)
    env.seed(1)
    env.reset()
    ended = 0
    for _ in range(60):
        obs, rewards, dones, infos = env.step(vector_env.sample_legal_actions())
        planes = obs["observation"] if obs_mode == "dict" else obs
        assert rewards.dtype == np.float32 and len(infos) == 3
        for i in np.flatnonzero(dones):
            ended += 1
            final = infos[i]["terminal_observation"]
            final_planes = final["observation"] if obs_mode == "dict" else final
            assert final_planes.shape == (9, 4, 4) and not np.array_equal(final_planes, planes[i])
            assert infos[i]["winner"] in (0, 1) and abs(rewards[i]) == 1
            assert planes[i][2].sum() == 0 and infos[i]["move_number"] > 0  # a new game: no arrows yet
        for i in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[i] and infos[i]["winner"] == -1
    assert ended > 0


def test_the_same_seed_gives_the_same_games():
    def play(seed):
        env = AmazonsVecEnv(AmazonsVectorEnv(2, size=4, opponent="random"))
        env.seed(seed)
        first = env.reset()
        actions = [int(np.flatnonzero(row)[0]) for row in env.action_masks()]
        return first, env.step(np.array(actions))[0]

    (a0, a1), (b0, b1) = play(3), play(3)
    assert np.array_equal(a0, b0) and np.array_equal(a1, b1)


@pytest.mark.parametrize("size", [4, 7, 12])
@pytest.mark.parametrize("channels_last", [False, True])
def test_the_extractor_reads_planes_of_any_board_size_and_layout(size, channels_last):
    shape = (size, size, 18) if channels_last else (18, size, size)  # two stacked frames
    extractor = PlanesExtractor(spaces.Box(0, 1, shape, np.int8), features_dim=32, channels_last=channels_last)
    assert extractor(torch.ones(3, *shape, dtype=torch.int8)).shape == (3, 32)


@pytest.mark.parametrize("size", [4, 7])
def test_per_square_features_keep_each_square_apart(size):
    """``square_features=k``: ``k`` numbers per square, flattened; changing one square's planes
    changes the features of the squares within the convolutions' reach only."""
    torch.manual_seed(0)
    extractor = PlanesExtractor(spaces.Box(0, 1, (9, size, size), np.int8), square_features=2, layers=1)
    assert extractor.features_dim == 2 * size * size
    planes = torch.zeros(1, 9, size, size)
    changed = planes.clone()
    changed[0, :, 0, 0] = 1.0  # the corner square
    difference = (extractor(changed) - extractor(planes)).reshape(2, size, size).abs().sum(0)
    assert difference[:2, :2].sum() > 0 and difference[2:, :].sum() == 0 and difference[:, 2:].sum() == 0


def test_bad_arguments_are_refused_naming_them():
    with pytest.raises(InvalidArgumentError, match="AmazonsVectorEnv"):
        AmazonsVecEnv("Amazons-v0")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="channels"):
        PlanesExtractor(spaces.Box(0, 1, (9, 4, 4), np.int8), channels=0)
    with pytest.raises(InvalidArgumentError, match="planes"):
        PlanesExtractor(spaces.Box(0, 1, (81,), np.int8))
    with pytest.raises(InvalidArgumentError, match="features_dim=64 and square_features=4"):
        PlanesExtractor(spaces.Box(0, 1, (9, 4, 4), np.int8), features_dim=64, square_features=4)
    with pytest.raises(InvalidArgumentError, match="square_features"):
        PlanesExtractor(spaces.Box(0, 1, (9, 4, 4), np.int8), square_features=0)
    with pytest.raises(InvalidArgumentError, match="copy=True"):
        AmazonsVecEnv(AmazonsVectorEnv(2, size=4, copy=False))
    env = AmazonsVecEnv(AmazonsVectorEnv(2, size=4))
    env.set_options({"position": "x"})
    with pytest.raises(InvalidArgumentError, match="reset options"):
        env.reset()
