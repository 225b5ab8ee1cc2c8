"""Tests of ``agents.protocols``."""
