"""Fuzz targets beyond the rules core (see ``fuzz_targets``): agent specs, the gymnasium, vector and
PettingZoo environments, model files, training states, self-play folders and arena results.

File targets start from valid files written once per worker (a tiny model, a one-epoch training
state, a two-game self-play folder, a two-game arena results file) and edit them: a field set to a
hostile value or nudged (``epoch`` + 1, ``lr`` x 100), text edits, bytes that are not UTF-8, deep
nesting, paths that leave the folder. An edited file that loads without complaint is reported as
``trusted`` (unless the edit left the parsed JSON the same).
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
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
        return Case(
            lambda: env.reset(seed=seed, options=options),
            f"reset(seed={short(seed)}, options={short(options)})",
            (seed, options),
            accept=_reset_needed(),
        )
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
        return Case(
            lambda: env.reset(seed=seed, options=options),
            f"reset(seed={short(seed)}, options={short(options)})",
            (seed, options),
            accept=_reset_needed(),
        )
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


# -- files: JSON edits --------------------------------------------------------------------------------

JSON_VALUES: list[Any] = [
    None,
    True,
    -1,
    0,
    1e9,
    100_000,
    1e308,
    3.5,
    "x",
    "",
    [],
    {},
    [1, 2],
    "../x.npz",
    "/dev/zero",
    "/etc/passwd",
    math.nan,
    "9" * 5000,
    2**70,
]


def _slots(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of a JSON value, iteratively."""
    slots, todo = [], [data]
    while todo:
        node = todo.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for key in keys:
            slots.append((node, key))
            todo.append(node[key])
    return slots


def edit_json(rng: random.Random, data: Any) -> tuple[bytes, bool]:
    """An edited copy of ``data`` as file bytes, and whether the edit changes what it parses to."""
    kind = rng.random()
    if kind < 0.6:
        copy = json.loads(json.dumps(data))
        slots = _slots(copy)
        for _ in range(rng.randint(1, 2)):
            node, key = rng.choice(slots)
            value = node[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool) and rng.random() < 0.6:
                node[key] = rng.choice([value + 1, value - 1, value * 100, 0, -value, value / 2])
            elif isinstance(node, list) and rng.random() < 0.3:
                node.append(json.loads(json.dumps(value)))  # a duplicated entry
            elif isinstance(node, dict) and rng.random() < 0.2:
                del node[key]
                break
            else:
                node[key] = rng.choice(JSON_VALUES)
        text = json.dumps(copy, indent=rng.choice([None, 1]))
    elif kind < 0.8:
        text = mutate(rng, json.dumps(data, indent=1), '{}[]":,0123456789.-e ')
    elif kind < 0.9:
        raw = json.dumps(data).encode()
        i = rng.randrange(len(raw))
        return raw[:i] + rng.choice([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]) + raw[i:], True
    else:
        depth = rng.choice([100, 100_000])
        text = rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[]", '"x"', "1e999"])
    try:
        same = json.loads(text) == data
    except (ValueError, RecursionError):
        same = False
    return text.encode("utf-8", "surrogatepass"), not same


def _copy_with_edit(rng: random.Random, source: Path, name: str, folder: Path) -> tuple[Path, bool, str]:
    """A fresh copy of folder ``source`` with its file ``name`` edited: (copy, edited, what)."""
    copy = folder / f"case{rng.randrange(10**12)}"
    shutil.copytree(source, copy)
    path = copy / name
    if rng.random() < 0.15:  # the binary partner instead: flip bytes
        others = sorted(p for p in copy.rglob("*") if p.is_file() and p.name != name)
        if others:
            victim = rng.choice(others)
            data = bytearray(victim.read_bytes())
            if data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                victim.write_bytes(bytes(data))
                return copy, True, f"a bit flipped in {victim.name}"
    content, edited = edit_json(rng, json.loads(path.read_text()))
    path.write_bytes(content)
    return copy, edited, f"{name} = {short(content.decode('utf-8', 'replace'))}"


def _file_case(
    rng: random.Random, folder: Path, source: Path, name: str, load: Callable[[Any], Any], label: str
) -> Case:
    if rng.random() < 0.1:
        path = rng.choice(["", "a\x00b", str(source / "missing"), 5, None, folder / "nowhere", "x" * 5000])
        return Case(lambda: load(path), f"{label}({short(path)})", (path,))
    copy, edited, what = _copy_with_edit(rng, source, name, folder)

    def call() -> Any:
        try:
            return load(copy)
        finally:
            shutil.rmtree(copy, ignore_errors=True)

    return Case(call, f"{label} with {what}", (str(copy), copy.name), edited=edited)


def _model_setup(folder: Path) -> tuple[Path, Path]:
    from agents.nets.export import save_model
    from agents.nets.models import ResValueNet

    source = folder / "model"
    save_model(ResValueNet(channels=4, blocks=1, head=2, hidden=8), source / "m", board_size=6)
    return folder, source


@target("model_load", 1, _model_setup)
def _model_load(rng: random.Random, ctx: tuple[Path, Path]) -> Case:
    from agents.nets.export import load_model

    folder, source = ctx
    return _file_case(
        rng, folder, source, "m.json", lambda p: load_model(p / "m" if isinstance(p, Path) else p), "load_model"
    )


def _state_setup(folder: Path) -> tuple[Path, Path, Callable[[Path], Any]]:
    import torch

    from agents.nets.export import save_model
    from agents.nets.models import ResValueNet

    from training.optimize import checkpoint

    def parts_for(model: Any) -> Any:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        return checkpoint.TrainingParts(
            optimizer,
            torch.optim.lr_scheduler.StepLR(optimizer, 1),
            torch.amp.GradScaler("cpu", enabled=False),
            torch.Generator(),
            torch.device("cpu"),
        )

    source = folder / "state"
    model = ResValueNet(channels=4, blocks=1, head=2, hidden=8)
    parts = parts_for(model)
    base = save_model(model, source / "epoch-001", board_size=6)
    recipe = {"lr": 0.01, "epochs": 3}
    checkpoint.save_state(base, checkpoint.Progress(1, [{"epoch": 1, "loss": 0.5}], 0.5), parts, recipe, "hash")

    def load(path: Any) -> Any:
        fresh = ResValueNet(channels=4, blocks=1, head=2, hidden=8)
        where = path / "epoch-001" if isinstance(path, Path) else path
        return checkpoint.load_state(where, fresh, parts_for(fresh), recipe, "hash")

    return folder, source, load


@target("train_state", 0.5, _state_setup)
def _train_state(rng: random.Random, ctx: tuple[Path, Path, Callable[[Path], Any]]) -> Case:
    folder, source, load = ctx
    return _file_case(rng, folder, source, "epoch-001.state.json", load, "load_state")


def _selfplay_setup(folder: Path) -> tuple[Path, Path]:
    from training.selfplay.value import selfplay

    source = folder / "selfplay"
    selfplay(source, games=2, size=6, agent="alphabeta:depth=1", games_per_shard=1, workers=1, progress=False)
    return folder, source


@target("manifest", 0.5, _selfplay_setup)
def _manifest(rng: random.Random, ctx: tuple[Path, Path]) -> Case:
    from training.data.shards import MANIFEST, load_dataset

    folder, source = ctx
    return _file_case(rng, folder, source, MANIFEST, load_dataset, "load_dataset")


def _arena_setup(folder: Path) -> tuple[Path, Path, Callable[[Path], Any]]:
    import subprocess
    import sys

    source = folder / "arena"
    source.mkdir()
    # as a user makes it: the CLI, in its own process (the arena refuses to start workers from a
    # forked process, which this worker is)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from amazons_cli.main import main; sys.exit(main(sys.argv[1:]))",
            "match",
            "random",
            "random:seed=1",
            "--games",
            "2",
            "--size",
            "6",
            "--workers",
            "1",
            "--json",
            str(source / "r.json"),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    config = json.loads((source / "r.json").read_text())["config"]
    from agents.arena.files import load_results as loader

    def load(path: Any) -> Any:
        return loader(str(path / "r.json") if isinstance(path, Path) else path, config)

    return folder, source, load


@target("arena_json", 0.5, _arena_setup)
def _arena_json(rng: random.Random, ctx: tuple[Path, Path, Callable[[Path], Any]]) -> Case:
    folder, source, load = ctx
    return _file_case(rng, folder, source, "r.json", load, "arena results")
