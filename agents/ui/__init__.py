"""Playing against an agent: in the terminal (``terminal``) or in a pygame window (``window``)."""
