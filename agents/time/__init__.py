"""Time in one home: what bounds a move's thought, when a search stops, and how a game clock is spent.

* ``limit``: ``Limit``, one move's bounds (seconds, counts and the game clocks, as python-chess's);
* ``clock``: ``now_ns``, the one clock every numba search reads (without the GIL where it can);
* ``deadline``: ``Deadline``, one search's time, which another thread may move or halt;
* ``margin``: ``Margin``, what an agent keeps back from a move's time, learnt from how late it returned;
* ``manager``: ``allot`` and ``move_limit``, how much of a game clock a move may spend;
* ``control``: ``TimeControl``, a game's Fischer clock (``MINUTES+INC``);
* ``heap``: ``frozen_heap``, no garbage collection falling on a timed move.

The threads that think on a move, or on the opponent's time, run a search and live above it
(``agents.pondering``, ``agents.background``); the arena's games on game clocks are
``agents.arena.games``'s.
"""
