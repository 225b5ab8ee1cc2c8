"""The old name ``cnn``, kept for one version: it named both the learned agent and the value-net evaluator.

Each use warns (``DeprecationWarning``) and says the new spec:

* the agent ``cnn`` (``search=uct``, the default) is ``uct-net`` (``agents.search.uct_net``), its
  ``net_mix``, ``net_top``, ``net_depth``, ``net_value`` and ``net_runtime`` now ``mix``, ``top``,
  ``depth``, ``value`` and ``runtime``;
* the agent ``cnn:search=S`` for another search ``S`` (``alphabeta``, ``two-iteration``, ...) is
  ``S:eval=value-net``, with ``weights`` and ``threads`` going to the evaluator;
* the evaluator ``cnn`` is ``value-net`` (``agents.evaluation.value_net``);
* this module's ``CNNEvaluator``, ``Net``, ``WEIGHTS``, ``weights_path`` and ``inference_module`` are
  ``ValueNetEvaluator``, ``agents.nets.inference.ValueNet``, ``agents.nets.store.VALUE_WEIGHTS``,
  ``agents.nets.store.weights_path`` and ``agents.nets.inference.inference_module``.

>>> import warnings
>>> from agents import make
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     agent = make("cnn:search=alphabeta,depth=1")
>>> type(agent).__name__, agent.evaluator.name, str(caught[0].message).split(";")[0]
('AlphaBeta', 'value-net', "agent spec 'cnn:search=alphabeta,depth=1' is 'alphabeta:eval=value-net,depth=1' now")
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

from agents.base import Agent
from agents.evaluation.evaluator import register_evaluator
from agents.evaluation.value_net import THREADS_OPTION, WEIGHTS_OPTION, ValueNetEvaluator
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES
from agents.nets.store import VALUE_WEIGHTS
from agents.options import OptionError, opt
from agents.registry import format_spec, make, register

__all__ = ["cnn_agent", "cnn_evaluator"]

_LATER = "; the old name goes away in the next version"
_NET_DEFAULTS = {"weights": "default", "threads": 1}


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"{old} is {new} now{_LATER}", DeprecationWarning, stacklevel=3)


@register_evaluator(
    "cnn",
    options={
        "weights": WEIGHTS_OPTION,
        "threads": THREADS_OPTION,
        "chunk": opt("positions per forward pass at most", ge=1),
    },
)
def cnn_evaluator(weights: str = "default", threads: int = 1, chunk: int = 512) -> ValueNetEvaluator:
    """The old name of the value-net evaluator (deprecated: use value-net)."""
    _deprecated("evaluator 'cnn'", "'value-net'")
    return ValueNetEvaluator(weights, threads, chunk)


@register(
    "cnn",
    forward="search",
    provides=("eval",),
    options={
        "search": opt(
            "uct: the uct-net agent; or a search that the value net evaluates for (an agent taking eval=, "
            "e.g. alphabeta); its options go to it",
            kind="agent",
        ),
        "weights": opt(
            "committed weights by name or a model file path without its suffix: with search=uct a "
            "policy-value net (default: pv-uct-8x8 on 8x8, pv-uct-10x10 on 10x10; pv-8x8), else a "
            "value net (default: ResValueNet, study: StudyCNN)"
        ),
        "threads": THREADS_OPTION,
        "net_mix": opt("search=uct: uct-net's mix", ge=0, le=1),
        "net_top": opt("search=uct: uct-net's top", ge=0),
        "net_depth": opt("search=uct: uct-net's depth", ge=0, le=1),
        "net_value": opt("search=uct: uct-net's value", ge=0, le=1),
        "net_runtime": opt(f"search=uct: {RUNTIME_HELP}", choices=RUNTIMES),
    },
)
def cnn_agent(
    search: str = "uct",
    weights: str = "default",
    threads: int = 1,
    net_mix: Optional[float] = None,
    net_top: Optional[int] = None,
    net_depth: Optional[int] = None,
    net_value: Optional[float] = None,
    net_runtime: Optional[str] = None,
    seed: Optional[int] = None,
    **options: Any,
) -> Agent:
    """The old name of the learned agent (deprecated: use uct-net, or SEARCH:eval=value-net)."""
    guide = {
        k: v
        for k, v in (
            ("mix", net_mix),
            ("top", net_top),
            ("depth", net_depth),
            ("value", net_value),
            ("runtime", net_runtime),
        )
        if v is not None
    }
    net = {k: v for k, v in (("weights", weights), ("threads", threads)) if v != _NET_DEFAULTS[k]}
    old = format_spec("cnn", {"search": search, **net, **{"net_" + k: v for k, v in guide.items()}, **options})
    if search == "uct":
        if weights in VALUE_WEIGHTS and weights != "default":
            raise OptionError(
                f"weights={weights}: value-net weights; search=uct takes a policy-value net "
                "(default, pv-8x8, or a model file path); the value net plays with search=alphabeta"
            )
        net = {("net_threads" if k == "threads" else k): v for k, v in net.items()}  # uct-net's threads are trees
        _deprecated(f"agent spec {old!r}", repr(format_spec("uct-net", {**net, **guide, **options})))
        return make("uct-net", weights=weights, net_threads=threads, seed=seed, **guide, **options)
    if guide:
        raise OptionError(f"{', '.join('net_' + k for k in guide)}: options of search=uct, not of search={search}")
    if search == "cnn":
        raise OptionError("search=cnn: name a search such as uct, alphabeta or two-iteration")
    _deprecated(f"agent spec {old!r}", repr(format_spec(search, {"eval": "value-net", **net, **options})))
    return make(search, eval=ValueNetEvaluator(weights, threads), seed=seed, **options)


#: the names this module defined before the split, and where they are now
_MOVED = {
    "CNNEvaluator": ("agents.evaluation.value_net", "ValueNetEvaluator"),
    "Net": ("agents.nets.inference", "ValueNet"),
    "WEIGHTS": ("agents.nets.store", "VALUE_WEIGHTS"),
    "inference_module": ("agents.nets.inference", "inference_module"),
    "weights_path": ("agents.nets.store", "weights_path"),
}


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, new = _MOVED[name]
    warnings.warn(f"agents.evaluation.cnn.{name} is {module}.{new} now{_LATER}", DeprecationWarning, stacklevel=2)
    if name == "weights_path":  # it looked up value nets only, the size defaulting to 10
        from agents.nets.store import weights_path

        return lambda weights="default", size=10: weights_path(weights, size, VALUE_WEIGHTS)
    return getattr(importlib.import_module(module), new)
