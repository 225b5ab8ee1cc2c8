"""The envs in TorchRL, as its users wrap them: the gymnasium env (``GymEnv`` by its registered
name), the vector env (``GymWrapper``) and the PettingZoo env (``PettingZooWrapper``). Each passes
``check_env_specs`` and plays random legal actions (TorchRL's masked sampling) to the end of a
game.

What TorchRL needs from us: dict observations with a boolean mask (``obs_mode="dict"``,
``mask_dtype="bool"``), read by its ``ActionMask`` transform or ``use_mask=True``; for the vector
env, ``autoreset_mode="Disabled"`` (``GymWrapper`` refuses gymnasium's default ``NextStep``: it
resets ended games itself, through ``reset(options={"reset_mask": ...})``) and the default
``copy=True`` (``GymWrapper`` turns the arrays it is given into tensors without copying them, so
with ``copy=False`` the env's reused buffers would overwrite every recorded step).

Without TorchRL (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import warnings

import numpy as np
import pytest
import torch
from torchrl.envs import GymEnv, GymWrapper, PettingZooWrapper, TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.envs.utils import check_env_specs

import amazons_env  # noqa: F401  # registers Amazons-v0
from amazons_env import Board
from amazons_env.envs import pettingzoo_env
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.envs.vector_env import AmazonsVectorEnv

SIZE = 6
START_QUEENS = int(Board(SIZE).queen_counts[0])  # queens of a side: a plane of the start position


def _taken_actions_were_legal(actions: torch.Tensor, masks: torch.Tensor) -> bool:
    return bool(masks.gather(-1, actions.unsqueeze(-1)).all())


def test_gym_env_with_num_envs_runs_through_game_ends():
    """``GymEnv(name, num_envs=n)`` with ``ActionMask``, from the env's defaults: gymnasium's
    ``AsyncVectorEnv`` of our env in worker processes (``amazons_env:`` in the name makes them
    import the package, which registers the env). The info keys must be the same on every step (a
    key that came and went was a ``KeyError``), the winner -1 until a game ends; the step after a
    game's end (``NEXT_STEP``: the worker resets instead) draws its ignored action from the mask
    of the step that ended it, all ones (all zeros stopped the rollout there)."""
    env = TransformedEnv(GymEnv("amazons_env:Amazons-v0", num_envs=2, size=4), ActionMask())
    try:
        check_env_specs(env, seed=0)
        torch.manual_seed(0)
        rollout = env.rollout(60, break_when_any_done=False)
    finally:
        env.close()
    done = rollout["next", "done"].squeeze(-1)
    winner = rollout["next", "winner"]
    assert done.sum() >= 2 and (winner[~done] == -1).all() and ((winner[done] == 0) | (winner[done] == 1)).all()
    after = torch.zeros_like(done)
    after[:, 1:] = done[:, :-1]
    # a game that ends alone is reset on the next step, whose action the worker ignores: TorchRL
    # draws it from the mask of the step that ended the game (where both end, TorchRL resets both)
    marked = rollout["action_mask"].all(dim=-1)
    assert marked.any() and not (marked & ~after).any(), "all ones only where a game has just ended"


def test_the_gymnasium_env_through_gym_env_plays_a_whole_game():
    env = TransformedEnv(
        GymEnv("Amazons-v0", size=SIZE, obs_mode="dict", mask_dtype="bool", categorical_action_encoding=True),
        ActionMask(),
    )
    check_env_specs(env, seed=0)
    torch.manual_seed(0)
    rollout = env.rollout(1000)  # stops at the end of the game
    assert rollout["next", "terminated"][-1].item() and rollout["next", "reward"][-1].item() == 1.0
    assert not rollout["next", "terminated"][:-1].any()
    assert _taken_actions_were_legal(rollout["action"], rollout["action_mask"])
    # one arrow per turn of two steps: the recorded observations are each step's own
    arrows = rollout["next", "observation"][:, 2].sum(dim=(1, 2))
    assert arrows.tolist() == [(t + 1) // 2 for t in range(len(arrows))]


def test_the_vector_env_through_gym_wrapper_plays_through_game_ends():
    envs = AmazonsVectorEnv(4, SIZE, obs_mode="dict", mask_dtype="bool", copy=True, autoreset_mode="Disabled")
    env = TransformedEnv(GymWrapper(envs, categorical_action_encoding=True), ActionMask())
    assert env.batch_size == (4,)
    check_env_specs(env, seed=0)
    torch.manual_seed(0)
    # ended games are reset by TorchRL between steps (reset_mask), the others play on
    rollout = env.rollout(150, break_when_any_done=False)
    assert rollout.batch_size == (4, 150)
    assert rollout["next", "terminated"].sum() >= 4, "fewer game ends than games in 150 steps of 6x6"
    assert _taken_actions_were_legal(rollout["action"], rollout["action_mask"])
    first = rollout["observation"][:, 0].numpy()
    assert (first[:, 2] == 0).all() and (first[:, 0].sum(axis=(1, 2)) == START_QUEENS).all(), (
        "the first recorded observation is not the start position: a later step overwrote it"
    )
    assert first.shape == (4, NUM_PLANES, SIZE, SIZE)


def test_the_vector_env_keeps_gymnasiums_default_mode_which_gym_wrapper_refuses():
    """So a user who forgets ``autoreset_mode="Disabled"`` hears it from TorchRL, by name."""
    with pytest.raises(RuntimeError, match="auto-reset mode must be one of SAME_STEP or DISABLED"):
        GymWrapper(AmazonsVectorEnv(4, SIZE, obs_mode="dict", mask_dtype="bool", copy=True))


def test_the_pettingzoo_env_through_pettingzoo_wrapper_plays_a_whole_game():
    with warnings.catch_warnings():  # TorchRL names the PettingZoo version it is tested with
        warnings.filterwarnings("ignore", "PettingZoo in TorchRL is tested", UserWarning)
        env = PettingZooWrapper(
            pettingzoo_env.env(size=SIZE, mask_dtype="bool"), use_mask=True, categorical_actions=True
        )
    assert env.group_map == {"player_0": ["player_0"], "player_1": ["player_1"]}
    check_env_specs(env, seed=0)
    torch.manual_seed(0)
    rollout = env.rollout(1000)  # stops at the end of the game
    assert rollout["next", "done"][-1].item() and not rollout["next", "done"][:-1].any()
    acted = {}
    for agent in ("player_0", "player_1"):
        turn = rollout[agent, "mask"].squeeze(-1)  # the steps where this agent was selected
        acted[agent] = turn
        assert _taken_actions_were_legal(rollout[agent, "action"][turn], rollout[agent, "action_mask"][turn])
    assert (acted["player_0"] ^ acted["player_1"]).all(), "exactly one agent acts at each step"
    # the same agent is selected twice per turn (queen move, then arrow), White first
    expected = np.array([(t // 2) % 2 == 0 for t in range(len(turn))])
    assert np.array_equal(acted["player_0"].numpy(), expected)
    finals = {agent: rollout["next", agent, "reward"][-1].item() for agent in acted}
    assert sorted(finals.values()) == [-1.0, 1.0], f"a whole game ends +1/-1, got {finals}"
