"""Untrusted text made safe to print: group ids, client ids, hosts, metadata and topic names
come from the cluster (or from whoever created them) and may hold terminal control sequences.

Tables, CSV and the lines on stderr show every C0/C1 control character, DEL and the Unicode
bidirectional controls escaped (`\\x1b`, `\\u202e`), so nothing reaching the terminal can move
the cursor, set a title or reorder text. JSON escapes the C0 controls itself; `json_text_safe`
writes the others (DEL, C1 such as the 8-bit CSI `\\x9b`, bidi) as `\\uXXXX` escapes too: the
same JSON value, nothing raw for a terminal.
"""

from __future__ import annotations

import re

from kgroup.core.safe_text import terminal_safe

# OWASP "CSV injection": a cell starting with one of these is a formula to a spreadsheet.
_FORMULA_START = ("=", "+", "-", "@")


def csv_safe(text: str) -> str:
    """A CSV cell that is neither a control sequence nor a spreadsheet formula (a leading
    `= + - @` gets a `'`, as OWASP recommends; numbers are not text and are left alone)."""
    text = terminal_safe(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


# characters JSON leaves raw that a terminal or a bidi-aware viewer acts on (_UNSAFE but C0)
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_text_safe(text: str) -> str:
    """A JSON text with DEL, C1 and bidi controls written as `\\uXXXX` escapes (the same JSON
    value; JSON itself escapes only the C0 controls)."""
    if text.isascii() and "\x7f" not in text:  # two scans in C, quicker than the pattern's
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
