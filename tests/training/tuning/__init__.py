"""Tests of ``training.tuning``."""
