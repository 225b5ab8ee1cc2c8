"""The Ray backend (agents.arena.backends) against the local one on small 6x6 jobs: the same self-play
data hash, the same match games, resuming across backends, and faults (a killed Ray worker, a
killed driver) that lose no finished work. One local Ray instance (2 CPUs) serves the module; the
tests that need it are skipped, saying why, only where Ray cannot be imported."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agents.arena import match
from agents.arena.backends import BackendError, check_backend, run_tasks
from agents.arena.files import load_results

from training.data.shards import read_manifest
from training.selfplay.value import selfplay

AGENT = "two-iteration:depth=1,eval=improved"
SELFPLAY: dict[str, Any] = dict(games=8, size=6, agent=AGENT, games_per_shard=2, seed=5, progress=False)
MATCH = dict(games=4, size=6, seed=3, opening=2, progress=False)
SAME = ("pair", "index", "white", "black", "winner", "plies", "opening", "record", "size")  # not the timings


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray instance for this module (started once: it takes seconds); its address."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'amazons[ray]')")
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield context.address_info["address"]
    ray.shutdown()


@pytest.fixture(scope="module")
def local_data(tmp_path_factory) -> dict:
    """The reference: the self-play job on the local backend, 2 processes."""
    return selfplay(tmp_path_factory.mktemp("local"), workers=2, **SELFPLAY)


def games_of(results: list[dict]) -> list[tuple]:
    return [tuple(json.dumps(r[key]) for key in SAME) for r in results]


def test_selfplay_same_data_hash(ray_address, local_data, tmp_path):
    manifest = selfplay(tmp_path, workers=2, backend="ray", **SELFPLAY)
    assert manifest["data_hash"] == local_data["data_hash"]
    assert manifest["shards"] == local_data["shards"]


def test_match_same_games_and_resume_across_backends(ray_address, tmp_path):
    a, b = AGENT, "random"
    local = match(a, b, workers=2, **MATCH)
    on_ray = match(a, b, workers=2, backend="ray", json_path=str(tmp_path / "ray.json"), **MATCH)
    assert games_of(on_ray["results"]) == games_of(local["results"])
    assert (on_ray["a_wins"], on_ray["per_colour"]) == (local["a_wins"], local["per_colour"])
    # a run begun on one backend is completed on the other: the file's games are not played again
    half = str(tmp_path / "half.json")
    match(a, b, workers=1, json_path=half, **{**MATCH, "games": 2})
    resumed = match(a, b, workers=2, backend="ray", json_path=half, **MATCH)
    assert games_of(resumed["results"]) == games_of(local["results"])
    config = {"pairs": [[a, b]], "games": 4, "size": 6, "seed": 3, "opening": 2, "time": None}
    assert games_of(load_results(half, config)) == games_of(local["results"])  # the checked file


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds Ray workers through Linux /proc")
def test_killed_ray_worker_loses_nothing(ray_address, local_data, tmp_path, ray_workers):
    run = {}
    thread = threading.Thread(
        target=lambda: run.update(manifest=selfplay(tmp_path, workers=2, backend="ray", **SELFPLAY))
    )
    thread.start()
    deadline = time.monotonic() + 120
    while not (busy := ray_workers("_play_shard")) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert busy, "no Ray worker was seen running a self-play shard"
    os.kill(busy[0], signal.SIGKILL)  # Ray runs the lost task again; the finished shards are kept
    thread.join(300)
    assert run["manifest"]["data_hash"] == local_data["data_hash"]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_driver_then_rerun_completes(how, ray_address, local_data, tmp_path):
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    args = [
        sys.executable,
        "-m",
        "amazons_cli",
        "selfplay",
        str(tmp_path),
        "--games",
        "8",
        "--size",
        "6",
        "--agent",
        AGENT,
        "--games-per-shard",
        "2",
        "--seed",
        "5",
        "--backend",
        "ray",
        "--ray-address",
        ray_address,
    ]
    driver = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while not (tmp_path / "manifest.json").exists() and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert driver.poll() is None, f"the driver ended before it was killed: {driver.stderr.read()[-2000:]}"
    driver.send_signal(how)
    _, errors = driver.communicate(timeout=120)
    if how == signal.SIGTERM:  # stopped like Ctrl-C: its tasks cancelled, one line, no traceback
        assert driver.returncode == 130 and errors.rstrip().endswith("amazons selfplay: interrupted"), errors[-2000:]
        assert "Traceback" not in errors
    kept = read_manifest(tmp_path)["shards"]
    assert 1 <= len(kept) < 4
    manifest = selfplay(tmp_path, workers=2, backend="ray", **SELFPLAY)  # the rerun completes the run
    assert manifest["data_hash"] == local_data["data_hash"]
    assert [s for s in manifest["shards"] if s["index"] in {k["index"] for k in kept}] == kept


def test_any_picklable_callable_runs_on_ray(ray_address):
    tasks = [(2,), (3,)]
    found = sorted(run_tasks(functools.partial(pow, 10), tasks, backend="ray"))
    assert found == [((2,), 100), ((3,), 1000)]


def test_task_errors_reach_the_caller(ray_address):
    with pytest.raises(json.JSONDecodeError, match="Expecting value"):
        list(run_tasks(json.loads, [("1.5",), ("x",)], workers=2, backend="ray"))


def test_shared_value_reaches_every_task(ray_address):
    tasks = [(f"t{i}",) for i in range(5)]
    for backend in ("local", "ray"):
        found = sorted(run_tasks(os.path.join, tasks, workers=2, backend=backend, shared="weights"))
        assert found == [((f"t{i}",), f"weights/t{i}") for i in range(5)]


@pytest.mark.parametrize(
    "backend, address, message",
    [
        ("slurm", None, "backend='slurm': choose one of local, ray"),
        (None, None, "backend='None'"),
        ("local", "127.0.0.1:6379", "given with backend='local'"),
        ("ray", "", "ray address ''"),
        ("ray", 6379, "ray address '6379'"),
    ],
)
def test_bad_backend_options_refused_before_any_game(backend, address, message, tmp_path):
    with pytest.raises(BackendError, match=message):
        check_backend(backend, address)
    with pytest.raises(BackendError, match=message):
        selfplay(tmp_path, backend=backend, address=address, **SELFPLAY)
    with pytest.raises(BackendError, match=message):
        match(AGENT, "random", backend=backend, address=address, json_path=str(tmp_path / "m.json"), **MATCH)
    assert not any(tmp_path.iterdir())


def test_missing_ray_is_named(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    with pytest.raises(BackendError, match=r'pip install "amazons\[ray\]"'):
        selfplay(tmp_path, backend="ray", **SELFPLAY)
    assert not (tmp_path / "manifest.json").exists()


def test_training_loop_same_data_on_ray(ray_address, tmp_path, tiny_loop):
    """The loop's bootstrap and self-play shards are the same on Ray; its gate runs there. (Its
    training is not bit-reproducible, so generation 1 starts from one copied generation 0.)"""
    pytest.importorskip("torch", reason="the training loop needs torch")
    from training.data.policy_value import load_pv_dataset
    from training.loop import train_loop

    toy = dict(bootstrap_games=4, games=4, games_per_shard=2)
    train_loop(tiny_loop(tmp_path / "local", generations=0, **toy))
    train_loop(tiny_loop(tmp_path / "ray", generations=0, workers=2, backend="ray", **toy))
    assert load_pv_dataset(tmp_path / "ray" / "bootstrap")[1] == load_pv_dataset(tmp_path / "local" / "bootstrap")[1]
    shutil.rmtree(tmp_path / "ray")
    shutil.copytree(tmp_path / "local", tmp_path / "ray")
    hashes = {}
    for backend, workers in (("local", 1), ("ray", 2)):
        state = train_loop(tiny_loop(tmp_path / backend, generations=1, workers=workers, backend=backend, **toy))
        hashes[backend] = load_pv_dataset(tmp_path / backend / "gen-001" / "selfplay")[1]
        assert state["done"][-1] == "gate-1" and state["gates"][0]["games"] == 2
    assert hashes["ray"] == hashes["local"]
