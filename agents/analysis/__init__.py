"""Game review with an engine: each position's value and best move, each move's loss, the
mistakes, a summary per player (``review``), written out as a table, SGF comments and the
record's values (``annotate``), resumable through ``store``."""

from agents.analysis.review import THRESHOLDS, Evaluation, GameReview, MoveReview, evaluate, review

__all__ = ["THRESHOLDS", "Evaluation", "GameReview", "MoveReview", "evaluate", "review"]
