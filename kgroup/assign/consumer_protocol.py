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

The bytes are read by the wire client's reading of them (`kgroup.core.wire.member_protocol`:
the generated ConsumerProtocolSubscription / Assignment behind their version, and the generated
userData classes); what stays here is the assignors' reading of them: none for a negative
generation or an empty rack, the sticky fallbacks, the claim.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kgroup.assign.model import TP
from kgroup.core.wire import member_protocol as mp
from kgroup.core.wire.member_protocol import Versioned, pairs
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.generated.embedded import cooperative_sticky_assignor_user_data as coop
from kgroup.protocol.generated.embedded import sticky_assignor_user_data as sticky
from kgroup.protocol.runtime import Readable

SUBSCRIPTION_HIGHEST_VERSION = mp.cps.VALID[1]
ASSIGNMENT_HIGHEST_VERSION = mp.cpa.VALID[1]
DEFAULT_GENERATION = -1
Subscription = Versioned[mp.Subscription]
MemberAssignment = Versioned[mp.Assignment]
R = TypeVar("R")


class MalformedData(ValueError):
    """Bytes that do not follow the layout: what was read, and at which byte."""

    def __init__(self, reason: str, position: int, field_name: str) -> None:
        super().__init__(f"{reason} at byte {position} reading {field_name}")
        self.reason = reason
        self.position = position
        self.field_name = field_name


def _read(read: Callable[[bytes], R], data: bytes) -> R:
    """`read(data)`, its ProtocolError as MalformedData."""
    try:
        return read(data)
    except ProtocolError as exc:
        raise MalformedData(exc.reason, exc.position, exc.field) from None


def decode_subscription(data: bytes) -> Subscription:
    """ConsumerProtocolSubscription v0-v3 (newer versions: the v3 prefix)."""
    return _read(mp.decode_subscription, data)


def decode_assignment(data: bytes) -> MemberAssignment:
    """ConsumerProtocolAssignment v0-v3 (the same layout in every version)."""
    return _read(mp.decode_assignment, data)


def generation(sub: Subscription) -> int | None:
    """The subscription's generation; None when the member sent none (below v2, or a negative
    value: Java's `Subscription` makes it empty)."""
    value = sub.message.generation_id
    return value if value >= 0 else None


def rack(sub: Subscription) -> str | None:
    """The member's rack; None for none or an empty one (`ConsumerProtocol`)."""
    return sub.message.rack_id or None


def decode_sticky_user_data(data: bytes | None) -> tuple[tuple[TP, ...], int | None]:
    """`StickyAssignor.memberData`: (previous assignment, generation) from the eager sticky
    assignor's userData, with Java's V1 -> V0 -> ignore fallbacks."""
    if not data:
        return (), None
    try:
        v1 = _read(lambda raw: sticky.read_from(Readable(raw), 1), data)
        return pairs(v1.previous_assignment), v1.generation
    except MalformedData:
        pass
    try:
        v0 = _read(lambda raw: sticky.read_from(Readable(raw), 0), data)
        return pairs(v0.previous_assignment), None
    except MalformedData:
        return (), DEFAULT_GENERATION


def decode_cooperative_user_data(data: bytes | None) -> int | None:
    """`CooperativeStickyAssignor.memberData`'s fallback: the generation in its userData."""
    if data is None:
        return None
    try:
        return _read(lambda raw: coop.read_from(Readable(raw), 0), data).generation
    except MalformedData:
        return DEFAULT_GENERATION


def member_claim(protocol: str | None, sub: Subscription) -> tuple[tuple[TP, ...], int | None]:
    """(owned partitions, generation) as the group's assignor reads them from a subscription.

    `sticky` reads both from userData (it is eager: ownedPartitions is empty after the revoke);
    `cooperative-sticky` takes ownedPartitions and the subscription's generation, else the one in
    its userData; other assignors (`range`, `roundrobin`, custom ones) have ownedPartitions and
    the subscription's generation.
    """
    message = sub.message
    owned = pairs(message.owned_partitions)
    if protocol == "sticky":
        return decode_sticky_user_data(message.user_data)
    if protocol == "cooperative-sticky" and generation(sub) is None:
        return owned, decode_cooperative_user_data(message.user_data)
    return owned, generation(sub)
