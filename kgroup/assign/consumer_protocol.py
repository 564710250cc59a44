"""What the members of a classic consumer group send: subscriptions, assignments, and the sticky
assignors' userData, decoded as Kafka's Java client decodes them.

Source of truth (apache/kafka):
- clients/src/main/resources/common/message/ConsumerProtocolSubscription.json: an int16 version,
  then Topics [string], UserData (nullable bytes); v1+ OwnedPartitions [Topic string,
  Partitions [int32]]; v2+ GenerationId int32 (KIP-792, default -1); v3+ RackId nullable string
  (KIP-881). ConsumerProtocolAssignment.json: version, AssignedPartitions, UserData.
- `ConsumerProtocol.deserializeSubscription`: a version newer than it knows is read with the
  newest layout it knows (versions only append fields); a negative version is an error; an
  empty RackId means no rack; `Subscription` turns a negative generation into "none".
- `StickyAssignor` (eager) userData, schema V1: previous_assignment [topic string, partitions
  [int32]] then generation int32; V0 has no generation. Java reads V1, falls back to V0, and when
  neither parses ignores the claim (no partitions, generation -1). Null or empty userData:
  no partitions, no generation.
- `CooperativeStickyAssignor`: generation from the subscription (v2+) when present, else from its
  userData (one int32; null: none; unreadable: -1); owned partitions from ownedPartitions.

Pure and self-contained: engines do not import kgroup.core, so the few classic (non-flexible)
primitives needed are read here with `struct`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from kgroup.assign.model import TP

SUBSCRIPTION_HIGHEST_VERSION = 3
ASSIGNMENT_HIGHEST_VERSION = 3
DEFAULT_GENERATION = -1

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


class MalformedData(ValueError):
    """Bytes that do not follow the layout: what was read, and at which byte."""

    def __init__(self, reason: str, position: int, field_name: str) -> None:
        super().__init__(f"{reason} at byte {position} reading {field_name}")
        self.reason = reason
        self.position = position
        self.field_name = field_name


class _Reader:
    """Classic (non-flexible) Kafka primitives over a byte string, bounds-checked."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def _fixed(self, packer: struct.Struct, name: str) -> int:
        if self.pos + packer.size > len(self.data):
            raise MalformedData(
                f"needs {packer.size} bytes, {len(self.data) - self.pos} left", self.pos, name
            )
        (value,) = packer.unpack_from(self.data, self.pos)
        self.pos += packer.size
        return int(value)

    def int16(self, name: str) -> int:
        return self._fixed(_I16, name)

    def int32(self, name: str) -> int:
        return self._fixed(_I32, name)

    def _raw(self, size: int, name: str) -> bytes:
        if self.pos + size > len(self.data):
            raise MalformedData(
                f"length {size} exceeds the {len(self.data) - self.pos} bytes left", self.pos, name
            )
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def nullable_string(self, name: str) -> str | None:
        start = self.pos
        size = self.int16(name)
        if size < 0:
            if size != -1:
                raise MalformedData(f"negative length {size}", start, name)
            return None
        try:
            return self._raw(size, name).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedData("not UTF-8", start, name) from exc

    def string(self, name: str) -> str:
        start = self.pos
        value = self.nullable_string(name)
        if value is None:
            raise MalformedData("null in a non-nullable string", start, name)
        return value

    def nullable_bytes(self, name: str) -> bytes | None:
        start = self.pos
        size = self.int32(name)
        if size < 0:
            if size != -1:
                raise MalformedData(f"negative length {size}", start, name)
            return None
        return self._raw(size, name)

    def count(self, name: str) -> int:
        start = self.pos
        size = self.int32(name)
        if size < 0:
            raise MalformedData(f"null or negative array length {size}", start, name)
        if size > len(self.data) - self.pos:  # every element takes at least one byte
            raise MalformedData(f"array length {size} exceeds the bytes left", start, name)
        return size

    def topic_partitions(self, name: str) -> list[TP]:
        out: list[TP] = []
        for _ in range(self.count(name)):
            topic = self.string(f"{name}.Topic")
            for _ in range(self.count(f"{name}.Partitions")):
                out.append((topic, self.int32(f"{name}.Partitions")))
        return out


@dataclass(frozen=True)
class Subscription:
    """A decoded ConsumerProtocolSubscription. `generation` None: the member sent none (below
    v2, or a negative value); `rack` None: none or empty."""

    version: int
    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned: tuple[TP, ...] = ()
    generation: int | None = None
    rack: str | None = None


@dataclass(frozen=True)
class MemberAssignment:
    """A decoded ConsumerProtocolAssignment."""

    version: int
    partitions: tuple[TP, ...] = field(default_factory=tuple)
    user_data: bytes | None = None


def decode_subscription(data: bytes) -> Subscription:
    """ConsumerProtocolSubscription v0-v3 (newer versions: the v3 prefix)."""
    reader = _Reader(data)
    version = reader.int16("Version")
    if version < 0:
        raise MalformedData(f"negative version {version}", 0, "Version")
    layout = min(version, SUBSCRIPTION_HIGHEST_VERSION)
    topics = tuple(reader.string("Topics") for _ in range(reader.count("Topics")))
    user_data = reader.nullable_bytes("UserData")
    owned: list[TP] = reader.topic_partitions("OwnedPartitions") if layout >= 1 else []
    generation = reader.int32("GenerationId") if layout >= 2 else DEFAULT_GENERATION
    rack = reader.nullable_string("RackId") if layout >= 3 else None
    return Subscription(
        version,
        topics,
        user_data,
        tuple(owned),
        generation if generation >= 0 else None,
        rack or None,
    )


def decode_assignment(data: bytes) -> MemberAssignment:
    """ConsumerProtocolAssignment v0-v3 (the same layout in every version)."""
    reader = _Reader(data)
    version = reader.int16("Version")
    if version < 0:
        raise MalformedData(f"negative version {version}", 0, "Version")
    partitions = reader.topic_partitions("AssignedPartitions")
    user_data = reader.nullable_bytes("UserData")
    return MemberAssignment(version, tuple(partitions), user_data)


def decode_sticky_user_data(data: bytes | None) -> tuple[tuple[TP, ...], int | None]:
    """`StickyAssignor.memberData`: (previous assignment, generation) from the eager sticky
    assignor's userData, with Java's V1 -> V0 -> ignore fallbacks."""
    if not data:
        return (), None
    try:
        reader = _Reader(data)
        partitions = reader.topic_partitions("previous_assignment")
        return tuple(partitions), reader.int32("generation")
    except MalformedData:
        pass
    try:
        return tuple(_Reader(data).topic_partitions("previous_assignment")), None
    except MalformedData:
        return (), DEFAULT_GENERATION


def decode_cooperative_user_data(data: bytes | None) -> int | None:
    """`CooperativeStickyAssignor.memberData`'s fallback: the generation in its userData."""
    if data is None:
        return None
    try:
        return _Reader(data).int32("generation")
    except MalformedData:
        return DEFAULT_GENERATION


def member_claim(protocol: str | None, sub: Subscription) -> tuple[tuple[TP, ...], int | None]:
    """(owned partitions, generation) as the group's assignor reads them from a subscription.

    `sticky` reads both from userData (it is eager: ownedPartitions is empty after the revoke);
    `cooperative-sticky` takes ownedPartitions and the subscription's generation, else the one in
    its userData; other assignors (`range`, `roundrobin`, custom ones) have ownedPartitions and
    the subscription's generation.
    """
    if protocol == "sticky":
        return decode_sticky_user_data(sub.user_data)
    if protocol == "cooperative-sticky" and sub.generation is None:
        return sub.owned, decode_cooperative_user_data(sub.user_data)
    return sub.owned, sub.generation
