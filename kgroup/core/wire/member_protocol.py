"""The consumer protocol's bytes (JoinGroup metadata, SyncGroup assignments, DescribeGroups
members, `kgroup assign --from-group`): ConsumerProtocolSubscription and Assignment behind their
int16 version, as the generated classes (`kgroup.protocol.generated.embedded`), the one shape
kgroup gives them.

Read as Kafka's `ConsumerProtocol.deserializeSubscription` does: a version below the
declaration's is an error, a newer one is read with the newest known layout, and the bytes after
the layout are not looked at. Fields a version lacks are `ignorable` in Kafka's files: written
only where the version has them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Generic, Protocol, TypeVar

from kgroup.core.wire.calls import by_topic
from kgroup.core.wire.frames import translated
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.generated.embedded import consumer_protocol_assignment as cpa
from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps
from kgroup.protocol.runtime import I16, Readable, Struct

Subscription = cps.ConsumerProtocolSubscription
Assignment = cpa.ConsumerProtocolAssignment
M = TypeVar("M", bound=Struct)


@dataclass(frozen=True)
class Versioned(Generic[M]):
    """A message behind its int16 version: the version sent (or to send) and the message, in
    the newest layout kgroup knows for that version."""

    version: int
    message: M


class _Pairs(Protocol):
    topic: str
    partitions: tuple[int, ...]


def pairs(entries: Iterable[_Pairs]) -> tuple[tuple[str, int], ...]:
    """(topic, partition) pairs of OwnedPartitions / AssignedPartitions, in their order."""
    return tuple((e.topic, x) for e in entries for x in e.partitions)


def _entries(module: ModuleType, items: Iterable[tuple[str, int]]) -> tuple[Struct, ...]:
    return tuple(module.TopicPartition(t, tuple(ps)) for t, ps in by_topic(items).items())


def subscription(
    topics: Iterable[str],
    user_data: bytes | None = None,
    owned: Iterable[tuple[str, int]] = (),
    generation_id: int = -1,
    rack_id: str | None = None,
) -> Subscription:
    """A ConsumerProtocolSubscription, owned partitions given as (topic, partition) pairs."""
    return Subscription(tuple(topics), user_data, _entries(cps, owned), generation_id, rack_id)  # type: ignore[arg-type]


def assignment(partitions: Iterable[tuple[str, int]], user_data: bytes | None = None) -> Assignment:
    """A ConsumerProtocolAssignment, partitions given as (topic, partition) pairs."""
    return Assignment(_entries(cpa, partitions), user_data)  # type: ignore[arg-type]


def _read(module: ModuleType, data: bytes) -> Versioned:
    r = Readable(data)
    version = r.int16("Version")
    # Kafka's rule (deserializeSubscription/Assignment), the bound from the generated module
    if version < module.VALID[0]:
        raise ProtocolError(
            f"unsupported {module.NAME} version {version}", position=0, field="Version"
        )
    return Versioned(version, module.read_from(r, min(version, module.VALID[1])))


def _write(module: ModuleType, versioned: Versioned) -> bytes:
    layout = min(versioned.version, module.VALID[1])
    return I16(versioned.version) + module.write(versioned.message, layout)


@translated
def decode_subscription(data: bytes) -> Versioned[Subscription]:
    """ConsumerProtocolSubscription (newer versions: the v3 prefix, as Kafka reads them)."""
    return _read(cps, data)


@translated
def decode_assignment(data: bytes) -> Versioned[Assignment]:
    """ConsumerProtocolAssignment (newer versions: the v3 prefix)."""
    return _read(cpa, data)


def encode_subscription(sub: Versioned[Subscription]) -> bytes:
    return _write(cps, sub)


def encode_assignment(assigned: Versioned[Assignment]) -> bytes:
    return _write(cpa, assigned)
