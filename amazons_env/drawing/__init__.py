"""Pictures of a position: a text diagram, an RGB array and a pygame window (``render``, the
envs' render modes), an SVG drawing for notebooks (``svg``), and a whole game as one self-contained
web page (``html``)."""
