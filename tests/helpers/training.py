"""What the training tests share."""

from __future__ import annotations

__all__ = ["SELFPLAY_SPEC"]

#: the search that plays the training tests' self-play games: fast, and deterministic for a seed
SELFPLAY_SPEC = "two-iteration:depth=1,eval=improved"
