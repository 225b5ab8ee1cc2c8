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
  a4 s c2`` (``f1(0) = 1``: in the filling phase only ``t1`` counts; the defaults are the public
  10x10 tuning, see the README's "Engines" section for the arena runs).
* Mobility ``m``: for each amazon, ``alpha = sum 2^-k N(b)`` over the squares ``b`` it reaches in one
  queen move (``k`` steps away) that the opponent also reaches, ``N(b)`` = empty king neighbours of
  ``b``; the penalty ``mob * s * 2^(-alpha / 4)`` (``f(0, alpha) = 0``, decreasing in ``alpha``,
  ``2 f(w, 5) < f(w, 0)``) is added for the opponent's amazons and subtracted for one's own.

The value is ``tanh((t + m) / (scale * squares))`` for the side to move, in ``(-1, 1)``; a side to
move with no move scores -1.

Two kernels compute it: ``kernel=bitboard`` (the default; ``agents.evaluation.territory_bitboard``,
boards up to 11x11, the mailbox kernel on 12x12; its speed is in ``benchmarks/README.md``,
``benchmarks/territory_speed.py``) and ``kernel=mailbox`` (``agents.evaluation.territory_mailbox``,
the reference the tests hold the other to).

>>> from amazons_env import Board
>>> evaluator = make_evaluator("territory")
>>> board = Board(8)
>>> v = evaluator.evaluate(board)   # the symmetric start: only the tie bonus of the side to move
>>> round(v, 6) == round(evaluator.evaluate(Board.from_text(board.text()[:-1] + "b")), 6), 0 < v < 0.5
(True, True)
"""

from __future__ import annotations

import numpy as np

from agents.evaluation.evaluator import Evaluator, make_evaluator, register_evaluator
from agents.evaluation.territory_bitboard import territory_bb_kernel
from agents.evaluation.territory_mailbox import (
    FAR,
    KERNELS,
    PARAM_NAMES,
    distance_maps,
    features,
    mobility_penalty,
    phase_score,
    squash,
    territory_kernel,
)
from agents.options import OptionError, opt

__all__ = [
    "Territory",
    "territory_kernel",
    "distance_maps",
    "features",
    "phase_score",
    "mobility_penalty",
    "squash",
    "FAR",
    "PARAM_NAMES",
    "KERNELS",
    "make_evaluator",
]


@register_evaluator(
    "territory",
    options={
        "kappa": opt("tie bonus for the side to move in the territory counts", ge=-0.2, le=0.2),
        "scale": opt("tanh scale, in squares per unit per board square", gt=0),
        "mob": opt("weight of the mobility penalty", ge=0),
        "a1": opt("phase weight: t1 fades as 1 - a1 s", ge=0, le=1),
        "a2": opt("phase weight of t2 (king-distance territory)", ge=0),
        "a3": opt("phase weight of c1 (queen-distance position)", ge=0),
        "a4": opt("phase weight of c2 (king-distance position)", ge=0),
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
        kappa: float = 0.1,
        scale: float = 0.1,
        mob: float = 10.0,
        a1: float = 0.6,
        a2: float = 0.2,
        a3: float = 0.4,
        a4: float = 0.5,
        kernel: str = "bitboard",
    ) -> None:
        if not abs(kappa) <= 0.2:
            raise OptionError(f"kappa={kappa!r}: Lieberum's tie bonus must satisfy |kappa| <= 0.2")
        if not scale > 0:
            raise OptionError(f"scale={scale!r}: must be > 0 (squares per unit of tanh input / board squares)")
        for name, value in (("mob", mob), ("a1", a1), ("a2", a2), ("a3", a3), ("a4", a4)):
            if not value >= 0:
                raise OptionError(f"{name}={value!r}: phase weights and the mobility penalty must be >= 0")
        if a1 > 1:
            raise OptionError(f"a1={a1!r}: f1 = 1 - a1 s must stay >= 0, so a1 <= 1")
        if kernel not in KERNELS:
            raise OptionError(f"kernel={kernel!r}: must be one of {', '.join(KERNELS)}")
        super().__init__(np.array([kappa, scale, mob, a1, a2, a3, a4], dtype=np.float64))
        if kernel == "bitboard":
            self.kernel = territory_bb_kernel
        else:
            self.kernel = territory_kernel
