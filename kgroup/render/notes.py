"""The diagnostic line every part of kgroup writes on stderr (never stdout): `kgroup: ...`."""

from __future__ import annotations

import sys


def note(message: str) -> None:
    """One diagnostic line on stderr, terminal-safe."""
    from kgroup.render.safe import terminal_safe

    sys.stderr.write(f"kgroup: {terminal_safe(message)}\n")
