"""Tests of the Python SDK and the terminal client."""
