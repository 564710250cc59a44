"""Builders that set up inputs the way Kafka's assignor unit tests do.

Mirrors the fixtures of Kafka's `AbstractPartitionAssignorTest` (`racks(n)`, `nullRacks(n)`,
`verifyRackAssignment`): broker i sits on rack `brokerRacks[i]`; partition p of the k-th topic
(in the test's `mkMap` order) has replicas on brokers `(p + j + offset) % brokers` for
j < replication factor, where offset is the number of partitions of the topics before it;
consumers are named `consumer0..` and put into `new HashMap<>(consumers.size())`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta

ALL_RACKS = ["a", "b", "c", "d", "e", "f"]


def racks(n: int) -> list[str | None]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(n)]


def null_racks(n: int) -> list[str | None]:
    return [None] * n


def topics_with_racks(
    partitions: dict[str, int], replication_factor: int, broker_racks: Sequence[str | None]
) -> dict[str, TopicMeta]:
    out: dict[str, TopicMeta] = {}
    offset = 0
    brokers = len(broker_racks)
    for name, count in partitions.items():
        per_partition = []
        for p in range(count):
            rs = {broker_racks[(p + j + offset) % brokers] for j in range(replication_factor)}
            per_partition.append(frozenset(r for r in rs if r is not None))
        out[name] = TopicMeta(name, count, tuple(per_partition))
        offset += count
    return out


def parse_owned(text: str) -> tuple[tuple[str, int], ...]:
    if not text:
        return ()
    out = []
    for item in text.split(", "):
        topic, _, p = item.rpartition("-")
        out.append((topic, int(p)))
    return tuple(out)


def rack_group(
    partitions: dict[str, int],
    replication_factor: int,
    broker_racks: Sequence[str | None],
    consumer_racks: Sequence[str | None],
    consumer_topics: Sequence[Sequence[str]],
    owned: Sequence[str] = (),
    generation: int | None = -1,
) -> GroupInput:
    topics = topics_with_racks(partitions, replication_factor, broker_racks)
    members = []
    for i, rack in enumerate(consumer_racks):
        mine = parse_owned(owned[i]) if i < len(owned) else ()
        members.append(
            MemberMeta(
                f"consumer{i}",
                tuple(consumer_topics[i]),
                rack=rack,
                owned=mine,
                generation=generation,
            )
        )
    return GroupInput(topics, members, member_map_capacity=len(members))


def to_sorted_strings(assignment: dict[str, list[tuple[str, int]]], count: int) -> list[str]:
    """`toSortedString` per consumer0..: `t-p` strings sorted as text, joined by ", "."""
    return [
        ", ".join(sorted(f"{t}-{p}" for t, p in assignment.get(f"consumer{i}", [])))
        for i in range(count)
    ]


def rack_mismatches(group: GroupInput, assignment: dict[str, list[tuple[str, int]]]) -> int:
    count = 0
    for m in group.members:
        if m.rack is None:
            continue
        for t, p in assignment.get(m.member_id, []):
            if m.rack not in group.topics[t].replica_racks(p):
                count += 1
    return count
