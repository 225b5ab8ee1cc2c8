"""Score a trained policy: ``games`` games against each opponent, half as White and half as Black,
wins per colour and 95% intervals; for the PPO examples' final tables.

    python3 examples/ppo_scores.py runs/ppo8/final --size 8          # a selfplay_ppo.py checkpoint
    python3 examples/ppo_scores.py runs/ppo8/final --size 8 --opponents random-agent uct:sims=100

The policy plays deterministically (its most likely legal action); its first turn in each game
is a random legal move, so that deterministic players meet in different games. Opponents:
``random-agent`` is the arena's ``random`` agent (a uniform choice among whole moves); a spec with a
batched form (``random``, ``uct:sims=100``: ``agents.batch_opponents``) plays all games in one numba
call; any other spec (``alphabeta:depth=1``) is one agent shared by the games.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from amazons_env.envs.opponents import resolve_batch_opponent
from amazons_env.envs.policy_pool import play_policies

from agents import make

OPPONENTS = ("random-agent", "alphabeta:depth=1", "uct:sims=100")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of ``wins`` out of ``n``.

    >>> [round(x, 3) for x in wilson(95, 100)]
    [0.888, 0.978]
    """
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def opponent_of(name: str, size: int) -> Any:
    """What plays ``name`` (module docstring): the spec itself where it has a batched form, else an agent."""
    if name == "random-agent":
        return make("random")
    return name if resolve_batch_opponent(name, size) is not None else make(name)


def score(policy: Any, opponent: Any, size: int, games: int, **env_options: Any) -> dict[str, Any]:
    """``games`` games of the batched ``policy(planes, masks)`` against ``opponent`` (a name, or
    what ``opponent_of`` made of one)."""
    versus = opponent_of(opponent, size) if isinstance(opponent, str) else opponent
    result = play_policies(policy, versus, size=size, games=games, seed=20_000, **env_options)
    low, high = wilson(result["white"] + result["black"], games)
    return {**result, "low": low, "high": high}


def table(scores: dict[str, dict[str, Any]]) -> str:
    """The scores as a Markdown table (each row's own number of games, half as White)."""
    lines = ["| opponent | wins / games | as White | as Black | 95% interval |", "|---|---:|---:|---:|---:|"]
    for name, row in scores.items():
        games, half = row["games"], row["games"] // 2
        wins = row["white"] + row["black"]
        lines.append(
            f"| `{name}` | {wins}/{games} ({row['score']:.0%}) | {row['white']}/{half} | {row['black']}/{games - half} "
            f"| {row['low']:.0%}-{row['high']:.0%} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a selfplay_ppo.py net: DIR/final (without its suffix)")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    args = parser.parse_args()
    if str(Path(__file__).resolve().parent) not in sys.path:  # ppo_policy.py lies beside this file
        sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ppo_policy import greedy_policy, load_checkpoint

    net = load_checkpoint(args.checkpoint)
    started = time.perf_counter()
    scores = {
        name: score(greedy_policy(net), name, args.size, args.games, action_encoding="lines", mask_dtype="bool")
        for name in args.opponents
    }
    print(
        f"{args.checkpoint} on {args.size}x{args.size}, {args.games} games each ({time.perf_counter() - started:.0f} s)"
    )
    print(table(scores))


if __name__ == "__main__":
    main()
