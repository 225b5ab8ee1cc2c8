"""Stable-Baselines3 and sb3-contrib: ``AmazonsVecEnv``, SB3's ``VecEnv`` over ``AmazonsVectorEnv``
(all games in one numba call per step, MaskablePPO's ``action_masks``), ``PlanesExtractor``, a
features extractor for the int8 channel-first planes at any board size, and ``AmazonsPlanesPolicy``,
MaskablePPO's policy for the queen-line actions (``action_encoding="lines"``) with a fully
convolutional action head.

>>> from sb3_contrib import MaskablePPO
>>> from amazons_env.envs.vector_env import AmazonsVectorEnv
>>> env = AmazonsVecEnv(AmazonsVectorEnv(4, size=4, opponent="random", action_encoding="lines"))
>>> model = MaskablePPO(AmazonsPlanesPolicy, env, n_steps=16, batch_size=32, seed=0, device="cpu")
>>> _ = model.learn(64)
>>> env.action_masks().shape
(4, 384)

Any action encoding with ``"CnnPolicy"`` and the extractor (a dense action layer):

>>> env = AmazonsVecEnv(AmazonsVectorEnv(4, size=4, opponent="random", learner_color="random"))
>>> model = MaskablePPO("CnnPolicy", env, n_steps=16, batch_size=32, seed=0, device="cpu",
...                     policy_kwargs={"features_extractor_class": PlanesExtractor})
>>> _ = model.learn(64)
>>> env.action_masks().shape
(4, 256)
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from amazons_env.envs.actions import num_actions
from amazons_env.envs.vector_env import AmazonsVectorEnv
from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import MAX_SIZE, MIN_SIZE

__all__ = ["AmazonsVecEnv", "PlanesExtractor", "QueenLineHead", "AmazonsPlanesPolicy"]

# the per-game entries of SB3's infos (the masks come from ``action_masks()`` instead)
_INFO_KEYS = ("player", "phase", "move_number", "winner", "illegal_action")


class AmazonsVecEnv(VecEnv):
    """SB3's ``VecEnv`` interface to an ``AmazonsVectorEnv`` (which keeps all its options:
    opponents, action encodings, ``obs_mode="dict"`` for ``MultiInputPolicy``, threads).

    SB3's conventions, not gymnasium's: a game that ends is reset at once inside ``step_wait``
    (its last observation is in ``infos[i]["terminal_observation"]``, the new game's first in
    ``obs[i]``), ``dones`` is ``terminated`` (games never truncate) and ``infos`` is a list of one
    dict per game with ``player``, ``phase``, ``move_number``, ``winner``, ``illegal_action`` and
    ``rewards`` (both players'). ``action_masks()`` (the one ``env_method`` sb3-contrib calls:
    ``env_method("action_masks")`` gives the games' rows) is ``[num_envs, A]``. ``seed(s)`` seeds
    the next ``reset`` of the whole batch with ``s`` (the vector env draws every game from one
    generator). The games share one env: ``get_attr`` gives its attribute once per game,
    ``set_attr`` sets it for all, and any other ``env_method`` runs once, its result repeated
    per game. Any autoreset mode
    of the vector env works (this class resets ended games itself); ``copy=False`` is refused
    (SB3 keeps each observation across the next step, which would overwrite it).

    >>> from amazons_env.envs.vector_env import AmazonsVectorEnv
    >>> env = AmazonsVecEnv(AmazonsVectorEnv(2, size=4))
    >>> env.seed(0)
    [0, 1]
    >>> obs = env.reset()
    >>> obs.shape, env.action_masks().sum(axis=1).tolist()
    ((2, 9, 4, 4), [16, 16])
    """

    def __init__(self, vector_env: AmazonsVectorEnv) -> None:
        if not isinstance(vector_env, AmazonsVectorEnv):
            raise InvalidArgumentError(f"AmazonsVecEnv wraps an AmazonsVectorEnv, got {describe(vector_env)}")
        if not vector_env.copy:
            # SB3 stores the previous observation in its rollout buffer after the next step: with the
            # env's reused buffers it would store the new one in its place
            raise InvalidArgumentError(
                "AmazonsVecEnv needs AmazonsVectorEnv(copy=True) (the default): SB3 keeps each observation "
                "across the next step, which copy=False overwrites"
            )
        self.vector_env = vector_env
        self._actions: Optional[np.ndarray] = None
        super().__init__(vector_env.num_envs, vector_env.single_observation_space, vector_env.single_action_space)

    def reset(self) -> Any:
        if any(self._options):
            raise InvalidArgumentError(f"AmazonsVecEnv takes no reset options, got {self._options[0]!r}")
        obs, infos = self.vector_env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self.reset_infos = self._per_game(infos)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> Any:
        if self._actions is None:
            raise gymnasium.error.ResetNeeded("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.vector_env.step(actions)
        dones = terminated | truncated
        per_game = self._per_game(infos)
        ended = np.flatnonzero(dones)
        if len(ended):
            for i in ended:
                per_game[i]["terminal_observation"] = _game(obs, int(i))
            obs, infos = self.vector_env.reset(options={"reset_mask": dones.copy()})
        return obs, rewards.astype(np.float32), dones, per_game

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, ``[num_envs, A]`` (a copy)."""
        return self.vector_env.action_masks()

    def close(self) -> None:
        self.vector_env.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else getattr(self.vector_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.vector_env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        games = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[games])
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)  # once for all games
        return [result for _ in games]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]

    def _per_game(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        # rows of the vector env's fresh arrays (copy=True): nothing to copy; zip, as a step's
        # Python overhead counts
        columns = [infos[key].tolist() for key in _INFO_KEYS]
        return [dict(zip(_INFO_KEYS + ("rewards",), row)) for row in zip(*columns, infos["rewards"])]


def _game(obs: Any, i: int) -> Any:
    """Game ``i``'s observation (planes, or a dict of planes and mask), copied (a row of ``obs``
    would keep the whole batch alive)."""
    if isinstance(obs, dict):
        return {key: value[i].copy() for key, value in obs.items()}
    return obs[i].copy()


class PlanesExtractor(BaseFeaturesExtractor):
    """3x3 convolutions over the observation planes, then either one dense layer (``features_dim``
    features, the default) or, with ``square_features=k``, a 1x1 convolution to ``k`` features per
    square, flattened (``k * rank * file`` features, no dense layer between the squares and the
    policy): SB3's features extractor for ``Box`` planes of any dtype, board size and plane count
    (frame-stacked planes too), channel-first (``[planes, rank, file]``, the envs' layout) or, with
    ``channels_last=True``, ``[rank, file, planes]``. (With ``obs_mode="dict"`` observations,
    ``MultiInputPolicy``'s own ``CombinedExtractor`` flattens the planes: int8 planes are no image
    to SB3. MaskablePPO reads the masks from ``action_masks()`` in either mode.)

    ``policy_kwargs={"features_extractor_class": PlanesExtractor}`` (options in
    ``features_extractor_kwargs``) with ``"CnnPolicy"`` or ``"MlpPolicy"``: the same policy then.
    Per-square features keep where things are on the board up to the policy's action layer,
    where a dense summary must encode it in ``features_dim`` numbers; with them, leave SB3's
    default hidden layers out (``net_arch=dict(pi=[], vf=[64])``: the action layer reads the
    squares directly), as ``examples/maskable_ppo.py`` does.

    >>> extractor = PlanesExtractor(spaces.Box(0, 1, (9, 5, 5), np.int8), features_dim=64)
    >>> extractor(torch.zeros(2, 9, 5, 5)).shape
    torch.Size([2, 64])
    >>> PlanesExtractor(spaces.Box(0, 1, (9, 5, 5), np.int8), square_features=4).features_dim
    100
    """

    def __init__(
        self,
        observation_space: gymnasium.Space,
        features_dim: Optional[int] = None,
        channels: int = 32,
        layers: int = 3,
        channels_last: bool = False,
        square_features: Optional[int] = None,
    ) -> None:
        shape = getattr(observation_space, "shape", None)
        if not isinstance(observation_space, spaces.Box) or shape is None or len(shape) != 3:
            raise InvalidArgumentError(
                f"PlanesExtractor reads a Box of planes [planes, rank, file], got {describe(observation_space)}"
            )
        if features_dim is not None and square_features is not None:
            raise InvalidArgumentError(
                f"PlanesExtractor: features_dim={describe(features_dim)} and square_features="
                f"{describe(square_features)}: give one (a dense layer, or features per square)"
            )
        sizes = {"channels": channels, "layers": layers, "features_dim": features_dim}
        for name, value in {**sizes, "square_features": square_features}.items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidArgumentError(f"PlanesExtractor: {name}={describe(value)} must be an integer >= 1")
        planes, ranks, files = (shape[2], shape[0], shape[1]) if channels_last else shape
        dim = square_features * ranks * files if square_features is not None else (features_dim or 256)
        super().__init__(observation_space, dim)
        self.channels_last = bool(channels_last)
        convolutions: list[nn.Module] = []
        for layer in range(layers):
            convolutions += [nn.Conv2d(planes if layer == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        if square_features is not None:
            head: list[nn.Module] = [nn.Conv2d(channels, square_features, 1), nn.ReLU(), nn.Flatten()]
        else:
            head = [nn.Flatten(), nn.Linear(channels * ranks * files, dim), nn.ReLU()]
        self.net = nn.Sequential(*convolutions, *head)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        planes = observations.float()
        if self.channels_last:
            planes = planes.permute(0, 3, 1, 2)
        return self.net(planes)


class QueenLineHead(nn.Module):
    """The action layer of the queen-line encoding: a 1x1 convolution from ``square_features``
    features per square (``PlanesExtractor(square_features=k)``'s flat output, ``[batch, k * N * N]``,
    feature-major) to ``8 * (N - 1)`` logits per square (direction-major, then distance), flattened
    in the order of ``action_encoding="lines"``: ``(square * 8 + direction) * (N - 1) + distance - 1``
    with ``square = rank * N + file``. The same weights at every square.

    >>> head = QueenLineHead(4, size=6)
    >>> head(torch.zeros(2, 4 * 36)).shape
    torch.Size([2, 1440])
    """

    def __init__(self, square_features: int, size: int) -> None:
        super().__init__()
        self.size = size
        self.conv = nn.Conv2d(square_features, 8 * (size - 1), 1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        squares = features.reshape(len(features), -1, self.size, self.size)
        # [B, 8(N-1), rank, file] -> [B, rank, file, 8(N-1)]: the encoding's square-major order
        return self.conv(squares).permute(0, 2, 3, 1).reshape(len(features), -1)


class _QueenLineDistribution(MaskableCategoricalDistribution):
    """MaskablePPO's categorical over the queen-line actions, its action layer a ``QueenLineHead``."""

    def __init__(self, size: int) -> None:
        super().__init__(num_actions(size, "lines"))
        self.size = size

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        return QueenLineHead(latent_dim // (self.size * self.size), self.size)


class AmazonsPlanesPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy for ``AmazonsVecEnv(AmazonsVectorEnv(..., action_encoding="lines"))``:
    ``PlanesExtractor`` (``layers`` 3x3 convolutions of ``channels``, then ``square_features``
    features per square: 32 by default), then a ``QueenLineHead`` as the action layer (one 1x1
    convolution, the same weights at every square, where SB3's own is a dense layer from every
    feature to every action) and ``net_arch["vf"]`` hidden layers (``[64]``) under the value.
    ``MaskablePPO(AmazonsPlanesPolicy, env)``; ``policy_kwargs`` as for any SB3 policy: another
    extractor must give features per square (``features_dim`` a multiple of ``N * N``,
    feature-major), and ``net_arch["pi"]`` must be empty (the action layer reads the squares).

    >>> from amazons_env.envs.vector_env import AmazonsVectorEnv
    >>> env = AmazonsVecEnv(AmazonsVectorEnv(2, size=5, action_encoding="lines"))
    >>> policy = AmazonsPlanesPolicy(env.observation_space, env.action_space, lambda _: 1e-3)
    >>> type(policy.action_net).__name__, policy.features_dim
    ('QueenLineHead', 800)
    """

    def __init__(
        self,
        observation_space: gymnasium.Space,
        action_space: gymnasium.Space,
        lr_schedule: Callable[[float], float],
        net_arch: Optional[dict[str, list[int]]] = None,
        activation_fn: type[nn.Module] = nn.ReLU,
        features_extractor_class: type[BaseFeaturesExtractor] = PlanesExtractor,
        features_extractor_kwargs: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        self.board_size = _lines_size(action_space)
        net_arch = {"pi": [], "vf": [64]} if net_arch is None else net_arch
        if not isinstance(net_arch, dict) or net_arch.get("pi"):
            raise InvalidArgumentError(
                f"AmazonsPlanesPolicy: net_arch={describe(net_arch)}: give dict(pi=[], vf=[...]) (the action "
                "layer reads the features of each square, so no hidden policy layer)"
            )
        if features_extractor_class is PlanesExtractor:
            features_extractor_kwargs = {"square_features": 32, **(features_extractor_kwargs or {})}
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            net_arch=net_arch,
            activation_fn=activation_fn,
            features_extractor_class=features_extractor_class,
            features_extractor_kwargs=features_extractor_kwargs,
            **kwargs,
        )

    def _build(self, lr_schedule: Callable[[float], float]) -> None:
        # SB3 builds the action layer from its distribution (before the optimizer and the
        # initialisation, which then cover the head): a distribution whose layer is the head
        squares = self.board_size**2
        if self.features_dim % squares:
            raise InvalidArgumentError(
                f"AmazonsPlanesPolicy: the features extractor gives {self.features_dim} features, not a multiple "
                f"of the board's {squares} squares (use PlanesExtractor's square_features)"
            )
        self.action_dist = _QueenLineDistribution(self.board_size)
        super()._build(lr_schedule)


def _lines_size(action_space: gymnasium.Space) -> int:
    """The board size whose queen-line encoding has ``action_space.n`` actions."""
    count = getattr(action_space, "n", None) if isinstance(action_space, spaces.Discrete) else None
    for size in range(MIN_SIZE, MAX_SIZE + 1):
        if count == num_actions(size, "lines"):
            return size
    raise InvalidArgumentError(
        f"AmazonsPlanesPolicy needs the queen-line actions (AmazonsVectorEnv(action_encoding='lines')), got "
        f"{describe(action_space)}"
    )
