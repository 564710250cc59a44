"""reset."""
