"""Client-side `sticky` and `cooperative-sticky` assignors, with KIP-881 rack awareness.

Source of truth: Kafka `org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor`
(3.5+), `StickyAssignor` (eager: previous assignment and generation from userData),
`CooperativeStickyAssignor` (ownedPartitions + generation; drops partitions that must first be
revoked by their current owner).

The phases keep Kafka's names so the two can be read side by side:
- `_all_subscriptions_equal` -> `allSubscriptionsEqual` (claims, generations, conflicts);
- `_ConstrainedBuilder` -> `ConstrainedAssignmentBuilder` (all members subscribe to the same
  topics): keep owned partitions up to the quotas, rack-aware round robin, round robin;
- `_GeneralBuilder` -> `GeneralAssignmentBuilder` (heterogeneous subscriptions): keep valid
  owned partitions, assign the rest to the least loaded eligible member, then move partitions
  until balanced, undoing the moves if they did not improve the balance score.

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
import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from kgroup.assign.javaorder import (
    JavaHashTable,
    java_string_key,
    string_hashmap_order,
    topic_partition_hash,
)
from kgroup.assign.model import TP, Assignment, GroupInput, MemberMeta, TopicMeta
from kgroup.assign.range import use_rack_aware

DEFAULT_GENERATION = -1


@dataclass
class StickyResult:
    """Assignment plus what the cooperative protocol needs."""

    assignment: Assignment
    transferring: dict[TP, str] | None  # partitionsTransferringOwnership (None: general path)
    constrained: bool


def _tp_hash(tp: TP) -> int:
    return topic_partition_hash(tp[0], tp[1])


class _RackInfo:
    """`AbstractStickyAssignor.RackInfo`."""

    def __init__(self, topics: dict[str, TopicMeta], members: list[MemberMeta]) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for m in members:
            if m.rack:
                consumers_by_rack.setdefault(m.rack, []).append(m.member_id)
        partition_racks: dict[TP, frozenset[str]] = {}
        partitions_by_rack: set[str] = set()
        if consumers_by_rack:
            for t in topics.values():
                for p in range(t.partitions):
                    racks = t.replica_racks(p)
                    partition_racks[(t.name, p)] = racks
                    partitions_by_rack |= racks
        if use_rack_aware(
            set(consumers_by_rack), partitions_by_rack, list(partition_racks.values())
        ):
            self.consumer_racks = {c: r for r, cs in consumers_by_rack.items() for c in cs}
            self.partition_racks = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        counts = {r: len(cs) for r, cs in consumers_by_rack.items()}
        self.num_consumers_by_partition = {
            tp: sum(counts.get(r, 0) for r in racks) for tp, racks in partition_racks.items()
        }

    def racks_mismatch(self, consumer: str, tp: TP) -> bool:
        rack = self.consumer_racks.get(consumer)
        if rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or rack not in racks

    def sort_partitions_by_rack_consumers(self, partitions: list[TP]) -> list[TP]:
        if not self.num_consumers_by_partition:
            return partitions
        counts = self.num_consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))

    def next_rack_consumer(self, tp: TP, consumers: list[str], first: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        for i in range(n):
            index = (first + i) % n
            rack = self.consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1


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
                _remove_first(owned[other], tp)
                previous_owner[tp] = m.member_id
            elif generation > other_generation:
                mine.append(tp)
                _remove_first(owned[other], tp)
                previous_owner[tp] = m.member_id
    ordered = {c: owned[c] for c in members_in_map_order}
    return _Claims(equal, ordered, multiple, max_generation)


def _remove_first(items: list[TP], tp: TP) -> None:
    with contextlib.suppress(ValueError):
        items.remove(tp)


def _partition_topic_key(tp: TP) -> tuple[int, str]:
    return (tp[1], java_string_key(tp[0]))


class _ConstrainedBuilder:
    """`AbstractStickyAssignor.ConstrainedAssignmentBuilder`."""

    def __init__(
        self,
        topics: dict[str, TopicMeta],
        rack_info: _RackInfo,
        current: dict[str, list[TP]],
        multiple_owners: set[TP],
    ) -> None:
        self.topics = topics
        self.rack_info = rack_info
        self.current = current
        self.multiple_owners = multiple_owners
        # maybeRevokedPartitions: owned partition -> the member that owned it, for partitions
        # not kept by their owner (rack mismatch, over quota)
        self.maybe_revoked: dict[TP, str] = {}
        self.unfilled_under: list[str] = []
        self.unfilled_exactly: list[str] = []
        total = sum(t.partitions for t in topics.values())
        n = len(current)
        self.min_quota = total // n
        self.max_quota = -(-total // n)
        self.expected_over_min = total % n
        self.current_over_min = 0
        self.assignment: dict[str, list[TP]] = {c: [] for c in current}
        self.assigned: list[TP] = []
        self.transferring: dict[TP, str] = {}

    def build(self) -> dict[str, list[TP]]:
        self._assign_owned_partitions()
        unassigned = self._unassigned_partitions()
        self.unfilled_under.sort(key=java_string_key)
        self.unfilled_exactly.sort(key=java_string_key)
        unassigned = self.rack_info.sort_partitions_by_rack_consumers(unassigned)
        unassigned = self._assign_rack_aware_round_robin(unassigned)
        self._assign_round_robin(unassigned)
        self._verify_unfilled_members()
        return self.assignment

    def _assign_owned_partitions(self) -> None:
        rack = self.rack_info
        check_racks = bool(rack.consumer_racks)
        for consumer, claimed in self.current.items():
            if check_racks:
                owned = []
                for tp in claimed:
                    if rack.racks_mismatch(consumer, tp):
                        self.maybe_revoked[tp] = consumer
                    else:
                        owned.append(tp)
            else:
                owned = list(claimed)
            owned.sort(key=_partition_topic_key)
            if self.multiple_owners:
                for tp in self.multiple_owners:
                    if tp in owned:
                        owned.remove(tp)
            target = self.assignment[consumer]
            if len(owned) < self.min_quota:
                target.extend(owned)
                self.assigned.extend(owned)
                self.unfilled_under.append(consumer)
            elif len(owned) >= self.max_quota and self.current_over_min < self.expected_over_min:
                self.current_over_min += 1
                if self.current_over_min == self.expected_over_min:
                    self.unfilled_exactly.clear()
                target.extend(owned[: self.max_quota])
                self.assigned.extend(owned[: self.max_quota])
                for tp in owned[self.max_quota :]:
                    self.maybe_revoked[tp] = consumer
            else:
                target.extend(owned[: self.min_quota])
                self.assigned.extend(owned[: self.min_quota])
                for tp in owned[self.min_quota :]:
                    self.maybe_revoked[tp] = consumer
                if self.current_over_min < self.expected_over_min:
                    self.unfilled_exactly.append(consumer)

    def _unassigned_partitions(self) -> list[TP]:
        assigned = set(self.assigned)
        out: list[TP] = []
        for name in sorted(self.topics, key=java_string_key):
            n = self.topics[name].partitions
            if not assigned:
                out.extend((name, p) for p in range(n))
            else:
                out.extend((name, p) for p in range(n) if (name, p) not in assigned)
        return out

    def _assign_new_partition(self, tp: TP, consumer: str) -> int:
        """`ConstrainedAssignmentBuilder.assignNewPartition`: a partition given to another member
        than the one that owned it, or claimed by several, is transferring ownership."""
        target = self.assignment[consumer]
        target.append(tp)
        previous = self.maybe_revoked.get(tp)
        if (previous is not None and previous != consumer) or tp in self.multiple_owners:
            self.transferring[tp] = consumer
        return len(target)

    def _assign_rack_aware_round_robin(self, unassigned: list[TP]) -> list[TP]:
        """`ConstrainedAssignmentBuilder.assignRackAwareRoundRobin` (as fixed by KAFKA-15170)."""
        rack = self.rack_info
        if not rack.consumer_racks:
            return unassigned
        under, exactly = self.unfilled_under, self.unfilled_exactly
        next_index_start = 0
        left: list[TP] = []
        for tp in unassigned:
            consumer = None
            next_index = rack.next_rack_consumer(tp, under, next_index_start)
            if next_index >= 0:
                consumer = under[next_index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    under.remove(consumer)
                    # at minQuota it may still take one more, if members over minQuota are missing
                    if count < self.max_quota and self.current_over_min < self.expected_over_min:
                        exactly.append(consumer)
                else:
                    next_index += 1
                next_index_start = next_index % len(under) if under else 0
            elif exactly:
                first = rack.next_rack_consumer(tp, exactly, 0)
                if first >= 0:
                    consumer = exactly[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del exactly[first]
                        self.current_over_min += 1
                        if self.current_over_min == self.expected_over_min:
                            # every member at minQuota is now filled
                            exactly.clear()
            if consumer is not None:
                self._assign_new_partition(tp, consumer)
            else:
                left.append(tp)
        return left

    def _assign_round_robin(self, unassigned: list[TP]) -> None:
        under, exactly = self.unfilled_under, self.unfilled_exactly
        pos = 0  # Java iterator over `under`: index of the next element
        last = -1
        from_under = False
        for tp in unassigned:
            if pos < len(under):
                consumer = under[pos]
                last, pos, from_under = pos, pos + 1, True
            elif not under and not exactly:
                raise RuntimeError("No more unfilled consumers to be assigned.")
            elif not under:
                consumer = exactly.pop(0)
                from_under = False
            else:
                pos = 0
                consumer = under[pos]
                last, pos, from_under = pos, pos + 1, True
            count = self._assign_new_partition(tp, consumer)
            if count == self.min_quota:
                if from_under:
                    del under[last]
                    pos -= 1
                exactly.append(consumer)
            elif count == self.max_quota:
                self.current_over_min += 1

    def _verify_unfilled_members(self) -> None:
        if self.unfilled_under and self.current_over_min != self.expected_over_min:
            raise RuntimeError(
                "We haven't reached the expected number of members with more than the minQuota "
                "partitions, but no more partitions to be assigned"
            )


class _Movements:
    """`AbstractStickyAssignor.PartitionMovements`, with Java `HashSet` order for `next()`."""

    def __init__(self) -> None:
        self.by_partition: dict[TP, tuple[str, str]] = {}
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashTable]] = {}

    def _remove(self, tp: TP) -> tuple[str, str]:
        pair = self.by_partition.pop(tp)
        topic_moves = self.by_topic[tp[0]]
        moved = topic_moves[pair]
        moved.remove(tp)
        if not len(moved):
            del topic_moves[pair]
        if not topic_moves:
            del self.by_topic[tp[0]]
        return pair

    def _add(self, tp: TP, pair: tuple[str, str]) -> None:
        self.by_partition[tp] = pair
        topic_moves = self.by_topic.setdefault(tp[0], {})
        moved = topic_moves.get(pair)
        if moved is None:
            moved = topic_moves[pair] = JavaHashTable(_tp_hash)
        moved.put(tp)

    def move(self, tp: TP, old: str, new: str) -> None:
        if tp in self.by_partition:
            src, _dst = self._remove(tp)
            if src != new:
                self._add(tp, (src, new))
        else:
            self._add(tp, (old, new))

    def actual_partition_to_move(self, tp: TP, old: str, new: str) -> TP:
        topic_moves = self.by_topic.get(tp[0])
        if topic_moves is None:
            return tp
        if tp in self.by_partition:
            old = self.by_partition[tp][0]
        reverse = topic_moves.get((new, old))
        if reverse is None:
            return tp
        return reverse.first()


class _LoadIndex:
    """Members ordered like the `TreeSet` `sortedCurrentSubscriptions` ((load, member id)),
    with lazy heaps per topic (and per topic and rack) to find "the first member in the tree
    subscribed to this topic" without walking the tree."""

    def __init__(self, sizes: dict[str, int], jkey: dict[str, str]) -> None:
        self.sizes = sizes
        self.jkey = jkey
        self.groups: dict[object, list[tuple[int, str, str]]] = {}
        self.member_groups: dict[str, list[object]] = {}
        self.active: set[str] = set()
        self.max_heap: list[tuple[int, str]] = []

    def add_member(self, member: str, groups: Iterable[object]) -> None:
        self.member_groups[member] = list(groups)
        self.active.add(member)
        self.touch(member)

    def deactivate(self, member: str) -> None:
        self.active.discard(member)

    def touch(self, member: str) -> None:
        entry = (self.sizes[member], self.jkey[member], member)
        for g in self.member_groups[member]:
            heapq.heappush(self.groups.setdefault(g, []), entry)
        heapq.heappush(self.max_heap, (-self.sizes[member], member))

    def first(self, group: object) -> tuple[int, str, str] | None:
        heap = self.groups.get(group)
        if not heap:
            return None
        sizes, active = self.sizes, self.active
        while heap:
            size, _k, member = heap[0]
            if member in active and sizes[member] == size:
                return heap[0]
            heapq.heappop(heap)
        return None

    def max_size(self) -> int:
        heap, sizes, active = self.max_heap, self.sizes, self.active
        while heap:
            neg, member = heap[0]
            if member in active and sizes[member] == -neg:
                return -neg
            heapq.heappop(heap)
        return 0

    def min_size(self) -> int:
        entry = self.first("*")
        return entry[0] if entry else 0


class _GeneralBuilder:
    """`AbstractStickyAssignor.GeneralAssignmentBuilder`."""

    def __init__(
        self,
        topics: dict[str, TopicMeta],
        rack_info: _RackInfo,
        current: dict[str, list[TP]],
        subscriptions: list[MemberMeta],
        max_generation: int,
    ) -> None:
        self.topics = topics
        self.rack_info = rack_info
        self.subscriptions = subscriptions
        self.max_generation = max_generation
        self.subscribed = {m.member_id: frozenset(m.topics) for m in subscriptions}
        self.topic_consumers: dict[str, list[str]] = {t: [] for t in topics}
        self.consumer_topics: dict[str, list[str]] = {}
        for m in subscriptions:
            mine: list[str] = []
            self.consumer_topics[m.member_id] = mine
            for t in dict.fromkeys(m.topics):
                if t in topics:
                    mine.append(t)
                    self.topic_consumers[t].append(m.member_id)
        # currentAssignment: member -> ordered set of partitions (dict keys)
        self.current: dict[str, dict[TP, None]] = {
            c: dict.fromkeys(parts) for c, parts in current.items()
        }
        for m in subscriptions:
            self.current.setdefault(m.member_id, {})
        self.owner: dict[TP, str] = {}
        for c, parts in self.current.items():
            for tp in parts:
                self.owner[tp] = c
        self.sorted_topics = sorted(
            topics, key=lambda t: (len(self.topic_consumers[t]), java_string_key(t))
        )
        self.sorted_all_partitions = [
            (t, p) for t in self.sorted_topics for p in range(topics[t].partitions)
        ]
        self.revocation_required = False
        self.total = sum(t.partitions for t in topics.values())
        self.movements = _Movements()
        self.jkey = {c: java_string_key(c) for c in self.current}
        self.sizes: dict[str, int] = {}
        self.max_size_of = {
            c: self._max_assignment_size(self.consumer_topics.get(c, [])) for c in self.current
        }

    def _max_assignment_size(self, topics: list[str]) -> int:
        if len(topics) == len(self.topics):
            return self.total
        return sum(self.topics[t].partitions for t in topics)

    # --- build -----------------------------------------------------------------------------

    def build(self) -> dict[str, list[TP]]:
        prev = self._prepopulate_current_assignments()
        assigned = self._assign_owned_partitions()
        unassigned = self._unassigned_partitions(assigned)
        self.sizes = {c: len(parts) for c, parts in self.current.items()}
        self.topic_owners: dict[str, dict[str, int]] = {t: {} for t in self.topics}
        for c, parts in self.current.items():
            for tp in parts:
                owners = self.topic_owners[tp[0]]
                owners[c] = owners.get(c, 0) + 1
        self.index = _LoadIndex(self.sizes, self.jkey)
        rack = self.rack_info
        for c in self.current:
            groups: list[object] = ["*"]
            crack = rack.consumer_racks.get(c)
            for t in self.consumer_topics.get(c, []):
                groups.append(t)
                groups.append((t, crack))
            self.index.add_member(c, groups)
        self._balance(prev, unassigned)
        return {c: list(parts) for c, parts in self.current.items()}

    def _prepopulate_current_assignments(self) -> dict[TP, tuple[str, int]]:
        prev: dict[TP, tuple[str, int]] = {}
        for m in self.subscriptions:
            if m.generation is not None and m.generation < self.max_generation:
                self._update_prev(prev, m.owned, m.member_id, m.generation)
            elif m.generation is None and self.max_generation > DEFAULT_GENERATION:
                self._update_prev(prev, m.owned, m.member_id, DEFAULT_GENERATION)
        return prev

    @staticmethod
    def _update_prev(
        prev: dict[TP, tuple[str, int]], partitions: Iterable[TP], consumer: str, generation: int
    ) -> None:
        for tp in partitions:
            known = prev.get(tp)
            if known is None or generation > known[1]:
                prev[tp] = (consumer, generation)

    def _assign_owned_partitions(self) -> list[TP]:
        assigned: list[TP] = []
        rack = self.rack_info
        for consumer, parts in self.current.items():
            subscribed = self.subscribed.get(consumer)
            if subscribed is None:  # not a member any more (cannot happen from our inputs)
                for tp in parts:
                    self.owner.pop(tp, None)
                parts.clear()
                continue
            for tp in list(parts):
                if tp[0] not in self.topic_consumers:
                    del parts[tp]
                    self.owner.pop(tp, None)
                elif tp[0] not in subscribed or rack.racks_mismatch(consumer, tp):
                    del parts[tp]
                    self.revocation_required = True
                else:
                    assigned.append(tp)
        return assigned

    def _unassigned_partitions(self, assigned: list[TP]) -> list[TP]:
        if not assigned:
            return self.sorted_all_partitions
        taken = set(assigned)
        return [tp for tp in self.sorted_all_partitions if tp not in taken]

    # --- moves -----------------------------------------------------------------------------

    def _set_partition(self, tp: TP, consumer: str) -> None:
        self.current[consumer][tp] = None
        self.owner[tp] = consumer
        owners = self.topic_owners[tp[0]]
        owners[consumer] = owners.get(consumer, 0) + 1
        self.sizes[consumer] += 1
        self.index.touch(consumer)
        self._balanced_cache = None

    def _maybe_assign(self, partitions: list[TP], use_racks: bool, remove: bool) -> list[TP]:
        left: list[TP] = []
        index = self.index
        rack = self.rack_info
        for tp in partitions:
            topic = tp[0]
            if not self.topic_consumers[topic]:
                left.append(tp)
                continue
            best = None
            if use_racks:
                candidates = [index.first((topic, None))]
                for r in rack.partition_racks.get(tp, ()):
                    candidates.append(index.first((topic, r)))
                found = [c for c in candidates if c is not None]
                best = min(found) if found else None
            else:
                best = index.first(topic)
            if best is None:
                left.append(tp)
                continue
            self._set_partition(tp, best[2])
        return left if remove else partitions

    def _balance(self, prev: dict[TP, tuple[str, int]], unassigned: list[TP]) -> None:
        index = self.index
        initializing = index.max_size() == 0
        to_assign = unassigned
        if self.rack_info.consumer_racks:
            to_assign = self._maybe_assign(list(unassigned), use_racks=True, remove=True)
        self._maybe_assign(to_assign, use_racks=False, remove=False)

        fixed_topics = {t for t, cs in self.topic_consumers.items() if len(cs) < 2}
        if fixed_topics:
            self.sorted_all_partitions = [
                tp for tp in self.sorted_all_partitions if tp[0] not in fixed_topics
            ]
            unassigned = [tp for tp in unassigned if tp[0] not in fixed_topics]

        fixed: dict[str, dict[TP, None]] = {}
        for consumer in self.consumer_topics:
            if not self._can_consumer_participate(consumer):
                index.deactivate(consumer)
                fixed[consumer] = self.current.pop(consumer)
        self.participating_topics = {
            t: cs for t, cs in self.topic_consumers.items() if t not in fixed_topics
        }

        pre_balance = {c: dict(parts) for c, parts in self.current.items()}
        pre_owner = dict(self.owner)
        self._balanced_cache: bool | None = None

        if not self.revocation_required:
            self._perform_reassignments(unassigned, prev)
        performed = self._perform_reassignments(self.sorted_all_partitions, prev)

        if (
            not initializing
            and performed
            and _balance_score(self.current) >= _balance_score(pre_balance)
        ):
            self.current = pre_balance
            self.owner = pre_owner
            for c, parts in self.current.items():
                self.sizes[c] = len(parts)

        for consumer, parts in fixed.items():
            self.current[consumer] = parts

    def _can_consumer_participate(self, consumer: str) -> bool:
        parts = self.current[consumer]
        if len(parts) < self.max_size_of[consumer]:
            return True
        return any(len(self.topic_consumers[tp[0]]) >= 2 for tp in parts)

    def _is_balanced(self) -> bool:
        """`GeneralAssignmentBuilder.isBalanced`, as "no member that could take a partition has
        a subscribed topic whose most loaded owner holds 2+ more partitions than it"."""
        cached = self._balanced_cache
        if cached is not None:
            return cached
        result = self._compute_balanced()
        self._balanced_cache = result
        return result

    def _compute_balanced(self) -> bool:
        index = self.index
        if index.min_size() >= index.max_size() - 1:
            return True
        sizes = self.sizes
        owner_load: dict[str, int] = {}
        for topic, consumers in self.participating_topics.items():
            owners = self.topic_owners[topic]
            if consumers and owners:
                owner_load[topic] = max(sizes[o] for o in owners)
        for consumer, _parts in self.current.items():
            size = sizes[consumer]
            if size == self.max_size_of[consumer]:
                continue
            for topic in self.consumer_topics[consumer]:
                load = owner_load.get(topic)
                if load is None:
                    # a topic with a single subscriber: every partition is this member's own
                    continue
                if size + 1 < load:
                    return False
        return True

    def _perform_reassignments(self, partitions: list[TP], prev: dict[TP, tuple[str, int]]) -> bool:
        performed = False
        sizes = self.sizes
        index = self.index
        while True:
            modified = False
            for tp in partitions:
                if self._is_balanced():
                    break
                consumer = self.owner[tp]
                known = prev.get(tp)
                if (
                    known is not None
                    and known[0] in self.current
                    and sizes[consumer] > sizes[known[0]] + 1
                ):
                    self._reassign(tp, known[0])
                    performed = modified = True
                    continue
                least = index.first(tp[0])
                if least is not None and sizes[consumer] > least[0] + 1:
                    self._reassign(tp, least[2])
                    performed = modified = True
            if not modified:
                return performed

    def _reassign(self, tp: TP, new_consumer: str) -> None:
        consumer = self.owner[tp]
        to_move = self.movements.actual_partition_to_move(tp, consumer, new_consumer)
        self._process_movement(to_move, new_consumer)

    def _process_movement(self, tp: TP, new_consumer: str) -> None:
        old = self.owner[tp]
        self.movements.move(tp, old, new_consumer)
        del self.current[old][tp]
        owners = self.topic_owners[tp[0]]
        owners[old] -= 1
        if not owners[old]:
            del owners[old]
        self.sizes[old] -= 1
        self.index.touch(old)
        self._set_partition(tp, new_consumer)


def _balance_score(assignment: dict[str, dict[TP, None]]) -> int:
    """`getBalanceScore`: sum of |size difference| over all member pairs (sorted-prefix form)."""
    sizes = sorted(len(parts) for parts in assignment.values())
    score = 0
    n = len(sizes)
    for i, s in enumerate(sizes):
        score += s * (2 * i - n + 1)
    return score


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
    rack_info = _RackInfo(topics, subscriptions)
    # consumerToOwnedPartitions is a fresh HashMap filled in `subscriptions` order
    owned_order = string_hashmap_order([m.member_id for m in subscriptions])
    claims = _all_subscriptions_equal(set(topics), subscriptions, owned_order)
    if claims.all_equal:
        builder = _ConstrainedBuilder(topics, rack_info, claims.owned, claims.multiple_owners)
        assignment = builder.build()
        return StickyResult(assignment, builder.transferring, True)
    general = _GeneralBuilder(topics, rack_info, claims.owned, subscriptions, claims.max_generation)
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
