"""Exact game values: depth-first proof-number search (``dfpn``, numba) in the top plies and a
depth-first win/loss search (``depth_first``) below, over the region bounds of ``bounds``, in one
transposition table (``table``) and working arrays (``scratch``); driven by ``prover.Solver``
(slices, progress, a table saved and resumed through ``proof_file``), and ``shortcut``, the
proven move that every search plays at once.

>>> from amazons_env import Board
>>> Solver().solve(Board(size=4)).value   # 4x4 is a second-player win
'lost'
"""

from agents.search.solver.prover import Proof, Solver

__all__ = ["Proof", "Solver"]
