"""Untrusted text made safe for a terminal: every C0/C1 control character, DEL and the Unicode
bidirectional controls shown escaped (`\\x1b`, `\\u202e`), so nothing from the cluster can move
the cursor, set a title or reorder text. Lives in core so that the stderr notes channel
(`kgroup.core.notes`) can use it; `kgroup.render.safe` builds its CSV and JSON rules on it."""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character shown as an escape."""
    return _UNSAFE.sub(_escaped, text)
