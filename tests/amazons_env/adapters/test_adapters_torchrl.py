"""TorchRL needs no adapter: its ``GymWrapper`` over ``AmazonsVectorEnv`` with ``obs_mode="dict"``
(the mask beside the planes, where TorchRL's ``ActionMask`` and masked distributions read it) and
``autoreset_mode="Disabled"`` (``GymWrapper`` resets ended games itself) trains PPO from TorchRL's
own objects, every action legal; so does ``GymEnv("amazons_env:Amazons-v0", num_envs=n)`` with its
defaults (gymnasium's ``AsyncVectorEnv`` of single games, the mask from the info dict), through
game ends; and ``PettingZooWrapper`` over the PettingZoo env trains both agents, masked.
(``tests/amazons_env/adapters/test_torchrl_client.py`` checks the specs of each way in.)

Without TorchRL (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import math
import warnings
from typing import Callable

import torch
from tensordict import TensorDictBase
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import Compose, DTypeCastTransform, GymEnv, GymWrapper, PettingZooWrapper, TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.modules import MaskedCategorical, MaskedOneHotCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import amazons_env  # noqa: F401  # registers Amazons-v0
from amazons_env.envs import pettingzoo_env
from amazons_env.envs.vector_env import AmazonsVectorEnv

SIZE = 4


def _mlp(outputs: int) -> nn.Module:
    return nn.Sequential(nn.Flatten(-3), nn.Linear(9 * SIZE * SIZE, 64), nn.Tanh(), nn.Linear(64, outputs))


def _masks_and_float_planes() -> Compose:
    """TorchRL's ``ActionMask`` (the action spec follows the env's mask) and the int8 planes as floats."""
    return Compose(ActionMask(), DTypeCastTransform(torch.int8, torch.float32, in_keys=["observation"]))


def _masked_ppo(env: TransformedEnv) -> tuple[ProbabilisticActor, Callable[[TensorDictBase], None]]:
    """A PPO actor with a masked distribution from TorchRL's own objects, on ``env``'s planes and
    mask, and ``train(batch)``: one optimizer step of its clipped loss (the value, GAE and Adam
    inside) on a collected batch, checking that the loss is finite."""
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

    def train(batch: TensorDictBase) -> None:
        advantage(batch)
        losses = loss(batch.reshape(-1))
        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
        total.backward()
        optimizer.step()
        optimizer.zero_grad()
        assert math.isfinite(total.item())

    return actor, train


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
    env = TransformedEnv(GymWrapper(games), _masks_and_float_planes())
    actor, train = _masked_ppo(env)
    collector = Collector(env, actor, frames_per_batch=128, total_frames=384, auto_register_policy_transforms=False)
    frames, ended = 0, 0
    for batch in collector:
        train(batch)
        frames += batch.numel()
        ended += int(batch["next", "done"].sum())
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
        _masks_and_float_planes(),
    )
    actor, train = _masked_ppo(env)
    collector = Collector(env, actor, frames_per_batch=64, total_frames=192)
    ended = 0
    try:
        for batch in collector:
            train(batch)
            ended += int(batch["next", "done"].sum())
    finally:
        collector.shutdown()
        env.close()
    assert ended >= 2, "no game ended: the steps after a game's end were not played"


def test_a_masked_policy_gradient_loop_trains_both_agents_through_pettingzoo_wrapper():
    """``PettingZooWrapper(use_mask=True)`` over the PettingZoo env: one masked actor per agent
    (TorchRL's group per agent, each group's ``action_mask``; the agent not selected gets all ones
    from TorchRL and its action is not played), TorchRL's collector through game ends, and a
    policy-gradient step on the selected agents' actions. Every action played is legal."""
    with warnings.catch_warnings():  # TorchRL names the PettingZoo version it is tested with
        warnings.filterwarnings("ignore", "PettingZoo in TorchRL is tested", UserWarning)
        game = pettingzoo_env.env(size=SIZE, mask_dtype="bool")
        env = PettingZooWrapper(game, use_mask=True, categorical_actions=True)
    groups = ("player_0", "player_1")
    net = _Planes(SIZE**4)
    actors = [
        ProbabilisticActor(
            TensorDictModule(net, in_keys=[(group, "observation", "observation")], out_keys=[(group, "logits")]),
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")],
            distribution_class=MaskedCategorical,
        )
        for group in groups
    ]
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    before = [p.detach().clone() for p in net.parameters()]
    collector = Collector(env, TensorDictSequential(*actors), frames_per_batch=64, total_frames=128)
    ended = 0
    for batch in collector:
        loss = torch.zeros(())
        for group, actor in zip(groups, actors):
            acted = batch[group, "mask"].squeeze(-1)
            masks, actions = batch[group, "action_mask"][acted], batch[group, "action"][acted]
            assert masks.gather(-1, actions.unsqueeze(-1)).all(), "an action outside the legal mask"
            dist = actor.get_dist(batch[acted])
            log_prob = dist.log_prob(actions).reshape(-1)
            # the reward comes on the step that ends a game, often not the acting agent's own step:
            # an entropy bonus keeps every batch's gradient non-zero
            loss = loss - (log_prob * batch["next", group, "reward"][acted].reshape(-1)).sum()
            loss = loss - 0.01 * dist.entropy().sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ended += int(batch["next", "done"].sum())
    collector.shutdown()
    assert ended > 0 and all(torch.isfinite(p).all() for p in net.parameters())
    assert any(not torch.equal(p, q) for p, q in zip(net.parameters(), before))


class _Planes(nn.Module):
    """A linear layer over the int8 planes (``[..., 9, N, N]``)."""

    def __init__(self, outputs: int) -> None:
        super().__init__()
        self.linear = nn.Linear(9 * SIZE * SIZE, outputs)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return self.linear(planes.float().flatten(-3))
