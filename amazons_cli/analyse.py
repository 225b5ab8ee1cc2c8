"""``amazons analyse GAME...``: review games with an engine.

For every position of each game (an SGF file, a move list, or a folder of them) the engine's
value for the side to move and its best move; for every move its loss against the best and a
label by the thresholds of ``agents.analysis.review`` (inaccuracy from a loss of 0.10, mistake
from 0.20, blunder from 0.40, on values from -1 to +1); per player an accuracy figure and the
counts. Prints the table and the summary, and writes beside each record GAME.analysis.sgf (a
comment and a value on every move), GAME.analysis.html (the web page with the value curve; its
move list and headers carry the review) and GAME.analysis.json, the evaluations so far: a rerun
after Ctrl-C goes on from there. ``--engine solver`` gives exact values on small boards.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from concurrent.futures import as_completed
from pathlib import Path

from amazons_env.drawing.html import save_game_page
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import write_atomic
from amazons_env.records import GameRecord

from agents.analysis.annotate import annotated_record, annotated_sgf, summary_lines, table
from agents.analysis.review import SOLVER_SPEC, evaluate, review
from agents.analysis.store import EvaluationStore
from agents.arena.processes import pool_allowed, worker_pool
from agents.registry import DEFAULT_OPPONENT, make
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
        help=f"agent spec of a search that reports a value, or 'solver' (default {DEFAULT_ENGINE})",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes evaluating positions (default 1)")
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


def _check_engine(spec: str) -> None:
    if spec != SOLVER_SPEC and not isinstance(make(spec), SearchAgent):
        raise InvalidArgumentError(f"--engine {spec}: not a search that reports a value (try uct:time=1 or solver)")


def _progress(done: int, total: int, name: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{name}: {done}/{total} positions", end="" if done < total else "\n", file=sys.stderr, flush=True)


def analyse_record(record: GameRecord, stem: Path, engine: str, workers: int) -> None:
    """Evaluate every position of ``record`` (resuming from ``stem``.analysis.json), then print
    the review and write its SGF and web page beside ``stem``."""
    store = EvaluationStore.load(f"{stem}{OUTPUT_TAG}.json", engine)
    texts = [record.board(p).text() for p in range(len(record.moves) + 1)]
    missing = list(dict.fromkeys(t for t in texts if store.get(t) is None))
    done = len(set(texts)) - len(missing)
    total = len(set(texts))
    _progress(done, total, stem.name)
    if workers > 1 and len(missing) > 1 and pool_allowed():
        with worker_pool(workers) as pool:
            futures = {pool.submit(evaluate, engine, text): text for text in missing}
            for future in as_completed(futures):
                store.put(futures[future], future.result())
                done += 1
                _progress(done, total, stem.name)
    else:
        for text in missing:
            store.put(text, evaluate(engine, text))
            done += 1
            _progress(done, total, stem.name)
    evaluations = [store.get(t) for t in texts]
    game = review(record, [e for e in evaluations if e is not None])
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
    _check_engine(args.engine)
    for path in records_in(args.games):
        records = GameRecord.load_all(path) if path.suffix.lower() == ".sgf" else [GameRecord.load(path, args.size)]
        for index, record in enumerate(records, 1):
            base = path.with_suffix("")
            stem = base if len(records) == 1 else Path(f"{base}-{index}")
            analyse_record(record, stem, args.engine, args.workers)
    return 0
