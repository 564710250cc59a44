"""What the wire calls share: which versions of an API kgroup sends, topics grouped in the
order they come (Kafka's clients group a request's partitions by topic the same way), and an
answer read as its generated message class.

The bytes are the generated message modules' (`kgroup.protocol.generated.wire`); a response is
read with the bytes after it ignored, as Kafka's `NetworkClient` does, except Fetch and
DescribeConfigs, which kgroup always read strictly. Callers read the generated response
objects themselves (`convert` makes kgroup's models of them): no result type restates them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from kgroup.core.wire.frames import translated
from kgroup.protocol.model import Api
from kgroup.protocol.runtime import Readable

R = TypeVar("R", covariant=True)


class ResponseModule(Protocol[R]):
    """A generated response module (`kgroup.protocol.generated.wire.<name>_response`)."""

    def read_from(self, r: Readable, version: int, /) -> R: ...

    def read(self, buf: bytes, version: int, /) -> R: ...


@translated
def read_answer(
    message: ResponseModule[R], body: bytes, version: int, *, strict: bool = False
) -> R:
    """`body` read as `message`'s response at `version`: the bytes after it ignored, unless
    `strict` (then they are a ProtocolError, as every malformed answer is)."""
    if strict:
        return message.read(body, version)
    return message.read_from(Readable(body), version)


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
