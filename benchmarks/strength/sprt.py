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
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Optional

from agents.arena import format_match, match

from amazons_cli.match import add_common, common_options

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's from Python 3.11

    from agents.arena.matches import ArenaOptions

__all__ = ["SprtSettings", "expected_score", "llr", "bounds", "sprt", "sprt_path"]


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


def _setting(default: Any, kind: type, text: str) -> Any:
    """A field of ``SprtSettings`` with its command-line type and help text."""
    return field(default=default, metadata={"type": kind, "help": text})


@dataclass(frozen=True)
class SprtSettings:
    """The sequential test (module docstring): hypotheses, error rates, how often it looks and when
    it gives up; with ``games``, no test but exactly that many games. Each field is an option of
    the command line (``--max-games`` for ``max_games``) with its default here; bad values raise
    ``ValueError``.

    >>> SprtSettings(elo1=30.0).chunk
    10
    """

    elo0: float = _setting(0.0, float, "H0: the change is worth this much")
    elo1: float = _setting(50.0, float, "H1: the change is worth this much")
    alpha: float = _setting(0.05, float, "false-H1 rate")
    beta: float = _setting(0.05, float, "false-H0 rate")
    max_games: int = _setting(400, int, "stop an undecided test here")
    games: Optional[int] = _setting(None, int, "no test: play exactly this many games")
    chunk: int = _setting(10, int, "games between two looks at the test")

    def __post_init__(self) -> None:
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"--{name}={value!r}: must lie in (0, 0.5)")
        if not self.elo1 > self.elo0:
            raise ValueError(f"--elo1={self.elo1!r} must exceed --elo0={self.elo0!r}")
        if self.chunk < 2 or self.chunk % 2:
            raise ValueError(f"--chunk={self.chunk!r}: an even number >= 2 (pairs of games with the same opening)")
        if self.limit < 1:
            raise ValueError(f"games={self.limit!r}: must be >= 1")

    @property
    def limit(self) -> int:
        """The most games played."""
        return self.games if self.games is not None else self.max_games


def sprt(
    new: str, old: str, settings: SprtSettings = SprtSettings(), **options: Unpack[ArenaOptions]
) -> dict[str, Any]:
    """Play ``new`` against ``old`` (module docstring) in ``match`` games with ``options``; returns
    the match summary plus ``"sprt"``: the verdict (``"H1"``: new is better, ``"H0"``: it is not
    better by ``elo1``, ``"none"``: undecided after ``max_games``; ``"fixed"`` with ``games``), the
    LLR and its bounds."""
    lower, upper = bounds(settings.alpha, settings.beta)
    played, verdict, result = 0, "none", None
    while played < settings.limit:
        played = min(settings.limit, played + settings.chunk)
        result = match(new, old, games=played, **options)
        if settings.games is None:
            ratio = llr(result["a_wins"], result["b_wins"], settings.elo0, settings.elo1)
            if ratio >= upper or ratio <= lower:
                verdict = "H1" if ratio >= upper else "H0"
                break
    assert result is not None
    result.pop("results")
    record = {
        "verdict": "fixed" if settings.games is not None else verdict,
        "elo0": settings.elo0,
        "elo1": settings.elo1,
        "alpha": settings.alpha,
        "beta": settings.beta,
        "llr": llr(result["a_wins"], result["b_wins"], settings.elo0, settings.elo1),
        "bounds": [lower, upper],
        "games": result["games"],
        "command": shlex.join(["python3", *sys.argv]),
    }
    json_path = options.get("json_path")
    if json_path is not None:  # beside the arena's file, which only the arena writes
        with open(sprt_path(json_path), "w", encoding="utf-8") as handle:
            json.dump({"sprt": record, "summary": result}, handle, indent=1)
    return {**result, "sprt": record}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        conflict_handler="resolve",  # --games is the test's (SprtSettings), not the arena's games per pairing
    )
    parser.add_argument("new", help="the changed setting, e.g. 'uct:time=0.5,c=0.8'")
    parser.add_argument("old", help="the current setting, e.g. 'uct:time=0.5'")
    add_common(parser, games=0)  # the arena's options, as ``amazons match`` takes them
    parser.set_defaults(size=8, opening=2)
    for setting in fields(SprtSettings):
        text = setting.metadata["help"] + ("" if setting.default is None else f" (default {setting.default})")
        option = "--" + setting.name.replace("_", "-")
        parser.add_argument(option, type=setting.metadata["type"], default=setting.default, help=text)
    args = parser.parse_args(argv)
    options = common_options(args)
    del options["games"]  # the test's: how many games are played is the test's to decide
    try:
        settings = SprtSettings(**{setting.name: getattr(args, setting.name) for setting in fields(SprtSettings)})
        result = sprt(args.new, args.old, settings, **options)
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
