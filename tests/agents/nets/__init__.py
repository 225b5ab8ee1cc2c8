"""Tests of ``agents.nets``."""
