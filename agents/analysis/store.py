"""The evaluations of an analysis kept in a file as they come, so that a stopped run resumes.

One sealed JSON file (``amazons_env.files.seal``: a damaged or edited file is refused, not
trusted) per analysed record, holding the engine spec and, per position text, the value and the
best move. A file written for another engine is not reused (``EvaluationStore.load`` starts
empty and the next save replaces it).

>>> import tempfile, os
>>> from amazons_env import Move
>>> from agents.analysis.review import Evaluation
>>> path = os.path.join(tempfile.mkdtemp(), "game.analysis.json")
>>> store = EvaluationStore.load(path, "uct:time=1")
>>> store.put("1qq1/q2q/Q2Q/1QQ1 w", Evaluation(-0.5, Move.parse("b1-b2/c2", size=4)))
>>> EvaluationStore.load(path, "uct:time=1").get("1qq1/q2q/Q2Q/1QQ1 w")
Evaluation(value=-0.5, best=Move.parse('b1-b2/c2', size=4))
>>> len(EvaluationStore.load(path, "uct:time=2"))
0
"""

from __future__ import annotations

import os
from typing import Optional

from amazons_env import Board, Move
from amazons_env.errors import InvalidFileError
from amazons_env.files import PathLike, is_sealed, read_json, seal, write_json

from agents.analysis.review import Evaluation

__all__ = ["EvaluationStore", "FORMAT_VERSION"]

FORMAT_VERSION = 1


class EvaluationStore:
    """Position text -> ``Evaluation`` for one engine, saved to ``path`` after every ``put``."""

    def __init__(self, path: PathLike, engine: str, entries: Optional[dict[str, list]] = None) -> None:
        self.path = os.fspath(path)
        self.engine = engine
        self._entries: dict[str, list] = dict(entries or {})

    @classmethod
    def load(cls, path: PathLike, engine: str) -> "EvaluationStore":
        """The store at ``path`` (empty if there is none, or it was made by another engine);
        ``InvalidFileError`` for a file that is damaged or not ours."""
        if not os.path.exists(path):
            return cls(path, engine)
        document = read_json(path, "analysis file", FORMAT_VERSION, ("engine", "positions", "sha256"))
        if not is_sealed(document) or not isinstance(document["positions"], dict):
            raise InvalidFileError(f"analysis file {os.fspath(path)} is damaged (its sha256 does not match)")
        if document["engine"] != engine:
            return cls(path, engine)
        return cls(path, engine, document["positions"])

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, text: str) -> Optional[Evaluation]:
        """The stored evaluation of the position ``text``, or None."""
        entry = self._entries.get(text)
        if entry is None:
            return None
        value, best = entry
        size = Board.from_text(text).size
        return Evaluation(float(value), None if best is None else Move.parse(best, size=size))

    def evaluations(self, texts: list[str]) -> list[Evaluation]:
        """The stored evaluations of ``texts``, in order; ``KeyError`` naming the first one missing."""
        found = [self.get(text) for text in texts]
        for text, evaluation in zip(texts, found):
            if evaluation is None:
                raise KeyError(f"no evaluation of {text!r} in {self.path}")
        return [evaluation for evaluation in found if evaluation is not None]

    def put(self, text: str, evaluation: Evaluation) -> None:
        """Keep ``evaluation`` of ``text`` and save the store (atomically)."""
        self._entries[text] = [evaluation.value, None if evaluation.best is None else str(evaluation.best)]
        document = {"format_version": FORMAT_VERSION, "engine": self.engine, "positions": self._entries}
        write_json(self.path, seal(document), indent=None, allow_nan=False)
