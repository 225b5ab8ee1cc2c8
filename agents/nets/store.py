"""Where nets come from: the committed weights by name, model files by path, one cache per process.

Named weights come per board size: a board is played by the net trained on its size, or on the
nearest size with weights (ties: the larger). ``VALUE_WEIGHTS`` are value nets (the ``value-net``
evaluator), ``POLICY_VALUE_WEIGHTS`` policy-value nets (``uct-net``, ``pvmcts``); any other
``weights`` text is a model file path without its suffix (``agents.nets.export``).

``value_net`` and ``policy_value_net`` load a file (torch needed) once per process and hand every later caller
the same object: the cache is keyed by the file (its path, and its modification time, so a file
rewritten by a training run is read again) and by how it runs (the runtime and its threads). The
nets are inference-only, so agents that share one never disturb each other.

>>> weights_path("default", 8, VALUE_WEIGHTS).name, weights_path("default", 12, VALUE_WEIGHTS).name
('resvalue-8x8', 'resvalue-10x10')
>>> weights_path("default", 10, POLICY_VALUE_WEIGHTS).name, weights_path("my/net", 8, VALUE_WEIGHTS).name
('pv-uct-10x10', 'net')
>>> value_net("default", 8) is value_net("default", 8)
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from agents.nets.inference import PVNet, ValueNet, use_threads

__all__ = [
    "WEIGHTS_DIR",
    "VALUE_WEIGHTS",
    "POLICY_VALUE_WEIGHTS",
    "weights_path",
    "trained_sizes",
    "value_net",
    "policy_value_net",
]

#: the committed weights (package data)
WEIGHTS_DIR = Path(__file__).parent / "weights"
#: committed value nets by name and the board size they were trained on: ``default`` our
#: ``ResValueNet``, ``study`` the study's ``StudyCNN``
VALUE_WEIGHTS: dict[str, dict[int, str]] = {
    "default": {8: "resvalue-8x8", 10: "resvalue-10x10"},
    "study": {8: "studycnn-8x8", 10: "studycnn-10x10"},
}
#: committed policy-value nets by name and board size: ``default`` is the 8x8 train-loop's eighth
#: generation (``experiments/expert-iteration-8x8``) fine-tuned on ``uct``'s own moves of both sizes,
#: the size it serves last: on 8x8 on 19,771 of its 10x10 moves, then 50,467 of its 8x8 moves, on
#: 10x10 the other way round (``experiments/pv-10x10/command.txt``; the 8x8 net before them,
#: ``pv-8x8`` fine-tuned on uct's 8x8 moves alone, is ``experiments/uct-net-8x8/uct-moves-ft6``);
#: ``pv-8x8`` the net of ``pvmcts``' self-play loop (``experiments/pv-8x8``)
POLICY_VALUE_WEIGHTS: dict[str, dict[int, str]] = {
    "default": {8: "pv-uct-8x8", 10: "pv-uct-10x10"},
    "pv-8x8": {8: "pv-8x8"},
}

_CACHE: dict[tuple[Any, ...], Any] = {}


def weights_path(weights: str, size: int, named: Mapping[str, Mapping[int, str]]) -> Path:
    """The model file base (no suffix) of the weights ``named[weights]`` for ``size`` x ``size``
    boards (trained on that size, else on the nearest), or ``weights`` itself as a path."""
    if weights in named:
        trained = named[weights]
        return WEIGHTS_DIR / trained[min(trained, key=lambda s: (abs(s - size), -s))]
    return Path(weights)


def trained_sizes(weights: str, named: Mapping[str, Mapping[int, str]]) -> tuple[int, ...]:
    """The board sizes that named weights have a net for; ``(0,)`` for a path (one file for all).
    An agent loads these when it is built, so that a bad file fails there and not in a game.

    >>> trained_sizes("default", VALUE_WEIGHTS), trained_sizes("my/net", VALUE_WEIGHTS)
    ((8, 10), (0,))
    """
    return tuple(named[weights]) if weights in named else (0,)


def _cached(path: Path, how: tuple[Any, ...], load: Callable[[], Any]) -> Any:
    """The object ``load`` makes of the model file ``path``, made once per file version and ``how``."""
    try:
        version = path.with_suffix(".safetensors").stat().st_mtime_ns
    except OSError:  # no file: let the loader say so, in its words
        version = None
    key = (path.resolve(), version, *how)
    if version is None or key not in _CACHE:
        made = load()
        if version is not None:
            _CACHE[key] = made
        return made
    return _CACHE[key]


def value_net(weights: str, size: int) -> ValueNet:
    """The value net of ``weights`` (a name of ``VALUE_WEIGHTS`` or a path) for ``size`` boards."""
    path = weights_path(weights, size, VALUE_WEIGHTS)
    return _cached(path, ("value",), lambda: ValueNet.load(path))


def policy_value_net(weights: str, size: int, threads: int = 1, runtime: str = "auto") -> PVNet:
    """The policy-value net of ``weights`` (a name of ``POLICY_VALUE_WEIGHTS`` or a path) for
    ``size`` boards, run on ``threads`` torch threads by ``runtime`` (``agents.nets.inference.PVNet``)."""
    path = weights_path(weights, size, POLICY_VALUE_WEIGHTS)
    use_threads(threads)  # on a cached net too: the threads are the process's, set per caller
    return _cached(path, ("policy-value", int(threads), runtime), lambda: PVNet.load(path, threads, runtime))
