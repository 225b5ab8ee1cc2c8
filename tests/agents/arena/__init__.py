"""Tests of ``agents.arena``."""
