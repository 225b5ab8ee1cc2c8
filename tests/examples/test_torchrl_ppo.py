"""examples/torchrl_ppo.py at toy size: two PPO updates with TorchRL's objects on the torch env,
then the evaluation against random, per colour, with intervals."""

from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

pytest.importorskip("torchrl")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torchrl_ppo.py"
TOY = ["--size", "5", "--envs", "8", "--steps", "8", "--minibatch", "32", "--channels", "8", "--epochs", "2"]


@pytest.fixture(scope="module")
def example():
    return load_script(EXAMPLE)


def test_a_short_run_trains_and_evaluates_both_colours(example, capsys):
    results = example.main(TOY + ["--iterations", "2", "--eval-games", "6"])
    assert set(results) == {"white", "black"} and all(games == 3 for _, games in results.values())
    out = capsys.readouterr().out
    assert out.count("update ") == 2, out
    assert "greedy vs random as white:" in out and "greedy vs random as black:" in out
    assert "95% interval [" in out.splitlines()[-1]


def test_the_evaluation_refuses_an_odd_number_of_games(example):
    with pytest.raises(SystemExit):
        example.main(TOY + ["--eval-games", "7"])


def test_the_policy_net_plays_as_a_frozen_opponent(example):
    """The actor's net has the opponent signature: the env plays it on its device, legally."""
    from torchrl.envs import TransformedEnv
    from torchrl.envs.transforms import ActionMask

    from amazons_env.tensor.torchrl_env import AmazonsTorchEnv

    net = example.PolicyNet(5, channels=4)
    env = TransformedEnv(
        AmazonsTorchEnv([4], 5, action_encoding="lines", opponent=net, learner_color="random"), ActionMask()
    )
    env.set_seed(0)
    rollout = env.rollout(60, break_when_any_done=False)
    done = rollout["next", "done"][..., 0]
    assert done.any() and (rollout["next", "reward"][..., 0][done].abs() == 1).all()
    assert rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1)).all()
