"""Plain data the assignors take and return.

Source of truth: Kafka's assignor inputs — client side `ConsumerPartitionAssignor.Subscription`
(topics, userData / ownedPartitions, generationId, rackId, groupInstanceId) with
`Cluster` partition metadata (replica racks), and server side (KIP-848) `GroupSpec` /
`SubscribedTopicDescriber` (topic ids, partition counts, racks; members' current target
assignment).

One input shape serves every assignor: topics by name, and members in the order Java inserts
them into the leader's / coordinator's `HashMap<String memberId, ...>` (the assignors reproduce
that map's iteration order themselves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

TP = tuple[str, int]
"""A topic partition: (topic name, partition number)."""

Assignment = dict[str, list[TP]]
"""Member id -> partitions, in the order the assignor produced them."""


@dataclass(frozen=True)
class TopicMeta:
    """One topic: partition count, optional replica racks per partition, optional topic id."""

    name: str
    partitions: int
    racks: tuple[frozenset[str], ...] | None = None
    topic_id: str | None = None

    def replica_racks(self, partition: int) -> frozenset[str]:
        if self.racks is None or partition >= len(self.racks):
            return frozenset()
        return self.racks[partition]


@dataclass(frozen=True)
class MemberMeta:
    """One group member as the assignor sees it.

    `owned` is what the member says it owns: the sticky assignor reads it from userData (with
    `generation`), cooperative-sticky from ownedPartitions, the server-side assignors take it as
    the member's current target assignment (in Java iteration order). `generation` None means
    the member sent none (a new member).
    """

    member_id: str
    topics: tuple[str, ...]
    rack: str | None = None
    instance_id: str | None = None
    owned: tuple[TP, ...] = ()
    generation: int | None = None


@dataclass(frozen=True)
class GroupInput:
    """Everything an assignor needs.

    `members` are in the order they are put into Java's member map; `member_map_capacity` is
    that map's initial capacity (None: `new HashMap<>()`, as the consumer leader and the group
    coordinator build it).
    """

    topics: Mapping[str, TopicMeta]
    members: Sequence[MemberMeta]
    member_map_capacity: int | None = None
    extra: Mapping[str, object] = field(default_factory=dict)

    def member(self, member_id: str) -> MemberMeta:
        for m in self.members:
            if m.member_id == member_id:
                return m
        raise KeyError(member_id)


def sorted_assignment(assignment: Mapping[str, Sequence[TP]]) -> dict[str, list[TP]]:
    """Members sorted by id, partitions by (topic, partition): the order kgroup prints."""
    return {m: sorted(assignment[m]) for m in sorted(assignment)}
