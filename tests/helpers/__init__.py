"""Helpers that several test modules share (random positions, a reference minimax, test
evaluators, net checks): a test module imports them from here, never from another test module."""
