"""The envs' observation planes: their indices, in order, and their names (what each holds is
``AmazonsEnv``'s docstring). The kernels write them (``kernels.game``); the numba and the
torch envs show the same planes.

>>> from amazons_env.envs.gym_env import AmazonsEnv
>>> obs, _ = AmazonsEnv(size=6).reset(seed=0)
>>> obs.shape[0] == NUM_PLANES, PLANE_NAMES[PLANE_BLACK], int(obs[PLANE_OWN_QUEENS].sum())
(True, 'black', 4)
"""

from __future__ import annotations

__all__ = [
    "NUM_PLANES",
    "PLANE_NAMES",
    "PLANE_OWN_QUEENS",
    "PLANE_OPPONENT_QUEENS",
    "PLANE_ARROWS",
    "PLANE_ARROW_PHASE",
    "PLANE_SHOOTER",
    "PLANE_VACATED",
    "PLANE_OWN_REACH",
    "PLANE_OPPONENT_REACH",
    "PLANE_BLACK",
]

(
    PLANE_OWN_QUEENS,
    PLANE_OPPONENT_QUEENS,
    PLANE_ARROWS,
    PLANE_ARROW_PHASE,
    PLANE_SHOOTER,
    PLANE_VACATED,
    PLANE_OWN_REACH,
    PLANE_OPPONENT_REACH,
    PLANE_BLACK,
) = range(9)
NUM_PLANES = 9
PLANE_NAMES = (
    "own_queens",
    "opponent_queens",
    "arrows",
    "arrow_phase",
    "shooter",
    "vacated",
    "own_reach",
    "opponent_reach",
    "black",
)
