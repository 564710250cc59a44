"""The diagnostic line every part of kgroup writes on stderr (never stdout): `kgroup: ...`.

In core so that every layer, the run layers (describe, decode, scan) included, writes its notes
through one channel without importing the render layer."""

from __future__ import annotations

import sys


def note(message: str) -> None:
    """One diagnostic line on stderr, terminal-safe."""
    from kgroup.core.safe_text import terminal_safe  # lazily: `kgroup --help` stays small

    sys.stderr.write(f"kgroup: {terminal_safe(message)}\n")
