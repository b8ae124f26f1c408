"""Kafana: a tournament-grade engine service for Tablić and Tač."""

__version__ = "0.1.0"
