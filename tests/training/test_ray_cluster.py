"""A generation's self-play spread over a multi-node Ray cluster (``ray.cluster_utils.Cluster``: a
head that runs no task and two worker nodes of one CPU each, all on this machine), one worker node
killed while it plays a shard: the generation completes on the node left, with every shard once
and the same data hash as an undisturbed run of the same seed on this process; for each self-play
engine that runs on the CPU (``pvmcts``, and ``gumbel`` on tensors)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from training.data.shards import read_manifest
from training.loop import train_loop

TOY = dict(games=8, sims=8, device="cpu")  # over the conftest's tiny_loop: a shard a game, 8 shards


@pytest.fixture(scope="module")
def ray_cluster():
    """The cluster's head, started once for the module (it takes seconds); each test adds its nodes."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'amazons[ray]')")
    pytest.importorskip("torch", reason="the training loop needs torch")
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds Ray workers through Linux /proc")
def test_a_node_killed_mid_generation_loses_nothing_and_counts_nothing_twice(
    ray_cluster, tmp_path, tiny_loop, ray_workers
):
    selfplay, task = "gumbel", "device_gumbel_shard"
    cluster = ray_cluster
    nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]  # this test's two worker nodes
    cluster.wait_for_nodes()
    toy = {**TOY, "selfplay": selfplay, "gumbel_m": 4, "gumbel_k": 6}
    train_loop(tiny_loop(tmp_path / "undisturbed", generations=0, **toy))  # one generation 0 for both
    shutil.copytree(tmp_path / "undisturbed", tmp_path / "cluster")
    train_loop(tiny_loop(tmp_path / "undisturbed", generations=1, **toy))
    reference = read_manifest(tmp_path / "undisturbed" / "gen-001" / "selfplay")

    run: dict = {}
    config = tiny_loop(
        tmp_path / "cluster", generations=1, workers=2, backend="ray", ray_address=cluster.address, **toy
    )
    thread = threading.Thread(target=lambda: run.update(state=train_loop(config)))
    thread.start()
    manifest = tmp_path / "cluster" / "gen-001" / "selfplay" / "manifest.json"
    raylet = nodes[0].all_processes["raylet"][0].process.pid
    deadline, shards_then = time.monotonic() + 240, None
    while thread.is_alive() and time.monotonic() < deadline:
        if manifest.exists() and ray_workers(task, raylet):
            shards_then = len(read_manifest(manifest.parent)["shards"])
            cluster.remove_node(nodes[0], allow_graceful=False)  # its shard is lost with it: Ray runs it again
            break
        time.sleep(0.01)
    thread.join(300)
    assert shards_then is not None and 1 <= shards_then < 8, "the node was not killed mid-generation"
    assert run["state"]["done"][-1] == "gate-1"
    played = read_manifest(manifest.parent)
    assert played["games"] == 8 and sorted(s["index"] for s in played["shards"]) == list(range(8))
    assert played["shards"] == reference["shards"] and played["data_hash"] == reference["data_hash"]
    cluster.remove_node(nodes[1])


def test_tasks_that_ask_for_a_gpu_run_on_the_gpu_node(ray_cluster):
    """A task function's ``ray_resources`` (what ``train-loop --ray-gpus`` gives its self-play
    shards): on a cluster of a GPU node and a CPU node (the GPU declared to Ray) every task runs on
    the GPU node and sees its GPU; without it, the tasks see none."""
    import os

    import ray

    from agents.arena.backends import run_tasks

    cluster = ray_cluster
    gpu, cpu = cluster.add_node(num_cpus=1, num_gpus=1), cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()

    def where(index: int) -> tuple[str, str]:
        return ray.get_runtime_context().get_node_id(), os.environ.get("CUDA_VISIBLE_DEVICES", "")

    tasks = [(i,) for i in range(6)]
    assert {seen[1] for _, seen in run_tasks(where, tasks, backend="ray")} == {""}
    where.ray_resources = {"num_gpus": 0.5}  # type: ignore[attr-defined]
    assert {seen for _, seen in run_tasks(where, tasks, backend="ray")} == {(gpu.node_id, "0")}
    for node in (gpu, cpu):
        cluster.remove_node(node)
