"""Client-side `range` assignor, with KIP-881 rack awareness.

Source of truth: Kafka `org.apache.kafka.clients.consumer.RangeAssignor` (3.5+, KIP-881) and
`AbstractPartitionAssignor.MemberInfo` / `useRackAwareAssignment`.

Per topic, subscribers are ordered by `group.instance.id` (static members first) else member id;
partitions are laid out in order and each subscriber takes a contiguous range, the first
`partitions % subscribers` of them one extra. With racks on both sides, a first pass hands out
only rack-matching partitions within the same per-topic quotas (co-partitioned topics — same
subscribers, same partition count — move together), then the plain range pass fills the rest.

Worked example (Kafka's javadoc): members C0, C1; topics t0, t1 with 3 partitions each ->
C0: t0-0, t0-1, t1-0, t1-1; C1: t0-2, t1-2.

The result does not depend on Java hash order (every decision walks sorted subscribers).
"""

from __future__ import annotations

from collections import defaultdict

from kgroup.assign.javaorder import java_string_key
from kgroup.assign.model import Assignment, GroupInput, MemberMeta, TopicMeta


def member_sort_key(member: MemberMeta) -> tuple:
    """`AbstractPartitionAssignor.MemberInfo.compareTo`: static members (by instance id) first,
    then dynamic members by member id."""
    if member.instance_id is not None:
        return (0, java_string_key(member.instance_id))
    return (1, java_string_key(member.member_id))


def use_rack_aware(
    consumer_racks: set[str], partition_racks: set[str], racks_per_partition: list[frozenset[str]]
) -> bool:
    """`AbstractPartitionAssignor.useRackAwareAssignment`: racks overlap, and not every partition
    has replicas on every rack."""
    if not consumer_racks or consumer_racks.isdisjoint(partition_racks):
        return False
    return not all(r == partition_racks for r in racks_per_partition)


class _TopicState:
    """`RangeAssignor.TopicAssignmentState`."""

    def __init__(self, topic: TopicMeta, members: list[MemberMeta]) -> None:
        self.topic = topic.name
        ordered = sorted(members, key=member_sort_key)
        self.consumers: dict[str, str | None] = {}
        for m in ordered:
            self.consumers.setdefault(m.member_id, m.rack or None)
        n = topic.partitions
        count = len(self.consumers)
        self.unassigned: list[int] = list(range(n))
        self.start = 0  # unassigned[start:] are still unassigned (prefix pass)
        self.assigned_count = dict.fromkeys(self.consumers, 0)
        self.per_consumer = n // count if count else 0
        self.remaining_extra = n % count if count else 0
        all_consumer_racks = {r for r in self.consumers.values() if r}
        self.partition_racks: list[frozenset[str]] = []
        all_partition_racks: set[str] = set()
        if all_consumer_racks:
            self.partition_racks = [topic.replica_racks(p) for p in range(n)]
            for racks in self.partition_racks:
                all_partition_racks |= racks
        self.needs_rack_aware = use_rack_aware(
            all_consumer_racks, all_partition_racks, self.partition_racks
        )
        self.num_partition_racks = len(self.partition_racks)

    def consumers_key(self) -> tuple:
        return tuple(self.consumers.items())

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.consumers[consumer]
        if rack is None:
            return True
        return partition < len(self.partition_racks) and rack in self.partition_racks[partition]

    def max_assignable(self, consumer: str) -> int:
        extra = 1 if self.remaining_extra > 0 else 0
        return max(0, self.per_consumer + extra - self.assigned_count[consumer])

    def on_assigned(self, consumer: str, count: int) -> None:
        self.assigned_count[consumer] += count
        if self.assigned_count[consumer] > self.per_consumer:
            self.remaining_extra -= 1


def _assign(
    consumer: str, partitions: list[int], state: _TopicState, assignment: Assignment
) -> None:
    assignment[consumer].extend((state.topic, p) for p in partitions)
    state.on_assigned(consumer, len(partitions))


def _assign_ranges(state: _TopicState, assignment: Assignment, rack_match: bool) -> None:
    """`RangeAssignor.assignRanges`; `rack_match` selects `racksMatch` as the filter."""
    for consumer in state.consumers:
        if state.start >= len(state.unassigned):
            break
        limit = state.max_assignable(consumer)
        if rack_match:
            chosen: list[int] = []
            if limit > 0:
                for p in state.unassigned[state.start :]:
                    if state.racks_match(consumer, p):
                        chosen.append(p)
                        if len(chosen) == limit:
                            break
            if not chosen:
                continue
            taken = set(chosen)
            state.unassigned = [p for p in state.unassigned[state.start :] if p not in taken]
            state.start = 0
        else:
            chosen = state.unassigned[state.start : state.start + limit]
            if not chosen:
                continue
            state.start += len(chosen)
        _assign(consumer, chosen, state, assignment)


def _assign_co_partitioned(
    consumers: list[str], num_partitions: int, states: list[_TopicState], assignment: Assignment
) -> None:
    """`RangeAssignor.assignCoPartitionedWithRackMatching`."""
    remaining = list(consumers)
    for p in range(num_partitions):
        match = None
        for c in remaining:
            if all(t.racks_match(c, p) and t.max_assignable(c) > 0 for t in states):
                match = c
                break
        if match is None:
            continue
        for t in states:
            _assign(match, [p], t, assignment)
            t.unassigned = [q for q in t.unassigned[t.start :] if q != p]
            t.start = 0
        if not any(t.max_assignable(match) > 0 for t in states):
            remaining.remove(match)
            if not remaining:
                break


def assign_range(group: GroupInput) -> Assignment:
    """Assign like Kafka's client `RangeAssignor.assignPartitions`."""
    assignment: Assignment = {m.member_id: [] for m in group.members}
    subscribers: dict[str, list[MemberMeta]] = defaultdict(list)
    for m in group.members:
        for t in dict.fromkeys(m.topics):
            subscribers[t].append(m)
    states = [
        _TopicState(group.topics[t], subscribers[t])
        for t in subscribers
        if t in group.topics and group.topics[t].partitions > 0
    ]
    use_rack = any(s.needs_rack_aware for s in states)
    if use_rack:
        by_consumers: dict[tuple, dict[int, list[_TopicState]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for s in states:
            by_consumers[s.consumers_key()][s.num_partition_racks].append(s)
        for key, by_count in by_consumers.items():
            consumers = [c for c, _ in key]
            for num_partitions, group_states in by_count.items():
                if len(group_states) > 1:
                    _assign_co_partitioned(consumers, num_partitions, group_states, assignment)
                elif group_states[0].needs_rack_aware:
                    _assign_ranges(group_states[0], assignment, rack_match=True)
    for s in states:
        _assign_ranges(s, assignment, rack_match=False)
    return assignment
