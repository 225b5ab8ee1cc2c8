"""Evaluators for the searches' tests."""

from __future__ import annotations

import numpy as np

from agents.evaluation.evaluator import Evaluator, make_evaluator

__all__ = ["BatchOnly"]


class BatchOnly(Evaluator):
    """The evaluator ``inner`` (a kernel evaluator) behind ``evaluate_batch`` only, as the value
    net is: a search must take its batched path. ``calls``: the batches it was given."""

    name = "batch-only"

    def __init__(self, inner: str = "territory") -> None:
        super().__init__()
        self.inner = make_evaluator(inner)
        self.calls = 0

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        self.calls += 1
        return self.inner.evaluate_batch(cells, sides)
