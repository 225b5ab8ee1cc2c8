"""The agent registry: ``make("two-iteration:depth=3,eval=improved")`` or ``make("random", seed=1)``.

**Spec strings.** ``NAME[:OPTIONS]`` names a registered agent; ``FILE.py:CLASS[:OPTIONS]`` or
``package.module:CLASS[:OPTIONS]`` names your own (a class or factory taking the options as
keywords and returning an ``Agent``). ``OPTIONS`` is ``key=value,key=value``; values are read as
int, float, ``true``/``false``, ``none`` or left as strings. Options given as keywords override
those in the string. Registered names never contain ``.`` or ``/``, so the forms cannot be confused.

**Options** are checked before the factory runs, against a schema built from the factory's
signature and the declaration given to ``register`` (``agents.options``): an unknown option or a
bad value raises ``OptionError`` (a ``ValueError``) naming the agent and the option.

>>> parse_spec("two-iteration:depth=3,eval=improved,jitter=false")
('two-iteration', {'depth': 3, 'eval': 'improved', 'jitter': False})
>>> parse_spec("examples/my_agent.py:Greedy:depth=2")
('examples/my_agent.py:Greedy', {'depth': 2})
>>> make("classic:dept=2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
agents.options.UnknownOptionError: agent 'classic': unknown option 'dept' (did you mean 'depth'?); options: ...
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from typing import Any, Callable, ClassVar, Mapping, Optional, Union

from amazons_env.errors import InvalidArgumentError, describe

from agents.base import Agent
from agents.options import Opt, OptionError, Schema, schema_of

__all__ = [
    "Registry",
    "AGENTS",
    "DEFAULT_OPPONENT",
    "STRONGEST",
    "strongest_installed",
    "installed",
    "register",
    "make",
    "parse_spec",
    "format_spec",
    "available",
    "schema",
    "AGENT_MODULES",
    "AGENT_HOMES",
]

#: Each registered agent's module: ``make(name)`` imports that one only (importing a search compiles
#: its numba kernels on a first run, so ``make("random")`` compiles none of theirs); ``available()``
#: imports them all.
AGENT_HOMES = {
    "random": "agents.random_agent",
    "two-iteration": "agents.search.study.agent",
    "classic": "agents.search.study.agent",
    "move-then-arrow": "agents.search.study.agent",
    "alphabeta": "agents.search.alphabeta.agent",
    "mcts": "agents.search.presets",
    "uct": "agents.search.uct",
    "uct-net": "agents.search.presets",
    "pvmcts": "agents.search.presets",
    "gumbel": "agents.search.gumbel.agent",
    "uci": "agents.protocols.uci_client",
}
AGENT_MODULES = tuple(dict.fromkeys(AGENT_HOMES.values()))

BARE = ""  # parse_spec's key for a bare first value (``uci:PATH``)
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
_CUSTOM = re.compile(
    r"(?P<name>(?:.+?\.py|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):[A-Za-z_]\w*)(?::(?P<rest>.*))?\Z", re.DOTALL
)
#: the module that defines each registry, so a spec-valued option can be resolved before it is used
_HOMES = {"agent": "agents.registry", "evaluator": "agents.evaluation.evaluator"}


class Registry:
    """Named factories with their option schemas, loaded from ``modules`` on first use (one for
    agents, one for evaluators). ``base``: the class every product must be an instance of;
    ``homes``: the module of each name, so that building one imports only its module."""

    BY_KIND: ClassVar[dict[str, "Registry"]] = {}

    def __init__(
        self,
        kind: str,
        modules: tuple[str, ...],
        base: Optional[type] = None,
        homes: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.kind = kind
        self.modules = modules
        self.homes = dict(homes or {})  # name -> the module that registers it, imported alone by ``factory``
        self.base = base
        self.factories: dict[str, Callable[..., Any]] = {}
        self._declared: dict[str, tuple[Any, ...]] = {}
        self._schemas: dict[str, Schema] = {}
        self._loaded = False
        Registry.BY_KIND[kind] = self

    def register(
        self,
        name: str,
        options: Optional[Mapping[str, Opt]] = None,
        forward: Optional[str] = None,
        passthrough: str = "",
        bare: Optional[str] = None,
        extends: Optional[str] = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: make ``factory`` reachable as ``make(name, **options)``. ``options``
        declares each parameter's help and range (``opt``); ``forward`` names the spec-valued
        option whose target takes the factory's ``**kwargs``; ``passthrough``: the help of
        ``**kwargs`` that go on unchecked; ``bare``: the option a bare first value sets (``uci:PATH``). See
        ``agents.options.schema_of``. ``extends``: a name registered before, whose options the
        factory's ``**kwargs`` take (a subclass adding options to its base's: ``uct-net``)."""
        if not _NAME.match(name):
            raise InvalidArgumentError(f"{self.kind} name {name!r}: use lower-case letters, digits, '-' and '_'")
        if extends is not None and (extends not in self.factories or forward or passthrough):
            raise InvalidArgumentError(
                f"{self.kind} {name!r}: extends={extends!r} must be registered first, "
                "and its options replace forward and passthrough"
            )

        def decorate(factory: Callable[..., Any]) -> Callable[..., Any]:
            if self.factories.get(name, factory) is not factory:
                raise InvalidArgumentError(f"{self.kind} name {name!r} is registered twice")
            self.factories[name] = factory
            self._declared[name] = (options, forward, passthrough, bare, extends)
            return factory

        return decorate

    def available(self) -> list[str]:
        """Names of everything registered."""
        self._load()
        return sorted(self.factories)

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True  # before importing: a module that asks for the registry must not recurse
            try:
                for module in self.modules:
                    importlib.import_module(module)
            except BaseException:
                self._loaded = False
                raise

    def factory(self, name: str) -> Callable[..., Any]:
        """The factory of a registered name or of a custom ``FILE.py:CLASS`` / ``module:CLASS``."""
        if ":" in name:  # your own FILE.py:CLASS or module:CLASS (a registered name has no colon)
            return self._custom(name)
        if name not in self.factories and name in self.homes:
            importlib.import_module(self.homes[name])  # its module alone, not every one of ``modules``
        if name not in self.factories:
            self._load()
        if name in self.factories:
            return self.factories[name]
        close = difflib.get_close_matches(name, list(self.factories), n=1, cutoff=0.6) if len(name) < 100 else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        for other in Registry.BY_KIND.values():
            if other is not self and name in other.factories:
                hint = f" ({name!r} is an {other.kind})"
        raise OptionError(
            f"unknown {self.kind} {describe(name)}{hint}; available: {', '.join(sorted(self.factories))}"
            "; or your own as path/to/file.py:Class or package.module:Class"
        )

    def schema(self, name: str) -> Schema:
        """The option schema of ``name`` (registered or custom)."""
        if name not in self._schemas:
            factory = self.factory(name)
            options, forward, passthrough, bare, extends = self._declared.get(name, (None, None, "", None, None))
            own = schema_of(factory, f"{self.kind} {name!r}", options, forward, resolve_spec, passthrough, bare)
            if extends is not None:  # the base's options, then the factory's own (which win)
                base = self.schema(extends)
                own = dataclasses.replace(
                    base, owner=own.owner, options={**base.options, **own.options}, bare=own.bare, doc=own.doc
                )
            self._schemas[name] = own
        return self._schemas[name]

    def validate(self, spec: str, /, **options: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """``(name, options as given, options checked)`` of a spec, without building anything."""
        if not isinstance(spec, str):
            raise OptionError(
                f"{self.kind} spec: expected a string such as 'alphabeta:time=1' or an object, "
                f"got {type(spec).__name__} {describe(spec)}"
            )
        name, parsed = parse_spec(spec)
        schema = self.schema(name)
        if BARE in parsed:  # ``uci:PATH``: the bare first value sets the declared option
            if schema.bare is None:
                raise OptionError(
                    f"spec {describe(spec)}: option {describe(parsed[BARE])} is not key=value"
                    "; your own agent: path/to/file.py:Class or package.module:Class"
                )
            parsed = {schema.bare: parsed.pop(BARE), **parsed}
        parsed.update(options)
        return name, parsed, schema.validate(parsed)

    def make(self, spec: str, /, **options: Any) -> Any:
        """Build from a spec string; keyword options override the string's. Sets ``.spec``."""
        name, parsed, checked = self.validate(spec, **options)
        try:
            made = self.factory(name)(**checked)
        except ValueError as error:
            if type(error) is not ValueError:  # our own error classes already say what they refused
                raise
            owner = f"{self.kind} {name!r}"
            raise OptionError(str(error) if str(error).startswith(owner) else f"{owner}: {error}") from None
        if self.base is not None and not isinstance(made, self.base):
            raise OptionError(
                f"{self.kind} spec {describe(spec)} built {describe(made)}, not an instance of "
                f"{self.base.__module__}.{self.base.__name__}: subclass it"
            )
        made.spec = format_spec(name, parsed)
        return made

    def _custom(self, name: str) -> Callable[..., Any]:
        target, _, attr = name.rpartition(":")
        if target.endswith(".py"):
            module = _load_file(target, self.kind)
        else:
            try:
                module = importlib.import_module(target)
            except ImportError as error:
                raise OptionError(f"{self.kind} {name!r}: cannot import {target!r} ({error})") from None
        factory = getattr(module, attr, None)
        if not callable(factory):
            public = sorted(n for n, v in vars(module).items() if isinstance(v, type) and not n.startswith("_"))
            raise OptionError(
                f"{self.kind} {name!r}: {target} has no class or function {attr!r}"
                f" (it defines {', '.join(public) or 'no classes'})"
            )
        return factory


def _load_file(path: str, kind: str) -> Any:
    """Import a Python file as a module, once per absolute path (a name derived from the path)."""
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise OptionError(f"{kind} file {describe(path)}: no such file")
    module_name = "_amazons_custom_" + hashlib.sha1(full.encode()).hexdigest()[:12]
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, full)
        assert spec is not None and spec.loader is not None  # a .py file (``_custom``): a source loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    return sys.modules[module_name]


def resolve_spec(kind: str, value: Any) -> Optional[Schema]:
    """The schema that a spec-valued option's ``value`` leads to (its options checked), or
    ``None`` for an object of the right class; ``OptionError`` for anything else."""
    if kind not in Registry.BY_KIND:
        importlib.import_module(_HOMES[kind])
    registry = Registry.BY_KIND[kind]
    if isinstance(value, str):
        name, _, _ = registry.validate(value)
        return registry.schema(name)
    if registry.base is not None and isinstance(value, registry.base):
        return None
    raise OptionError(f"expected {kind} spec text or an {kind} object, got {describe(value)}")


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    if len(text) > 100:  # no number is that long (and int() refuses over 4,300 digits)
        return text
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` (or ``"file.py:Class:key=value"``) into name and options."""
    if not isinstance(spec, str):
        raise OptionError(
            f"spec: expected a string such as 'alphabeta:time=1', got {type(spec).__name__} {describe(spec)}"
        )
    spec = spec.strip()
    custom = _CUSTOM.match(spec)
    if custom:
        name, rest = custom["name"], custom["rest"] or ""
    else:
        name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq and not options and not custom:
            options[BARE] = item  # a bare first value: the registry knows which option it sets
        elif not eq or not key.strip():
            raise OptionError(f"spec {describe(spec)}: option {describe(item)} is not key=value")
        else:
            options[key.strip()] = _value(value.strip())
    if not name:
        raise OptionError(f"spec {describe(spec)} has no name")
    return name, options


def format_spec(name: str, options: Mapping[str, Any]) -> str:
    """The spec string of ``name`` with ``options`` (the inverse of ``parse_spec``)."""

    def text(value: Any) -> str:
        return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

    return name + (":" + ",".join(f"{k}={text(v)}" for k, v in options.items()) if options else "")


#: Our agents from the strongest down, each with the extra it needs beyond the base install and that
#: extra's modules (README, "Strength at equal time per move": ``uct-net`` beats ``uct`` on 8x8 and 10x10).
STRONGEST: tuple[tuple[str, str, tuple[str, ...]], ...] = (("uct-net", "nn", ("torch", "safetensors")), ("uct", "", ()))


def installed(module: str) -> bool:
    """Whether ``module`` can be imported here, found without importing it (so without its cost).

    >>> installed("numpy"), installed("no_such_module")
    (True, False)
    """
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a module in sys.modules without a spec
        return False


def strongest_installed() -> str:
    """The strongest agent of ``STRONGEST`` whose modules are installed: ``uct-net`` with the ``nn``
    extra, ``uct`` without it."""
    return next(name for name, _, needs in STRONGEST if all(installed(module) for module in needs))


#: The command line's default opponent: the strongest agent that runs on this installation.
DEFAULT_OPPONENT = strongest_installed()

AGENTS = Registry("agent", AGENT_MODULES, Agent, AGENT_HOMES)
register = AGENTS.register
available = AGENTS.available
schema = AGENTS.schema


def make(spec: Union[str, Agent], /, **options: Any) -> Agent:
    """An agent from a spec string (or the agent itself, passed through)."""
    if isinstance(spec, Agent):
        if options:
            raise OptionError(f"options {sorted(options)} given with an agent object {spec!r}")
        return spec
    return AGENTS.make(spec, **options)
