"""Kafka's group-coordinator `UniformHeterogeneousAssignmentBuilderTest` and `RangeAssignorTest`
scenarios, as golden tests.

Kafka's tests use random topic ids and walk members A, B, C in sorted order; the expected
results below do not depend on the ids, and "A" < "B" < "C" is also their Java `HashMap`
order (hashes 65, 66, 67), so our derived ids and hash-ordered members reproduce them.
"""

from __future__ import annotations

import pytest

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta, sorted_assignment
from kgroup.assign.server_range import assign_server_range
from kgroup.assign.uniform import assign_uniform


def tps(spec: dict[str, list[int]]) -> list[tuple[str, int]]:
    return sorted((t, p) for t, ps in spec.items() for p in ps)


def group(topics: dict[str, int], members: dict[str, tuple[list[str], dict[str, list[int]]]]):
    return GroupInput(
        {t: TopicMeta(t, n) for t, n in topics.items()},
        [
            MemberMeta(m, tuple(subs), owned=tuple(tps(owned)))
            for m, (subs, owned) in members.items()
        ],
    )


HETEROGENEOUS = [
    pytest.param(
        {"topic1": 3, "topic3": 6},
        {"A": (["topic1", "topic3"], {}), "B": (["topic3"], {})},
        {"A": {"topic1": [0, 1, 2], "topic3": [4]}, "B": {"topic3": [0, 1, 2, 3, 5]}},
        id="first-assignment-two-members-two-topics",
    ),
    pytest.param(
        {"topic3": 1, "topic1": 2},
        {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic1"], {})},
        {"A": {"topic3": [0]}, "B": {}, "C": {"topic1": [0, 1]}},
        id="more-members-than-partitions",
    ),
    pytest.param(
        {"topic1": 6, "topic2": 4, "topic3": 4},
        {
            "A": (["topic1"], {"topic1": [0, 1, 2]}),
            "B": (["topic1", "topic2"], {"topic1": [3], "topic2": [0]}),
            "C": (
                ["topic1", "topic2", "topic3"],
                {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]},
            ),
        },
        {
            "A": {"topic1": [0, 1, 2, 5]},
            "B": {"topic1": [3], "topic2": [0, 1, 2, 3]},
            "C": {"topic1": [4], "topic3": [0, 1, 2, 3]},
        },
        id="unbalanced-previous-assignment",
    ),
    pytest.param(
        {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
        {
            "A": (["topic1", "topic3"], {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}),
            "B": (
                ["topic1", "topic2", "topic3", "topic4"],
                {"topic2": [0, 1, 2], "topic4": [0, 1, 2]},
            ),
        },
        {
            "A": {"topic1": [0, 1, 2, 3, 4, 5], "topic3": [0, 1, 2]},
            "B": {"topic2": [0, 1, 2, 3, 4], "topic4": [0, 1, 2]},
        },
        id="partitions-added",
    ),
    pytest.param(
        {"topic1": 6, "topic2": 7},
        {
            "A": (["topic1"], {"topic1": [0, 2], "topic2": [0]}),
            "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}),
            "C": (["topic1", "topic2"], {}),
        },
        {
            "A": {"topic1": [0, 2, 3, 4, 5]},
            "B": {"topic1": [1], "topic2": [1, 2, 6]},
            "C": {"topic2": [0, 3, 4, 5]},
        },
        id="member-and-partitions-added",
    ),
]


@pytest.mark.parametrize(("topics", "members", "expected"), HETEROGENEOUS)
def test_kafka_uniform_heterogeneous(topics, members, expected) -> None:
    got = assign_uniform(group(topics, members))
    assert sorted_assignment(got) == {m: tps(spec) for m, spec in expected.items()}


def test_uniform_no_subscriptions_gives_empty_assignment() -> None:
    g = group({"topic1": 3}, {"A": ([], {}), "B": ([], {})})
    assert assign_uniform(g) == {}


def test_uniform_homogeneous_keeps_owned_up_to_quota() -> None:
    # 2 members, 6 partitions: quota 3 each; B owns everything and keeps the first 3 of its
    # HashSet order (0, 1, 2 for small ints), A receives the rest.
    g = group({"t": 6}, {"A": (["t"], {}), "B": (["t"], {"t": [0, 1, 2, 3, 4, 5]})})
    assert sorted_assignment(assign_uniform(g)) == {
        "A": tps({"t": [3, 4, 5]}),
        "B": tps({"t": [0, 1, 2]}),
    }


def test_server_range_homogeneous_co_partitioned() -> None:
    # Kafka's javadoc: M0, M1 on T1, T2 with 3 partitions each
    g = group({"T1": 3, "T2": 3}, {"M0": (["T1", "T2"], {}), "M1": (["T1", "T2"], {})})
    assert sorted_assignment(assign_server_range(g)) == {
        "M0": tps({"T1": [0, 1], "T2": [0, 1]}),
        "M1": tps({"T1": [2], "T2": [2]}),
    }


def test_server_range_heterogeneous() -> None:
    # worked by hand from the coordinator RangeAssignor rules (sorted members, per-topic ranges)
    g = group(
        {"topic1": 3, "topic2": 3, "topic3": 2},
        {
            "A": (["topic1", "topic2"], {}),
            "B": (["topic3"], {}),
            "C": (["topic2", "topic3"], {}),
        },
    )
    assert sorted_assignment(assign_server_range(g)) == {
        "A": tps({"topic1": [0, 1, 2], "topic2": [0, 1]}),
        "B": tps({"topic3": [0]}),
        "C": tps({"topic2": [2], "topic3": [1]}),
    }
