"""Fuzz targets for the files the toolkit loads (see ``fuzz_targets`` for the rules core): model
files, training states, self-play folders and arena results.

Each target starts from valid files written once per worker (a tiny model, a one-epoch training
state, a two-game self-play folder, a two-game arena results file) and edits them: a field set to a
hostile value or nudged (``epoch`` + 1, ``lr`` x 100), text edits, bytes that are not UTF-8, deep
nesting, paths that leave the folder. An edited file that loads without complaint is reported as
``trusted`` (unless the edit left the parsed JSON the same).
"""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path
from typing import Any, Callable

from fuzz_targets import Case, mutate, short, target

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
