"""Tests of ``training.selfplay``."""
