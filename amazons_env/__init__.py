"""amazons_env: exact, fast rules of the Game of the Amazons, and environments for RL.

>>> from amazons_env import Board, Move
>>> board = Board(size=10)
>>> board.count_legal_moves()
2176
"""

from .board import Board, Outcome
from .errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from .move import Move
from .position import start_layout
from .records import GameRecord
from .squares import BLACK, WHITE, Color, parse_square, square, square_file, square_name, square_rank
from .symmetry import SYMMETRIES, transform_move, transform_square

__all__ = [
    "Board", "Move", "Outcome", "Color", "WHITE", "BLACK",
    "InvalidMoveError", "IllegalMoveError", "InvalidPositionError",
    "square", "square_file", "square_rank", "square_name", "parse_square", "start_layout",
    "SYMMETRIES", "transform_square", "transform_move", "GameRecord",
]

__version__ = "0.1.0"


def _register_envs() -> None:
    """Make ``gymnasium.make("Amazons-v0", size=...)`` and ``gymnasium.make_vec`` work (see ``env``)."""
    import gymnasium

    if "Amazons-v0" not in gymnasium.registry:
        gymnasium.register(id="Amazons-v0", entry_point="amazons_env.env:AmazonsEnv",
                           vector_entry_point="amazons_env.vector:AmazonsVectorEnv")


_register_envs()
