"""Java `.properties` text -> (key, value, origin) entries, by the rules of
`java.util.Properties.load` that client properties files use (comments, separators, line
continuation, escapes)."""

from __future__ import annotations

import re


def parse_properties(text: str, source: str = "<properties>") -> list[tuple[str, str, str]]:
    """Parse Java `.properties` text into (key, value, origin) triples.

    Handles `#`/`!` comments, `=`, `:` or whitespace separators, backslash line continuation
    (as `sasl.jaas.config` values often use) and the usual escapes.
    """
    entries: list[tuple[str, str, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        start_line = index + 1
        line = lines[index].lstrip()
        index += 1
        if not line or line[0] in "#!":
            continue
        logical = line
        while _ends_with_continuation(logical) and index < len(lines):
            logical = logical[:-1] + lines[index].lstrip()
            index += 1
        if _ends_with_continuation(logical):
            logical = logical[:-1]
        key, value = _split_key_value(logical)
        entries.append((_unescape(key), _unescape(value), f"{source}:{start_line}"))
    return entries


def _ends_with_continuation(line: str) -> bool:
    backslashes = len(line) - len(line.rstrip("\\"))
    return backslashes % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "=: \t\f":
            key = line[:i]
            rest = line[i:].lstrip(" \t\f")
            if rest[:1] in ("=", ":") and ch in " \t\f":
                rest = rest[1:].lstrip(" \t\f")
            elif ch in "=:":
                rest = line[i + 1 :].lstrip(" \t\f")
            return key, rest
        i += 1
    return line, ""


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
