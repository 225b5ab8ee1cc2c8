"""The test suite: it mirrors the package tree (``amazons_env``, ``agents``, ``training``, ``cli``)."""
