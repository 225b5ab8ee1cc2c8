"""Tests of ``amazons_env.drawing``."""
