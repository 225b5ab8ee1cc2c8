"""Tests of ``training.data``."""
