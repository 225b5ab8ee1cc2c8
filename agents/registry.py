"""The agent registry: ``make("two-iteration:depth=3,eval=improved")`` or ``make("random", seed=1)``.

A spec string is ``name`` or ``name:key=value,key=value``; values are read as int, float,
``true``/``false`` or left as strings. Options given as keywords override those in the string.
Agent modules register their factories with ``@register("name")``; the modules listed in
``AGENT_MODULES`` are imported on first use.

>>> parse_spec("two-iteration:depth=3,eval=improved,jitter=false")
('two-iteration', {'depth': 3, 'eval': 'improved', 'jitter': False})
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Union

from .base import Agent

__all__ = ["register", "make", "parse_spec", "available", "AGENT_MODULES"]

AGENT_MODULES = (
    "agents.random_agent",
)

_FACTORIES: dict[str, Callable[..., Agent]] = {}
_loaded = False


def register(name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Decorator: make ``factory`` reachable as ``make(name, **options)``."""
    def decorate(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        if name in _FACTORIES and _FACTORIES[name] is not factory:
            raise ValueError(f"agent name {name!r} is registered twice")
        _FACTORIES[name] = factory
        return factory
    return decorate


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in AGENT_MODULES:
            importlib.import_module(module)
        _loaded = True


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the name and an options dict."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent spec {spec!r}: option {item!r} is not key=value")
        options[key.strip()] = _value(value.strip())
    if not name:
        raise ValueError(f"agent spec {spec!r} has no agent name")
    return name, options


def available() -> list[str]:
    """Names of all registered agents."""
    _load()
    return sorted(_FACTORIES)


def make(spec: Union[str, Agent], **options: Any) -> Agent:
    """An agent from a spec string (or the agent itself, passed through)."""
    if isinstance(spec, Agent):
        if options:
            raise ValueError(f"options {sorted(options)} given with an agent object {spec!r}")
        return spec
    _load()
    name, parsed = parse_spec(spec)
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(sorted(_FACTORIES))}")
    parsed.update(options)
    try:
        agent = _FACTORIES[name](**parsed)
    except TypeError as error:
        raise ValueError(f"agent spec {spec!r}: {error}") from None
    agent.spec = name + (":" + ",".join(f"{k}={v}" for k, v in parsed.items()) if parsed else "")
    return agent
