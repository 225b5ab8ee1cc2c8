"""The study's reproduction: the three alpha-beta searches of a bachelor thesis on Amazons search
with a CNN evaluation (C++, 10x10; restated in the README's agents table and re-run in
``benchmarks/README.md``), as numba kernels and agents: ``classic``, ``two-iteration``,
``move-then-arrow``, one module each, with the study's evaluations (``agents.evaluation.study``).

All three are negamax with alpha-beta pruning over values for the side to move (an evaluator's
value, see ``agents.evaluation.evaluator``); a side to move with no move scores -1. Depth counts
whole moves (queen move + arrow); the evaluation is applied only at the start of a whole move.

* ``classic``: a node generates its full list of (queen move, arrow) pairs up front.
* ``two_iteration``: a node is two loops, a queen level and an arrow level, each with its own
  alpha-beta bookkeeping; the same tree as classic, its moves produced lazily.
* ``move_then_arrow``: the queen move and the arrow are chosen one after the other, so a node has
  about (#queen moves + #arrows) children instead of their product.
* ``run``: what the three share (``Node``: side, depth, window, ply; ``search_run``: the record of
  node counters, limits and the root's best move; ``enter``, which counts a node and reads the clock).
* ``agent``: one fixed-depth search (``search_kernel``), the batched search for evaluators without
  a kernel (``batch_two_iteration``) and the agents (``StudySearch``), registered under the three
  names.

Nodes: positions entered by the search after whole moves, the root included (for move-then-arrow,
also the queen-half positions).
"""
