"""Tests of the example scripts in examples/."""
