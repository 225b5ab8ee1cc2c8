"""Tests of the amazons_env package."""
