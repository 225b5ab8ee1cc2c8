"""``amazons analyse GAME...``: review games with an engine.

For every position of each game (an SGF file, a move list, or a folder of them) the engine's
value for the side to move and its best move; for every move its loss against the engine's move
there (each valued by a search of the position it leads to) and a label by the thresholds of
``agents.analysis.review`` (inaccuracy from a loss of 0.10, mistake from 0.20, blunder from
0.40, on values from -1 to +1); per player an accuracy figure and the counts. Prints the table
and the summary, and writes beside each record GAME.analysis.sgf (a comment, a value and SGF's
move annotation on every move), GAME.analysis.html (the web page: the value curve, the engine's
move drawn on the board in every position, the marks in the move list) and GAME.analysis.json,
the evaluations so far: after Ctrl-C the same command goes on from there. ``--workers N``
evaluates N positions at once in worker processes; ``--threads N`` gives the engine N threads
per position. ``--engine solver`` gives exact values on small boards.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

from amazons_env.drawing.html import save_game_page
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import write_atomic
from amazons_env.records import GameRecord

from agents.analysis.annotate import annotated_record, annotated_sgf, summary_lines, table
from agents.analysis.review import SOLVER_SPEC, Evaluation, GameReview, alternative_positions, evaluate, review
from agents.analysis.store import EvaluationStore
from agents.arena.matches import with_option
from agents.arena.processes import pool_allowed, stop_pool, worker_pool
from agents.registry import DEFAULT_OPPONENT, make, parse_spec
from agents.search.agent import SearchAgent

HELP = __doc__.split("\n\n", 1)[1].replace("``", "'")
DEFAULT_ENGINE = f"{DEFAULT_OPPONENT}:time=1"
RECORD_SUFFIXES = (".sgf", ".txt")
OUTPUT_TAG = ".analysis"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("games", nargs="+", help="record files (SGF or move list) or folders of them")
    parser.add_argument(
        "--engine",
        default=DEFAULT_ENGINE,
        help=f"agent spec of a search that reports a value, or 'solver' (default {DEFAULT_ENGINE}: our strongest, "
        "1 s a position)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes evaluating positions at once (default 1)")
    parser.add_argument(
        "--threads", type=int, default=None, help="the engine's threads per position (its 'threads' option)"
    )
    parser.add_argument("--size", type=int, default=None, help="board size of a move list without a Size tag")


def records_in(paths: list[str]) -> Iterator[Path]:
    """The record files named, and those in the folders named (``.sgf``/``.txt``, not our outputs)."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            for child in sorted(path.iterdir()):
                if child.suffix.lower() in RECORD_SUFFIXES and OUTPUT_TAG not in child.name and child.is_file():
                    yield child
        elif path.is_file():
            yield path
        else:
            raise InvalidArgumentError(f"game {name!r}: no such file or folder")


def engine_of(args: argparse.Namespace) -> str:
    """The engine spec to use: ``--engine`` with ``--threads`` set in it; refused (bad input) if
    it is no search that reports a value, or ``--threads`` is not an option of it."""
    spec = args.engine
    if spec == SOLVER_SPEC:
        if args.threads is not None:
            raise InvalidArgumentError("--threads: the solver engine runs on one thread")
        return spec
    if args.threads is not None:
        if args.threads < 1:
            raise InvalidArgumentError(f"--threads {args.threads}: must be at least 1")
        spec = with_option(spec, "threads", args.threads)
        if parse_spec(spec)[1].get("threads") != args.threads:
            raise InvalidArgumentError(f"--threads: --engine {args.engine} sets its own threads or takes none")
    if not isinstance(make(spec), SearchAgent):
        raise InvalidArgumentError(f"--engine {spec}: not a search that reports a value (try uct:time=1 or solver)")
    return spec


def _bar(total: int, done: int, name: str) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total, initial=done, desc=name, unit="position", disable=not sys.stderr.isatty(), dynamic_ncols=True
    )


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """Ctrl-C ignored while worker processes start: they inherit that, so one pressed while they
    are still starting up (before the pool's initializer has them ignore it) prints no traceback
    of theirs. The parent ignores it for the moment it takes to start them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _prepare(engine: str) -> None:
    """In a worker: import what ``engine`` needs (torch, its modules) before its first position."""
    if engine != SOLVER_SPEC:
        make(engine)


class _Evaluations:
    """Evaluates positions into ``store`` with ``engine``, in ``pool`` if one is given. The first
    position of all is evaluated here, before any worker has one: numba compiles the engine's
    kernels once, in this process, and the workers load them from the cache instead of each
    compiling them; the workers meanwhile import what the engine needs. Until the first of them
    answers, this process goes on taking positions from the back of the queue (a worker's start,
    torch's import above all, takes seconds)."""

    def __init__(self, store: EvaluationStore, engine: str, pool: Any, workers: int, bar: Any) -> None:
        self.store, self.engine, self.pool, self.bar = store, engine, pool, bar
        self.workers, self.compiled, self.answered = workers, pool is None, pool is None

    def add(self, texts: list[str]) -> list[Evaluation]:
        """The evaluations of ``texts``, those the store lacks evaluated and kept as they come."""
        missing = [text for text in dict.fromkeys(texts) if self.store.get(text) is None]
        if missing and not self.compiled:
            with _ctrl_c_ignored():  # the workers start at these submits
                for _ in range(self.workers if len(missing) > 1 else 0):  # one each, as a rule: a worker
                    self.pool.submit(_prepare, self.engine)  # is busy importing when the next is taken
            first = missing.pop(0)
            self._keep(first, evaluate(self.engine, first))
            self.compiled = True
        if self.pool is None:
            for text in missing:
                self._keep(text, evaluate(self.engine, text))
        else:
            futures = {self.pool.submit(evaluate, self.engine, text): text for text in missing}
            queued = list(futures)
            while not self.answered and queued:
                self.answered = any(future.done() for future in futures)
                last = queued.pop()
                if not self.answered and last.cancel():  # not taken by a worker yet
                    text = futures.pop(last)
                    self._keep(text, evaluate(self.engine, text))
            for future in as_completed(futures):
                self._keep(futures[future], future.result())
                self.answered = True
        return self.store.evaluations(texts)

    def _keep(self, text: str, evaluation: Evaluation) -> None:
        self.store.put(text, evaluation)
        self.bar.update()


def review_of(record: GameRecord, store: EvaluationStore, engine: str, workers: int, name: str) -> GameReview:
    """The review of ``record``: every position evaluated, then the position after the engine's
    move wherever it is not the move played (``alternative_positions``), each kept in ``store`` as
    it comes; on Ctrl-C say what is kept and stop (``KeyboardInterrupt`` goes on up)."""
    texts = [record.board(p).text() for p in range(len(record.moves) + 1)]
    done = sum(store.get(text) is not None for text in texts)
    bar = _bar(len(texts) + len(record.moves), done, name)  # at most one alternative a move
    parallel = workers > 1 and pool_allowed()
    try:
        with worker_pool(workers) if parallel else contextlib.nullcontext() as pool:
            evaluations = _Evaluations(store, engine, pool, workers, bar)
            positions = evaluations.add(texts)
            others = [text for text in alternative_positions(record, positions) if text is not None]
            bar.total, bar.n = len(texts) + len(others), len(texts) + sum(store.get(t) is not None for t in others)
            bar.refresh()
            alternatives = evaluations.add(others)
            if pool is not None:
                stop_pool(pool)  # idle workers: ended at once, not waited for while they unload torch
    except KeyboardInterrupt:
        bar.close()
        print(
            f"{name}: stopped; {len(store)} positions kept in {store.path}: the same command goes on from there",
            file=sys.stderr,
        )
        raise
    bar.close()
    return review(record, positions, alternatives)


def analyse_record(record: GameRecord, stem: Path, engine: str, workers: int) -> None:
    """Evaluate every position of ``record`` (resuming from ``stem``.analysis.json), then print
    the review and write its SGF and web page beside ``stem``."""
    store = EvaluationStore.load(f"{stem}{OUTPUT_TAG}.json", engine)
    game = review_of(record, store, engine, workers, stem.name)
    print(f"{stem.name}: {len(record.moves)} moves, engine {engine}")
    print(table(game))
    for line in summary_lines(game):
        print(line)
    write_atomic(f"{stem}{OUTPUT_TAG}.sgf", annotated_sgf(record, game, engine))
    save_game_page(annotated_record(record, game, engine), f"{stem}{OUTPUT_TAG}.html")
    print(f"wrote {stem}{OUTPUT_TAG}.sgf and {stem}{OUTPUT_TAG}.html")


def run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise InvalidArgumentError(f"--workers {args.workers}: must be at least 1")
    engine = engine_of(args)
    for path in records_in(args.games):
        records = GameRecord.load_all(path) if path.suffix.lower() == ".sgf" else [GameRecord.load(path, args.size)]
        for index, record in enumerate(records, 1):
            base = path.with_suffix("")
            stem = base if len(records) == 1 else Path(f"{base}-{index}")
            analyse_record(record, stem, engine, args.workers)
    return 0
