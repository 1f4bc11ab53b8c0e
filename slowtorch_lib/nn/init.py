"""Initialisation (filled in next)."""
