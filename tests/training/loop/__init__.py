"""Tests of ``training.loop``."""
