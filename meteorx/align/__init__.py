"""Alignment searches: turn all stages' candidate matches into one alignment."""
