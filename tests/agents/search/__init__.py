"""Tests of ``agents.search``."""
