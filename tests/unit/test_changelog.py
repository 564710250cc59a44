"""CHANGELOG.md stays readable through rebases: no entry is listed twice (a rebase that moves
entries under another heading must not leave the old copies behind)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"


def entries(text: str) -> list[str]:
    """Each `- ` bullet with its continuation lines, whitespace folded."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("- "):
            current = [line[2:]]
            found.append(current)
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(parts) for parts in found]


def test_no_changelog_entry_is_listed_twice() -> None:
    counts = Counter(entries(CHANGELOG.read_text(encoding="utf-8")))
    twice = [entry[:80] for entry, n in counts.items() if n > 1]
    assert twice == []
