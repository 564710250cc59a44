"""offsets."""
