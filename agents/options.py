"""Agent and evaluator options: one schema per factory, read from the factory itself.

A factory's signature gives each option's name, default and type (its annotation, else the type of
its default); a small declaration beside the ``register`` call adds what a signature cannot say: a
line of help and the allowed range or choices. ``Registry.make`` checks every option against the
schema before the factory runs, so a typo or a bad value fails at once with an ``OptionError``
naming the agent and the option, never inside a search or as a ``TypeError`` about an evaluator
the user did not name.

>>> from agents.options import opt, schema_of
>>> def factory(depth: int = 2, time: float = 1.0, eval: str = "territory"):
...     pass
>>> schema = schema_of(factory, "agent 'demo'", {"depth": opt("depth limit", ge=1)})
>>> schema.validate({"depth": 3.0, "time": 2})
{'depth': 3, 'time': 2.0}
>>> schema.validate({"dept": 1})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
agents.options.UnknownOptionError: agent 'demo': unknown option 'dept' (did you mean 'depth'?); options: ...
>>> schema.validate({"depth": 0})
Traceback (most recent call last):
...
agents.options.OptionError: agent 'demo': depth=0: must be >= 1
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, SupportsInt, cast

from amazons_env.errors import InvalidArgumentError, describe

__all__ = [
    "OptionError",
    "UnknownOptionError",
    "Opt",
    "opt",
    "Option",
    "Schema",
    "schema_of",
    "SPEC_KINDS",
    "TIME",
    "EVAL",
]

#: Option types whose value is a spec of something registered (``eval=improved``): the registry
#: that resolves them is looked up by this name (``agents.registry.registry_of``).
SPEC_KINDS = ("evaluator", "agent")
_SEED = ("seed of the agent's random choices (the arena sets it per game)", 0)  # help, lower bound
_INT_LIMIT = 2**63


class OptionError(InvalidArgumentError):
    """An option that the agent or evaluator does not take, or a value outside its range."""


class UnknownOptionError(OptionError):
    """An option nobody along a forwarding chain takes; ``groups``: ``(owner, option names)`` of
    each schema in the chain, so the outermost can list them all and suggest the closest."""

    def __init__(self, key: str, groups: list[tuple[str, list[str]]]) -> None:
        names = [n for _, group in groups for n in group]
        close = difflib.get_close_matches(key, names, n=1, cutoff=0.6) if len(key) < 100 else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        listed = "; ".join(
            f"{'' if i == 0 else 'with ' + owner + ': '}{', '.join(group) or 'none'}"
            for i, (owner, group) in enumerate(groups)
        )
        super().__init__(f"{groups[0][0]}: unknown option {describe(key)}{hint}; options: {listed}")
        self.key, self.groups = key, groups


@dataclass(frozen=True)
class Opt:
    """A declaration: the help line and the range of one option (see ``opt``)."""

    help: str
    gt: Optional[float] = None
    ge: Optional[float] = None
    lt: Optional[float] = None
    le: Optional[float] = None
    choices: Optional[tuple[Any, ...]] = None
    kind: Optional[str] = None


def opt(
    help: str,
    *,
    gt: Optional[float] = None,
    ge: Optional[float] = None,
    lt: Optional[float] = None,
    le: Optional[float] = None,
    choices: Optional[tuple[Any, ...]] = None,
    kind: Optional[str] = None,
) -> Opt:
    """Declare an option: one line of ``help``; bounds ``gt``/``ge``/``lt``/``le``; ``choices``;
    ``kind`` ``"evaluator"`` or ``"agent"`` for an option whose value is a spec (or an object)."""
    if kind is not None and kind not in SPEC_KINDS:
        raise InvalidArgumentError(f"kind={kind!r}: use one of {SPEC_KINDS}")
    return Opt(help, gt, ge, lt, le, None if choices is None else tuple(choices), kind)


@dataclass(frozen=True)
class Option:
    """One option of a schema: ``type`` is ``int``, ``float``, ``bool``, ``str``, ``evaluator``,
    ``agent`` or ``any`` (unchecked); ``nullable``: ``None`` is allowed (``none`` in a spec)."""

    name: str
    type: str
    default: Any
    nullable: bool
    decl: Opt

    @property
    def help(self) -> str:
        return self.decl.help

    def range_text(self) -> str:
        """The type and range, e.g. ``float > 0`` or ``int 1..63`` or ``str: a|b``."""
        d = self.decl
        if d.ge is not None and d.le is not None:
            bounds = [f"{_num(d.ge)}..{_num(d.le)}"]
        else:
            bounds = [
                f"{sign} {_num(bound)}"
                for sign, bound in ((">", d.gt), (">=", d.ge), ("<", d.lt), ("<=", d.le))
                if bound is not None
            ]
        if d.choices:
            bounds.append("|".join(map(str, d.choices)))
        return self.type + (" " + ", ".join(bounds) if bounds else "") + (" or none" if self.nullable else "")

    def check(self, value: Any, owner: str) -> Any:
        """``value`` normalised (an integral float for an int becomes an int), or ``OptionError``."""
        given = value

        def fail(why: str) -> OptionError:
            return OptionError(f"{owner}: {self.name}={describe(given)}: {why}")

        if value is None:
            if self.nullable or self.type == "any":
                return None
            raise fail(f"must be {self.range_text()}")
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise fail("expected a whole number")
            if not isinstance(value, numbers.Integral):
                if not (math.isfinite(value) and float(value).is_integer()):
                    raise fail("expected a whole number")
            # a whole Real converts with int(), which typeshed's numbers.Real does not declare
            value = int(cast(SupportsInt, value))
            if not -_INT_LIMIT < value < _INT_LIMIT:  # what numpy and numba take (int64)
                raise fail("must be between -2**63 and 2**63")
        elif self.type == "float":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise fail("expected a number")
            try:
                value = float(value)
            except OverflowError:  # an int beyond the float range
                value = math.inf
            if not math.isfinite(value):
                raise fail("must be a finite number")
        elif self.type == "bool":
            if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
                raise fail("expected true or false")
            value = bool(value)
        elif self.type == "str" and not isinstance(value, str):
            raise fail("expected text")
        d = self.decl
        for bound, ok, sign in (
            (d.gt, lambda b: value > b, ">"),
            (d.ge, lambda b: value >= b, ">="),
            (d.lt, lambda b: value < b, "<"),
            (d.le, lambda b: value <= b, "<="),
        ):
            if bound is not None and not ok(bound):
                raise fail(f"must be {sign} {_num(bound)}")
        if d.choices is not None and value not in d.choices:
            raise fail("must be one of " + ", ".join(map(str, d.choices)))
        return value


#: Declarations that several searches share.
TIME = opt("seconds per move (unset: 1 s, unless a depth or sims limit is set)", gt=0, le=86400)
EVAL = opt("evaluator spec (amazons agents lists them); options the agent does not take go to it", kind="evaluator")


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Schema:
    """The options of one factory. ``forward``: the spec-valued option (e.g. ``eval``) whose target
    takes every option this factory does not (its ``**kwargs``)."""

    owner: str
    options: dict[str, Option]
    forward: Optional[str] = None
    open: bool = False  # ``**kwargs`` that nothing declares: extra options pass unchecked
    passthrough: str = ""  # help for the options that pass unchecked (an external engine's)
    bare: Optional[str] = None  # the option a spec's bare first value sets (``uci:PATH``)
    doc: str = ""
    resolve: Optional[Callable[[str, Any], Optional["Schema"]]] = field(default=None, compare=False)

    def validate(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` checked and normalised; raises ``OptionError`` naming the owner and option."""
        out: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in values.items():
            if key in self.options:
                out[key] = self.options[key].check(value, self.owner)
                self._resolve(key, out[key])
            else:
                extra[key] = value
        target = self._target(out)
        if not extra or self.open:
            return {**out, **extra}
        mine = (self.owner, list(self.options))
        if target is None:
            raise UnknownOptionError(next(iter(extra)), [mine])
        try:
            checked = target.validate(extra)
        except UnknownOptionError as error:
            raise UnknownOptionError(error.key, [mine, *error.groups]) from None
        except OptionError as error:
            raise OptionError(f"{self.owner}: {error}") from None
        return {**out, **checked}

    def _resolve(self, key: str, value: Any) -> Optional["Schema"]:
        """The schema a spec-valued option leads to (``None``: an object, or not a spec kind)."""
        kind = self.options[key].type
        if kind not in SPEC_KINDS or self.resolve is None or value is None:
            return None
        try:
            return self.resolve(kind, value)
        except OptionError as error:
            raise OptionError(f"{self.owner}: {key}={describe(value)}: {error}") from None

    def _target(self, values: Mapping[str, Any]) -> Optional["Schema"]:
        """The schema that receives the options this one does not take (``forward``), if any."""
        if self.forward is None or self.resolve is None:
            return None
        return self._resolve(self.forward, values.get(self.forward, self.options[self.forward].default))


def schema_of(
    factory: Callable[..., Any],
    owner: str,
    declared: Optional[Mapping[str, Opt]] = None,
    forward: Optional[str] = None,
    resolve: Optional[Callable[[str, Any], Optional[Schema]]] = None,
    passthrough: str = "",
    bare: Optional[str] = None,
) -> Schema:
    """The schema of ``factory`` (a class or function): names, defaults and types from its
    signature and annotations, help and ranges from ``declared`` (else the factory's ``OPTIONS``
    attribute, a dict of ``opt``). A declared name the signature lacks is a programming error.
    ``passthrough``: the help line of ``**kwargs`` that go on unchecked (an external engine's
    options); ``bare``: the option that a bare first value in a spec sets."""
    declared = dict(declared if declared is not None else getattr(factory, "OPTIONS", None) or {})
    try:
        signature = inspect.signature(factory, eval_str=True)
    except Exception:  # noqa: BLE001 - an annotation a user wrote that does not evaluate: ignore them
        try:
            signature = inspect.signature(factory)
        except (TypeError, ValueError):
            return Schema(owner, {}, open=True, doc=_first_line(factory))
    options: dict[str, Option] = {}
    open_ = False
    for param in signature.parameters.values():
        if param.kind is param.VAR_KEYWORD:
            open_ = forward is None
            continue
        if param.kind is param.VAR_POSITIONAL or param.name == "self":
            continue
        default = None if param.default is param.empty else param.default
        decl = declared.pop(param.name, None) or (Opt(_SEED[0], ge=_SEED[1]) if param.name == "seed" else Opt(""))
        kind, nullable = _type_of(param.annotation, default)
        options[param.name] = Option(param.name, decl.kind or kind, default, nullable or (param.default is None), decl)
    if declared:
        raise TypeError(f"{owner}: declared options {sorted(declared)} are not parameters of {factory!r}")
    for role, name in (("forward", forward), ("bare", bare)):
        if name is not None and name not in options:
            raise TypeError(f"{owner}: {role}={name!r} is not one of its options")
    if passthrough and not open_:
        raise TypeError(f"{owner}: passthrough needs **kwargs and no forward")
    return Schema(owner, options, forward, open_, passthrough, bare, _first_line(factory), resolve)


def _first_line(factory: Callable[..., Any]) -> str:
    """The docstring's first sentence, on one line, without reST markup."""
    text = (inspect.getdoc(factory) or "").strip().split("\n\n")[0].replace("\n", " ").replace("``", "")
    return text.split(". ")[0].rstrip(".") + "." if text else ""


_TYPES = {int: "int", float: "float", bool: "bool", str: "str"}


def _type_of(hint: Any, default: Any) -> tuple[str, bool]:
    """(type name, nullable) of an annotation, else of the default's type."""
    nullable = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(hint))
        hint = args[0] if len(args) == 1 else None
    if hint in _TYPES:
        return _TYPES[hint], nullable
    if hint in (None, inspect.Parameter.empty, typing.Any) or isinstance(hint, str):
        hint = None
    if hint is None and default is not None and type(default) in _TYPES:
        return _TYPES[type(default)], nullable
    return "any", nullable
