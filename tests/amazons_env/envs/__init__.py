"""Tests of ``amazons_env.envs``."""
