"""The alpha-beta engine, ``alphabeta``: one search over whole moves, in three modules.

* ``kernel``: ``negamax`` in numba (selective principal-variation search with a transposition
  table and Zobrist keys), over the candidate moves of ``agents.search.move_order``;
* ``agent``: the ``alphabeta`` agent around it (iterative deepening, aspiration windows, time);
* ``batched``: the same search in Python for evaluators without a numba kernel (a neural net),
  scoring all the children of a node in one ``evaluate_batch`` call.

The study's three searches (``classic``, ``two-iteration``, ``move-then-arrow``) are the
reproduction in ``agents.search.study``.
"""
