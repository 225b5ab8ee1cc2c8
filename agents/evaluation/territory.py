"""``territory``: Lieberum's territory-and-mobility evaluation (AMAZONG, TCS 349, 2005) in numba.

For each side, two distance maps over the empty squares, by breadth-first search from all of its
amazons: ``Dq`` (fewest *queen* moves) and ``Dk`` (fewest *king* moves); unreachable = far. Then,
from White's point of view (negated for Black at the end, so the value is for the side to move):

* ``t1 = sum delta(Dq_w, Dq_b)`` and ``t2 = sum delta(Dk_w, Dk_b)``: +1 per square White reaches
  first, -1 per square Black reaches first, ``+-kappa`` on ties (in favour of the side to move), 0
  when neither reaches it.
* ``c1 = 2 * sum (2^-Dq_w - 2^-Dq_b)`` and ``c2 = sum clip((Dk_b - Dk_w) / 6, -1, 1)``.
* ``w = sum 2^-|Dq_w - Dq_b|`` over squares both sides reach: 0 exactly in the filling phase.
* Phase weights with ``s = min(1, sqrt(w / squares))``: ``t = (1 - a1 s) t1 + a2 s t2 + a3 s c1 +
  a4 s c2`` (``f1(0) = 1``: in the filling phase only ``t1`` counts; the study's weights are the
  public 10x10 tuning, see the README's "Engines" section for the arena runs).
* Mobility ``m``: for each amazon, ``alpha = sum 2^-k N(b)`` over the squares ``b`` it reaches in one
  queen move (``k`` steps away) that the opponent also reaches, ``N(b)`` = empty king neighbours of
  ``b``; the penalty ``mob * s * 2^(-alpha / 4)`` (``f(0, alpha) = 0``, decreasing in ``alpha``,
  ``2 f(w, 5) < f(w, 0)``) is added for the opponent's amazons and subtracted for one's own.

The value is ``tanh((t + m) / (scale * exp(scale_phase * s) * squares))`` for the side to move, in
``(-1, 1)`` (``scale_phase``, 0 in the study, sharpens the squash as the board closes, where the count
decides more surely); a side to move with no move scores -1.

The weights ``kappa``, ``scale``, ``mob``, ``a1``..``a4``, ``scale_phase`` come as a set (``weights=``): ``study``, the
published 10x10 tuning (``agents.evaluation.territory_weights.STUDY``), or ``default``, a set fitted
to uct's games per board size (``training.tuning``) where one is shipped, the study set elsewhere
(``Territory.params_for`` says which sizes and why), or a parameter file's path. A search asks for
the set of its board (``params_for(size)``); ``params`` is the study set (with the options given).

Two kernels compute it: ``kernel=bitboard`` (the default; ``agents.evaluation.territory_bitboard``,
boards up to 11x11, the mailbox kernel on 12x12; its speed is in ``benchmarks/README.md``,
``benchmarks/search/territory_speed.py``) and ``kernel=mailbox`` (``agents.evaluation.territory_mailbox``,
the reference the tests hold the other to).

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> evaluator = make_evaluator("territory")
>>> board = Board(8)
>>> v = evaluator.evaluate(board)   # the symmetric start: only the tie bonus of the side to move
>>> round(v, 6) == round(evaluator.evaluate(Board.from_text(board.text()[:-1] + "b")), 6), 0 < v < 0.5
(True, True)
>>> float(make_evaluator("territory:weights=study,mob=4").params_for(8)[PARAM_NAMES.index("mob")])
4.0
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from agents.evaluation.evaluator import Evaluator, register_evaluator
from agents.evaluation.territory_bitboard import territory_bb_kernel
from agents.evaluation.territory_mailbox import KERNELS, PARAM_NAMES, territory_kernel
from agents.evaluation.territory_weights import STUDY, as_array, check_params, packaged_weights, read_weights
from agents.options import OptionError, opt

__all__ = ["Territory", "WEIGHT_SETS"]

WEIGHT_SETS = ("default", "study")  # the named sets of the ``weights`` option; anything else is a path


@register_evaluator(
    "territory",
    options={
        "kappa": opt("tie bonus of the side to move in the territory counts (unset: the set's)", ge=-0.2, le=0.2),
        "scale": opt("tanh scale, in squares per unit per board square (unset: the weight set's)", gt=0),
        "mob": opt("weight of the mobility penalty (unset: the weight set's)", ge=0),
        "a1": opt("phase weight: t1 fades as 1 - a1 s (unset: the weight set's)", ge=0, le=1),
        "a2": opt("phase weight of t2, king-distance territory (unset: the weight set's)", ge=0),
        "a3": opt("phase weight of c1, queen-distance position (unset: the weight set's)", ge=0),
        "a4": opt("phase weight of c2, king-distance position (unset: the weight set's)", ge=0),
        "scale_phase": opt("the tanh scale grows as exp(scale_phase s) (unset: the weight set's)", ge=-10, le=10),
        "weights": opt(
            "weight set: default (fitted per board size where one is shipped, else study), study (the "
            "published 10x10 tuning on every size) or the path of a parameter file (training.tuning)"
        ),
        "kernel": opt(
            "implementation: bitboards up to 11x11 (agents.evaluation.territory_bitboard), or the mailbox reference",
            choices=KERNELS,
        ),
    },
)
class Territory(Evaluator):
    """Lieberum's territory + mobility evaluation (see the module docstring for every option)."""

    name = "territory"

    def __init__(
        self,
        kappa: Optional[float] = None,
        scale: Optional[float] = None,
        mob: Optional[float] = None,
        a1: Optional[float] = None,
        a2: Optional[float] = None,
        a3: Optional[float] = None,
        a4: Optional[float] = None,
        scale_phase: Optional[float] = None,
        weights: str = "default",
        kernel: str = "bitboard",
    ) -> None:
        given = dict(zip(PARAM_NAMES, (kappa, scale, mob, a1, a2, a3, a4, scale_phase), strict=True))
        self.overrides = {name: value for name, value in given.items() if value is not None}
        check_params(self.overrides, OptionError, "territory")
        if kernel not in KERNELS:
            raise OptionError(f"kernel={kernel!r}: must be one of {', '.join(KERNELS)}")
        if not isinstance(weights, str) or not weights:
            raise OptionError(f"weights={weights!r}: give default, study or the path of a parameter file")
        self.weights = weights
        # a parameter file is read (and checked) now: a bad path fails here, not in a search
        self._file = None if weights in WEIGHT_SETS else read_weights(weights)
        super().__init__(self._overridden(as_array(STUDY)))
        self._by_size: dict[int, np.ndarray] = {}
        if kernel == "bitboard":
            self.kernel = territory_bb_kernel
        else:
            self.kernel = territory_kernel

    def _overridden(self, params: np.ndarray) -> np.ndarray:
        """A copy of ``params`` with the weights given as options in place."""
        out = params.copy()
        for name, value in self.overrides.items():
            out[PARAM_NAMES.index(name)] = value
        return out

    def params_for(self, size: int) -> np.ndarray:
        """The weights on a ``size`` x ``size`` board: with ``weights=default`` the fitted set
        shipped for that size (``agents/evaluation/weights/``: a size gets one only where an SPRT
        accepted its fit against the study set, ``docs/benchmarks-history.md``, "Evaluation
        weights fitted per board size"); the other sizes keep the study set: no games were generated and
        no fit tested for them, and a set is not carried over untested. With ``weights=PATH``
        the file's set on its own size, the default elsewhere; ``weights=study``: the study set.
        Options given (``kappa=0.05``) replace their weight in any set."""
        if size not in self._by_size:
            found = None
            if self._file is not None and self._file[0] == size:
                found = self._file[1]
            elif self.weights != "study":
                found = packaged_weights(size)
            self._by_size[size] = self.params if found is None else self._overridden(found)
        return self._by_size[size]
