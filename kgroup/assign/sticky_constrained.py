"""`AbstractStickyAssignor.ConstrainedAssignmentBuilder`: every member subscribes to the same
topics; keep owned partitions up to the quotas, then rack-aware round robin, then round robin
(`kgroup.assign.sticky` says which Kafka behaviours are reproduced on purpose)."""

from __future__ import annotations

from kgroup.assign.javaorder import (
    java_string_key,
)
from kgroup.assign.model import TP, TopicMeta
from kgroup.assign.sticky_shared import (
    AssignmentBuilder,
    RackInfo,
    partition_topic_key,
)


class ConstrainedBuilder(AssignmentBuilder):
    """`AbstractStickyAssignor.ConstrainedAssignmentBuilder`."""

    def __init__(
        self,
        topics: dict[str, TopicMeta],
        rack_info: RackInfo,
        current: dict[str, list[TP]],
        multiple_owners: set[TP],
    ) -> None:
        super().__init__(topics, rack_info)
        self.current = current
        self.multiple_owners = multiple_owners
        # maybeRevokedPartitions: owned partition -> the member that owned it, for partitions
        # not kept by their owner (rack mismatch, over quota)
        self.maybe_revoked: dict[TP, str] = {}
        self.unfilled_under: list[str] = []
        self.unfilled_exactly: list[str] = []
        n = len(current)
        self.min_quota = self.total // n
        self.max_quota = -(-self.total // n)
        self.expected_over_min = self.total % n
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
            owned.sort(key=partition_topic_key)
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
