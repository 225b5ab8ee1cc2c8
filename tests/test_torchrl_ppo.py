"""examples/torchrl_ppo.py at toy size: two PPO updates with TorchRL's objects on the torch env,
then the evaluation against random, per colour, with intervals."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torchrl")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "torchrl_ppo.py"
TOY = ["--size", "5", "--envs", "8", "--steps", "8", "--minibatch", "32", "--channels", "8", "--epochs", "2"]


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("torchrl_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
