"""The loop's record: ``loop-state.json`` (the stages done, the best generation, the gates), sealed with
its own SHA-256, and the views made from it (``elo.csv``, ``elo.png``, one line per gate).

A gate's row holds the new net's wins in all and per colour, its score with the 95% interval, the
Elo difference to its opponent with its interval, and its Elo on the run's scale (generation 0 is
0; the opponent's Elo plus the difference, intervals added in quadrature).

>>> result = {"games": 20, "a_wins": 13, "score": 0.65, "score_ci95": [0.43, 0.82], "elo": 107.5,
...           "elo_ci95": [-48.0, 265.0], "per_colour": {"a_white": {"games": 10, "a_wins": 7},
...           "a_black": {"games": 10, "a_wins": 6}}}
>>> row = gate_row(1, 0, result, [], 0.5)
>>> print(gate_line(row))  # doctest: +ELLIPSIS
gate 1 (gen 1 vs gen 0): 13/20 (White 7/10, Black 6/10), score 0.65 [0.43, 0.82], Elo +108 [-48, +265], ...
>>> gate_line(row).split(", ")[-1]
'gen 1 at Elo +108 +/- 156 (gen 0 = 0): accepted'
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any, Sequence

from amazons_env.errors import InvalidFileError
from amazons_env.files import is_sealed, read_json, seal, write_atomic, write_json

__all__ = [
    "STATE",
    "STATE_VERSION",
    "LoopStateError",
    "read_state",
    "load_state",
    "save_state",
    "gate_row",
    "gate_line",
]

STATE = "loop-state.json"
STATE_VERSION = 1
_KEYS = {"version", "settings", "done", "best", "gates", "sha256"}


class LoopStateError(InvalidFileError):
    """A loop state file that cannot be used (edited, malformed, or from other settings)."""


def read_state(out: "str | Path") -> dict[str, Any]:
    """The checked state of the run in folder ``out`` (``LoopStateError`` if missing, edited or malformed)."""
    path = Path(out) / STATE
    state = read_json(path, "loop state", error=LoopStateError)
    if set(state) != _KEYS:
        raise LoopStateError(f"loop state {path} is malformed (expected the keys {sorted(_KEYS)})")
    if not is_sealed(state):
        raise LoopStateError(f"loop state {path} was edited: its sha256 does not match its content")
    if state["version"] != STATE_VERSION:
        raise LoopStateError(f"loop state {path} has version {state['version']!r}, this code reads {STATE_VERSION}")
    return state


def load_state(out: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """The state of ``out`` (a fresh one where there is none), refused if made with other ``settings``."""
    if not (out / STATE).exists():
        return {"version": STATE_VERSION, "settings": settings, "done": [], "best": 0, "gates": []}
    state = read_state(out)
    if state["settings"] != settings:
        recorded = state["settings"]
        changed = sorted(k for k in {*settings, *recorded} if recorded.get(k) != settings.get(k))
        raise LoopStateError(
            f"{out} holds a loop run with other settings ({', '.join(changed)}); "
            "rerun with the same settings or use another folder"
        )
    return state


def save_state(out: Path, state: dict[str, Any]) -> None:
    """Write the state (atomically, sealed) and the Elo views of its gates."""
    write_json(out / STATE, seal(state), indent=2)
    if state["gates"]:
        _write_elo(out, state["gates"])


def gate_row(
    generation: int, opponent: int, result: dict[str, Any], gates: Sequence[dict[str, Any]], threshold: float
) -> dict[str, Any]:
    """The row of a gating match (``agents.arena.matches.match``'s summary, the new net as ``a``)."""
    base = next((row for row in gates if row["generation"] == opponent), None)
    low, high = result["elo_ci95"]
    white, black = result["per_colour"]["a_white"], result["per_colour"]["a_black"]
    return {
        "generation": generation,
        "opponent": opponent,
        "games": result["games"],
        "wins": result["a_wins"],
        "white_games": white["games"],
        "white_wins": white["a_wins"],
        "black_games": black["games"],
        "black_wins": black["a_wins"],
        "score": round(result["score"], 4),
        "score_low": round(result["score_ci95"][0], 4),
        "score_high": round(result["score_ci95"][1], 4),
        "elo_diff": round(result["elo"], 1),
        "elo_diff_low": round(low, 1),
        "elo_diff_high": round(high, 1),
        "elo": round((base["elo"] if base else 0.0) + result["elo"], 1),
        "elo_pm": round(math.hypot(base["elo_pm"] if base else 0.0, (high - low) / 2), 1),
        "accepted": bool(result["score"] >= threshold),
    }


def gate_line(row: dict[str, Any]) -> str:
    """One line for a gate's row (the rows of runs made before the colours were kept say less)."""
    g, o = row["generation"], row["opponent"]
    text = f"gate {g} (gen {g} vs gen {o}): {row['wins']}/{row['games']}"
    if "white_wins" in row:
        text += f" (White {row['white_wins']}/{row['white_games']}, Black {row['black_wins']}/{row['black_games']})"
    text += f", score {row['score']:.2f} [{row['score_low']:.2f}, {row['score_high']:.2f}], Elo {row['elo_diff']:+.0f}"
    if "elo_diff_low" in row:
        text += f" [{row['elo_diff_low']:+.0f}, {row['elo_diff_high']:+.0f}]"
    mark = "accepted" if row["accepted"] else "rejected"
    return text + f", gen {g} at Elo {row['elo']:+.0f} +/- {row['elo_pm']:.0f} (gen 0 = 0): {mark}"


def _write_elo(out: Path, gates: list[dict[str, Any]]) -> None:
    """``elo.csv`` (one row per gated generation) and ``elo.png`` (when matplotlib is installed)."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(gates[-1]), restval="")
    writer.writeheader()
    writer.writerows(gates)
    write_atomic(out / "elo.csv", text.getvalue())
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    gens = [0] + [row["generation"] for row in gates]
    elo = [0.0] + [row["elo"] for row in gates]
    err = [0.0] + [row["elo_pm"] for row in gates]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(gens, elo, yerr=err, marker="o", capsize=3)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (generation 0 = 0), 95% interval")
    ax.set_title("train-loop: Elo by generation (gating matches)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "elo.png", dpi=100)
    plt.close(fig)
