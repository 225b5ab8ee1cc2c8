"""TorchRL needs no adapter: its ``GymWrapper`` over ``AmazonsVectorEnv`` with ``obs_mode="dict"``
(the mask beside the planes, where TorchRL's ``ActionMask`` and masked distributions read it) and
``autoreset_mode="Disabled"`` (``GymWrapper`` resets ended games itself) trains PPO from TorchRL's
own objects, every action legal; so does ``GymEnv("amazons_env:Amazons-v0", num_envs=n)`` with its
defaults (gymnasium's ``AsyncVectorEnv`` of single games, the mask from the info dict), through
game ends. (``tests/amazons_env/adapters/test_torchrl_client.py`` checks the specs of each way in.)

Without TorchRL (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import math

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import Compose, DTypeCastTransform, GymEnv, GymWrapper, TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.modules import MaskedOneHotCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import amazons_env  # noqa: F401  # registers Amazons-v0
from amazons_env.envs.vector_env import AmazonsVectorEnv

SIZE = 4


def _mlp(outputs: int) -> nn.Module:
    return nn.Sequential(nn.Flatten(-3), nn.Linear(9 * SIZE * SIZE, 64), nn.Tanh(), nn.Linear(64, outputs))


def test_ppo_from_torchrl_objects_trains_on_the_vector_env_with_legal_actions_only():
    """``illegal_action="raise"``: one unmasked choice would stop the collector with an error."""
    games = AmazonsVectorEnv(
        8,
        size=SIZE,
        opponent="random",
        learner_color="random",
        illegal_action="raise",
        obs_mode="dict",
        mask_dtype="bool",
        autoreset_mode="Disabled",
    )
    env = TransformedEnv(
        GymWrapper(games), Compose(ActionMask(), DTypeCastTransform(torch.int8, torch.float32, in_keys=["observation"]))
    )
    logits = TensorDictModule(_mlp(SIZE**4), in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedOneHotCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )
    value = ValueOperator(_mlp(1), in_keys=["observation"])
    loss = ClipPPOLoss(actor, value)
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=value)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    collector = Collector(env, actor, frames_per_batch=128, total_frames=384, auto_register_policy_transforms=False)
    frames, ended = 0, 0
    for batch in collector:
        advantage(batch)
        losses = loss(batch.reshape(-1))
        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
        total.backward()
        optimizer.step()
        optimizer.zero_grad()
        frames += batch.numel()
        ended += int(batch["next", "done"].sum())
        assert math.isfinite(total.item())
    collector.shutdown()
    assert frames >= 384 and ended > 0


def test_ppo_from_torchrl_objects_trains_on_gym_env_with_num_envs_through_game_ends():
    """``GymEnv(name, num_envs=2)`` and ``ActionMask`` (``mask_dtype="bool"``: TorchRL's masked
    distributions take bool masks). gymnasium's ``AsyncVectorEnv`` resets a finished game on the
    step after its end (``NEXT_STEP``), which TorchRL plays with an action drawn from the finished
    game's mask: every action is marked there (pgx's convention), so the draw succeeds and the
    action is ignored (with the mask of no legal action it was ``invalid multinomial distribution``)."""
    env = TransformedEnv(
        GymEnv("amazons_env:Amazons-v0", num_envs=2, size=SIZE, opponent="random", mask_dtype="bool"),
        Compose(ActionMask(), DTypeCastTransform(torch.int8, torch.float32, in_keys=["observation"])),
    )
    logits = TensorDictModule(_mlp(SIZE**4), in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedOneHotCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )
    value = ValueOperator(_mlp(1), in_keys=["observation"])
    loss = ClipPPOLoss(actor, value)
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=value)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    collector = Collector(env, actor, frames_per_batch=64, total_frames=192)
    ended = 0
    try:
        for batch in collector:
            advantage(batch)
            losses = loss(batch.reshape(-1))
            total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
            total.backward()
            optimizer.step()
            optimizer.zero_grad()
            ended += int(batch["next", "done"].sum())
            assert math.isfinite(total.item())
    finally:
        collector.shutdown()
        env.close()
    assert ended >= 2, "no game ended: the steps after a game's end were not played"
