"""Write your own agent: subclass ``agents.Agent`` and give ``select_move(board) -> Move``.

Options are the keyword arguments of ``__init__`` (typed by their annotations; ``OPTIONS`` adds a
help line and a range), so the arena checks them as it does for the built-in agents. Use it
anywhere a spec goes, as ``FILE.py:CLASS[:key=value,...]``::

    amazons tournament examples/my_agent.py:Mobility random two-iteration:depth=1 --size 6 --games 4
    amazons match "examples/my_agent.py:Mobility:sample=10" random --size 8
    amazons agents examples/my_agent.py:Mobility
"""

from typing import Optional

from amazons_env import Board, Move

from agents import Agent
from agents.options import opt


class Mobility(Agent):
    """Plays the move that leaves the opponent fewest replies, among ``sample`` random ones."""

    name = "mobility"
    OPTIONS = {"sample": opt("candidate moves looked at per turn", ge=1)}

    def __init__(self, sample: int = 20, seed: Optional[int] = None) -> None:
        super().__init__(seed)  # seeds self.rng; the arena reseeds it for every game
        self.sample = sample

    def select_move(self, board: Board) -> Move:
        moves = board.legal_moves()
        picks = self.rng.choice(len(moves), size=min(self.sample, len(moves)), replace=False)
        return min((moves[i] for i in picks), key=lambda move: self.replies(board, move))

    @staticmethod
    def replies(board: Board, move: Move) -> int:
        board.push(move)  # try the move, count the opponent's answers, take it back
        count = board.count_legal_moves()
        board.pop()
        return count
