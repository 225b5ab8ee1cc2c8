"""Tests of ``amazons_env.tensor``."""
