"""Searches, all on one base (``agent.SearchAgent``: the game-over check, the move's ``Limit``, the
filling-phase shortcut) returning one ``result.SearchResult``: alpha-beta (``alphabeta`` with its
numba kernel ``alphabeta_kernel``, ``batched_alphabeta`` for evaluators without a kernel, the
study's three in ``study``), Monte Carlo tree search (``uct`` with its numba tree ``uct_tree`` and
net guidance ``uct_net``; the one Python PUCT tree ``puct`` behind ``mcts`` and ``pvmcts``; Gumbel
AlphaZero on torch tensors, many games in lock-step, in ``gumbel``), the filling-phase solver
(``endgame``), queen-line walks (``rays``) and the clock."""
