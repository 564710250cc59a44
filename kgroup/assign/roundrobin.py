"""Client-side `roundrobin` assignor.

Source of truth: Kafka `org.apache.kafka.clients.consumer.RoundRobinAssignor`.

Members are sorted like `AbstractPartitionAssignor.MemberInfo` (static members by instance id
first, then member ids); all subscribed partitions are sorted by topic then partition; a circular
iterator over the members hands each partition to the next member subscribed to its topic.

Worked example (Kafka's javadoc): C0 subscribes to t0; C1 to t0, t1; C2 to t0, t1, t2, with
t0, t1, t2 having 1, 2, 3 partitions -> C0: t0-0; C1: t1-0; C2: t1-1, t2-0, t2-1, t2-2.
"""

from __future__ import annotations

from kgroup.assign.javaorder import java_string_key
from kgroup.assign.model import Assignment, GroupInput
from kgroup.assign.range import member_sort_key


def assign_roundrobin(group: GroupInput) -> Assignment:
    """Assign like Kafka's `RoundRobinAssignor.assign`."""
    assignment: Assignment = {m.member_id: [] for m in group.members}
    members = sorted(group.members, key=member_sort_key)
    if not members:
        return assignment
    subscribed = [frozenset(m.topics) for m in members]
    topics = sorted({t for m in members for t in m.topics}, key=java_string_key)
    n = len(members)
    cursor = 0
    for topic in topics:
        meta = group.topics.get(topic)
        if meta is None:
            continue
        # members of this topic in circular order; skip quickly when everyone subscribes
        if all(topic in s for s in subscribed):
            lists = [assignment[m.member_id] for m in members]
            for p in range(meta.partitions):
                lists[cursor].append((topic, p))
                cursor = cursor + 1 if cursor + 1 < n else 0
            continue
        for p in range(meta.partitions):
            while topic not in subscribed[cursor]:
                cursor = (cursor + 1) % n
            assignment[members[cursor].member_id].append((topic, p))
            cursor = (cursor + 1) % n
    return assignment
