"""amazons_env: exact, fast rules of the Game of the Amazons, and environments for RL.

>>> from amazons_env import Board, Move
>>> board = Board(size=10)
>>> board.count_legal_moves()
2176
"""

from amazons_env.board import Board
from amazons_env.errors import (
    AmazonsError,
    AmazonsRuntimeError,
    IllegalMoveError,
    InvalidArgumentError,
    InvalidFileError,
    InvalidMoveError,
    InvalidPositionError,
    UnreadableFileError,
)
from amazons_env.move import Move
from amazons_env.outcome import Outcome
from amazons_env.position import start_layout
from amazons_env.records import GameRecord
from amazons_env.squares import BLACK, WHITE, Color, parse_square, square, square_file, square_name, square_rank
from amazons_env.symmetry import SYMMETRIES, transform_move, transform_square

__all__ = [
    "Board",
    "Move",
    "Outcome",
    "Color",
    "WHITE",
    "BLACK",
    "InvalidMoveError",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidArgumentError",
    "UnreadableFileError",
    "InvalidFileError",
    "AmazonsError",
    "AmazonsRuntimeError",
    "square",
    "square_file",
    "square_rank",
    "square_name",
    "parse_square",
    "start_layout",
    "SYMMETRIES",
    "transform_square",
    "transform_move",
    "GameRecord",
    "AmazonsEnv",
    "AmazonsVectorEnv",
    "AmazonsTorchEnv",
    "AmazonsTensorVectorEnv",
]

__version__ = "0.1.0"


def __getattr__(name: str):
    """The envs on first use (importing the package stays light; the tensor envs need torch,
    ``AmazonsTorchEnv`` torchrl too)."""
    if name == "AmazonsEnv":
        from amazons_env.envs.gym_env import AmazonsEnv

        return AmazonsEnv
    if name == "AmazonsVectorEnv":
        from amazons_env.envs.vector_env import AmazonsVectorEnv

        return AmazonsVectorEnv
    if name == "AmazonsTorchEnv":
        from amazons_env.tensor.torchrl_env import AmazonsTorchEnv

        return AmazonsTorchEnv
    if name == "AmazonsTensorVectorEnv":
        from amazons_env.tensor.vector_env import AmazonsTensorVectorEnv

        return AmazonsTensorVectorEnv
    raise AttributeError(f"module 'amazons_env' has no attribute {name!r}")


def _register_envs() -> None:
    """Make ``gymnasium.make("Amazons-v0", size=...)`` and ``gymnasium.make_vec`` work (see ``env``)."""
    import gymnasium

    if "Amazons-v0" not in gymnasium.registry:
        # no order-enforcing or checker wrappers (the env checks its own calls): so that the env
        # ``gymnasium.make`` returns is an ``AmazonsEnv`` and ``env.action_masks()`` works on it
        gymnasium.register(
            id="Amazons-v0",
            entry_point="amazons_env.envs.gym_env:AmazonsEnv",
            vector_entry_point="amazons_env.envs.vector_env:AmazonsVectorEnv",
            order_enforce=False,
            disable_env_checker=True,
        )


_register_envs()
