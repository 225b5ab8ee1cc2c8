"""Tune with statistics: play a parameter change against the current setting until a sequential
probability ratio test (SPRT) or a fixed number of games decides, then print the Elo difference
with its 95% interval.

    python3 benchmarks/strength/sprt.py "uct:time=0.5,c=0.8" "uct:time=0.5" --size 8 \\
        --json experiments/engine-matches/uct/sprt_c0.8.json

The games are ``agents.arena.matches.match`` games (colours alternating, ``--opening`` random plies per
pair of games), played in chunks; the arena writes every finished game to ``--json`` at once, so
an interrupted run resumes where it stopped when the same command is run again (Ctrl-C exits
cleanly). The verdict, the LLR, the final summary and the command go to ``sprt_path(--json)``
(``X.json`` -> ``X.sprt.json``) when the test ends.

The test: each game is a win or a loss for the new setting (Amazons has no draws); under H0 its
expected score is that of an Elo difference ``--elo0``, under H1 that of ``--elo1``. The log
likelihood ratio ``W ln(p1/p0) + L ln((1-p1)/(1-p0))`` is compared with Wald's bounds
``ln(beta/(1-alpha))`` (accept H0: not better by elo1) and ``ln((1-beta)/alpha)`` (accept H1).
``--max-games`` ends an undecided test; ``--games N`` skips the test and plays exactly N games.

>>> round(llr(30, 10, 0.0, 50.0), 3), bounds(0.05, 0.05)
(2.465, (-2.944, 2.944))
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from typing import Any, Optional

from agents.arena import format_match, match

__all__ = ["expected_score", "llr", "bounds", "sprt", "sprt_path"]


def expected_score(elo: float) -> float:
    """The expected score of a side ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def llr(wins: int, losses: int, elo0: float, elo1: float) -> float:
    """The log likelihood ratio of H1 (Elo ``elo1``) against H0 (Elo ``elo0``) after ``wins`` and
    ``losses`` (a Bernoulli model: no draws)."""
    p0, p1 = expected_score(elo0), expected_score(elo1)
    return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds for error rates ``alpha`` (false H1) and ``beta`` (false H0)."""
    return round(math.log(beta / (1 - alpha)), 3), round(math.log((1 - beta) / alpha), 3)


def sprt_path(json_path: str) -> str:
    """Where the verdict of a test whose games are in ``json_path`` is written."""
    stem = json_path[:-5] if json_path.endswith(".json") else json_path
    return stem + ".sprt.json"


def sprt(
    new: str,
    old: str,
    size: int = 8,
    opening: int = 2,
    seed: int = 0,
    elo0: float = 0.0,
    elo1: float = 50.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 400,
    games: Optional[int] = None,
    chunk: int = 10,
    workers: Optional[int] = None,
    json_path: Optional[str] = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Play ``new`` against ``old`` (module docstring); returns the match summary plus ``"sprt"``:
    the verdict (``"H1"``: new is better, ``"H0"``: it is not better by ``elo1``, ``"none"``:
    undecided after ``max_games``; ``"fixed"`` with ``games``), the LLR and its bounds."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 0.5:
            raise ValueError(f"--{name}={value!r}: must lie in (0, 0.5)")
    if not elo1 > elo0:
        raise ValueError(f"--elo1={elo1!r} must exceed --elo0={elo0!r}")
    if chunk < 2 or chunk % 2:
        raise ValueError(f"--chunk={chunk!r}: an even number >= 2 (pairs of games with the same opening)")
    limit = games if games is not None else max_games
    if limit < 1:
        raise ValueError(f"games={limit!r}: must be >= 1")
    lower, upper = bounds(alpha, beta)
    played, verdict, result = 0, "none", None
    while played < limit:
        played = min(limit, played + chunk)
        result = match(
            new,
            old,
            games=played,
            size=size,
            seed=seed,
            opening=opening,
            workers=workers,
            json_path=json_path,
            progress=progress,
        )
        if games is None:
            ratio = llr(result["a_wins"], result["b_wins"], elo0, elo1)
            if ratio >= upper or ratio <= lower:
                verdict = "H1" if ratio >= upper else "H0"
                break
    assert result is not None
    result.pop("results")
    record = {
        "verdict": "fixed" if games is not None else verdict,
        "elo0": elo0,
        "elo1": elo1,
        "alpha": alpha,
        "beta": beta,
        "llr": llr(result["a_wins"], result["b_wins"], elo0, elo1),
        "bounds": [lower, upper],
        "games": result["games"],
        "command": shlex.join(["python3", *sys.argv]),
    }
    if json_path is not None:  # beside the arena's file, which only the arena writes
        with open(sprt_path(json_path), "w", encoding="utf-8") as handle:
            json.dump({"sprt": record, "summary": result}, handle, indent=1)
    return {**result, "sprt": record}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("new", help="the changed setting, e.g. 'uct:time=0.5,c=0.8'")
    parser.add_argument("old", help="the current setting, e.g. 'uct:time=0.5'")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument("--opening", type=int, default=2, help="random plies per pair of games (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of openings and agents (default 0)")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: the change is worth this much (default 0)")
    parser.add_argument("--elo1", type=float, default=50.0, help="H1: the change is worth this much (default 50)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false-H1 rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="false-H0 rate (default 0.05)")
    parser.add_argument("--max-games", type=int, default=400, help="stop an undecided test here (default 400)")
    parser.add_argument("--games", type=int, default=None, help="no test: play exactly this many games")
    parser.add_argument("--chunk", type=int, default=10, help="games between two looks at the test (default 10)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: up to 2 cores)")
    parser.add_argument("--json", default=None, metavar="PATH", help="results file (resumable); gets the verdict")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        result = sprt(
            args.new,
            args.old,
            args.size,
            args.opening,
            args.seed,
            args.elo0,
            args.elo1,
            args.alpha,
            args.beta,
            args.max_games,
            args.games,
            args.chunk,
            args.workers,
            args.json,
            not args.quiet,
        )
    except KeyboardInterrupt:
        print("\ninterrupted: rerun the same command to resume", file=sys.stderr)
        return 130
    except ValueError as error:
        parser.error(str(error))
    record = result["sprt"]
    print(format_match(result))
    print(
        f"  SPRT elo0={record['elo0']:g} elo1={record['elo1']:g}: LLR {record['llr']:+.2f} "
        f"(bounds {record['bounds'][0]:+.2f}, {record['bounds'][1]:+.2f}) -> {record['verdict']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
