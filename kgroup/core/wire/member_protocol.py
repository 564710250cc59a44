"""The consumer protocol's bytes as the wire client sends and reads them (JoinGroup metadata,
SyncGroup assignments, DescribeGroups members): ConsumerProtocolSubscription and Assignment behind
their int16 version.

Read as Kafka's `ConsumerProtocol.deserializeSubscription` does: a version below the
declaration's is an error, a newer one is read with the newest known layout, and the bytes after
the layout are not looked at. Fields a version lacks are `ignorable` in Kafka's files: written
only where the version has them. The generated modules are imported where used (a group without
members needs neither).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from kgroup.core.wire import results as res
from kgroup.core.wire.calls import by_topic
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.runtime import I16, Readable


class _Pairs(Protocol):
    topic: str
    partitions: tuple[int, ...]


def _versioned(module: Any, data: bytes) -> tuple[int, Any]:
    """(the version sent, the message in the newest layout known for it)."""
    r = Readable(data)
    version = r.int16("Version")
    if version < module.VALID[0]:
        raise ProtocolError(
            f"unsupported {module.NAME} version {version}", position=0, field="Version"
        )
    return version, module.read_from(r, min(version, module.VALID[1]))


def _topic_partitions(entries: Iterable[_Pairs]) -> list[tuple[str, int]]:
    return [(e.topic, x) for e in entries for x in e.partitions]


def decode_subscription(data: bytes) -> res.Subscription:
    """ConsumerProtocolSubscription (newer versions: the v3 prefix, as Kafka reads them)."""
    from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps

    version, d = _versioned(cps, data)
    return res.Subscription(
        version,
        list(d.topics),
        d.user_data,
        _topic_partitions(d.owned_partitions),
        d.generation_id,
        d.rack_id,
    )


def decode_assignment(data: bytes) -> res.Assignment:
    from kgroup.protocol.generated.embedded import consumer_protocol_assignment as cpa

    version, d = _versioned(cpa, data)
    return res.Assignment(version, _topic_partitions(d.assigned_partitions), d.user_data)


def encode_subscription(sub: res.Subscription) -> bytes:
    from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps

    owned = tuple(
        cps.TopicPartition(t, tuple(ps)) for t, ps in by_topic(sub.owned_partitions).items()
    )
    message = cps.ConsumerProtocolSubscription(
        tuple(sub.topics), sub.user_data, owned, sub.generation_id, sub.rack_id
    )
    return I16(sub.version) + cps.write(message, min(sub.version, cps.VALID[1]))


def encode_assignment(assignment: res.Assignment) -> bytes:
    from kgroup.protocol.generated.embedded import consumer_protocol_assignment as cpa

    assigned = tuple(
        cpa.TopicPartition(t, tuple(ps)) for t, ps in by_topic(assignment.partitions).items()
    )
    message = cpa.ConsumerProtocolAssignment(assigned, assignment.user_data)
    return I16(assignment.version) + cpa.write(message, min(assignment.version, cpa.VALID[1]))
