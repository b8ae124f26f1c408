"""Tests of `kafana.competitions` (a package, so its conftest does not clash with others)."""
