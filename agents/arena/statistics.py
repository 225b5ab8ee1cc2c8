"""The honest statistics of a match and their printing: what the arena reports about its games.

* ``summarize``: the first agent's score (wins / games; Amazons has no draws) with a 95% Wilson
  interval (``score_interval``), the Elo difference ``400 log10(s / (1 - s))`` with the interval
  mapped the same way (``elo``: at a score of 0 or 1 the Elo is unbounded; the summary stores it
  clamped to stay finite, ``format_match`` prints ``+inf`` or ``-inf``), the results per colour,
  and the mean and longest think per move of each agent. Games are counted by the agent's *slot*
  in the pairing (first or second), so an agent can play itself (``match("random", "random")`` scores about 0.5, not 1).
* ``format_match`` and ``format_tournament``: a summary or a round robin's standings as text.

The games are the arena's results (``agents.arena.matches``; a pairing ``a`` vs ``b`` is keyed
``pair_key(a, b)``, its game ``2k`` has ``a`` as White, game ``2k + 1`` as Black):

>>> def game(index, winner):
...     return {"pair": "a vs b", "index": index, "winner": winner, "plies": 40, "seconds": [1.0, 2.0],
...             "max_seconds": [0.1, 0.2], "nodes": [100, 400], "moves": [20, 20]}
>>> summary = summarize([game(0, 0), game(1, 0)], "a", "b")  # White won both: one win each
>>> summary["games"], summary["a_wins"], summary["per_colour"]["a_white"]
(2, 1, {'games': 1, 'a_wins': 1, 'b_wins': 0})
>>> [round(bound, 3) for bound in score_interval(7, 10)], round(elo(0.75, 100)), round(elo(1.0, 10))
([0.397, 0.892], 191, 512)
"""

from __future__ import annotations

import math
from typing import Any, Iterable

__all__ = ["summarize", "score_interval", "elo", "pair_key", "format_match", "format_tournament"]

Z95 = 1.959963984540054  # the two-sided 95% quantile of the standard normal


def score_interval(wins: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a score ``wins / games``."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + Z95**2 / games
    centre = (p + Z95**2 / (2 * games)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(score: float, games: int) -> float:
    """Elo difference for ``score``. Its true value at a score of 0 or 1 is unbounded: there it is
    clamped to ``0.5/games`` or ``1 - 0.5/games`` (a single game counted as two, so that one win is
    not an even score) to stay a finite number in results files; ``format_match`` prints ``+inf``.

    >>> round(elo(0.207, 1)), round(elo(1.0, 1)), round(elo(1.0, 10))
    (-233, 191, 512)
    """
    if 0 < score < 1:
        return 400.0 * math.log10(score / (1 - score))
    low = 0.5 / max(games, 2)
    s = min(max(score, low), 1 - low)
    return 400.0 * math.log10(s / (1 - s))


def pair_key(a: str, b: str) -> str:
    """The pairing's key in results: ``a`` is the first slot (White in even-numbered games)."""
    return f"{a} vs {b}"


def summarize(results: Iterable[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """Statistics of the games of the pairing ``a`` vs ``b`` (or ``b`` vs ``a``) from ``a``'s side,
    counted by slot: ``a`` may equal ``b`` (module docstring)."""
    games = []  # (result, a's colour)
    for r in results:
        if r["pair"] == pair_key(a, b):
            games.append((r, r["index"] % 2))
        elif r["pair"] == pair_key(b, a):
            games.append((r, 1 - r["index"] % 2))
    n = len(games)
    wins = sum(1 for r, colour in games if r["winner"] == colour)
    per = {}
    for key, side in (("a_white", 0), ("a_black", 1)):
        mine = [r for r, colour in games if colour == side]
        a_wins = sum(1 for r in mine if r["winner"] == side)
        per[key] = {"games": len(mine), "a_wins": a_wins, "b_wins": len(mine) - a_wins}
    score = wins / n if n else 0.0
    low, high = score_interval(wins, n)

    def of(slot: int, field: str) -> list[float]:  # ``field`` of the agent in ``slot``, game by game
        return [r[field][colour if slot == 0 else 1 - colour] for r, colour in games]

    per_agent = {}
    for slot, who in ((0, "a"), (1, "b")):
        seconds, moves = sum(of(slot, "seconds")), sum(of(slot, "moves"))
        per_agent[who] = {
            "nodes_per_second": _rate(sum(of(slot, "nodes")), seconds),
            "mean_move_seconds": seconds / moves if moves else 0.0,
            "max_move_seconds": max(of(slot, "max_seconds"), default=0.0),
        }
    return {
        "a": a,
        "b": b,
        "games": n,
        "a_wins": wins,
        "b_wins": n - wins,
        "score": score,
        "score_ci95": [low, high],
        "elo": elo(score, n),
        "elo_ci95": [elo(low, n), elo(high, n)],
        "per_colour": per,
        "white_wins": sum(1 for r, _ in games if r["winner"] == 0),
        "mean_plies": sum(r["plies"] for r, _ in games) / n if n else 0.0,
        "mean_game_seconds": sum(sum(r["seconds"]) for r, _ in games) / n if n else 0.0,
        "nodes_per_second": {who: per_agent[who]["nodes_per_second"] for who in ("a", "b")},
        "move_seconds": {
            who: {"mean": per_agent[who]["mean_move_seconds"], "max": per_agent[who]["max_move_seconds"]}
            for who in ("a", "b")
        },
        # games lost because the clock ran out (``--tc``; a result without ``ended`` ended on moves)
        "time_losses": {
            who: sum(1 for r, colour in games if r.get("ended") == "time" and (r["winner"] == colour) == (who == "b"))
            for who in ("a", "b")
        },
    }


def _rate(nodes: float, seconds: float) -> float:
    return nodes / seconds if seconds > 0 else 0.0


def format_match(m: dict[str, Any]) -> str:
    """A few lines: score with interval, Elo, wins per colour, time per game and per move, speed."""
    per, secs = m["per_colour"], m["move_seconds"]
    low, high = m["score_ci95"]
    elo_low, elo_high = m["elo_ci95"]
    # no game lost (or none won): the Elo and that end of its interval are unbounded, not a number
    won_all, lost_all = m["games"] > 0 and m["b_wins"] == 0, m["games"] > 0 and m["a_wins"] == 0
    rating = "+inf" if won_all else "-inf" if lost_all else f"{m['elo']:+.0f}"
    interval = f"{'-inf' if lost_all else f'{elo_low:+.0f}'} to {'+inf' if won_all else f'{elo_high:+.0f}'}"
    unbounded = "; unbounded: no game lost" if won_all else "; unbounded: no game won" if lost_all else ""
    return "\n".join(
        [
            f"{m['a']}  vs  {m['b']}: {m['games']} games, {m['a_wins']}-{m['b_wins']}",
            f"  score {m['score']:.3f} (95% CI {low:.3f}-{high:.3f}), Elo {rating} (95% CI {interval}{unbounded})",
            f"  first agent as White {per['a_white']['a_wins']}/{per['a_white']['games']}, "
            f"as Black {per['a_black']['a_wins']}/{per['a_black']['games']}; White won {m['white_wins']}",
            f"  {m['mean_plies']:.1f} plies and {m['mean_game_seconds']:.2f} s per game; nodes/s "
            f"{m['nodes_per_second']['a']:,.0f} vs {m['nodes_per_second']['b']:,.0f}",
            f"  seconds per move, mean/max: first agent {secs['a']['mean']:.3f}/{secs['a']['max']:.3f}, "
            f"second {secs['b']['mean']:.3f}/{secs['b']['max']:.3f}",
        ]
        + [f"  lost on time: first agent {lost['a']}, second {lost['b']}" for lost in _time_losses(m)]
    )


def _time_losses(m: dict[str, Any]) -> list[dict[str, int]]:
    """``m``'s losses on time, in a list if there were any (summaries made before clocks have none)."""
    lost = m.get("time_losses", {"a": 0, "b": 0})
    return [lost] if lost["a"] or lost["b"] else []


def format_tournament(t: dict[str, Any]) -> str:
    """The standings, then a cross table of wins (row's wins against column, both colours)."""
    names = [row["agent"] for row in t["standings"]]
    width = max(len(n) for n in names)
    lines = [f"{'agent':<{width}}  wins/games  score  95% CI"]
    for row in t["standings"]:
        low, high = score_interval(row["wins"], row["games"])
        lines.append(
            f"{row['agent']:<{width}}  {row['wins']:>4}/{row['games']:<5}  {row['score']:.3f}  {low:.2f}-{high:.2f}"
        )
    cell = {}
    for m in t["matches"]:
        cell[m["a"], m["b"]] = f"{m['a_wins']}/{m['b_wins']}"
        cell[m["b"], m["a"]] = f"{m['b_wins']}/{m['a_wins']}"
    lines += ["", "wins/losses of the row against the column:"]
    short = [f"#{i + 1}" for i in range(len(names))]
    lines.append(" " * (width + 5) + "".join(f"{s:>8}" for s in short))
    for i, name in enumerate(names):
        lines.append(f"#{i + 1:<3} {name:<{width}}" + "".join(f"{cell.get((name, other), '-'):>8}" for other in names))
    return "\n".join(lines)
