"""The arena: matches and round robins between agents, their statistics and their files.

* ``matches``: ``play_game``, ``match``, ``tournament``, the games they play and resume.
* ``statistics``: ``summarize`` (score, interval, Elo, per colour, time per move) and printing.
* ``files``: the results JSON (checked on every read) and one record file per game.
* ``backends`` and ``processes``: where batches of games run (worker processes here, or Ray).
"""

from agents.arena.matches import (
    GameResult,
    load_results,
    match,
    opening_board,
    play_game,
    run_games,
    tournament,
    with_option,
)
from agents.arena.statistics import elo, format_match, format_tournament, score_interval, summarize

__all__ = [
    "GameResult",
    "play_game",
    "match",
    "tournament",
    "summarize",
    "score_interval",
    "elo",
    "with_option",
    "format_match",
    "format_tournament",
    "run_games",
    "load_results",
    "opening_board",
]
