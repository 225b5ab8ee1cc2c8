"""Faults: killing ``amazons selfplay`` / ``match`` / ``tournament`` mid-run leaves no worker
alive, and a selfplay rerun completes with the full, exact data. Linux only (processes are found through /proc)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from training.data.shards import load_dataset, read_manifest
from training.selfplay.value import selfplay

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

SPEC = "two-iteration:depth=1,eval=improved"
GAMES = 40


def group_members(group: int) -> list[int]:
    """The live (not zombie) processes of process group ``group``."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended while we looked
            if int(fields[2]) == group and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def start(args: list[str]) -> subprocess.Popen:
    """``amazons ARGS`` in a new session (its own process group, which its workers share)."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.Popen(
        [sys.executable, "-m", "amazons_cli", *args],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def kill_mid_run(process: subprocess.Popen, started, how: signal.Signals) -> None:
    """Send ``how`` to the parent alone once ``started()`` holds, then check its whole group ends."""
    group = process.pid  # the session leader's pid is its group id
    wait_until(lambda: started() or process.poll() is not None, 240, "the run to start")
    assert process.stderr is not None  # ``start`` pipes it
    assert process.poll() is None, f"finished before it could be killed: {process.stderr.read()[-2000:]}"
    workers = [pid for pid in group_members(group) if pid != process.pid]
    assert workers, "no worker processes seen"
    os.kill(process.pid, how)
    process.wait(60)
    try:
        wait_until(lambda: not group_members(group), 15, f"the workers {group_members(group)} to end")
    finally:
        for pid in group_members(group):  # do not leave them behind if the check failed
            os.kill(pid, signal.SIGKILL)


def shards_listed(folder: Path) -> bool:
    try:
        return len(json.loads((folder / "manifest.json").read_text())["shards"]) >= 2
    except (OSError, ValueError, KeyError):
        return False


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> str:
    """The data hash of the uninterrupted run."""
    folder = tmp_path_factory.mktemp("reference")
    return selfplay(folder, GAMES, 6, SPEC, games_per_shard=1, workers=1, progress=False)["data_hash"]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killed_selfplay_leaves_no_worker_and_resumes_exactly(tmp_path, reference, how):
    args = [
        "selfplay",
        str(tmp_path),
        "--games",
        str(GAMES),
        "--size",
        "6",
        "--games-per-shard",
        "1",
        "--workers",
        "2",
        "--agent",
        SPEC,
    ]
    kill_mid_run(start(args), lambda: shards_listed(tmp_path), how)
    assert read_manifest(tmp_path)["games"] < GAMES
    rerun = start(args)
    assert rerun.wait(300) == 0, rerun.stderr.read()[-2000:]
    manifest = read_manifest(tmp_path)
    assert manifest["games"] == GAMES and manifest["data_hash"] == reference
    data, _ = load_dataset(tmp_path)
    assert len(data["sides"]) == manifest["positions"]
    assert not list(tmp_path.glob("*.tmp*"))  # what the killed run left half-written was redone


@pytest.mark.parametrize("command", [["match", SPEC, "random"], ["tournament", SPEC, "random", "alphabeta:depth=1"]])
def test_killed_arena_leaves_no_worker(tmp_path, command):
    results = tmp_path / "results.json"

    def games_saved() -> bool:
        try:
            return len(json.loads(results.read_text())["results"]) >= 2
        except (OSError, ValueError, KeyError):
            return False

    args = [*command, "--games", "100", "--size", "6", "--workers", "2", "--json", str(results)]
    kill_mid_run(start(args), games_saved, signal.SIGKILL)
