"""Issue 42's GPU figures in one short run (about 9 minutes on one GPU and 16 CPU cores), each beside
its CPU reference measured in the same run on the same machine:

    python3 benchmarks/nets/gpu_round.py --out "$OUT"           # the GPU machine (results under $OUT)
    python3 benchmarks/nets/gpu_round.py --quick --out /tmp/r   # anywhere, CPU too: tiny sizes, a few minutes

1. ``env``: ``benchmarks/envs/tensor_env_speed.py``: env steps/s of the torch rules on the device at
   B = 256 ... 65,536 on 10x10, beside the numba vector env on every core.
2. ``selfplay``: ``benchmarks/nets/selfplay_speed.py``: self-play positions/s of Gumbel AlphaZero's
   batched search on the device beside today's CPU pipeline (``pvmcts`` games, one process per
   core), the shipped 10x10 net at every leaf, the same simulations per move.
3. ``loop``: ``amazons train-loop --selfplay gumbel`` on 8x8 from the shipped 8x8 net on the
   device, stopped as Ctrl-C stops it (SIGINT) once its time is up: the stages finished by then
   stay recorded, its gates (wins per colour, 95% intervals, Elo by generation) are read back
   from its sealed state, its nets (``OUT/loop/gen-*/pv.*``) play in ``uct-net`` on any CPU.

Each section's output goes to ``OUT/<section>.txt`` as it runs (and to the screen), its figures
to ``OUT/<section>.json`` where the script writes them; ``OUT/summary.json`` names the machine and
every section's command, exit code and seconds. A section that fails or runs out of its time is
recorded as such and the next one still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import torch

from training.loop import STATE, read_state
from training.loop.config import check_device, resolve_device

HERE = Path(__file__).resolve().parent
CORES = os.cpu_count() or 1


def commands(args: argparse.Namespace, device: str) -> dict[str, list[str]]:
    """Each section's command line, at the full sizes or ``--quick``'s."""
    python = [sys.executable]
    if args.quick:
        env = ["--size", "6", "--batches", "64", "256", "--seconds", "0.3", "--rounds", "1", "--warmup", "2"]
        selfplay = ["--size", "6", "--sims", "8", "--games", "8", "--cpu-games", "2", "--workers", str(CORES)]
        loop = ["--size", "5", "--bootstrap-games", "4", "--bootstrap-agent", "uct:sims=20", "--games", "8"]
        loop += ["--games-per-shard", "4", "--sims", "8", "--gumbel-m", "4", "--gumbel-k", "8", "--channels", "8"]
        loop += ["--blocks", "1", "--epochs", "1", "--gate-games", "4", "--gate-sims", "8", "--workers", "2"]
    else:
        env = [
            "--size",
            "10",
            "--batches",
            "256",
            "1024",
            "4096",
            "16384",
            "65536",
            "--seconds",
            "1.5",
            "--rounds",
            "2",
        ]
        selfplay = ["--size", "10", "--sims", "64", "--games", "2048", "--cpu-games", "4", "--workers", str(CORES)]
        # shards of 16 games on 16 processes: the bootstrap's engine games spread over 4 of them, the
        # self-play's 512 games in 32 lock-step batches of 16 on the GPU, two rounds a generation
        loop = ["--size", "8", "--start", "default", "--bootstrap-games", "64", "--bootstrap-agent", "uct:sims=400"]
        loop += ["--games", "512", "--games-per-shard", "16", "--sims", "64", "--epochs", "2", "--batch-size", "512"]
        loop += ["--gate-games", "64", "--gate-sims", "64", "--workers", str(CORES)]
    run = str(Path(args.out) / "loop")
    return {
        "env": [*python, str(HERE.parent / "envs" / "tensor_env_speed.py"), "--device", device, *env],
        "selfplay": [*python, str(HERE / "selfplay_speed.py"), "--device", device, *selfplay],
        "loop": [*python, "-m", "amazons_cli", "train-loop", run, "--selfplay", "gumbel", *loop]
        + ["--generations", "99", "--device", device, "--no-progress"],
    }


def run_section(command: list[str], log: Path, seconds: float) -> dict[str, Any]:
    """Run ``command`` with its output in ``log`` and on the screen; after ``seconds`` it gets SIGINT
    (as Ctrl-C: a train-loop keeps its finished stages), 60 s later SIGKILL."""
    print("$ " + " ".join(command[1:]), flush=True)
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    timers = [
        threading.Timer(seconds, process.send_signal, (signal.SIGINT,)),
        threading.Timer(seconds + 60, process.kill),
    ]
    for timer in timers:
        timer.start()
    assert process.stdout is not None
    with open(log, "w") as out:
        for line in process.stdout:
            print(line, end="", flush=True)
            out.write(line)
    process.wait()
    for timer in timers:
        timer.cancel()
    return {"command": command[1:], "exit_code": process.returncode, "seconds": time.perf_counter() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "gpu-round"), help="results folder (default $OUT)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and budgets (a check on any machine)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default auto)")
    parser.add_argument("--sections", default="env,selfplay,loop", help="comma-separated, of env,selfplay,loop")
    parser.add_argument("--loop-seconds", type=float, default=None, help="the loop's time (300; quick 90)")
    args = parser.parse_args()
    check_device(args.device, "gpu_round.py --device")
    device = str(resolve_device(args.device))
    # the whole run's worst case about 9.5 minutes; each section's figures print as they come
    budget = {"env": 100.0, "selfplay": 160.0, "loop": args.loop_seconds or (90.0 if args.quick else 300.0)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {
        "machine": {
            "cpu_cores": CORES,
            "device": device,
            "device_name": torch.cuda.get_device_name(device) if device.startswith("cuda") else "cpu",
            "torch": torch.__version__,
            "quick": args.quick,
        }
    }
    print(f"machine: {summary['machine']}", flush=True)
    every = commands(args, device)
    for name in args.sections.split(","):
        if name not in every:
            parser.error(f"--sections: {name!r} is not one of env, selfplay, loop")
        summary[name] = run_section(every[name], out / f"{name}.txt", budget[name])
        if name == "loop" and (out / "loop" / STATE).exists():
            state = read_state(out / "loop")
            figures = {"done": state["done"], "best": state["best"], "gates": state["gates"]}
            (out / "loop.json").write_text(json.dumps(figures, indent=2))
            summary[name]["generations_gated"] = len(state["gates"])
        (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"results in {out}", flush=True)


if __name__ == "__main__":
    main()
