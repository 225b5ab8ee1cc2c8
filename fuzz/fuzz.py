"""Seeded fuzz run over the public API: hostile inputs to every parser, loader and constructor.

    python fuzz/fuzz.py                          # 30,000 inputs over all targets, a few minutes
    python fuzz/fuzz.py --target sgf --target position --inputs 5000 --seed 3
    python fuzz/fuzz.py --target sgf --only 1234 # rerun one input, with its traceback
    python fuzz/fuzz.py --list

Per target it prints the inputs tried and how each ended: ``clean`` (a ValueError subclass whose
message names the input), ``ok`` (accepted), ``unclear`` (another exception, or a ValueError that
does not name the input), ``hang`` (over ``--timeout`` seconds), ``changed`` (a refused input that
changed the board or env) and ``trusted`` (an edited file that loaded without complaint); then the
smallest example of each distinct failure (same outcome, exception type and raising line), and
the slowest input of each target.
Exit status 1 if anything failed.

Input ``i`` of target ``t`` is built from ``random.Random(f"{seed}/{t}/{i}")`` alone, so every
failure reproduces with ``--only i``. Each target runs in its own worker process, under a memory
limit (``--memory-gb``); an input that overruns ``--timeout`` is interrupted by a timer signal, and
a worker stuck in compiled code is killed after a further grace period and restarted after it.
The targets live in ``fuzz_targets_rules.py`` (amazons_env), ``fuzz_targets_envs.py`` (agent specs, the
environments) and ``fuzz_targets_files.py`` (model and training files, self-play folders, arena results).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import fuzz_targets  # noqa: E402  (after the path and thread settings)
import fuzz_targets_envs  # noqa: E402,F401  (registers the agent and environment targets)
import fuzz_targets_files  # noqa: E402,F401  (registers the file targets)
import fuzz_targets_rules  # noqa: E402,F401  (registers the rules core and notation targets)
from fuzz_targets import TARGETS, Case, names_input  # noqa: E402

ROOT = str(Path(__file__).resolve().parent.parent)
OUTCOMES = ("clean", "ok", "unclear", "hang", "changed", "trusted")
FAILURES = ("unclear", "hang", "changed", "trusted")


class _Hang(BaseException):
    """Raised by the timer signal inside a slow input (a BaseException: code under test that
    catches ``Exception`` cannot swallow it)."""


def _alarm(_signum, _frame) -> None:
    raise _Hang


def _where(error: BaseException) -> str:
    """``file:line`` of the innermost frame in this project (else the innermost), for grouping."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if f.filename.startswith(ROOT) and "/fuzz/fuzz" not in f.filename]
    innermost = ours or frames
    if not innermost:
        return "?"
    return f"{os.path.relpath(innermost[-1].filename, ROOT)}:{innermost[-1].lineno}"


def run_case(case: Case, timeout: float) -> tuple[str, str, str]:
    """``(outcome, signature, message)`` of one input."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        try:
            case.call()
        except _Hang:
            return "hang", "hang", f"over {timeout} s"
        except ValueError as error:
            message = str(error)
            if case.check is not None:
                try:
                    case.check()
                except AssertionError as changed:
                    return "changed", f"changed {type(error).__name__} {_where(error)}", f"{changed}: {message}"
            if case.names and not names_input(message, case.names):
                return "unclear", f"unnamed {type(error).__name__} {_where(error)}", message
            return "clean", "", ""
        except case.accept:
            return "clean", "", ""
        except Exception as error:  # noqa: BLE001 - every other exception is what we are looking for
            return "unclear", f"{type(error).__name__} {_where(error)}", f"{type(error).__name__}: {error}"
        return ("trusted", "edited file loaded", "") if case.edited else ("ok", "", "")
    except _Hang:  # the timer fired in a check or in the handler
        return "hang", "hang", f"over {timeout} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _worker(conn, name: str, seed: int, indices: list[int], timeout: float, memory_gb: float, current) -> None:
    quiet = os.open(os.devnull, os.O_WRONLY)  # warnings of the code under test would drown the table
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    if memory_gb > 0:
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _alarm)
    spec = TARGETS[name]
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as folder:
        try:
            ctx = spec.setup(Path(folder)) if spec.setup else None
        except Exception as error:  # noqa: BLE001 - the API the target needs changed: say so, skip it
            conn.send(("setup", f"{type(error).__name__} {_where(error)}: {error}"[:300]))
            return
        for i in indices:
            rng = random.Random(f"{seed}/{name}/{i}")
            try:
                case = spec.make(rng, ctx)
            except Exception as error:  # noqa: BLE001 - a bug of the fuzzer itself: report, go on
                conn.send((i, "unclear", f"fuzzer {type(error).__name__} {_where(error)}", str(error)[:200], ""))
                continue
            current.value = i
            current_start = time.monotonic()
            conn.send(("start", i, current_start, case.shown))
            try:
                outcome, signature, message = run_case(case, timeout)
            except Exception as error:  # noqa: BLE001 - judging the outcome failed: a bug of the fuzzer
                outcome, signature, message = "unclear", f"fuzzer {type(error).__name__} {_where(error)}", str(error)
            current.value = -1
            conn.send((i, outcome, signature, case.shown, message[:300], time.monotonic() - current_start))
    conn.send(("done",))


def run_target(
    name: str, count: int, seed: int, timeout: float, grace: float, memory_gb: float, context
) -> tuple[Counter, dict[str, tuple[str, str, int, int]], float, tuple[float, str]]:
    """Run inputs ``0..count-1`` of one target; restart the worker after any input that kills it."""
    counts: Counter = Counter()
    failures: dict[str, tuple[str, str, int, int]] = {}  # signature -> (smallest shown, message, index, count)
    todo = list(range(count))
    began = time.monotonic()
    slowest = (0.0, "")

    def record(outcome: str, signature: str, shown: str, message: str) -> None:
        index = todo.pop(0)
        counts[outcome] += 1
        if outcome in FAILURES:
            key = f"{outcome}: {signature}"
            old = failures.get(key)
            best = (shown, message, index) if old is None or len(shown) < len(old[0]) else old[:3]
            failures[key] = (*best, (old[3] if old else 0) + 1)

    while todo:
        receiver, sender = context.Pipe(duplex=False)
        current = context.Value("q", -1)
        process = context.Process(
            target=_worker, args=(sender, name, seed, todo, timeout, memory_gb, current), daemon=True
        )
        process.start()
        sender.close()
        started, shown, finished = None, "", False
        while not finished:
            if receiver.poll(0.1):
                try:
                    message = receiver.recv()
                except EOFError:
                    break
                if message[0] == "done":
                    finished = True
                elif message[0] == "setup":
                    failures[f"setup failed: {message[1]}"] = ("(setup)", "target skipped", -1, 1)
                    counts["unclear"] += 1
                    todo.clear()
                    finished = True
                elif message[0] == "start":
                    _, _, started, shown = message
                else:
                    i, outcome, signature, shown_, text, seconds = message
                    assert i == todo[0], (i, todo[0])
                    record(outcome, signature, shown_, text)
                    slowest = max(slowest, (seconds, shown_))
                    started = None
            elif started is not None and time.monotonic() - started > timeout + grace:
                process.kill()
                break
            elif not process.is_alive() and not receiver.poll(0):
                break
        process.join(5)
        if finished:
            break
        if todo:  # the worker died or was killed on todo[0]
            why = "hang (killed)" if process.exitcode == -signal.SIGKILL else f"worker died (exit {process.exitcode})"
            record("hang" if "hang" in why else "unclear", why, shown or f"input {todo[0]}", "")
    return counts, failures, time.monotonic() - began, slowest


def only(name: str, seed: int, index: int, timeout: float) -> int:
    """Rerun one input in this process and show it with its full traceback."""
    spec = TARGETS[name]
    signal.signal(signal.SIGALRM, _alarm)
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as folder:
        ctx = spec.setup(Path(folder)) if spec.setup else None
        case = spec.make(random.Random(f"{seed}/{name}/{index}"), ctx)
        print(f"{name} #{index}: {case.shown}")
        try:
            result = case.call()
            print(f"accepted: {fuzz_targets.short(result)}{' (an edited file!)' if case.edited else ''}")
        except BaseException as error:  # noqa: BLE001 - show whatever it is
            traceback.print_exception(error)
        print("outcome:", run_case(spec.make(random.Random(f"{seed}/{name}/{index}"), ctx), timeout))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=30_000, help="inputs in all (split by target weight)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="only these (repeatable)")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds one input may take")
    parser.add_argument("--grace", type=float, default=8.0, help="further seconds before a stuck worker is killed")
    parser.add_argument("--memory-gb", type=float, default=6.0, help="address-space limit of a worker (0: none)")
    parser.add_argument("--only", type=int, help="rerun input ONLY of the (one) --target, with its traceback")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    args = parser.parse_args(argv)
    if args.list:
        for spec in TARGETS.values():
            print(f"{spec.name:14} weight {spec.weight}")
        return 0
    names = args.target or list(TARGETS)
    if args.only is not None:
        if len(names) != 1:
            parser.error("--only needs exactly one --target")
        return only(names[0], args.seed, args.only, args.timeout)
    if args.inputs < 1 or args.timeout <= 0:
        parser.error("--inputs and --timeout must be positive")
    weights = sum(TARGETS[n].weight for n in names)
    context = mp.get_context("fork")
    totals: Counter = Counter()
    print(f"fuzz: seed {args.seed}, {args.inputs} inputs, timeout {args.timeout} s\n")
    began = time.monotonic()
    print(f"{'target':14} {'inputs':>7} " + " ".join(f"{o:>8}" for o in OUTCOMES) + "  seconds  slowest")
    reports, slowest = [], []
    try:
        for name in names:
            count = max(1, round(args.inputs * TARGETS[name].weight / weights))
            counts, failures, seconds, slow = run_target(
                name, count, args.seed, args.timeout, args.grace, args.memory_gb, context
            )
            totals.update(counts)
            slowest.append((name, *slow))
            print(
                f"{name:14} {count:7d} "
                + " ".join(f"{counts[o]:8d}" for o in OUTCOMES)
                + f"  {seconds:7.1f}  {slow[0]:6.3f}",
                flush=True,
            )
            reports += [(name, key, *value) for key, value in sorted(failures.items())]
    except KeyboardInterrupt:
        print("\ninterrupted: the figures above are complete, the rest did not run")
    print(
        f"{'total':14} {sum(totals.values()):7d} "
        + " ".join(f"{totals[o]:8d}" for o in OUTCOMES)
        + f"  {time.monotonic() - began:7.1f}"
    )
    print("\nslowest input that finished, per target (seconds on this machine, as loaded as it is):")
    for name, seconds, shown in slowest:
        print(f"  {name:14} {seconds:6.3f}  {shown}")
    if reports:
        print(f"\n{len(reports)} distinct failures (the smallest example of each; rerun with --target T --only I):")
        for name, key, shown, message, index, n in reports:
            print(f"- [{name}] {key} (x{n})\n    input #{index}: {shown}\n    message: {message[:300]}")
    return 1 if any(totals[o] for o in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
