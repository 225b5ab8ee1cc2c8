"""Pictures of a position: a text diagram, an RGB array and a pygame window (``render``, the
envs' render modes), and an SVG drawing for notebooks (``svg``)."""
