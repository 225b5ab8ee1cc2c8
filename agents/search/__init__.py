"""Searches: alpha-beta (``alphabeta``, ``batched_alphabeta``, the study's three in ``study``), Monte
Carlo tree search (``uct`` with its numba tree ``uct_tree`` and net guidance ``uct_net``; the Python
PUCT trees ``mcts`` and ``pvmcts``), the filling-phase solver (``endgame``) and the clock."""
