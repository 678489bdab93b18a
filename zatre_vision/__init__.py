"""Zatre Vision: a tabletop assistant for the Zatre board game."""

__version__ = "0.1.0"
