"""assign."""
