"""How fast ``amazons engine`` acts on ``stop``: the time from writing ``stop`` to reading the
``bestmove`` line, and from ``isready`` to ``readyok`` while a search runs, over the pipes of a
real engine process, as a GUI sees them.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/search/engine_stop.py            # 50 tries each
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/engine_stop.py --agents alphabeta --sizes 8 --tries 10
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/engine_stop.py --agents alphabeta --sizes 10 --switch 0.005 0.001

For each agent and board size one engine process is started and warmed up (a first search loads
numba's kernels and the net), then each try sends ``position``, ``go movetime 60000`` (a search
that would run a minute), waits ``--think`` seconds and sends ``stop``; as many further tries
send ``isready`` instead, and time its ``readyok`` (then stop the search, untimed). The
figures are the median, 90th percentile and largest of the tries, the median as a ratio to the
target (``TARGET_MS``), and how many answers the engine had to give for a search that did not
stop in time (its ``info string ... did not stop``: none is expected for these agents). On 8x8
the position is set as a FEN (the engine's ``startpos`` is 10x10). ``--switch`` runs each row once
per interval given for the engine's ``sys.setswitchinterval`` (``amazons_cli.engine.SWITCH_INTERVAL``,
how soon the command loop's thread asks a search for the GIL), the reference beside the setting.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from typing import Optional

TARGET_MS = 50.0  # issue 43: stop -> bestmove within 50 ms (median)
AGENTS = ("uct", "uct-net", "alphabeta")
POSITIONS = {8: "position fen 2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1", 10: "position startpos"}


class Engine:
    """``amazons engine --agent SPEC`` as a child process, its output lines on a queue with the
    time each was read."""

    def __init__(self, spec: str, switch: Optional[float] = None) -> None:
        command = [sys.executable, "-m", "amazons_cli.main", "engine", "--agent", spec]
        if switch is not None:
            command[1:3] = [
                "-c",
                "import sys, amazons_cli.engine as engine; from amazons_cli.main import main; "
                f"engine.SWITCH_INTERVAL = {switch!r}; sys.exit(main(sys.argv[1:]))",
            ]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: "queue.Queue[tuple[float, str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.strip()))

    def send(self, line: str) -> float:
        assert self.proc.stdin is not None
        sent = time.perf_counter()
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return sent

    def until(self, prefix: str, timeout: float = 120.0) -> tuple[float, str, list[str]]:
        """The time and text of the next line starting with ``prefix``, and the lines before it."""
        before: list[str] = []
        while True:
            at, line = self.lines.get(timeout=timeout)
            if line.startswith(prefix):
                return at, line, before
            before.append(line)

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)


def measure(spec: str, size: int, tries: int, think: float, switch: Optional[float] = None) -> dict[str, float]:
    engine = Engine(spec, switch)
    try:
        engine.send("isready")
        engine.until("readyok")
        engine.send(POSITIONS[size])
        engine.send("go movetime 300")  # warm-up: kernels compiled or loaded, the net read
        engine.until("bestmove")
        stops, readies, answered_for = [], [], 0
        for _ in range(tries):  # a stop out of the blue, as a GUI sends it
            engine.send(POSITIONS[size])
            engine.send("go movetime 60000")
            time.sleep(think)
            asked = engine.send("stop")
            at, _, before = engine.until("bestmove")
            stops.append(1000 * (at - asked))
            answered_for += any("did not stop" in line for line in before)
        for _ in range(tries):  # isready during a search (then stopped, not timed)
            engine.send(POSITIONS[size])
            engine.send("go movetime 60000")
            time.sleep(think)
            asked = engine.send("isready")
            readies.append(1000 * (engine.until("readyok")[0] - asked))
            engine.send("stop")
            engine.until("bestmove")
    finally:
        engine.close()
    stops.sort()
    return {
        "median": statistics.median(stops),
        "p90": stops[int(0.9 * (len(stops) - 1))],
        "max": stops[-1],
        "ready": statistics.median(readies),
        "answered_for": answered_for,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=list(AGENTS))
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10], choices=sorted(POSITIONS))
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--think", type=float, default=0.2, help="seconds of search before isready and stop")
    parser.add_argument("--switch", nargs="+", type=float, default=[None], help="the engine's GIL switch intervals")
    args = parser.parse_args()
    threads = os.environ.get("NUMBA_NUM_THREADS", "unset")
    print(f"stop -> bestmove over the engine's pipes, {args.tries} tries, NUMBA_NUM_THREADS={threads}")
    heads = ("median ms", "p90 ms", "max ms", "/target", "isready ms", "answered")
    print(f"{'agent':<12}{'size':>5}{'switch':>8}" + "".join(f"{head:>{len(head) + 2}}" for head in heads))
    for spec in args.agents:
        for size in args.sizes:
            for switch in args.switch:
                row = measure(spec, size, args.tries, args.think, switch)
                shown = "own" if switch is None else f"{switch:g}"
                print(
                    f"{spec:<12}{size:>5}{shown:>8}{row['median']:>11.1f}{row['p90']:>8.1f}{row['max']:>8.1f}"
                    f"{row['median'] / TARGET_MS:>9.2f}{row['ready']:>12.1f}{int(row['answered_for']):>10}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
