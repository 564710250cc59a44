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

The bytes are read by kgroup.protocol's generic reader from the declarations in
`kgroup.protocol.member_messages` (the wire client and the `__consumer_offsets`
decoder read the same bytes with the same tables); what stays here is the assignors' reading
of them: none for a negative generation or an empty rack, the sticky fallbacks, the claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgroup.assign.model import TP
from kgroup.protocol import dicts
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.member_messages import (
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
    COOPERATIVE_STICKY_USER_DATA,
    STICKY_USER_DATA,
)
from kgroup.protocol.model import Message

SUBSCRIPTION_HIGHEST_VERSION = CONSUMER_PROTOCOL_SUBSCRIPTION.valid[1]
ASSIGNMENT_HIGHEST_VERSION = CONSUMER_PROTOCOL_ASSIGNMENT.valid[1]
DEFAULT_GENERATION = -1


class MalformedData(ValueError):
    """Bytes that do not follow the layout: what was read, and at which byte."""

    def __init__(self, reason: str, position: int, field_name: str) -> None:
        super().__init__(f"{reason} at byte {position} reading {field_name}")
        self.reason = reason
        self.position = position
        self.field_name = field_name


def _read(msg: Message, data: bytes, version: int | None = None) -> dict[str, Any]:
    """`msg` behind its int16 version (`version` None), or a bare `msg` v`version`; bytes
    after the layout are not looked at, as Java's `ConsumerProtocol` and `Schema.read` do."""
    try:
        if version is None:
            return dicts.decode_versioned(msg, data)
        return dicts.decode(msg, version, data, trailing="ignore")
    except ProtocolError as exc:
        raise MalformedData(exc.reason, exc.position, exc.field) from None


def _pairs(entries: list[dict[str, Any]]) -> tuple[TP, ...]:
    return tuple((e["topic"], p) for e in entries for p in e["partitions"])


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
    d = _read(CONSUMER_PROTOCOL_SUBSCRIPTION, data)
    generation = d["generation_id"]
    return Subscription(
        d["version"],
        tuple(d["topics"]),
        d["user_data"],
        _pairs(d["owned_partitions"]),
        generation if generation >= 0 else None,
        d["rack_id"] or None,
    )


def decode_assignment(data: bytes) -> MemberAssignment:
    """ConsumerProtocolAssignment v0-v3 (the same layout in every version)."""
    d = _read(CONSUMER_PROTOCOL_ASSIGNMENT, data)
    return MemberAssignment(d["version"], _pairs(d["assigned_partitions"]), d["user_data"])


def decode_sticky_user_data(data: bytes | None) -> tuple[tuple[TP, ...], int | None]:
    """`StickyAssignor.memberData`: (previous assignment, generation) from the eager sticky
    assignor's userData, with Java's V1 -> V0 -> ignore fallbacks."""
    if not data:
        return (), None
    try:
        v1 = _read(STICKY_USER_DATA, data, 1)
        return _pairs(v1["previous_assignment"]), v1["generation"]
    except MalformedData:
        pass
    try:
        return _pairs(_read(STICKY_USER_DATA, data, 0)["previous_assignment"]), None
    except MalformedData:
        return (), DEFAULT_GENERATION


def decode_cooperative_user_data(data: bytes | None) -> int | None:
    """`CooperativeStickyAssignor.memberData`'s fallback: the generation in its userData."""
    if data is None:
        return None
    try:
        return _read(COOPERATIVE_STICKY_USER_DATA, data, 0)["generation"]
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
