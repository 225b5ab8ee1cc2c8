"""The environments: the two-phase gymnasium env (``gym_env``), the batched vector env
(``vector_env``), the PettingZoo AEC env (``pettingzoo_env``), their action encodings
(``actions``), their numba kernels (``kernels``, ``intrinsics``) and a pool of frozen policies for
self-play (``policy_pool``)."""
