"""A KIP-848 member's subscribed topic regex, resolved as Kafka's coordinator resolves it.

Kafka 4.x (`GroupMetadataManager.refreshRegularExpressions`) compiles the regex with RE2/J and
keeps every topic of the metadata image, internal ones included, for which
`pattern.matcher(topic).matches()` holds: the whole name must match. Python's `re` reads the
RE2 syntax consumers use (classes, alternation, repetition) the same way; RE2 lacks
backreferences and lookaround, which Kafka refuses when the member subscribes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def topics_matching(regex: str, topics: Iterable[str]) -> list[str] | None:
    """The topics whose whole name matches `regex`, sorted; None when Python cannot compile it
    (Kafka logs and ignores a regex it cannot parse)."""
    try:
        pattern = re.compile(regex)
    except re.error:
        return None
    return sorted(t for t in topics if pattern.fullmatch(t))
