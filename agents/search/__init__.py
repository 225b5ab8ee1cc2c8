"""Searches, all on one base (``agent.SearchAgent``: the game-over check, the move's ``Limit``, the
filling-phase shortcut) returning one ``result.SearchResult``: the alpha-beta engine (the package
``alphabeta``: its numba ``kernel``, the ``agent``, the ``batched`` search for evaluators without a
kernel; the move ordering it shares with ``uct_tree`` in ``move_order``), the study's reproduction
(the package ``study``: its three alpha-beta kernels and their agents), the one Monte Carlo tree
search (``uct`` with its numba tree ``uct_tree``, the policy-value net's guidance ``net_guide``, and
its ``presets`` ``mcts``, ``uct-net`` and ``pvmcts``; Gumbel AlphaZero on torch tensors, many games
in lock-step, in ``gumbel``), the filling-phase solver
(``endgame``) and queen-line walks (``rays``); their limits, clock and deadlines are ``agents.time``'s."""
