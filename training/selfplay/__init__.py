"""Self-play: search agents against themselves for value targets (``value``), and the
policy-value search for policy and value targets (``policy_value``)."""

from training.selfplay.value import DEFAULT_AGENT, play_game, selfplay

__all__ = ["selfplay", "play_game", "DEFAULT_AGENT"]
