"""Exact game values: the proof search (``kernel``, numba) and its driver (``prover.Solver``).

>>> from amazons_env import Board
>>> Solver().solve(Board(size=4)).value   # 4x4 is a second-player win
'lost'
"""

from agents.solver.prover import Proof, Solver

__all__ = ["Proof", "Solver"]
