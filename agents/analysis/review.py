"""A game reviewed by an engine: each position's value and best move, each move's loss.

``evaluate(spec, text)`` asks an engine (any agent spec whose searches report a value, e.g.
``uct:time=1``; or ``solver``, the exact proof search of ``agents.search.solver`` for small boards) for
the value of a position for its side to move, in [-1, 1] (+1: a sure win), and its best move.
A move's loss sets the move played beside the engine's move in the same position, each valued
by the engine from the position it leads to (``alternative_positions`` names the ones to
evaluate beside the game's), for the side that played it:

    loss = value after the engine's move - value after the move played, at least 0

(``review(record, evaluations, alternatives)``). A move the engine would have played loses 0,
one that turns a sure win into a sure loss loses 2. Both values come from searches of the same
kind (the opponent to move, the same budget), so a search's bias for its own side to move (a
search's value of its best move is optimistic: the replies it explored include bad ones) cancels;
the value of the position before the move, from a search of the mover's own, does not cancel it
and would make every move look like a loss. ``THRESHOLDS`` labels the moves (the highest label
reached):
``inaccuracy`` from a loss of 0.10, ``mistake`` from 0.20, ``blunder`` from 0.40. With
``solver`` the values are exact (+1 or -1), so exactly the moves that throw a win away lose 2
and are blunders, and every other move loses 0. A player's ``accuracy`` is
``100 * (1 - mean loss / 2)``: 100 for a game without loss, 0 for one of all-out blunders.

>>> from amazons_env.records import GameRecord
>>> record = GameRecord(["a1-a2/b1"], start="q3/4/4/Q1*1 w")
>>> evaluations = [evaluate("solver", record.board(p).text()) for p in range(2)]
>>> alternatives = [evaluate("solver", text) for text in alternative_positions(record, evaluations) if text]
>>> game = review(record, evaluations, alternatives)
>>> m = game.moves[0]
>>> str(m.played), m.loss, m.label, m.best != m.played   # White threw its win away
('a1-a2/b1', 2.0, 'blunder', True)
>>> game.summary("White").accuracy
0.0
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional

from amazons_env import Board, Color, Move
from amazons_env.errors import InvalidArgumentError
from amazons_env.records import GameRecord

from agents.registry import make
from agents.search.agent import SearchAgent
from agents.search.solver import Solver

__all__ = [
    "Evaluation",
    "MoveReview",
    "Summary",
    "GameReview",
    "THRESHOLDS",
    "SOLVER_SPEC",
    "evaluate",
    "alternative_positions",
    "review",
]

SOLVER_SPEC = "solver"  #: the engine name that asks for exact values
#: the most nodes the exact engine spends on one position before refusing: about a second where the
#: depth-first search proves it (at most ``prover.DEPTH_FIRST_EMPTIES`` empty squares), longer on
#: fuller boards, where df-pn's nodes each make every child (the 5x5 start: half a minute)
SOLVER_NODES = 1_000_000
#: labels by the least loss that earns them, the worst first
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.40), ("mistake", 0.20), ("inaccuracy", 0.10))


@dataclass(frozen=True)
class Evaluation:
    """One position's value for its side to move (in [-1, 1]) and the engine's best move (None in
    a finished game)."""

    value: float
    best: Optional[Move]


def _solver_value(board: Board) -> Evaluation:
    proof = Solver(table_bits=20).solve(board, limit=SOLVER_NODES)
    if proof.value == "unknown":  # never an endless wait: the exact engine is for small, late positions
        raise InvalidArgumentError(
            f"--engine solver: {board.text()!r} not proved within {SOLVER_NODES:,} nodes; "
            "use a search (e.g. uct:time=1) for this game"
        )
    if proof.value == "won":
        return Evaluation(1.0, proof.move)
    # lost: any move loses; the one the proof search would try first drags it out least badly
    return Evaluation(-1.0, board.legal_moves()[0])


def evaluate(spec: str, text: str) -> Evaluation:
    """The value and best move of the position ``text`` by the engine ``spec`` (an agent spec of a
    search, or ``solver``). A finished game is lost for the side to move."""
    board = Board.from_text(text)
    if board.is_game_over():
        return Evaluation(-1.0, None)
    if spec == SOLVER_SPEC:
        return _solver_value(board)
    agent = make(spec)
    if not isinstance(agent, SearchAgent):
        raise InvalidArgumentError(f"{spec}: not a search that reports a value")
    result = agent.search(board)
    return Evaluation(max(-1.0, min(1.0, float(result.value))), result.move)


@dataclass(frozen=True)
class MoveReview:
    """One move: its ``ply`` (from 1), who played it, the move and the engine's best, for the
    mover the value ``before`` it (after the engine's move: the best there was) and ``after`` it,
    its ``loss`` and ``label`` ("" if none)."""

    ply: int
    mover: Color
    played: Move
    best: Optional[Move]
    before: float
    after: float
    loss: float
    label: str


@dataclass(frozen=True)
class Summary:
    """A player's figures: ``accuracy`` (module docstring), mean loss and how many moves earned each label."""

    moves: int
    accuracy: float
    mean_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass(frozen=True)
class GameReview:
    """The reviewed moves, and the value and the engine's move of every position (``values[p]``,
    ``best[p]``: the position after ``p`` moves, for its side to move; ``best`` None where the
    game is over)."""

    moves: tuple[MoveReview, ...]
    values: tuple[float, ...]
    best: tuple[Optional[Move], ...]

    def summary(self, player: str) -> Summary:
        """The figures of ``player`` ("White" or "Black")."""
        mine = [m for m in self.moves if m.mover.name.capitalize() == player]
        losses = [m.loss for m in mine]
        mean = sum(losses) / len(losses) if losses else 0.0
        count = {label: sum(1 for m in mine if m.label == label) for label, _ in THRESHOLDS}
        return Summary(
            len(mine),
            round(100.0 * (1.0 - mean / 2.0), 1),
            round(mean, 3),
            count["inaccuracy"],
            count["mistake"],
            count["blunder"],
        )

    def white_values(self) -> list[Optional[float]]:
        """Per ply, the value after the move for White (the ``Values`` header's convention)."""
        out: list[Optional[float]] = []
        for m in self.moves:
            value = m.after if m.mover == Color.WHITE else -m.after
            out.append(round(value, 3))
        return out


def label_of(loss: float) -> str:
    """The label a ``loss`` earns (``THRESHOLDS``), "" below them all.

    >>> label_of(0.05), label_of(0.2), label_of(2.0)
    ('', 'mistake', 'blunder')
    """
    return next((label for label, least in THRESHOLDS if loss >= least - 1e-9), "")


def _moves_beside(record: GameRecord, evaluations: list[Evaluation]) -> Iterator[tuple[Board, Move, Optional[Move]]]:
    """Per move: the position it was played in, the move, and the engine's move there if another."""
    if len(evaluations) != len(record.moves) + 1:
        raise InvalidArgumentError(f"review needs {len(record.moves) + 1} evaluations, got {len(evaluations)}")
    board = record.board(0)
    for played, evaluation in zip(record.moves, evaluations):
        yield board, played, None if evaluation.best in (None, played) else evaluation.best
        board.push(played)


def alternative_positions(record: GameRecord, evaluations: list[Evaluation]) -> list[Optional[str]]:
    """Per move of ``record``: the position after the engine's move where it was played
    (``evaluations[p]``, of the position after ``p`` moves, names it), or None where the engine's
    move is the one played; the positions whose evaluations ``review`` sets beside the game's."""
    out: list[Optional[str]] = []
    for board, _, other in _moves_beside(record, evaluations):
        if other is None:
            out.append(None)
            continue
        after = board.copy(stack=False)
        after.push(other)
        out.append(after.text())
    return out


def review(record: GameRecord, evaluations: list[Evaluation], alternatives: list[Evaluation]) -> GameReview:
    """The review of ``record`` from ``evaluations[p]``, the evaluation of the position after ``p``
    moves (one per position: ``len(record.moves) + 1``), and ``alternatives``, the evaluations of
    the positions ``alternative_positions`` names, in order (one per name)."""
    moves = []
    others = iter(alternatives)
    for ply, (board, played, other) in enumerate(_moves_beside(record, evaluations), 1):
        after = -evaluations[ply].value  # the next position's value is for the opponent
        if other is None:
            best_value = after
        else:
            alternative = next(others, None)
            if alternative is None:
                raise InvalidArgumentError(f"review needs an evaluation of the position after {other} at move {ply}")
            best_value = -alternative.value
        loss = max(0.0, round(best_value - after, 3))
        best = evaluations[ply - 1].best
        moves.append(MoveReview(ply, board.turn, played, best, best_value, after, loss, label_of(loss)))
    if next(others, None) is not None:
        raise InvalidArgumentError("review got more alternative evaluations than alternative_positions names")
    return GameReview(tuple(moves), tuple(e.value for e in evaluations), tuple(e.best for e in evaluations))
