"""``amazons tune-eval FOLDER --size N ...``: the territory weights fitted to uct games
(``training.tuning.command``, also ``python3 -m training.tuning``)."""

from __future__ import annotations

from training.tuning.command import HELP, add_arguments, run

__all__ = ["HELP", "add_arguments", "run"]
