"""The environments: the two-phase gymnasium env (``gym_env``), the batched vector env
(``vector_env``), the PettingZoo AEC env (``pettingzoo_env``), their action encodings
(``actions``), observation planes (``planes``) and shared argument checks (``arguments``), their
numba kernels (the package ``kernels``: ``game`` for one game, on the bit words of ``line_words``;
``batch`` for the vector env; low-level ``intrinsics``), how they resolve an opponent
(``opponents``), the vector env's batched opponents (``batch_opponents``), the state a planner
saves and restores (``env_state``), the sentences that describe a game (``descriptions``) and a
pool of frozen policies for self-play (``policy_pool``)."""
