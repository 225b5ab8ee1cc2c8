"""Tests of ``amazons_env.adapters``."""
