"""Tests of ``agents.evaluation``."""
