"""`kgroup decode` below the CLI: engine choice, inputs, views and streaming output (run.py)."""
