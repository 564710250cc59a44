"""KIP-848 server-side `range` assignor (`server-range`).

Source of truth: Kafka group-coordinator `org.apache.kafka.coordinator.group.assignor.RangeAssignor`
(trunk, late 2024: `assignHomogeneousGroup` / `assignHeterogeneousGroup`). It ignores the
current assignment and racks.

Members are sorted by instance id (static members first) else member id; for each topic the
sorted subscribers take consecutive ranges of `partitions // subscribers`, the first
`partitions % subscribers` one more; a subscriber past the end gets nothing. Co-partitioned
topics therefore line up.

Worked example (Kafka's javadoc): M0, M1 on T1, T2 with 3 partitions each ->
M0: T1-0, T1-1, T2-0, T2-1; M1: T1-2, T2-2.
"""

from __future__ import annotations

from kgroup.assign.model import Assignment, GroupInput
from kgroup.assign.range import member_sort_key


def assign_server_range(group: GroupInput) -> Assignment:
    """Assign like the coordinator's `RangeAssignor.assign`."""
    members = sorted(group.members, key=member_sort_key)
    assignment: Assignment = {m.member_id: [] for m in group.members}
    if not members:
        return {}
    subscribers: dict[str, int] = {}
    for m in members:
        for t in dict.fromkeys(m.topics):
            if t in group.topics:
                subscribers[t] = subscribers.get(t, 0) + 1
    state: dict[str, list[int]] = {}  # topic -> [next_range, min_quota, extra]
    for t, count in subscribers.items():
        n = group.topics[t].partitions
        state[t] = [0, n // count, n % count]
    for m in members:
        for t in dict.fromkeys(m.topics):
            if t not in state:
                continue
            n = group.topics[t].partitions
            s = state[t]
            start = s[0]
            if start >= n:
                continue
            end = min(start + s[1], n)
            if s[2] > 0:
                end += 1
                s[2] -= 1
            s[0] = end
            assignment[m.member_id].extend((t, p) for p in range(start, end))
    return assignment
