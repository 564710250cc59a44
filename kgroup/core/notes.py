"""The diagnostic line every part of kgroup writes on stderr (never stdout): `kgroup: ...`.

In core so that run layers (describe, decode, scan) may write notes without importing the
render layer; `kgroup.render.notes` re-exports it."""

from __future__ import annotations

import sys

from kgroup.core.safe_text import terminal_safe


def note(message: str) -> None:
    """One diagnostic line on stderr, terminal-safe."""
    sys.stderr.write(f"kgroup: {terminal_safe(message)}\n")
