"""What the wire calls share: which versions of an API kgroup sends, and topics grouped in the
order they come (Kafka's clients group a request's partitions by topic the same way).

The bytes are the generated message modules' (`kgroup.protocol.generated.wire`); a response is
read with the bytes after it ignored, as Kafka's `NetworkClient` does, except Fetch and
DescribeConfigs, which kgroup always read strictly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.protocol.model import Api


def spoken_only(api: Api, version: int) -> None:
    """Refuse a version kgroup does not send."""
    if version not in api.versions:
        raise ValueError(f"kgroup sends {api.name} v{min(api.versions)}-v{max(api.versions)}")


def by_topic(pairs: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """(topic, item) pairs grouped by topic, topics in first-seen order."""
    grouped: dict[str, list[Any]] = {}
    for topic, item in pairs:
        grouped.setdefault(topic, []).append(item)
    return grouped
