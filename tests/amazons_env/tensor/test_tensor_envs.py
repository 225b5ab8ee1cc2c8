"""The envs on torch tensors: ``AmazonsTorchEnv`` (TorchRL) and ``AmazonsTensorVectorEnv``
(gymnasium), and their opponents. Specs pass TorchRL's checks, partial resets restart only their
games, games replay step by step equal to ``AmazonsEnv`` (self-play) and to ``AmazonsVectorEnv``
(with the same opponent), rewards sum to zero, opponents play legal moves and repeat under a
seed, bad arguments are refused by name.

Without TorchRL (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import gymnasium
import numpy as np
import pytest
import torch
from torchrl.envs import TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.envs.utils import check_env_specs

import amazons_env
from amazons_env import InvalidArgumentError, InvalidMoveError
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.vector_env import AmazonsVectorEnv
from amazons_env.tensor import TensorState, initial_state, legal_mask, random_actions, step
from amazons_env.tensor.opponents import PolicyOpponent, RandomOpponent, make_opponent
from amazons_env.tensor.torchrl_env import PLAYER_KEYS, AmazonsTorchEnv
from amazons_env.tensor.vector_env import AmazonsTensorVectorEnv

SIZE = 6


def masked_env(**kwargs) -> TransformedEnv:
    return TransformedEnv(AmazonsTorchEnv(**{"batch_size": [4], "size": SIZE, **kwargs}), ActionMask())


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"opponent": "random", "learner_color": "random"}, {"action_encoding": "lines", "opponent": "random"}],
    ids=["self-play", "random-opponent", "lines"],
)
def test_specs_pass_torchrls_checks_and_masked_rollouts_play_legal_moves(kwargs):
    env = masked_env(**kwargs)
    check_env_specs(env, seed=0)
    check_env_specs(AmazonsTorchEnv([3], 5, **kwargs), seed=1)  # unmasked: random actions mostly lose
    env.set_seed(0)
    torch.manual_seed(0)
    rollout = env.rollout(120, break_when_any_done=False)  # TorchRL resets finished games partially
    taken = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1))
    assert taken.all(), "an action outside the mask was sampled"
    done = rollout["next", "done"][..., 0]
    assert done.sum() >= 4, "fewer game ends than games in 120 steps of 6x6"
    assert rollout["next", "action_mask"][done].all(), "a finished game shows every action (pgx's convention)"
    if "opponent" in kwargs:
        reward = rollout["next", "reward"][..., 0]
        assert (reward[~done] == 0).all() and (reward[done].abs() == 1).all()
    else:
        white, black = (rollout["next", key, "reward"][..., 0] for key in PLAYER_KEYS)
        assert (white + black == 0).all(), "the players' rewards do not sum to zero"
        assert (white[~done] == 0).all() and (white[done].abs() == 1).all()


def test_partial_reset_restarts_only_the_games_named():
    env = AmazonsTorchEnv([4], SIZE)
    env.set_seed(0)
    td = env.reset()
    for _ in range(6):
        td["action"] = random_actions(env.state, generator=torch.Generator().manual_seed(1))
        td = env.step(td)["next"]
    before = env.state
    which = torch.tensor([True, False, True, False])
    td["_reset"] = which[:, None]
    td = env.reset(td)
    after, start = env.state, initial_state(4, SIZE)
    for field, now, was, fresh in zip(before._fields, after, before, start):
        assert torch.equal(now[which], fresh[which]), field
        assert torch.equal(now[~which], was[~which]), field
    assert torch.equal(td["action_mask"], legal_mask(after))
    assert torch.equal(td["observation"][0], td["observation"][2])


@pytest.mark.parametrize("encoding", ["flat", "lines"])
def test_self_play_replays_equal_to_amazons_env(encoding):
    """The same random game (with now and then an illegal action) step by step on both envs."""
    torch_env = AmazonsTorchEnv([1], SIZE, action_encoding=encoding)
    vector = AmazonsTensorVectorEnv(1, SIZE, action_encoding=encoding)
    for seed in range(3):
        single = AmazonsEnv(SIZE, action_encoding=encoding)
        obs, info = single.reset(seed=seed)
        td, (vobs, vinfo) = torch_env.reset(), vector.reset(seed=seed)
        rng = np.random.default_rng(seed)
        terminated = False
        while not terminated:
            for observation, mask in ((td["observation"][0], td["action_mask"][0]), (vobs[0], vinfo["action_mask"][0])):
                assert np.array_equal(observation.numpy(), obs)
                assert np.array_equal(mask.numpy(), info["action_mask"].astype(bool))
            assert td["player"].item() == vinfo["player"].item() == info["player"]
            assert td["phase"].item() == vinfo["phase"].item() == info["phase"]
            legal = np.flatnonzero(info["action_mask"])
            action = int(rng.integers(single.action_space.n) if rng.random() < 0.02 else rng.choice(legal))
            obs, reward, terminated, _, info = single.step(action)
            td["action"] = torch.tensor([action])
            td = torch_env.step(td)["next"]
            vobs, vreward, vterminated, _, vinfo = vector.step(torch.tensor([action]))
            players = torch.cat([td[key, "reward"] for key in PLAYER_KEYS], dim=1)[0]
            assert np.array_equal(players.numpy(), info["rewards"]) and vreward.item() == reward
            assert np.array_equal(vinfo["rewards"][0].numpy(), info["rewards"])
            assert td["terminated"].item() == vterminated.item() == terminated
            assert vinfo["illegal_action"].item() == info["illegal_action"]
        assert np.array_equal(td["observation"][0].numpy(), obs) and np.array_equal(vobs[0].numpy(), obs)


class FixedPreferences(torch.nn.Module):
    """A policy net whose logits are one fixed random vector: played greedily, a deterministic
    opponent that the numba vector env can copy as a batched policy."""

    def __init__(self, num_actions: int) -> None:
        super().__init__()
        self.logits = torch.nn.Parameter(torch.randn(num_actions, generator=torch.Generator().manual_seed(5)))

    def forward(self, observation, action_mask):
        return self.logits.expand(action_mask.shape)

    def numpy_policy(self, obs, mask):
        return np.where(mask.astype(bool), self.logits.detach().numpy(), -np.inf).argmax(axis=1)


@pytest.mark.parametrize("colour", ["white", "black"])
def test_with_an_opponent_games_replay_equal_to_the_numba_vector_env(colour):
    num_envs = 3
    net = FixedPreferences(SIZE**4)
    tensor_envs = AmazonsTensorVectorEnv(
        num_envs, SIZE, opponent=PolicyOpponent(net, greedy=True), learner_color=colour
    )
    numba_envs = AmazonsVectorEnv(num_envs, SIZE, opponent=net.numpy_policy, learner_color=colour)
    obs, infos = tensor_envs.reset(seed=0)
    expected_obs, expected = numba_envs.reset(seed=0)
    rng = np.random.default_rng(0)
    games = 0
    for _ in range(120):
        assert np.array_equal(obs.numpy(), expected_obs)
        for key in ("action_mask", "player", "phase", "move_number", "winner", "rewards", "illegal_action"):
            assert np.array_equal(infos[key].numpy(), expected[key]), key
        mask = expected["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        obs, rewards, terminated, _, infos = tensor_envs.step(torch.from_numpy(actions))
        expected_obs, expected_rewards, expected_terminated, _, expected = numba_envs.step(actions)
        assert np.array_equal(rewards.numpy(), expected_rewards)
        assert np.array_equal(terminated.numpy(), expected_terminated)
        games += int(terminated.sum())
    assert games >= num_envs


def test_torchrl_env_with_an_opponent_replays_equal_to_the_vector_env():
    """Both tensor envs over one opponent and one seed: the same games, learner colours drawn."""
    torch_env = AmazonsTorchEnv([8], SIZE, opponent="random", learner_color="random")
    vector = AmazonsTensorVectorEnv(8, SIZE, opponent="random", learner_color="random", autoreset_mode="Disabled")
    torch_env.set_seed(4)
    td = torch_env.reset()
    obs, infos = vector.reset(seed=4)
    draws = torch.Generator().manual_seed(0)
    games = 0
    for _ in range(60):
        assert torch.equal(td["observation"], obs) and torch.equal(td["player"][:, 0], infos["player"])
        if td["done"].any():  # both restart the finished games (their draws of colours agree)
            td["_reset"] = td["done"].clone()
            td = torch_env.reset(td)
            obs, infos = vector.reset(options={"reset_mask": infos["winner"] >= 0})
            continue
        actions = random_actions(torch_env.state, generator=draws)
        td["action"] = actions
        td = torch_env.step(td)["next"]
        obs, rewards, terminated, _, infos = vector.step(actions)
        assert torch.equal(td["reward"][:, 0], rewards) and torch.equal(td["terminated"][:, 0], terminated)
        games += int(terminated.sum())
    assert games >= 8


def test_the_accelerator_path_of_the_replies_plays_the_same_games():
    """Off the CPU the opponent's idle half-steps are not skipped (no read from the device):
    forced here on the CPU, the games are the same (a greedy opponent: no draws to shift)."""
    opponent = PolicyOpponent(FixedPreferences(SIZE**4), greedy=True)
    runs = []
    for skip in (True, False):
        envs = AmazonsTensorVectorEnv(16, SIZE, opponent=opponent, learner_color="random")
        envs._games._skip_idle_replies = skip
        obs, infos = envs.reset(seed=2)
        draws = torch.Generator().manual_seed(0)
        trace = [obs]
        for _ in range(50):
            actions = random_actions(envs._games.state, generator=draws)
            obs, rewards, terminated, _, infos = envs.step(actions)
            trace += [obs, rewards, terminated, infos["player"]]
        runs.append(trace)
    assert all(torch.equal(a, b) for a, b in zip(*runs))
    assert int(sum(t.sum() for t in runs[0][3::4])) >= 16, "too few game ends to compare"


def test_opponents_play_legal_moves_and_repeat_under_a_seed():
    state = initial_state(16, SIZE)
    play = torch.Generator().manual_seed(0)
    net = FixedPreferences(SIZE * SIZE * 8 * (SIZE - 1))
    for _ in range(20):  # positions of random games, both phases
        for opponent in (RandomOpponent(), make_opponent(net), PolicyOpponent(net, greedy=True)):
            for encoding in ("flat", "lines"):
                mask = legal_mask(state, encoding)
                if encoding == "flat" and isinstance(opponent, PolicyOpponent):
                    continue  # the net's logits are in the lines encoding
                first = opponent(state, encoding, torch.Generator().manual_seed(3))
                again = opponent(state, encoding, torch.Generator().manual_seed(3))
                assert torch.equal(first, again)
                playing = ~state.terminated
                assert mask.gather(1, first[:, None])[playing].all()
        state, _, _ = step(state, random_actions(state, generator=play))
    assert isinstance(make_opponent("random"), RandomOpponent)
    frozen = make_opponent(net)
    net.logits.data.zero_()  # the opponent is a frozen copy: training the net changes nothing
    assert frozen.net.logits.abs().sum() > 0 and not frozen.net.logits.requires_grad


def test_seeded_envs_repeat_and_unseeded_ones_differ():
    def colours(seed):
        env = AmazonsTorchEnv([64], SIZE, opponent="random", learner_color="random")
        if seed is not None:
            env.set_seed(seed)
        return env.reset()["player"]

    assert torch.equal(colours(1), colours(1))
    assert not torch.equal(colours(None), colours(None))


def test_vector_env_autoresets_on_the_next_step_and_keeps_its_info_keys():
    envs = AmazonsTensorVectorEnv(8, SIZE, opponent="random")
    assert envs.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=0)
    keys = set(infos)
    ended = torch.zeros(8, dtype=torch.bool)
    seen = 0
    for _ in range(80):
        obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
        assert set(infos) == keys
        assert not (terminated & ended).any() and (rewards[ended] == 0).all()
        assert (infos["move_number"][ended] == 0).all(), "a finished game was not restarted"
        infos["phase"][:] = 7  # the caller's tensors: editing them changes nothing in the env
        assert (envs._games.state.phase < 2).all()
        ended, seen = terminated, seen + int(terminated.sum())
    assert seen >= 8


def test_vector_env_with_autoreset_disabled_refuses_a_finished_game():
    envs = AmazonsTensorVectorEnv(2, 4, autoreset_mode="Disabled")
    envs.reset(seed=0)
    terminated = torch.zeros(2, dtype=torch.bool)
    while not terminated.any():
        _, _, terminated, _, _ = envs.step(envs.sample_legal_actions())
    with pytest.raises(gymnasium.error.ResetNeeded, match="autoreset_mode is Disabled"):
        envs.step(envs.sample_legal_actions())
    obs, infos = envs.reset(options={"reset_mask": terminated})
    assert (infos["move_number"][terminated] == 0).all()


def test_bad_arguments_are_refused_by_name():
    cases = [
        (lambda: AmazonsTorchEnv([0]), "batch_size"),
        (lambda: AmazonsTorchEnv([2, 3]), "batch_size"),
        (lambda: AmazonsTorchEnv([2], 3), "size"),
        (lambda: AmazonsTorchEnv([2], 6, action_encoding="rows"), "action_encoding"),
        (lambda: AmazonsTorchEnv([2], 6, opponent="uct"), "opponent"),
        (lambda: AmazonsTorchEnv([2], 6, opponent=42), "opponent"),
        (lambda: AmazonsTorchEnv([2], 6, opponent="random", learner_color="green"), "learner_color"),
        (lambda: AmazonsTorchEnv([2], 6, learner_color="black"), "learner_color"),
        (lambda: AmazonsTorchEnv([2], 6, device="nowhere"), "device"),
        (lambda: AmazonsTensorVectorEnv(0, 6), "num_envs"),
        (lambda: AmazonsTensorVectorEnv(2, 6, autoreset_mode="SameStep"), "autoreset_mode"),
        (lambda: PolicyOpponent(lambda obs, mask: obs), "net"),
        (lambda: AmazonsTorchEnv([2], 6).set_seed(-1), "seed"),
    ]
    for make, name in cases:  # every error of the package is a ValueError (amazons_env.errors)
        with pytest.raises(ValueError, match=name):
            make()
    envs = AmazonsTensorVectorEnv(2, 6)
    envs.reset()
    envs.step(envs.sample_legal_actions())
    before = envs._games.state
    with pytest.raises(InvalidArgumentError, match="reset_mask"):
        envs.reset(options={"reset_mask": [True, False]})
    with pytest.raises(InvalidArgumentError, match="unknown reset option"):
        envs.reset(options={"position": "x"})
    with pytest.raises(InvalidMoveError, match="actions"):
        envs.step(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(InvalidMoveError, match="out of range"):
        envs.step(torch.tensor([0, 6**4]))
    with pytest.raises(ValueError, match="actions"):
        envs.step(torch.tensor([0.5, 1.0]))
    assert all(torch.equal(a, b) for a, b in zip(envs._games.state, before)), "a refused call changed the games"


def test_importing_amazons_env_stays_light_and_the_envs_load_on_first_use(fresh_python):
    code = "import sys, amazons_env; assert 'torch' not in sys.modules and 'torchrl' not in sys.modules"
    fresh_python(code)
    assert amazons_env.AmazonsTorchEnv is AmazonsTorchEnv
    assert amazons_env.AmazonsTensorVectorEnv is AmazonsTensorVectorEnv


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_on_cuda_the_games_equal_the_cpus():
    """The same seeded games on the GPU as on the CPU (the opponent's greedy choices and the
    learner's actions fixed, so the two devices' random streams play no part)."""
    opponent = PolicyOpponent(FixedPreferences(SIZE**4), greedy=True)
    check_env_specs(masked_env(device="cuda", opponent="random"), seed=0)
    runs = []
    for device in ("cpu", "cuda"):
        envs = AmazonsTensorVectorEnv(32, SIZE, device, opponent=opponent, learner_color="black")
        obs, infos = envs.reset(seed=0)
        draws = torch.Generator().manual_seed(0)
        trace = [obs.cpu()]
        for _ in range(60):
            on_cpu = TensorState(*(field.cpu() for field in envs._games.state))  # the CPU's draws
            actions = random_actions(on_cpu, generator=draws)
            obs, rewards, terminated, _, infos = envs.step(actions.to(device))
            assert obs.device.type == rewards.device.type == infos["action_mask"].device.type == device
            trace += [obs.cpu(), rewards.cpu(), terminated.cpu()]
        runs.append(trace)
    assert all(torch.equal(a, b) for a, b in zip(*runs))
