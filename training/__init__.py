"""training: self-play data (``selfplay``, ``shards``) and value-net training (``train``,
``checkpoint``) for the Amazons CNN. The nets themselves, their safe files and the committed
weights live in ``agents.nets``: agents play with them without this package."""
