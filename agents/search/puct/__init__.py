"""The PUCT tree search: ``tree`` (the tree, its evaluator protocol and the lock-step rounds over
many trees) and ``agent`` (``PUCTAgent``, the agent around one tree)."""
