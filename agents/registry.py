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

__all__ = ["Registry", "AGENTS", "DEFAULT_OPPONENT", "register", "make", "parse_spec", "available", "AGENT_MODULES"]

AGENT_MODULES = (
    "agents.random_agent",
    "agents.study_search",
    "agents.alphabeta",
    "agents.mcts",
    "agents.cnn",
)

class Registry:
    """Named factories, loaded from ``modules`` on first use (used for agents and evaluators)."""

    def __init__(self, kind: str, modules: tuple[str, ...]) -> None:
        self.kind = kind
        self.modules = modules
        self.factories: dict[str, Callable[..., Any]] = {}
        self._loaded = False

    def register(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: make ``factory`` reachable as ``make(name, **options)``."""
        def decorate(factory: Callable[..., Any]) -> Callable[..., Any]:
            if self.factories.get(name, factory) is not factory:
                raise ValueError(f"{self.kind} name {name!r} is registered twice")
            self.factories[name] = factory
            return factory
        return decorate

    def available(self) -> list[str]:
        """Names of everything registered."""
        self._load()
        return sorted(self.factories)

    def _load(self) -> None:
        if not self._loaded:
            for module in self.modules:
                importlib.import_module(module)
            self._loaded = True

    def make(self, spec: str, **options: Any) -> Any:
        """Build from a spec string; keyword options override the string's. Sets ``.spec``."""
        self._load()
        name, parsed = parse_spec(spec)
        if name not in self.factories:
            raise ValueError(f"unknown {self.kind} {name!r}; available: {', '.join(sorted(self.factories))}")
        parsed.update(options)
        try:
            made = self.factories[name](**parsed)
        except TypeError as error:
            raise ValueError(f"{self.kind} spec {spec!r}: {error}") from None
        made.spec = name + (":" + ",".join(f"{k}={v}" for k, v in parsed.items()) if parsed else "")
        return made


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
            raise ValueError(f"spec {spec!r}: option {item!r} is not key=value")
        options[key.strip()] = _value(value.strip())
    if not name:
        raise ValueError(f"spec {spec!r} has no name")
    return name, options


#: The strongest agent we have (README, "Strength at equal time per move"): the command line's
#: default opponent.
DEFAULT_OPPONENT = "alphabeta"

AGENTS = Registry("agent", AGENT_MODULES)
register = AGENTS.register
available = AGENTS.available


def make(spec: Union[str, Agent], **options: Any) -> Agent:
    """An agent from a spec string (or the agent itself, passed through)."""
    if isinstance(spec, Agent):
        if options:
            raise ValueError(f"options {sorted(options)} given with an agent object {spec!r}")
        return spec
    return AGENTS.make(spec, **options)
