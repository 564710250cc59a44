"""`AbstractStickyAssignor.GeneralAssignmentBuilder`: heterogeneous subscriptions; keep valid
owned partitions, give the rest to the least loaded eligible member, then move partitions until
balanced, undoing the moves that did not improve the balance score. Kafka's decisions, made
with indexed structures instead of Kafka's scans (per-topic heaps of members by load, a
per-topic owner count), which is what makes large heterogeneous groups tractable."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from kgroup.assign.javaorder import (
    JavaHashTable,
    java_string_key,
)
from kgroup.assign.model import TP, MemberMeta, TopicMeta
from kgroup.assign.sticky_shared import (
    DEFAULT_GENERATION,
    AssignmentBuilder,
    RackInfo,
    tp_hash,
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
            moved = topic_moves[pair] = JavaHashTable(tp_hash)
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


class GeneralBuilder(AssignmentBuilder):
    """`AbstractStickyAssignor.GeneralAssignmentBuilder`."""

    def __init__(
        self,
        topics: dict[str, TopicMeta],
        rack_info: RackInfo,
        current: dict[str, list[TP]],
        subscriptions: list[MemberMeta],
        max_generation: int,
    ) -> None:
        super().__init__(topics, rack_info)
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
        self.foreign_owner = False  # a member holds a partition of a topic it left
        self.owner_heaps: dict[str, list[tuple[int, str]]] = {t: [] for t in self.topics}
        for c in self.current:
            self._push_owner_loads(c)
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
        if tp[0] not in self.subscribed[consumer]:
            self.foreign_owner = True
        self.current[consumer][tp] = None
        self.owner[tp] = consumer
        owners = self.topic_owners[tp[0]]
        owners[consumer] = owners.get(consumer, 0) + 1
        self.sizes[consumer] += 1
        self.index.touch(consumer)
        self._push_owner_loads(consumer)
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
        """Per participating topic: its least loaded active subscriber (the `_LoadIndex` heap)
        against its most loaded owner (`_owner_load`). A member already holding everything it
        can get (Java skips it) owns every partition of its topics, so when it is the least
        loaded subscriber of a topic it is also that topic's only owner: no member passes the
        test for that topic either way, and the full members need no skipping."""
        index = self.index
        if index.min_size() >= index.max_size() - 1:
            return True
        if self.foreign_owner:
            return self._compute_balanced_by_scan()
        for topic in self.participating_topics:
            load = self._owner_load(topic)
            if load is None:
                continue
            least = index.first(topic)
            if least is not None and least[0] + 1 < load:
                return False
        return True

    def _compute_balanced_by_scan(self) -> bool:
        """The same test member by member, for when a member holds a partition of a topic it
        does not subscribe to (Java's `performReassignments` returns a partition to its
        previous owner without checking that it still subscribes): then a member holding as
        many partitions as it can get need not own all of its topics, and Java skips it."""
        sizes = self.sizes
        owner_load: dict[str, int] = {}
        for topic, consumers in self.participating_topics.items():
            owners = self.topic_owners[topic]
            if consumers and owners:
                owner_load[topic] = max(sizes[o] for o in owners)
        for consumer in self.current:
            size = sizes[consumer]
            if size == self.max_size_of[consumer]:
                continue
            for topic in self.consumer_topics[consumer]:
                load = owner_load.get(topic)
                if load is not None and size + 1 < load:
                    return False
        return True

    def _owner_load(self, topic: str) -> int | None:
        """The size of the most loaded member owning a partition of `topic` (lazy max-heap:
        entries of members that no longer own one, or whose size changed, are dropped)."""
        heap = self.owner_heaps[topic]
        owners = self.topic_owners[topic]
        sizes = self.sizes
        while heap:
            neg, member = heap[0]
            if member in owners and sizes[member] == -neg:
                return -neg
            heapq.heappop(heap)
        return None

    def _push_owner_loads(self, member: str) -> None:
        """Record `member`'s new size in the owner heaps of the topics it subscribes to (those
        it owns a partition of are among them)."""
        entry = (-self.sizes[member], member)
        heaps = self.owner_heaps
        for topic in self.consumer_topics.get(member, ()):
            heapq.heappush(heaps[topic], entry)

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
        self._push_owner_loads(old)
        self._set_partition(tp, new_consumer)


def _balance_score(assignment: dict[str, dict[TP, None]]) -> int:
    """`getBalanceScore`: sum of |size difference| over all member pairs (sorted-prefix form)."""
    sizes = sorted(len(parts) for parts in assignment.values())
    score = 0
    n = len(sizes)
    for i, s in enumerate(sizes):
        score += s * (2 * i - n + 1)
    return score
