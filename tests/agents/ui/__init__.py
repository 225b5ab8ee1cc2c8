"""Tests of ``agents.ui``."""
