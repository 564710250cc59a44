"""Client-side `sticky` and `cooperative-sticky` assignors, with KIP-881 rack awareness.

Source of truth: Kafka `org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor`
(3.5+), `StickyAssignor` (eager: previous assignment and generation from userData),
`CooperativeStickyAssignor` (ownedPartitions + generation; drops partitions that must first be
revoked by their current owner).

The phases keep Kafka's names so the two can be read side by side:
- `_all_subscriptions_equal` -> `allSubscriptionsEqual` (claims, generations, conflicts);
- `ConstrainedBuilder` (`sticky_constrained`) -> `ConstrainedAssignmentBuilder` (all members
  subscribe to the same topics): keep owned partitions up to the quotas, rack-aware round
  robin, round robin;
- `GeneralBuilder` (`sticky_general`) -> `GeneralAssignmentBuilder` (heterogeneous
  subscriptions): keep valid owned partitions, assign the rest to the least loaded eligible
  member, then move partitions until balanced, undoing the moves if they did not improve the
  balance score.

Java hash order shows up in three places, all reproduced (see `javaorder`): the order of the
`subscriptions` map (claims of equal generations, previous owners), the order of
`consumerToOwnedPartitions` (which members keep `maxQuota` partitions), and the first element of
the `HashSet<TopicPartition>` that `PartitionMovements.getTheActualPartitionToBeMoved` picks.

The general builder makes Kafka's decisions with indexed structures instead of Kafka's scans
(per-topic heaps of members by load for "first member in the TreeSet subscribed to the topic",
a per-topic owner count for the balance check), which is what makes large heterogeneous groups
tractable.

Kafka behaviours reproduced on purpose (they are what a real leader does):
- `allSubscriptionsEqual` seeds its reference set from the first member with a non-empty
  subscription, so members with empty subscriptions iterated before it make a heterogeneous
  group look homogeneous, and the constrained builder then gives them partitions;
- with rack awareness the constrained builder keeps an owned partition on a mismatched rack out of
  its owner's assignment but remembers the owner (`maybeRevokedPartitions`, KAFKA-15170): if it
  ends up with another member it is transferring ownership, so cooperative-sticky revokes it
  first; if it comes back to its owner it is not;
- the rack-aware round robin counts a member it fills to `maxQuota` from the
  exactly-`minQuota` list and stops offering an extra partition once the expected number of
  members over `minQuota` is reached (KAFKA-15170; before it, a rack-matched member could take a
  second extra partition and a member without racks could be left empty, or the builder threw);
- the assignor's `maxGeneration` field is per call here (Kafka keeps it on the leader's assignor
  instance across rebalances).

Worked example (Kafka's javadoc, example 1): C0, C1, C2 on t0..t3 with 2 partitions each
-> C0: t0-0, t1-1, t3-0; C1: t0-1, t2-0, t3-1; C2: t1-0, t2-1. After C1 leaves:
C0: t0-0, t1-1, t3-0, t2-0; C2: t1-0, t2-1, t0-1, t3-1 (everything survivors owned is kept).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from kgroup.assign.javaorder import (
    string_hashmap_order,
)
from kgroup.assign.model import TP, Assignment, GroupInput, MemberMeta, TopicMeta
from kgroup.assign.sticky_constrained import ConstrainedBuilder
from kgroup.assign.sticky_general import GeneralBuilder
from kgroup.assign.sticky_shared import DEFAULT_GENERATION, RackInfo, remove_first


@dataclass
class StickyResult:
    """Assignment plus what the cooperative protocol needs."""

    assignment: Assignment
    transferring: dict[TP, str] | None  # partitionsTransferringOwnership (None: general path)
    constrained: bool


@dataclass
class _Claims:
    """What `allSubscriptionsEqual` works out from the members' claims."""

    all_equal: bool
    owned: dict[str, list[TP]]  # consumerToOwnedPartitions, in Java HashMap order
    multiple_owners: set[TP]
    max_generation: int


def _all_subscriptions_equal(
    all_topics: set[str], subscriptions: list[MemberMeta], members_in_map_order: list[str]
) -> _Claims:
    """`AbstractStickyAssignor.allSubscriptionsEqual`, walking `subscriptions` in Java order."""
    equal = True
    subscribed: set[str] = set()
    previous_owner: dict[TP, str] = {}
    owned: dict[str, list[TP]] = {}
    multiple: set[TP] = set()
    max_generation = DEFAULT_GENERATION
    generations = {
        m.member_id: DEFAULT_GENERATION if m.generation is None else m.generation
        for m in subscriptions
    }
    for m in subscriptions:
        topics = set(m.topics)
        if not subscribed:
            subscribed |= topics
        elif equal and not (len(topics) == len(subscribed) and subscribed >= topics):
            equal = False
        generation = generations[m.member_id]
        max_generation = max(max_generation, generation)
        mine: list[TP] = []
        owned[m.member_id] = mine
        for tp in m.owned:
            if tp[0] not in all_topics:
                continue
            other = previous_owner.get(tp)
            if other is None:
                mine.append(tp)
                previous_owner[tp] = m.member_id
                continue
            other_generation = generations[other]
            if generation == other_generation:
                multiple.add(tp)
                remove_first(owned[other], tp)
                previous_owner[tp] = m.member_id
            elif generation > other_generation:
                mine.append(tp)
                remove_first(owned[other], tp)
                previous_owner[tp] = m.member_id
    ordered = {c: owned[c] for c in members_in_map_order}
    return _Claims(equal, ordered, multiple, max_generation)


def _partitions_per_topic(group: GroupInput) -> dict[str, TopicMeta]:
    """`AbstractPartitionAssignor.assign(Cluster, ...)`: subscribed topics with partitions."""
    wanted = {t for m in group.members for t in m.topics}
    return {
        name: meta for name, meta in group.topics.items() if name in wanted and meta.partitions > 0
    }


def member_map_order(group: GroupInput) -> list[MemberMeta]:
    """Members in the iteration order of the leader's `HashMap<String, Subscription>`."""
    by_id = {m.member_id: m for m in group.members}
    order = string_hashmap_order(list(by_id), group.member_map_capacity)
    return [by_id[m] for m in order]


def sticky_assign(group: GroupInput) -> StickyResult:
    """`AbstractStickyAssignor.assignPartitions`."""
    topics = _partitions_per_topic(group)
    subscriptions = member_map_order(group)
    if not subscriptions:
        return StickyResult({}, {}, True)
    rack_info = RackInfo(topics, subscriptions)
    # consumerToOwnedPartitions is a fresh HashMap filled in `subscriptions` order
    owned_order = string_hashmap_order([m.member_id for m in subscriptions])
    claims = _all_subscriptions_equal(set(topics), subscriptions, owned_order)
    if claims.all_equal:
        builder = ConstrainedBuilder(topics, rack_info, claims.owned, claims.multiple_owners)
        assignment = builder.build()
        return StickyResult(assignment, builder.transferring, True)
    general = GeneralBuilder(topics, rack_info, claims.owned, subscriptions, claims.max_generation)
    return StickyResult(general.build(), None, False)


def assign_sticky(group: GroupInput) -> Assignment:
    """Kafka's eager `StickyAssignor`: members' `owned`/`generation` are their userData."""
    return sticky_assign(group).assignment


def cooperative_result(group: GroupInput) -> tuple[Assignment, dict[TP, str]]:
    """`CooperativeStickyAssignor.assignPartitions`: the assignment without partitions that
    must first be revoked, and those partitions with their eventual owner."""
    result = sticky_assign(group)
    assignment = result.assignment
    if result.transferring is not None:
        transferring = result.transferring
    else:
        transferring = _compute_transferring(group, assignment)
    for tp, consumer in transferring.items():
        with contextlib.suppress(ValueError):
            assignment[consumer].remove(tp)
    return assignment, transferring


def _compute_transferring(group: GroupInput, assignment: Assignment) -> dict[TP, str]:
    """`CooperativeStickyAssignor.computePartitionsTransferringOwnership`."""
    owned = {m.member_id: m.owned for m in group.members}
    added: dict[TP, str] = {}
    revoked: set[TP] = set()
    for consumer, parts in assignment.items():
        mine = set(owned.get(consumer, ()))
        got = set(parts)
        for tp in parts:
            if tp not in mine:
                added[tp] = consumer
        for tp in owned.get(consumer, ()):
            if tp not in got:
                revoked.add(tp)
    return {tp: c for tp, c in added.items() if tp in revoked}


def assign_cooperative_sticky(group: GroupInput) -> Assignment:
    """Kafka's `CooperativeStickyAssignor`: members' `owned` are their ownedPartitions."""
    return cooperative_result(group)[0]
