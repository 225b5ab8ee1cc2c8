"""Self-play helpers for any RL framework: a pool of frozen past policies to play against, and
matches between batched policies on the vector env.

A *batched policy* is ``policy(obs, mask) -> actions``: observation planes ``int8[k, 9, N, N]``
and legal-action masks ``[k, A]`` of ``k`` games to ``k`` legal actions (numpy in, numpy out; wrap
a net in ``torch.no_grad`` yourself). ``AmazonsVectorEnv(opponent=policy)`` plays one against
the learner, ``agents.policy_agent.PolicyAgent`` makes one an ``Agent`` (arena, Elo).

>>> import numpy as np
>>> first = lambda obs, mask: mask.argmax(axis=1)           # lowest legal action
>>> rng = np.random.default_rng(0)
>>> rand = lambda obs, mask: np.array([rng.choice(np.flatnonzero(m)) for m in mask])
>>> pool = SnapshotPool(capacity=3, seed=0)
>>> pool.add(first); pool.add(rand); len(pool)
2
>>> result = play_policies(first, pool, size=4, games=8, seed=1)
>>> sorted(result), result["games"]
(['black', 'games', 'score', 'white'], 8)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from amazons_env.envs.vector_env import AmazonsVectorEnv, BatchPolicy
from amazons_env.errors import InvalidArgumentError

__all__ = ["BatchPolicy", "SnapshotPool", "play_policies"]


class SnapshotPool:
    """Frozen past copies of a learner, as one batched policy (pass it as ``opponent=``).

    ``add(policy)`` stores a snapshot (the caller freezes it: e.g. a ``copy.deepcopy`` of the net
    behind a ``no_grad`` function); past ``capacity`` the oldest is dropped. ``sample()`` picks
    the snapshot that plays until the next ``sample()`` (call it once per rollout): the newest
    with probability ``latest``, else one of the others uniformly, so the learner keeps beating
    its past selves instead of cycling against only the last one.
    """

    def __init__(self, capacity: int = 8, latest: float = 0.5, seed: Optional[int] = None) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise InvalidArgumentError(f"capacity={capacity!r} must be a positive integer")
        if not isinstance(latest, (int, float)) or not 0.0 <= latest <= 1.0:
            raise InvalidArgumentError(f"latest={latest!r} must be a probability in [0, 1]")
        self.capacity = capacity
        self.latest = float(latest)
        self.rng = np.random.default_rng(seed)
        self.snapshots: list[BatchPolicy] = []
        self.active = -1

    def __len__(self) -> int:
        return len(self.snapshots)

    def add(self, policy: BatchPolicy) -> None:
        """Store a frozen snapshot; it becomes the active one."""
        if not callable(policy):
            raise InvalidArgumentError(f"SnapshotPool.add: {policy!r} is not a batched policy (obs, mask) -> actions")
        self.snapshots.append(policy)
        del self.snapshots[: -self.capacity]
        self.active = len(self.snapshots) - 1

    def sample(self) -> int:
        """Choose the active snapshot; returns its index (0 = oldest kept)."""
        if not self.snapshots:
            raise InvalidArgumentError("SnapshotPool.sample: the pool is empty (add a snapshot first)")
        last = len(self.snapshots) - 1
        if last == 0 or self.rng.random() < self.latest:
            self.active = last
        else:
            self.active = int(self.rng.integers(last))
        return self.active

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.active < 0:
            raise InvalidArgumentError("SnapshotPool: the pool is empty (add a snapshot first)")
        return self.snapshots[self.active](obs, mask)


def play_policies(
    policy: BatchPolicy,
    opponent: Any,
    size: int = 6,
    games: int = 100,
    seed: int = 0,
    random_first_turn: bool = True,
    **env_options: Any,
) -> dict[str, Any]:
    """Play ``games`` games (half as White, half as Black) of batched ``policy`` against
    ``opponent`` (an agent spec, an ``Agent`` or a batched policy); returns ``{"white": wins as
    White, "black": wins as Black, "games": games, "score": win fraction}``.

    ``random_first_turn``: ``policy``'s first turn in each game is a uniformly random legal move,
    so that deterministic players still meet in different games. ``env_options`` go to
    ``AmazonsVectorEnv`` (e.g. ``action_encoding="lines"``: the encoding ``policy`` speaks)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
        raise InvalidArgumentError(f"games={games!r} must be an even integer >= 2")
    wins = {}
    for colour in ("white", "black"):
        envs = AmazonsVectorEnv(
            games // 2, size=size, opponent=opponent, learner_color=colour, copy=False, **env_options
        )
        obs, infos = envs.reset(seed=seed + (colour == "black"))
        planes = obs["observation"] if isinstance(obs, dict) else obs
        done = np.zeros(envs.num_envs, bool)
        won = np.zeros(envs.num_envs, bool)
        while not done.all():
            mask = infos["action_mask"]
            actions = envs.sample_legal_actions()
            thinking = (
                ~done
                & mask.any(axis=1)
                & ((infos["move_number"] > int(colour == "black")) if random_first_turn else True)
            )
            if thinking.any():
                actions[thinking] = np.asarray(policy(planes[thinking], mask[thinking]))
            obs, rewards, terminated, _, infos = envs.step(actions)
            planes = obs["observation"] if isinstance(obs, dict) else obs
            won |= terminated & ~done & (rewards > 0)
            done |= terminated
        wins[colour] = int(won.sum())
    return {
        "white": wins["white"],
        "black": wins["black"],
        "games": games,
        "score": (wins["white"] + wins["black"]) / games,
    }
