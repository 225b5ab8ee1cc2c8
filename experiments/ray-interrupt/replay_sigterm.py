"""How often an interrupted self-play run on Ray ends cleanly: the SIGTERM scenario of
tests/training/test_ray_backend.py (``test_killed_driver_then_rerun_completes``), replayed N times.

    python3 experiments/ray-interrupt/replay_sigterm.py N

Starts a local Ray instance (2 CPUs), then N times: runs ``python -m amazons_cli selfplay ...
--backend ray`` against it, sends SIGTERM as soon as its manifest exists, and counts the runs that
did not exit with 130 (printing the head of their stderr).
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray


def main() -> None:
    runs = int(sys.argv[1])
    address = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False).address_info["address"]
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    failed = 0
    for run in range(runs):
        out = Path(tempfile.mkdtemp())
        args = [sys.executable, "-m", "amazons_cli", "selfplay", str(out), "--games", "8", "--size", "6", "--agent",
                "two-iteration:depth=1,eval=improved", "--games-per-shard", "2", "--seed", "5", "--backend", "ray",
                "--ray-address", address]  # fmt: skip
        driver = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 180
        while not (out / "manifest.json").exists() and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        driver.send_signal(signal.SIGTERM)
        _, errors = driver.communicate(timeout=120)
        if driver.returncode != 130:
            failed += 1
            print(f"run {run}: exit code {driver.returncode}\n" + "\n".join(errors.splitlines()[:12]), flush=True)
    print(f"{failed} of {runs} interrupted runs did not end with 130")
    ray.shutdown()


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
