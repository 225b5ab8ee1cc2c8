"""Game records: ``GameRecord`` (``game_record``) in its two formats, a plain move list
(``movelist``) and SGF (``sgf``). The package's names are ``game_record``'s.

>>> from amazons_env.records import GameRecord
>>> GameRecord(["d1-d7/g7"]).board().turn
Color.BLACK
"""

from amazons_env.records.game_record import MAX_RECORD_BYTES, RESULTS, GameRecord

__all__ = ["GameRecord", "RESULTS", "MAX_RECORD_BYTES"]
