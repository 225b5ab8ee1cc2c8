"""A reviewed game written out: the terminal table, the record with the review in its headers
(the values for the web page's curve, the engine's move in every position and each move's mark
for its board and move list: ``amazons_env.move_review``; each player's summary), and SGF with a
comment and a value on every move and SGF's own move annotations (``DO[]`` an inaccuracy,
``BM[1]`` a mistake, ``BM[2]`` a blunder), which other SGF viewers show.

>>> from amazons_env.records import GameRecord
>>> from amazons_env import Move
>>> from agents.analysis.review import Evaluation, review
>>> record = GameRecord(["a1-a2/b1"], start="q3/4/4/Q1*1 w")
>>> best = Move.parse("a1-b1/b3", size=4)  # White's win; after it Black has lost (-1)
>>> game = review(record, [Evaluation(1.0, best), Evaluation(1.0, None)], [Evaluation(-1.0, None)])
>>> "V[-1.000]BM[2]" in annotated_sgf(record, game, "solver")   # White threw the win away
True
>>> print(table(game).splitlines()[1])
    1  White  a1-a2/b1        a1-b1/b3         +1.00   -1.00   2.00  blunder
"""

from __future__ import annotations

from amazons_env.move_review import BEST_HEADER, MARKS, MARKS_HEADER, format_best, format_marks
from amazons_env.move_values import VALUES_HEADER, format_values
from amazons_env.records import GameRecord, sgf

from agents.analysis.review import GameReview, MoveReview

__all__ = ["table", "summary_lines", "comment", "annotated_record", "annotated_sgf", "SGF_MARKS"]

#: SGF's move annotation of each label: doubtful, bad, very bad
SGF_MARKS = {"inaccuracy": "DO[]", "mistake": "BM[1]", "blunder": "BM[2]"}


def comment(m: MoveReview) -> str:
    """The comment of one move: the mover's value after it, its loss and label, the better move."""
    text = f"value {m.after:+.2f} for {m.mover.name.capitalize()}"
    if m.loss > 0:
        text += f", loss {m.loss:.2f}"
    if m.label:
        text += f": {m.label}"
    if m.best is not None and m.best != m.played and m.loss > 0:
        text += f"; best {m.best} ({m.before:+.2f})"
    return text


def table(game: GameReview) -> str:
    """One line per move: ply, mover, move played, the engine's best (``-`` if the same or if it
    loses nothing), the mover's values before and after, the loss and the label."""
    lines = [f"{'ply':>5}  {'side':<5}  {'played':<14}  {'best':<14}  {'before':>6}  {'after':>6}  {'loss':>5}  label"]
    for m in game.moves:
        best = str(m.best) if m.best is not None and m.best != m.played and m.loss > 0 else "-"
        lines.append(
            f"{m.ply:>5}  {m.mover.name.capitalize():<5}  {str(m.played):<14}  {best:<14}  "
            f"{m.before:>+6.2f}  {m.after:>+6.2f}  {m.loss:>5.2f}  {m.label}".rstrip()
        )
    return "\n".join(lines)


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def summary_lines(game: GameReview) -> list[str]:
    """Per player: accuracy, mean loss and the count of each label."""
    out = []
    for player in ("White", "Black"):
        s = game.summary(player)
        out.append(
            f"{player}: accuracy {s.accuracy:.1f}, mean loss {s.mean_loss:.3f} over {s.moves} moves; "
            f"{_count(s.inaccuracies, 'inaccuracy', 'inaccuracies')}, {_count(s.mistakes, 'mistake')}, "
            f"{_count(s.blunders, 'blunder')}"
        )
    return out


def annotated_record(record: GameRecord, game: GameReview, engine: str) -> GameRecord:
    """``record`` with the review's headers, which the web page draws: the values (``Values``),
    the engine's move in every position (``Best``) and each move's mark (``Marks``); and headers
    naming the engine and each player's summary."""
    headers = dict(record.headers)
    headers[VALUES_HEADER] = format_values(game.white_values())
    headers[BEST_HEADER] = format_best(game.best)
    headers[MARKS_HEADER] = format_marks([MARKS.get(m.label, "") for m in game.moves])
    headers["Annotator"] = f"amazons analyse, engine {engine}"
    for player, line in zip(("White", "Black"), summary_lines(game)):
        headers[f"Review{player}"] = line.split(": ", 1)[1]
    return GameRecord(record.moves, record.size, record.start, record.result, headers)


def annotated_sgf(record: GameRecord, game: GameReview, engine: str) -> str:
    """The SGF of ``annotated_record`` with, on each move, ``C[...]`` (``comment``), ``V[...]``,
    the value after the move for White (SGF's value property) and, on a labelled move, SGF's
    annotation (``SGF_MARKS``), so other viewers show them."""
    full = annotated_record(record, game, engine)
    root = sgf.write_game(full.board(0), (), full.headers, full.result).rstrip()
    assert root.endswith(")")
    nodes = []
    for m, value in zip(game.moves, game.white_values()):
        colour = "W" if m.mover.name == "WHITE" else "B"
        mark = SGF_MARKS.get(m.label, "")
        nodes.append(f";{colour}[{sgf.move_text(m.played)}]C[{sgf.escape(comment(m))}]V[{value:.3f}]{mark}")
    return root[:-1] + "".join(nodes) + ")\n"
