"""Adapters to RL libraries' own conventions: one module per library, each importing its library
(so importing ``amazons_env`` or this package never needs one of them; ``pip install "amazons[rl]"``
brings them all).

- ``amazons_env.adapters.sb3``: Stable-Baselines3 and sb3-contrib's MaskablePPO (a ``VecEnv``
  over ``AmazonsVectorEnv``, a features extractor for the planes, a policy with a queen-line action head)
- ``amazons_env.adapters.tianshou``: Tianshou (masks in ``obs.mask``), single- and multi-agent
- ``amazons_env.adapters.rllib``: RLlib (a multi-agent env and a masking PPO ``RLModule``)

SuperSuit and TorchRL need no adapter: the API reference's page on RL libraries says how to call
them.
"""
