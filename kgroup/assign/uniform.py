"""KIP-848 server-side `uniform` assignor (homogeneous and heterogeneous builders).

Source of truth: Kafka group-coordinator `UniformAssignor`, `UniformHomogeneousAssignmentBuilder`
and `UniformHeterogeneousAssignmentBuilder` (trunk, late 2024: no rack awareness), the
`GroupSpecImpl` the coordinator hands them, and `Assignment.fromRecord` /
`AssignorHelpers.deepCopyAssignment` for how assignments are stored between rebalances.

- Homogeneous (every member subscribes to the same topic names): members are walked in the
  coordinator's `HashMap` order; the first `total % members` get one extra partition of quota;
  each keeps its current partitions up to its quota (in `HashSet` order), the excess and the
  unowned partitions (topics in `HashSet<Uuid>` order) fill the members below quota in order.
- Heterogeneous: members are numbered in `HashMap` order; topics sorted by partitions per
  subscriber (descending), subscriber count, topic id; unowned partitions go to the least loaded
  subscriber; then each topic is balanced by moving the highest partitions of the most loaded
  subscribers to the least loaded ones (at most 16 rounds over the topics).

Members' current assignments are iterated in the coordinator's order: a scenario's owned
partitions go through the record replay (`Assignment.fromRecord`: `HashMap` of topic ids,
`new HashSet<>(partitions)`) in the order listed, so [1, 0] iterates 0, 1. After a rebalance, a
changed assignment takes the order of its replayed record (built from the builder's map, where
`computeIfAbsent` put each new topic id at the head of its bucket); an unchanged one keeps its
previous order (no record is written).

Worked example: members A, B on topics t1 (3 partitions) and t2 (3 partitions), nothing owned:
6 partitions, quota 3 each; which three go to A follows the hash order of "A"/"B" and the ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgroup.assign.javaorder import (
    JavaHashTable,
    derived_topic_id,
    final_capacity,
    float32,
    hashmap_order,
    presize_for_copy,
    string_hash,
    string_hashmap_order,
    uuid_from_base64,
    uuid_hash,
)
from kgroup.assign.model import TP, Assignment, GroupInput, MemberMeta

MAX_ITERATION_COUNT = 16


class PartitionAssignorError(Exception):
    """Kafka's `PartitionAssignorException`."""


@dataclass(frozen=True)
class TopicId:
    """A topic id with the two longs Kafka's `Uuid` compares and hashes."""

    name: str
    msb: int
    lsb: int

    @property
    def hash(self) -> int:
        return uuid_hash(self.msb, self.lsb)

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.msb, self.lsb)


def topic_ids(group: GroupInput) -> dict[str, TopicId]:
    """Every topic's id: the scenario's, or one derived from the name (`derived_topic_id`)."""
    out: dict[str, TopicId] = {}
    for name, meta in group.topics.items():
        msb, lsb = uuid_from_base64(meta.topic_id or derived_topic_id(name))
        out[name] = TopicId(name, msb, lsb)
    return out


def _int_hash(value: int) -> int:
    return value


def _uuid_key_hash(tid: TopicId) -> int:
    return tid.hash


def coordinator_member_order(group: GroupInput) -> list[MemberMeta]:
    """Members in the order of the coordinator's member `HashMap` (`GroupSpecImpl.members`)."""
    by_id = {m.member_id: m for m in group.members}
    return [by_id[m] for m in string_hashmap_order(list(by_id), group.member_map_capacity)]


def subscribed_ids_in_order(member: MemberMeta, ids: dict[str, TopicId]) -> list[TopicId]:
    """A member's subscribed topic ids as `TopicIds` iterates them: over the `HashSet<String>` of
    subscribed names (built from the subscription list), skipping unknown topics."""
    names = list(dict.fromkeys(member.topics))
    ordered = hashmap_order(names, [string_hash(n) for n in names], presize_for_copy(len(names)))
    return [ids[n] for n in ordered if n in ids]


class _JavaAssignment:
    """One member's `Map<Uuid, Set<Integer>>` while a builder edits it, with Java order."""

    def __init__(self, old: Sequence[TP], ids: dict[str, TopicId], copy: bool) -> None:
        self.ids = ids
        self.topics: JavaHashTable | None = None
        self.sets: dict[TopicId, JavaHashTable] = {}
        grouped = _group_ordered(old)
        if copy:
            # AssignorHelpers.deepCopyAssignment: new HashMap<>(size), new HashSet<>(set)
            self.topics = JavaHashTable(_uuid_key_hash, len(grouped))
            for name, parts in grouped.items():
                tid = ids[name]
                self.topics.put(tid)
                table = JavaHashTable(_int_hash, presize_for_copy(len(parts)))
                table.put_all(parts)
                self.sets[tid] = table

    def remove_topic(self, tid: TopicId) -> None:
        assert self.topics is not None
        self.topics.remove(tid)
        self.sets.pop(tid, None)

    def remove(self, tid: TopicId, partition: int) -> None:
        table = self.sets[tid]
        table.remove(partition)
        if not len(table):
            self.remove_topic(tid)

    def add(self, tid: TopicId, partition: int, capacity: int | None = None) -> None:
        """`assignment.computeIfAbsent(topicId, __ -> new HashSet<>(..)).add(partition)`, as
        both builders add a partition: a new topic id goes to the head of its map bucket."""
        assert self.topics is not None
        table = self.sets.get(tid)
        if table is None:
            self.topics.compute_if_absent(tid)
            table = self.sets[tid] = JavaHashTable(_int_hash, capacity)
        table.put(partition)

    def ordered(self) -> list[TP]:
        assert self.topics is not None
        return [(tid.name, p) for tid in self.topics.order() for p in self.sets[tid].order()]


def _group_ordered(parts: Sequence[TP]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for topic, p in parts:
        grouped.setdefault(topic, []).append(p)
    return grouped


def replayed_order(parts: Sequence[TP], ids: dict[str, TopicId]) -> list[TP]:
    """The order a target assignment has after the coordinator writes and replays its record:
    `Collectors.toMap` (a default `HashMap`) of topic id -> `new HashSet<>(partitions)`."""
    grouped = _group_ordered(parts)
    topic_list = [ids[name] for name in grouped]
    topic_order = hashmap_order(topic_list, [t.hash for t in topic_list])
    out: list[TP] = []
    for tid in topic_order:
        values = grouped[tid.name]
        capacity = final_capacity(len(values), presize_for_copy(len(values)))
        if max(values) < min(capacity, 1 << 16):
            # Integer.hashCode(p) = p and spread(p) = p below 2^16: bucket p, one key a bucket
            order = sorted(values)
        else:
            order = hashmap_order(values, values, presize_for_copy(len(values)))
        out.extend((tid.name, p) for p in order)
    return out


def current_assignments(
    group: GroupInput, members: list[MemberMeta], ids: dict[str, TopicId]
) -> dict[str, list[TP]]:
    """Each member's current target assignment in the order the coordinator iterates it.

    The coordinator holds it as `Assignment.fromRecord` built it (`Collectors.toMap` into a
    `HashMap`, `new HashSet<>(partitions)` per topic), so a scenario's owned partitions are put
    through that replay in the order the file lists them; an order that already is a replayed
    one (what the previous step produced) comes out unchanged. Partitions of topics that no
    longer exist or beyond a topic's partition count are dropped.
    """
    out: dict[str, list[TP]] = {}
    topics = group.topics
    for m in members:
        if not m.owned:
            out[m.member_id] = []
            continue
        parts = [tp for tp in m.owned if tp[0] in ids and tp[1] < topics[tp[0]].partitions]
        out[m.member_id] = replayed_order(parts, ids)
    return out


def _finish(
    members: list[MemberMeta],
    edited: dict[str, _JavaAssignment],
    ids: dict[str, TopicId],
    current: dict[str, list[TP]],
) -> Assignment:
    """The new target assignment in the order the coordinator keeps it.

    `TargetAssignmentBuilder.build` writes a record only for a member whose assignment changed
    (`!newMemberAssignment.equals(oldMemberAssignment)`); such a member's assignment is then the
    replayed record, the others keep their previous `Assignment` (and its order).
    """
    out: Assignment = {}
    for m in members:
        old = current[m.member_id]
        java = edited.get(m.member_id)
        if java is None:
            out[m.member_id] = list(old)
            continue
        new = java.ordered()
        if len(new) == len(old) and set(new) == set(old):
            out[m.member_id] = list(old)
        else:
            out[m.member_id] = replayed_order(new, ids)
    return out


def assign_uniform(group: GroupInput) -> Assignment:
    """Kafka's server-side `UniformAssignor.assign`; partitions per member in Java order."""
    members = coordinator_member_order(group)
    if not members:
        return {}
    first = frozenset(members[0].topics)
    homogeneous = all(frozenset(m.topics) == first for m in members)
    ids = topic_ids(group)
    if homogeneous:
        return _homogeneous(group, members, ids)
    return _heterogeneous(group, members, ids)


def _homogeneous(
    group: GroupInput, members: list[MemberMeta], ids: dict[str, TopicId]
) -> Assignment:
    """`UniformHomogeneousAssignmentBuilder.build`."""
    view = subscribed_ids_in_order(members[0], ids)
    if not view:
        return {}
    subscribed = hashmap_order(
        view, [t.hash for t in view], presize_for_copy(len(set(members[0].topics)))
    )
    subscribed_set = set(subscribed)
    owned = current_assignments(group, members, ids)
    assigned: set[TP] = set()
    for parts in owned.values():
        assigned.update(parts)
    unassigned: list[tuple[TopicId, int]] = []
    total = 0
    for tid in subscribed:
        n = group.topics[tid.name].partitions
        unassigned.extend((tid, i) for i in range(n) if (tid.name, i) not in assigned)
        total += n
    count = len(members)
    min_quota, extra = divmod(total, count)

    edited: dict[str, _JavaAssignment] = {}
    unfilled: list[tuple[str, int]] = []
    for m in members:
        quota = min_quota
        if extra > 0:
            quota += 1
            extra -= 1
        grouped = _group_ordered(owned[m.member_id])
        java: _JavaAssignment | None = None
        for name, parts in grouped.items():
            tid = ids[name]
            if tid in subscribed_set:
                if len(parts) <= quota:
                    quota -= len(parts)
                else:
                    for p in parts:
                        if quota > 0:
                            quota -= 1
                        else:
                            if java is None:
                                java = _JavaAssignment(owned[m.member_id], ids, copy=True)
                            java.remove(tid, p)
                            unassigned.append((tid, p))
            else:
                if java is None:
                    java = _JavaAssignment(owned[m.member_id], ids, copy=True)
                java.remove_topic(tid)
        if quota > 0:
            unfilled.append((m.member_id, quota))
        if java is not None:
            edited[m.member_id] = java

    index = 0
    for member_id, remaining in unfilled:
        java = edited.get(member_id)
        if java is None:
            java = edited[member_id] = _JavaAssignment(owned[member_id], ids, copy=True)
        i = 0
        while i < remaining and index < len(unassigned):
            tid, p = unassigned[index]
            index += 1
            java.add(tid, p)
            i += 1
    if index < len(unassigned):
        raise PartitionAssignorError("Partitions were left unassigned")
    return _finish(members, edited, ids, owned)


def _heterogeneous(
    group: GroupInput, members: list[MemberMeta], ids: dict[str, TopicId]
) -> Assignment:
    """`UniformHeterogeneousAssignmentBuilder.build`."""
    builder = _Heterogeneous(group, members, ids)
    return builder.build()


class _Heterogeneous:
    def __init__(self, group: GroupInput, members: list[MemberMeta], ids: dict[str, TopicId]):
        self.group = group
        self.members = members
        self.ids = ids
        self.member_ids = [m.member_id for m in members]
        self.subscribed_topics: dict[TopicId, None] = {}
        self.topic_subscribers: dict[TopicId, list[int]] = {}
        self.subscriptions: list[set[TopicId]] = []
        for index, m in enumerate(members):
            mine = set()
            for tid in subscribed_ids_in_order(m, ids):
                self.subscribed_topics[tid] = None
                self.topic_subscribers.setdefault(tid, []).append(index)
                mine.add(tid)
            self.subscriptions.append(mine)
        self.sizes = [0] * len(members)
        self.owners: dict[TopicId, list[int]] = {
            tid: [-1] * group.topics[tid.name].partitions for tid in self.subscribed_topics
        }
        self.edited: dict[str, _JavaAssignment] = {}
        self.owned = current_assignments(group, members, ids)

    def num_partitions(self, tid: TopicId) -> int:
        return self.group.topics[tid.name].partitions

    def topic_key(self, tid: TopicId) -> tuple[float, int, tuple[int, int]]:
        subscribers = len(self.topic_subscribers[tid])
        return (-(self.num_partitions(tid) / subscribers), subscribers, tid.sort_key)

    def build(self) -> Assignment:
        if not self.subscribed_topics:
            return {}
        self._maybe_revoke_partitions()
        unassigned: dict[TopicId, list[int]] = {}
        for tid, owners in self.owners.items():
            free = [p for p, o in enumerate(owners) if o == -1]
            if free:
                unassigned[tid] = free
        balancer = _Balancer(self.sizes)
        for tid in sorted(unassigned, key=self.topic_key):
            balancer.initialize(self.topic_subscribers[tid])
            for p in unassigned[tid]:
                self._assign_partition(tid, p, balancer.next_least_loaded())
        topics = [t for t in self.subscribed_topics if len(self.topic_subscribers[t]) >= 2]
        if topics:
            self._balance_topics(topics)
        return _finish(self.members, self.edited, self.ids, self.owned)

    def _maybe_revoke_partitions(self) -> None:
        for index, m in enumerate(self.members):
            grouped = _group_ordered(self.owned[m.member_id])
            for name, parts in grouped.items():
                tid = self.ids[name]
                if tid in self.subscriptions[index]:
                    self.sizes[index] += len(parts)
                    owners = self.owners[tid]
                    for p in parts:
                        owners[p] = index
                else:
                    self._java(m.member_id).remove_topic(tid)

    def _java(self, member_id: str) -> _JavaAssignment:
        java = self.edited.get(member_id)
        if java is None:
            java = self.edited[member_id] = _JavaAssignment(
                self.owned[member_id], self.ids, copy=True
            )
        return java

    def _assign_partition(self, tid: TopicId, partition: int, member: int) -> None:
        owners = self.owners[tid]
        old = owners[partition]
        if old != -1:
            java = self._java(self.member_ids[old])
            if tid in java.sets:
                java.remove(tid, partition)
            owners[partition] = -1
            self.sizes[old] -= 1
        subscribers = len(self.topic_subscribers[tid])
        estimated = (self.num_partitions(tid) + subscribers - 1) // subscribers
        capacity = int(float32(float32(estimated / float32(0.75)) + 1.0))
        self._java(self.member_ids[member]).add(tid, partition, capacity)
        owners[partition] = member
        self.sizes[member] += 1

    def _balance_topics(self, topic_ids_: list[TopicId]) -> None:
        ordered = sorted(topic_ids_, key=self.topic_key)
        last_rebalanced = -1
        balancer = _Balancer(self.sizes)
        for _ in range(MAX_ITERATION_COUNT):
            for i, tid in enumerate(ordered):
                if i == last_rebalanced:
                    return
                moved = self._balance_topic(tid, balancer)
                if moved > 0 or last_rebalanced == -1:
                    last_rebalanced = i

    def _balance_topic(self, tid: TopicId, balancer: _Balancer) -> int:
        moved = 0
        owners = self.owners[tid]
        imbalance = balancer.initialize(self.topic_subscribers[tid])
        if imbalance <= 1:
            return moved
        partitions = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for i, p in enumerate(partitions):
            o = owners[p]
            start.setdefault(o, i)
            end[o] = i + 1
        while not balancer.is_balanced():
            most = -1
            while True:
                most = balancer.next_most_loaded()
                if most == -1:
                    break
                if most not in end or end[most] - start[most] <= 0:
                    balancer.exclude_most_loaded()
                    continue
                break
            if most == -1:
                break
            partition = partitions[end[most] - 1]
            end[most] -= 1
            least = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self._assign_partition(tid, partition, least)
            moved += 1
        return moved


class _Balancer:
    """`UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer`."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.sorted: list[int] = []
        self.least_end = 0
        self.least_count = -1
        self.next_least = 0
        self.most_start = 0
        self.most_end = 0
        self.most_count = 1
        self.next_most = -1

    def initialize(self, members: list[int]) -> int:
        if not members:
            raise ValueError("Cannot balance an empty subscriber list.")
        sizes = self.sizes
        self.sorted = sorted(members, key=lambda m: (sizes[m], m))
        s = self.sorted
        self.least_end = 0
        self.least_count = sizes[s[0]] - 1
        self.next_least = 0
        self.most_start = len(s)
        self.most_end = len(s)
        self.most_count = sizes[s[-1]] + 1
        self.next_most = len(s) - 1
        return sizes[s[-1]] - sizes[s[0]]

    def next_least_loaded(self) -> int:
        s, sizes = self.sorted, self.sizes
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(s) and sizes[s[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = s[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        s, sizes = self.sorted, self.sizes
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = sizes[s[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and sizes[s[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = s[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        s = self.sorted
        member = s[self.next_most + 1]
        s[self.next_most + 1] = s[self.most_end - 1]
        s[self.most_end - 1] = member
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1
