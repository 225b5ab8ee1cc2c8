"""Agent and evaluator options: every registered factory's schema, generated from the registries,
so a new agent is covered here without a line added. Nothing is built: a bad option must be
refused by the schema, before any factory (or game) runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents
from agents.evaluation.evaluator import EVALUATORS, make_evaluator
from agents.options import SPEC_KINDS, OptionError, UnknownOptionError, opt, schema_of
from agents.registry import AGENTS, format_spec, parse_spec

ENTRIES = [(registry, name) for registry in (AGENTS, EVALUATORS) for name in registry.available()]
IDS = [f"{registry.kind}:{name}" for registry, name in ENTRIES]


def bad_values(option) -> list:
    """Values the option must refuse: wrong type, NaN, infinities, outside its range."""
    kinds: dict[str, list[object]] = {
        "int": [1.5, "abc", True, math.nan, math.inf, -math.inf, 2**63, -(10**5000)],
        "float": [math.nan, math.inf, -math.inf, "abc", True, 10**400],
        "bool": [3, "yes", 0.5],
        "str": [5, 1.5],
        "evaluator": ["no-such-thing", 5],
        "agent": ["no-such-thing", 5],
        "any": [],
    }
    values = list(kinds[option.type])
    d = option.decl
    step = 1 if option.type == "int" else 0.5
    values += [
        v
        for v in (
            None if d.gt is None else d.gt,
            None if d.ge is None else d.ge - step,
            None if d.lt is None else d.lt,
            None if d.le is None else d.le + step,
        )
        if v is not None
    ]
    if d.choices:
        values.append("not-a-choice")
    if not option.nullable and option.type != "any":
        values.append(None)
    return values


def typos(name: str) -> list[str]:
    return [name + "x", name[:-1] + "_" if len(name) > 1 else name + "_", name[::-1] + "q"]


@pytest.mark.parametrize("registry, name", ENTRIES, ids=IDS)
def test_every_option_is_declared(registry, name):
    schema = registry.schema(name)
    assert schema.doc, f"{registry.kind} {name}: give the factory a docstring (its first line is its help)"
    assert not schema.open or schema.passthrough, (
        f"{registry.kind} {name}: **kwargs must be forwarded (register(forward=...) or passthrough=...)"
    )
    for option in schema.options.values():
        assert option.help, f"{registry.kind} {name}: option {option.name!r} has no help line"
    assert schema.validate({}) == {}  # the defaults are valid as they are


@pytest.mark.parametrize("registry, name", ENTRIES, ids=IDS)
def test_typos_and_unknown_options_are_refused_naming_both(registry, name):
    schema = registry.schema(name)
    if schema.passthrough:  # unknown options go to an external engine, which checks them (uci)
        pytest.skip(f"{name} passes unknown options through: {schema.passthrough}")
    for option in [*schema.options, "xyz"]:
        for typo in typos(option):
            if typo in schema.options:
                continue
            with pytest.raises(OptionError) as info:
                registry.make(f"{name}:{typo}=1")
            message = str(info.value)
            assert repr(name) in message and repr(typo) in message, message


@pytest.mark.parametrize("registry, name", ENTRIES, ids=IDS)
def test_bad_values_are_refused_naming_both(registry, name):
    schema = registry.schema(name)
    target = schema._target({})  # the evaluator (or search) that forwarded options go to
    checked = [(o, "") for o in schema.options.values()]
    if target is not None:
        checked += [(o, target.owner) for o in target.options.values() if o.name not in schema.options]
    for option, via in checked:
        for value in bad_values(option):
            with pytest.raises(OptionError) as info:
                registry.validate(name, **{option.name: value})
            message = str(info.value)
            assert repr(name) in message and option.name in message and via in message, message


def test_issue_examples():
    cases = {
        "alphabeta:eval=value-net,wieghts=study": "did you mean 'weights'",
        "uct-net:xyz=1": "unknown option 'xyz'",
        "mcts:time=inf": "time=inf",
        "alphabeta:depth=inf": "depth",
        "uct-net:net_threads=-1": "net_threads=-1",
        "mcts:k=1.5": "k=1.5",
        "mcts:kq=nan": "kq=nan",
        "two-iteration:time=inf": "time=inf",
        "alphabeta:depht=3": "did you mean 'depth'",
        "alphabeta:eval=improved,cof1=2": "cof1=2",
        "improved": "is an evaluator",
    }
    for spec, words in cases.items():
        with pytest.raises(OptionError, match=words.replace("(", r"\(")):
            agents.make(spec)
    with pytest.raises(OptionError, match="expected a string"):
        agents.make(5)
    with pytest.raises(OptionError, match="given with an evaluator object"):
        make_evaluator(make_evaluator("basic"), bias=0.2)


def test_spec_values_and_round_trip():
    assert parse_spec("alphabeta:time=none,depth=3,tt=false,eval=improved") == (
        "alphabeta",
        {"time": None, "depth": 3, "tt": False, "eval": "improved"},
    )
    assert parse_spec("pkg.mod:Bot:x=1") == ("pkg.mod:Bot", {"x": 1})
    assert parse_spec("C:/bots/my bot.py:Bot") == ("C:/bots/my bot.py:Bot", {})
    for spec in ("alphabeta:time=none,depth=3,tt=false", "random", "pkg.mod:Bot:x=1.5"):
        assert format_spec(*parse_spec(spec)) == spec
    agent = agents.make("two-iteration:depth=2.0,eval=basic")  # a whole float is a whole number
    assert agent.limit.depth == 2 and isinstance(agent.limit.depth, int)
    with pytest.raises(OptionError, match="unknown agent 'mybot'.*file.py:Class"):
        agents.make("mybot:MyBot")
    with pytest.raises(OptionError, match="option 'x' is not key=value.*file.py:Class"):
        agents.make("random:x")
    assert agents.make("uci:/bin/sh,Hash=64").spec == "uci:engine=/bin/sh,Hash=64"  # a bare first value


def test_schema_from_a_plain_signature():
    def factory(depth: int = 2, rate=0.5, name="x", flag: bool = False, **rest):
        """Doc line."""

    schema = schema_of(factory, "agent 'f'", {"depth": opt("limit", ge=1, le=9)})
    assert schema.open and schema.doc == "Doc line."
    assert [o.type for o in schema.options.values()] == ["int", "float", "str", "bool"]
    assert schema.options["depth"].range_text() == "int 1..9"
    assert schema.validate({"rate": 1, "other": "kept"}) == {"rate": 1.0, "other": "kept"}
    with pytest.raises(TypeError, match="not parameters"):
        schema_of(factory, "agent 'f'", {"dpeth": opt("typo in a declaration")})
    with pytest.raises(UnknownOptionError, match="did you mean 'depth'"):
        schema_of(lambda depth=1: None, "agent 'g'").validate({"detph": 2})
    assert set(SPEC_KINDS) == {"evaluator", "agent"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from([n for _, n in ENTRIES if _ is AGENTS] + ["nosuch", "", "x.py:Y", "a.b:C"]),
    items=st.lists(
        st.tuples(
            st.text(max_size=12),
            st.one_of(
                st.text(max_size=12),
                st.integers(),
                st.floats(allow_nan=True, allow_infinity=True),
                st.booleans(),
                st.none(),
            ),
        ),
        max_size=4,
    ),
    text=st.text(max_size=40),
)
def test_any_spec_is_checked_or_refused_by_name(name, items, text):
    """Whatever the spec and keywords, validation succeeds or raises OptionError; nothing else."""
    for spec, keywords in ((f"{name}:{text}", {}), (name, {str(k): v for k, v in items})):
        try:
            AGENTS.validate(spec, **keywords)
        except OptionError as error:
            assert str(error)
