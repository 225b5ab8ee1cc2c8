"""Tests of the training package."""
