"""The presets of the one Monte Carlo tree search (``agents.search.uct``): ``mcts``, ``uct-net``, ``pvmcts``.

Each is a registry name for a configuration of the ``UCT`` agent, with the options it has always
taken (``agents.options``):

* ``mcts``: a move tree (whole moves as children) whose nodes keep their ``k`` best moves by the
  evaluation (``kq`` queen moves scored first), every one open (no progressive widening).
* ``uct-net``, our learned agent: ``uct`` guided by the policy-value net's priors and value
  (``agents.search.net_guide.NetGuide``; default weights ``pv-uct-8x8`` on 8x8, ``pv-uct-10x10`` on
  10x10, the nearest size's elsewhere). Options: uct's, and the guide's.
* ``pvmcts``: the net at every expansion: ``uct-net`` with ``leaves=batch`` positions valued per
  forward pass (the net's value in place of the search's, ``leaf_value=1``), its priors on every
  node the simulations expand (``mix=1``), no other guidance.

>>> from amazons_env import Board
>>> from agents import make
>>> agent = make("mcts:sims=20,k=4")
>>> result = agent.search(Board(6))
>>> result.simulations, Board(6).is_legal(result.move), agent.config.keep, agent.tree
(20, True, 4, 'move')
"""

from __future__ import annotations

from typing import Any, Optional

from agents.nets import require_torch
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES
from agents.nets.store import POLICY_VALUE_WEIGHTS, trained_sizes
from agents.options import OptionError, opt
from agents.registry import register
from agents.resources import check_threads
from agents.search.agent import PROVE_NODES
from agents.search.net_guide import GUIDE_AT, MAX_DEPTH, MAX_LEAVES, MAX_VALUE_VISITS, VALUE_VISITS, NetGuide
from agents.search.uct import OPTIONS, UCT

__all__ = ["mcts", "uct_net", "pvmcts"]

RUNTIME = opt(RUNTIME_HELP, choices=RUNTIMES)  # the net's runtime (``agents.nets.onnx_runtime``)


def _by_size(setting: dict[int, int]) -> str:
    """A per-size setting in an option's help: ``64 on 8x8, 8 on 10x10, 0 on the others``."""
    return ", ".join(f"{n} on {s}x{s}" for s, n in sorted(setting.items())) + ", 0 on the others"


@register(
    "mcts",
    forward="eval",
    options={
        **{key: OPTIONS[key] for key in ("time", "sims", "eval", "kq", "c", "tau", "reuse", "endgame", "prove")},
        "k": opt("whole moves kept per position", ge=1),
    },
)
def mcts(
    time: Optional[float] = None,
    sims: Optional[int] = None,
    eval: Any = "territory",
    k: int = 16,
    kq: int = 8,
    c: float = 1.5,
    tau: float = 0.05,
    reuse: bool = True,
    endgame: int = 300,
    prove: int = PROVE_NODES,
    seed: Optional[int] = None,
    **eval_options: Any,
) -> UCT:
    """``mcts``: uct on a move tree whose nodes keep their ``k`` best whole moves, all open."""
    agent = UCT(time, sims, eval, "move", c, tau, 0.0, kq=kq, k=k, prior="eval", endgame=endgame, prove=prove,
                reuse=reuse, seed=seed, **eval_options)  # fmt: skip
    agent.name = "mcts"
    return agent


@register(
    "uct-net",
    extends="uct",
    options={
        "weights": opt(
            "committed policy-value weights by name (default: pv-uct-8x8 on 8x8, pv-uct-10x10 on 10x10; "
            "pv-8x8) or a model file path without its suffix"
        ),
        "mix": opt("weight of the net's priors against uct's own", ge=0, le=1),
        "top": opt("queen moves per guided position whose arrows get the net's priors", ge=0),
        "depth": opt(
            "0: the net guides the root; 1: also the replies to its top moves; 2, 3: on down the top "
            "moves' lines (top^depth positions at the deepest level)",
            ge=0,
            le=MAX_DEPTH,
        ),
        "value": opt("weight of the net's value in the replies' first-play values", ge=0, le=1),
        "guide_at": opt(
            "during the search, every position visited this many times gets the net's priors too "
            "(0: only the guidance before the simulations; none: the board size's setting, "
            f"{_by_size(GUIDE_AT)}; given, value_visits is 0 unless given too)",
            ge=0,
        ),
        "value_visits": opt(
            "with guide_at: the simulations that the net's value of each position it guides counts for "
            "(backed up to the root; 0: its priors only; none: with guide_at not given either, the board size's "
            f"setting, {_by_size(VALUE_VISITS)})",
            ge=0,
            le=MAX_VALUE_VISITS,
        ),
        "leaves": opt(
            "positions the net values in one batch: every position below the root the simulations visit leaf_at "
            "times gets the net's priors, and its value blended into the value that simulation backed up "
            "through it (leaf_value; 0: off; one thread)",
            ge=0,
            le=MAX_LEAVES,
        ),
        "leaf_at": opt("with leaves: the visits at which a position is valued (at least expand_at's)", ge=1),
        "leaf_value": opt(
            "with leaves: the net's weight in a valued position's value, against the search's", ge=0, le=1
        ),
        "net_threads": opt("torch threads for the forward passes (0: leave torch's setting)", ge=0, le=1024),
        "runtime": RUNTIME,
    },
)
def uct_net(
    weights: str = "default",
    mix: float = 0.5,
    top: int = 8,
    depth: int = 1,
    value: float = 0.0,
    guide_at: Optional[int] = None,
    value_visits: Optional[int] = None,
    leaves: int = 0,
    leaf_at: int = 1,
    leaf_value: float = 0.5,
    net_threads: int = 1,
    runtime: str = "auto",
    **options: Any,
) -> UCT:
    """``uct-net``: uct guided by the policy-value net's priors (and value): before the simulations,
    between parts of them, or at the leaves in batches (``agents.search.net_guide``)."""
    require_torch("the uct-net agent (uct guided by the policy-value net)")
    agent = UCT(**options)
    if agent.tree != "split":
        raise OptionError("tree='move': the net's priors are for a split tree (queen move, then arrow)")
    for key, v in (("mix", mix), ("value", value), ("leaf_value", leaf_value)):
        if not (isinstance(v, (int, float)) and 0 <= v <= 1):
            raise OptionError(f"{key}={v!r}: must be a number in 0..1")
    if isinstance(top, bool) or not (isinstance(top, int) and top >= 0):
        raise OptionError(f"top={top!r}: must be a whole number >= 0")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise OptionError(f"depth={depth!r}: must be a whole number from 0 (the root) to {MAX_DEPTH}")
    if guide_at is not None and (isinstance(guide_at, bool) or not isinstance(guide_at, int) or guide_at < 0):
        raise OptionError(f"guide_at={guide_at!r}: a whole number >= 0 (0: off) or none (the size's setting)")
    if value_visits is not None and (
        isinstance(value_visits, bool) or not isinstance(value_visits, int) or not 0 <= value_visits <= MAX_VALUE_VISITS
    ):
        raise OptionError(f"value_visits={value_visits!r}: must be a whole number from 0 (off) to {MAX_VALUE_VISITS}")
    if value_visits and not guide_at:  # given, so that it never values nothing on some sizes
        raise OptionError(
            f"value_visits={value_visits}: needs guide_at >= 1 given (guide_at={guide_at!r}; the positions it "
            "values are guide_at's, and not given it is the board size's setting, 0 on some sizes)"
        )
    if isinstance(leaves, bool) or not isinstance(leaves, int) or not 0 <= leaves <= MAX_LEAVES:
        raise OptionError(f"leaves={leaves!r}: must be a whole number from 0 (off) to {MAX_LEAVES}")
    if isinstance(leaf_at, bool) or not isinstance(leaf_at, int) or leaf_at < 1:
        raise OptionError(f"leaf_at={leaf_at!r}: must be a whole number >= 1")
    if leaves and (guide_at or value_visits or agent.threads > 1):
        raise OptionError(
            f"leaves={leaves}: the positions it values get the net's priors and value already, so guide_at "
            f"and value_visits are for searches without it (guide_at={guide_at!r}, value_visits="
            f"{value_visits!r}); and it serves one thread (threads={agent.threads})"
        )
    # ``threads`` (uct's) are the threads searching the guided tree; ``net_threads`` the net's
    guide = NetGuide(str(weights), mix, top, depth, value, guide_at, value_visits, leaves, leaf_value,
                     check_threads(net_threads, "net_threads"), str(runtime))  # fmt: skip
    for size in trained_sizes(guide.weights, POLICY_VALUE_WEIGHTS):  # a bad file fails here, not in a game
        guide.net(size)
    agent.config = agent.config._replace(leaf_at=max(leaf_at, agent.config.expand_at))  # a node is expanded first
    agent.guide, agent.name = guide, "uct-net"
    return agent


@register(
    "pvmcts",
    options={
        **{key: OPTIONS[key] for key in ("time", "sims", "c", "reuse", "prove")},
        "weights": opt("committed policy-value weights by name (default) or a model file path without suffix"),
        "batch": opt("positions per forward pass", ge=1, le=MAX_LEAVES),
        "threads": opt("torch threads for the forward passes (0: leave torch's setting)", ge=0),
        "runtime": RUNTIME,
    },
)
def pvmcts(
    time: Optional[float] = None,
    sims: Optional[int] = None,
    weights: str = "default",
    c: float = 1.5,
    batch: int = 8,
    threads: int = 1,
    runtime: str = "auto",
    reuse: bool = True,
    prove: int = PROVE_NODES,
    seed: Optional[int] = None,
) -> UCT:
    """``pvmcts``: uct-net with the net at every position the simulations reach: its priors, and its value
    in place of the search's, ``batch`` positions per forward pass."""
    check_threads(threads)  # ``threads`` are the net's here: ``uct-net``'s ``net_threads``
    agent = uct_net(weights, mix=1.0, depth=0, guide_at=0, leaves=batch, leaf_value=1.0, net_threads=threads,
                    runtime=runtime, time=time, sims=sims, c=c, reuse=reuse, prove=prove, seed=seed)  # fmt: skip
    agent.name = "pvmcts"
    return agent
