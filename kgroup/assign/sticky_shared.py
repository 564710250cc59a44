"""What both of the sticky assignors' builders use: rack information (Kafka's
`AbstractStickyAssignor.AbstractAssignmentBuilder`/`RackInfo`, KIP-881) and small helpers."""

from __future__ import annotations

import contextlib

from kgroup.assign.javaorder import (
    java_string_key,
    topic_partition_hash,
)
from kgroup.assign.model import TP, MemberMeta, TopicMeta
from kgroup.assign.range import use_rack_aware

DEFAULT_GENERATION = -1


def tp_hash(tp: TP) -> int:
    return topic_partition_hash(tp[0], tp[1])


class RackInfo:
    """`AbstractStickyAssignor.RackInfo`."""

    def __init__(self, topics: dict[str, TopicMeta], members: list[MemberMeta]) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for m in members:
            if m.rack:
                consumers_by_rack.setdefault(m.rack, []).append(m.member_id)
        partition_racks: dict[TP, frozenset[str]] = {}
        if consumers_by_rack:
            for t in topics.values():
                name = t.name
                for p in range(t.partitions):
                    partition_racks[(name, p)] = t.replica_racks(p)
        # the distinct replica rack sets (few, shared by many partitions) answer the questions
        # that do not depend on the partition itself
        distinct = set(partition_racks.values())
        partitions_by_rack: set[str] = set().union(*distinct)
        if use_rack_aware(set(consumers_by_rack), partitions_by_rack, list(distinct)):
            self.consumer_racks = {c: r for r, cs in consumers_by_rack.items() for c in cs}
            self.partition_racks = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        counts = {r: len(cs) for r, cs in consumers_by_rack.items()}
        per_set = {racks: sum(counts.get(r, 0) for r in racks) for racks in distinct}
        self.num_consumers_by_partition = {
            tp: per_set[racks] for tp, racks in partition_racks.items()
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


class AssignmentBuilder:
    """`AbstractStickyAssignor.AbstractAssignmentBuilder`: what both builders start from, the
    topics (`partitionsPerTopic`), the rack information and `totalPartitionsCount`. Each builder
    keeps its own `currentAssignment` (the general one as ordered sets)."""

    def __init__(self, topics: dict[str, TopicMeta], rack_info: RackInfo) -> None:
        self.topics = topics
        self.rack_info = rack_info
        self.total = sum(t.partitions for t in topics.values())

    def build(self) -> dict[str, list[TP]]:
        """Member -> its partitions."""
        raise NotImplementedError


def remove_first(items: list[TP], tp: TP) -> None:
    with contextlib.suppress(ValueError):
        items.remove(tp)


def partition_topic_key(tp: TP) -> tuple[int, str]:
    return (tp[1], java_string_key(tp[0]))
