"""Issue 42's GPU figures in one short run (about 9 minutes on one GPU and 16 CPU cores), each section
beside its CPU reference measured in the same run on the same machine:

    python3 benchmarks/gpu_round.py --out "$OUT"           # the GPU machine (results under $OUT)
    python3 benchmarks/gpu_round.py --quick --out /tmp/r   # anywhere, CPU too: tiny sizes, ~2 minutes

1. ``env``: random legal play in steps/s (one step = one phase of one game: a queen slide or an
   arrow), the torch rules (``amazons_env.tensor.TensorGames`` on ``--device``, finished games
   restarted) at B = 256 ... 65,536 on 10x10, beside the numba vector env (``AmazonsVectorEnv``,
   one numba thread per CPU core) at B up to 16,384.
2. ``selfplay``: self-play positions/s with the net at every leaf, at the same simulations per move
   (``--sims``) and the shipped 10x10 net: each engine of ``training.loop.engines.ENGINES`` that
   plays with a net, with the net on the device (one process, ``--device-games`` games in
   lock-step), beside today's CPU pipeline (the same engine's shards with the net on the CPU, one
   worker process per core, two shards of ``--cpu-games`` games each: the processes' start-up counts
   as in the loop, spread over two rounds).
3. ``loop``: ``amazons train-loop`` on 8x8 from the shipped 8x8 net for ``--loop-seconds``, then
   stopped as Ctrl-C stops it (SIGINT; the finished stages stay recorded); its printed lines and
   its gates (wins per colour, 95% intervals, Elo by generation).

Each section writes ``OUT/<section>.json`` and its lines to ``OUT/<section>.txt``; ``OUT/summary.json``
names the machine (CPU cores, the device's name). A section that cannot run here (no torch rules in
this checkout, say) says why and the others still run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import torch

from agents.nets.store import POLICY_VALUE_WEIGHTS, weights_path

from training.loop import STATE, LoopConfig, read_state
from training.loop.config import check_device, resolve_device
from training.loop.engines import ENGINES
from training.selfplay.policy_value import play_shards

CORES = os.cpu_count() or 1
THREADS = int(os.environ.get("NUMBA_NUM_THREADS", CORES))  # numba's own default: the cores


def timed_steps(step: Callable[[], None], batch: int, seconds: float) -> float:
    """Steps per second of ``step`` (``batch`` games a call), after one warm-up call."""
    step()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds or calls < 2:
        step()
        calls += 1
    return calls * batch / elapsed


def torch_env(batch: int, size: int, device: Any, seconds: float) -> float:
    from amazons_env.tensor import TensorGames

    games = TensorGames(batch, size, device)
    games.reset(seed=0)

    def step() -> None:
        terminated = games.step(games.random_actions())[2]
        games.reset(which=terminated)
        if device.type == "cuda":
            torch.cuda.synchronize()

    return timed_steps(step, batch, seconds)


def numba_env(batch: int, size: int, seconds: float) -> float:
    from amazons_env.envs.vector_env import AmazonsVectorEnv

    # every numba thread (one per core unless NUMBA_NUM_THREADS says fewer)
    envs = AmazonsVectorEnv(batch, size, copy=False, num_threads=THREADS)
    envs.reset(seed=0)
    return timed_steps(lambda: envs.step(envs.sample_legal_actions()) and None, batch, seconds)


def env_section(args: argparse.Namespace, device: Any, say: Callable[[str], None]) -> dict[str, Any]:
    size, seconds = (6, 0.5) if args.quick else (10, 3.0)
    batches = (64, 256) if args.quick else (256, 1024, 4096, 16384, 65536)
    rows = []
    for batch in batches:
        row: dict[str, Any] = {"size": size, "batch": batch, "torch_device": str(device)}
        row["torch_steps_per_s"] = torch_env(batch, size, device, seconds)
        if batch <= 16384:
            row["numba_steps_per_s"] = numba_env(batch, size, seconds)
            row["ratio"] = row["torch_steps_per_s"] / row["numba_steps_per_s"]
        rows.append(row)
        versus = f", numba vector env on {THREADS} threads {row['numba_steps_per_s']:,.0f} (ratio {row['ratio']:.2f})"
        say(
            f"env {size}x{size} B={batch:,}: torch rules on {device} {row['torch_steps_per_s']:,.0f} steps/s"
            + (versus if "ratio" in row else "")
        )
    return {"rows": rows}


def positions_per_second(config: LoopConfig, weights: Path, engine: str, shards: int, workers: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="gpu-round-"))
    try:
        player = ENGINES[engine].player(config, weights)
        start = time.perf_counter()
        manifest = play_shards(
            folder,
            {"size": config.size, "seed": 0},
            shards,
            config.games_per_shard,
            player,
            progress=False,
            workers=workers,
        )
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "engine": engine,
        "device": config.device,
        "workers": workers,
        "games": manifest["games"],
        "positions": manifest["positions"],
        "seconds": seconds,
        "positions_per_s": manifest["positions"] / seconds,
    }


def selfplay_section(args: argparse.Namespace, device: Any, say: Callable[[str], None]) -> dict[str, Any]:
    size = 6 if args.quick else 10
    weights = weights_path("default", size, POLICY_VALUE_WEIGHTS)
    rows = []
    for engine in ENGINES:
        if engine == "expert":  # an agent's own search, not a batched net at every leaf
            continue
        common = dict(out="unused", size=size, sims=args.sims, batch=8, temperature_plies=10)
        cpu = LoopConfig(device="cpu", games_per_shard=args.cpu_games, **common)  # type: ignore[arg-type]
        on_device = LoopConfig(device=str(device), games_per_shard=args.device_games, **common)  # type: ignore[arg-type]
        reference = positions_per_second(cpu, weights, engine, 2 * CORES, CORES)  # two rounds: less start-up
        measured = positions_per_second(on_device, weights, engine, 1, 1)
        measured["ratio"] = measured["positions_per_s"] / reference["positions_per_s"]
        rows += [reference, measured]
        say(
            f"self-play {engine} {size}x{size} sims={args.sims}: {device}, {args.device_games} games in lock-step, "
            f"{measured['positions_per_s']:,.1f} positions/s; CPU pipeline on {CORES} processes "
            f"{reference['positions_per_s']:,.1f} positions/s; ratio {measured['ratio']:.2f}"
        )
    return {"rows": rows, "weights": str(weights)}


def loop_section(args: argparse.Namespace, device: Any, say: Callable[[str], None]) -> dict[str, Any]:
    run = Path(args.out) / "loop"
    if args.quick:
        settings = [
            "--size",
            "5",
            "--bootstrap-games",
            "4",
            "--bootstrap-agent",
            "uct:sims=20",
            "--games",
            "8",
            "--games-per-shard",
            "2",
            "--sims",
            "8",
            "--channels",
            "8",
            "--blocks",
            "1",
            "--epochs",
            "1",
            "--gate-games",
            "4",
            "--gate-sims",
            "8",
            "--generations",
            "2",
        ]
    else:
        settings = [
            "--size",
            "8",
            "--start",
            "default",
            "--bootstrap-games",
            "32",
            "--bootstrap-agent",
            "uct:sims=400",
            "--games",
            "256",
            "--games-per-shard",
            "16",
            "--sims",
            "64",
            "--epochs",
            "2",
            "--batch-size",
            "512",
            "--gate-games",
            "64",
            "--gate-sims",
            "64",
            "--generations",
            "50",
        ]
    command = [
        sys.executable,
        "-m",
        "amazons_cli",
        "train-loop",
        str(run),
        *settings,
        "--device",
        args.device,
        "--workers",
        str(CORES),
        "--no-progress",
    ]
    say("loop: " + " ".join(command[1:]))
    start = time.perf_counter()
    with open(Path(args.out) / "loop.log", "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            process.wait(timeout=args.loop_seconds)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)  # as Ctrl-C: finished stages stay recorded
            process.wait(timeout=120)
    seconds = time.perf_counter() - start
    for line in (Path(args.out) / "loop.log").read_text().splitlines():
        if line.strip():
            say("  " + line)
    if not (run / STATE).exists():  # stopped before its first stage ended
        return {"command": command[1:], "seconds": seconds, "exit_code": process.returncode, "done": []}
    state = read_state(run)
    return {
        "command": command[1:],
        "seconds": seconds,
        "exit_code": process.returncode,
        "done": state["done"],
        "best": state["best"],
        "gates": state["gates"],
    }


def recorder(lines: list[str]) -> Callable[[str], None]:
    """A ``say`` that prints a line at once and keeps it in ``lines``."""

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    return say


SECTIONS = {"env": env_section, "selfplay": selfplay_section, "loop": loop_section}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "gpu-round"), help="results folder (default $OUT)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and budgets (a check on any machine)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default auto)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated, of " + ",".join(SECTIONS))
    parser.add_argument("--sims", type=int, default=None, help="simulations per move in self-play (64; quick 8)")
    parser.add_argument("--cpu-games", type=int, default=4, help="games per CPU worker's shard (4)")
    parser.add_argument("--device-games", type=int, default=None, help="lock-step games on the device (128; quick 8)")
    parser.add_argument("--loop-seconds", type=float, default=None, help="the loop's wall time (360; quick 60)")
    args = parser.parse_args()
    check_device(args.device, "gpu_round.py --device")
    args.sims = args.sims or (8 if args.quick else 64)
    args.device_games = args.device_games or (8 if args.quick else 128)
    args.loop_seconds = args.loop_seconds or (60.0 if args.quick else 360.0)
    device = resolve_device(args.device)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    machine = {
        "cpu_cores": CORES,
        "numba_threads": THREADS,
        "device": str(device),
        "torch": torch.__version__,
        "quick": args.quick,
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
    }
    print(f"machine: {machine}", flush=True)
    summary: dict[str, Any] = {"machine": machine}
    for name in args.sections.split(","):
        lines: list[str] = []
        say = recorder(lines)
        began = time.perf_counter()
        try:
            result = SECTIONS[name](args, device, say)
        except ImportError as error:  # a section whose code is not in this checkout
            say(f"{name}: not run: {error}")
            result = {"not_run": str(error)}
        result["section_seconds"] = time.perf_counter() - began
        summary[name] = result
        (out / f"{name}.json").write_text(json.dumps(result, indent=2, default=float))
        (out / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    print(f"results in {out}", flush=True)


if __name__ == "__main__":
    main()
