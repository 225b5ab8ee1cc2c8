"""Tests of ``training.optimize``."""
