"""Fuzz targets for what a program builds and steps (see ``fuzz_targets`` for the rules core):
agent specs through ``agents.make``, and the gymnasium, vector and PettingZoo environments.

Agent specs are mutated, given hostile option values or keywords, and sometimes asked for a move;
environments get hostile constructor arguments, resets and actions, and a refused action must
leave the environment as it was. File specs (``x.py:Class``) are rewritten to ``random``: a fuzzer
must not import code.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
from fuzz_targets import Case, hostile, mutate, short, size_or_hostile, target

from amazons_env import Board

# -- agents ---------------------------------------------------------------------------------------

SPECS = [
    "random",
    "random:seed=3",
    "alphabeta:depth=2",
    "alphabeta:time=0.1,k=5,kq=4",
    "mcts:sims=20",
    "mcts:time=0.05,c=1.0,tau=0.1",
    "two-iteration:depth=1,eval=improved",
    "classic:depth=1",
    "move-then-arrow:depth=1",
    "uct:sims=10",
    "alphabeta:eval=value-net,depth=1",
    "uct-net:sims=10",
    "alphabeta:depth=1,eval=territory,tt_bits=10",
]
OPTION_VALUES = [
    "inf",
    "-inf",
    "nan",
    "-1",
    "0",
    "1.5",
    "1e999",
    "1e9",
    "true",
    "none",
    "",
    "x",
    "9" * 5000,
    "٣",
    "²",
    "0x10",
    "1_000",
    "improved",
    "territory",
    "random",
    "alphabeta",
    "mcts:depth=1",
]
SPEC_CHARS = ":,=.-_abcdehiklmnoprstuvwxyz0123456789"


def _agents_setup(_folder: Path) -> Any:
    import agents

    board = Board(6)
    for spec in SPECS:  # compile (or load from numba's cache) every search before the clock runs
        agents.make(spec).select_move(board)
    return agents


def _safe_spec(spec: Any) -> Any:
    """No file or module specs (``x.py:Class``, ``pkg.mod:Class``): a fuzzer must not import code."""
    if isinstance(spec, str) and re.search(r"[./\\]", spec.split(":", 1)[0]):
        return "random" + spec[spec.index(":") :] if ":" in spec else "random"
    return spec


@target("agents_make", 2, _agents_setup)
def _agents_make(rng: random.Random, agents: Any) -> Case:
    spec = rng.choice(SPECS)
    keywords: dict[str, Any] = {}
    kind = rng.random()
    if kind < 0.5:
        spec = mutate(rng, spec, SPEC_CHARS)
    elif kind < 0.75:
        name = spec.split(":")[0]
        options = list(agents.registry.schema(name).options) or ["seed"]
        spec = f"{spec}{',' if ':' in spec else ':'}{rng.choice(options)}={rng.choice(OPTION_VALUES)}"
    elif kind < 0.9:
        name = spec.split(":")[0]
        keywords[rng.choice(list(agents.registry.schema(name).options) or ["seed"])] = hostile(rng)
    else:
        spec = hostile(rng)
    spec = _safe_spec(spec)
    play = rng.random() < 0.05

    def call() -> Any:
        agent = agents.make(spec, **keywords)
        if play:  # accepted options must work: one move on 6x6
            agent.select_move(Board(6))
        return agent

    names = (spec, *keywords.values(), *keywords) + tuple(
        part for part in re.split(r"[:,=]", spec if isinstance(spec, str) else "") if part
    )
    shown = f"make({short(spec)}{''.join(f', {k}={short(v)}' for k, v in keywords.items())})"
    return Case(call, shown + (" + select_move" if play else ""), names)


# -- environments ------------------------------------------------------------------------------------


def _kwargs(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={short(v)}" for k, v in kwargs.items())


def _reset_case(env: Any, seed: Any, options: Any) -> Case:
    """``env.reset(seed=seed, options=options)`` as a case (of the gym env or the vector env)."""
    return Case(
        lambda: env.reset(seed=seed, options=options),
        f"reset(seed={short(seed)}, options={short(options)})",
        (seed, options),
        accept=_reset_needed(),
    )


def _reset_needed() -> tuple[type, ...]:
    import gymnasium

    return (gymnasium.error.ResetNeeded,)


ENV_KWARGS: dict[str, list[Any]] = {
    "learner_color": ["white", "black", "random", 0, 1],
    "illegal_action": ["lose", "raise"],
    "obs_mode": ["planes"],
    "action_encoding": ["flat"],
    "mask_dtype": ["int8", "bool"],
    "render_mode": [None, "ansi"],
    "opponent": [None, "random"],
}


def _env_state(env: Any) -> Any:
    try:
        return env.board.text(), env.phase, env.move_number, env.action_masks().tobytes()
    except Exception:  # noqa: BLE001 - not reset yet: nothing to compare
        return None


def _env_setup(_folder: Path) -> None:
    from amazons_env.envs.gym_env import AmazonsEnv

    for size in (4, 6, 8):  # compile (or load from numba's cache) before the clock runs
        env = AmazonsEnv(size)
        env.reset(seed=0)
        env.step(int(env.legal_actions()[0]))


@target("env", 1.5, _env_setup)
def _env(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env.envs.gym_env import AmazonsEnv

    size = rng.choice([4, 6, 8])
    kwargs = {k: rng.choice(v) for k, v in ENV_KWARGS.items() if rng.random() < 0.3}
    if rng.random() < 0.2:
        kwargs[rng.choice([*ENV_KWARGS, "size"])] = hostile(rng)
    kwargs.setdefault("size", size)
    try:
        env = AmazonsEnv(**kwargs)
    except Exception:  # noqa: BLE001 - the constructor itself is the input
        return Case(lambda: AmazonsEnv(**kwargs), f"AmazonsEnv({_kwargs(kwargs)})", tuple(kwargs.values()))
    what = rng.random()
    if what < 0.15:  # before reset
        op = rng.choice(["phase", "board", "move_number", "observation", "step", "legal_actions"])
        call = (
            (lambda: getattr(env, op))
            if op in ("phase", "board", "move_number")
            else (lambda: getattr(env, op)(*([0] if op == "step" else [])))
        )
        return Case(call, f"AmazonsEnv(size={size}).{op} before reset", (), accept=_reset_needed())
    if what < 0.4:
        seed = rng.randrange(100) if rng.random() < 0.7 else hostile(rng)
        options = rng.choice(
            [
                None,
                {"position": mutate(rng, Board(size).text(), "Qq*123456/ wb")},
                {"position": hostile(rng)},
                hostile(rng),
                {"x": 1},
            ]
        )
        return _reset_case(env, seed, options)
    env.reset(seed=rng.randrange(100))
    for _ in range(rng.randrange(6)):
        legal = env.legal_actions()
        if len(legal) == 0:
            break
        env.step(int(legal[rng.randrange(len(legal))]))
    legal = env.legal_actions()
    action = hostile(rng) if rng.random() < 0.6 or len(legal) == 0 else int(rng.randrange(-5, size**4 + 5))
    before = _env_state(env)

    def check() -> None:
        assert _env_state(env) == before, "the env changed"

    return Case(
        lambda: env.step(action), f"AmazonsEnv({size}).step({short(action)})", (action,), check, accept=_reset_needed()
    )


def _bad_actions(rng: random.Random, n: int, size: int) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: np.zeros(n + 1, np.int64),
        lambda: np.zeros((n, 2), np.int64),
        lambda: np.full(n, np.nan),
        lambda: np.arange(2 * n, dtype=np.int64)[::2],
        lambda: np.full(n, -1),
        lambda: np.full(n, size**4),
        lambda: np.full(n, 10**18),
        lambda: np.zeros(n, np.float32),
        lambda: [0] * n,
        lambda: np.zeros(n, object),
        lambda: np.zeros(n, np.uint8),
        lambda: np.zeros(n, bool),
        lambda: hostile(rng),
    ]
    return rng.choice(choices)()


def _vector_setup(_folder: Path) -> None:
    from amazons_env.envs.vector_env import AmazonsVectorEnv

    for size in (4, 6):  # compile (or load from numba's cache) the step kernels before the clock runs
        env = AmazonsVectorEnv(1, size)
        env.reset(seed=0)
        env.step(env.sample_legal_actions())


@target("vector_env", 1, _vector_setup)
def _vector_env(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env.envs.vector_env import AmazonsVectorEnv

    n, size = rng.choice([1, 2, 3]), rng.choice([4, 6])
    if rng.random() < 0.2:
        args = {
            "num_envs": n,
            "size": size,
            rng.choice(
                ["num_envs", "size", "illegal_action", "copy", "num_threads", "learner_color", "opponent"]
            ): hostile(rng),
        }
        return Case(lambda: AmazonsVectorEnv(**args), f"AmazonsVectorEnv({_kwargs(args)})", tuple(args.values()))
    env = AmazonsVectorEnv(n, size, illegal_action=rng.choice(["lose", "raise"]))
    if rng.random() < 0.1:
        return Case(lambda: env.step(np.zeros(n, np.int64)), "step before reset", (), accept=_reset_needed())
    if rng.random() < 0.2:
        seed, options = hostile(rng), rng.choice([None, hostile(rng), {"x": 1}])
        return _reset_case(env, seed, options)
    env.reset(seed=rng.randrange(100))
    actions = _bad_actions(rng, n, size) if rng.random() < 0.7 else env.sample_legal_actions()
    before = env.action_masks().tobytes()

    def check() -> None:
        assert env.action_masks().tobytes() == before, "the env changed"

    return Case(
        lambda: env.step(actions),
        f"AmazonsVectorEnv({n}, {size}).step({short(actions)})",
        (actions,),
        check,
        accept=_reset_needed(),
    )


@target("pettingzoo", 1)
def _pettingzoo(rng: random.Random, _ctx: Any) -> Case:
    from amazons_env.envs.pettingzoo_env import env as make_env

    size = size_or_hostile(rng, rng.choice([4, 6]), 0.15)
    try:
        aec = make_env(size=size)
    except Exception:  # noqa: BLE001 - the constructor itself is the input
        return Case(lambda: make_env(size=size), f"pettingzoo.env(size={short(size)})", (size,))
    if rng.random() < 0.3:
        seed, options = rng.choice([None, 1, hostile(rng)]), rng.choice([None, "x", hostile(rng), {"position": "x"}])
        return Case(
            lambda: aec.reset(seed=seed, options=options),
            f"reset(seed={short(seed)}, options={short(options)})",
            (seed, options),
            accept=_reset_needed(),
        )
    aec.reset(seed=1)
    action = hostile(rng) if rng.random() < 0.7 else rng.randrange(-3, size**4 + 3)
    return Case(lambda: aec.step(action), f"pettingzoo step({short(action)})", (action,), accept=_reset_needed())
