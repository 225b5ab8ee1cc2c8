"""The envs' numba kernels on plain arrays: one game's turn, observation and mask (``game``, on the
incremental bit words of ``line_words``), a batch of games stepped in one call (``batch``), and the
low-level memory helpers they share (``intrinsics``)."""
