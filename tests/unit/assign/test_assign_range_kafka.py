"""Kafka's client `RangeAssignorTest` scenarios, as golden tests.

Inputs and expected assignments are taken from Kafka's
clients/src/test/java/org/apache/kafka/clients/consumer/RangeAssignorTest.java; cases that
need Kafka's test-only `preferRackAwareLogic` switch are left out.
"""

from __future__ import annotations

import pytest
from kafka_helpers import null_racks, rack_group, rack_mismatches, racks, to_sorted_strings

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta, sorted_assignment
from kgroup.assign.range import assign_range


def group(topics: dict[str, int], members: list[tuple[str, list[str], str | None]]) -> GroupInput:
    return GroupInput(
        {t: TopicMeta(t, n) for t, n in topics.items()},
        [MemberMeta(m, tuple(ts), instance_id=i) for m, ts, i in members],
    )


def tps(*items: str) -> list[tuple[str, int]]:
    out = []
    for item in items:
        t, _, p = item.rpartition("-")
        out.append((t, int(p)))
    return sorted(out)


def test_one_consumer_no_topic() -> None:
    assert assign_range(group({}, [("consumer1", [], None)])) == {"consumer1": []}


def test_one_consumer_nonexistent_topic() -> None:
    assert assign_range(group({}, [("consumer1", ["topic1"], None)])) == {"consumer1": []}


def test_only_assigns_partitions_from_subscribed_topics() -> None:
    got = assign_range(group({"topic1": 3, "other": 3}, [("consumer1", ["topic1"], None)]))
    assert sorted(got["consumer1"]) == tps("topic1-0", "topic1-1", "topic1-2")


def test_multiple_consumers_mixed_topics() -> None:
    g = group(
        {"topic1": 3, "topic2": 2},
        [
            ("consumer1", ["topic1"], None),
            ("consumer2", ["topic1", "topic2"], None),
            ("consumer3", ["topic1"], None),
        ],
    )
    assert sorted_assignment(assign_range(g)) == {
        "consumer1": tps("topic1-0"),
        "consumer2": tps("topic1-1", "topic2-0", "topic2-1"),
        "consumer3": tps("topic1-2"),
    }


def test_two_consumers_two_topics_six_partitions_textbook() -> None:
    g = group(
        {"topic1": 3, "topic2": 3},
        [("consumer1", ["topic1", "topic2"], None), ("consumer2", ["topic1", "topic2"], None)],
    )
    assert sorted_assignment(assign_range(g)) == {
        "consumer1": tps("topic1-0", "topic1-1", "topic2-0", "topic2-1"),
        "consumer2": tps("topic1-2", "topic2-2"),
    }


def test_static_members_sort_by_instance_id() -> None:
    both = ["topic1", "topic2"]
    g = group(
        {"topic1": 3, "topic2": 3},
        [("consumer-b", both, "instance1"), ("consumer-a", both, "instance2")],
    )
    got = sorted_assignment(assign_range(g))
    assert got["consumer-b"] == tps("topic1-0", "topic1-1", "topic2-0", "topic2-1")
    assert got["consumer-a"] == tps("topic1-2", "topic2-2")


def test_static_member_before_dynamic_member() -> None:
    both = ["topic1", "topic2"]
    g = group(
        {"topic1": 3, "topic2": 3}, [("consumer-b", both, "instance1"), ("consumer-a", both, None)]
    )
    got = sorted_assignment(assign_range(g))
    assert got["consumer-b"] == tps("topic1-0", "topic1-1", "topic2-0", "topic2-1")


def test_static_member_range_assignment_persistent() -> None:
    both = ["topic1", "topic2"]
    members = [
        ("consumer1", both, "instance1"),
        ("consumer2", both, "instance2"),
        ("consumer3", both, "instance3"),
        ("consumer4", both, None),
    ]
    expected = {
        "consumer1": tps("topic1-0", "topic1-1", "topic2-0"),
        "consumer2": tps("topic1-2", "topic2-1"),
        "consumer3": tps("topic1-3", "topic2-2"),
        "consumer4": tps("topic1-4", "topic2-3"),
    }
    assert sorted_assignment(assign_range(group({"topic1": 5, "topic2": 4}, members))) == expected
    members[3] = ("consumer5", both, None)
    expected["consumer5"] = expected.pop("consumer4")
    assert sorted_assignment(assign_range(group({"topic1": 5, "topic2": 4}, members))) == expected


ALL3 = ["t1", "t2", "t3"]
# (topics, replication factor, broker racks, consumer racks, consumer topics, expected, mismatches)
RACK_CASES = [
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        3,
        null_racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        -1,
        id="uniform-no-broker-racks",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        3,
        racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        0,
        id="uniform-all-racks-have-all",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        3,
        racks(3),
        ["d", "e", "f"],
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        -1,
        id="uniform-disjoint-racks",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        1,
        racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-3, t2-0, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t3-0",
            "t1-2, t1-5, t2-2, t2-5, t3-1",
        ],
        0,
        id="uniform-rf1",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        2,
        racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-2, t2-0, t2-2, t2-3, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t3-0",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        1,
        id="uniform-rf2",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        3,
        racks(2),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        4,
        id="uniform-consumer-rack-without-partitions",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        1,
        racks(3),
        racks(3),
        [ALL3, ALL3, ["t1", "t3"]],
        [
            "t1-0, t1-3, t2-0, t2-2, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0",
            "t1-2, t1-5, t3-1",
        ],
        2,
        id="non-equal-rf1",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        2,
        racks(3),
        racks(3),
        [ALL3, ALL3, ["t1", "t3"]],
        [
            "t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0",
            "t1-4, t1-5",
        ],
        0,
        id="non-equal-rf2",
    ),
    pytest.param(
        {"t1": 6, "t2": 7, "t3": 2},
        3,
        racks(2),
        racks(3),
        [ALL3, ALL3, ["t1", "t3"]],
        [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0",
            "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1",
            "t1-4, t1-5",
        ],
        2,
        id="non-equal-consumer-rack-without-partitions",
    ),
    pytest.param(
        {"t1": 5, "t2": 5, "t3": 5},
        1,
        racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t2-4, t3-4",
        ],
        10,
        id="co-partitioning-beats-racks-rf1",
    ),
    pytest.param(
        {"t1": 5, "t2": 5, "t3": 5},
        2,
        racks(3),
        racks(3),
        [ALL3] * 3,
        [
            "t1-0, t1-1, t2-0, t2-1, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t2-4, t3-4",
        ],
        5,
        id="co-partitioning-beats-racks-rf2",
    ),
    pytest.param(
        {"t1": 5, "t2": 5, "t3": 5},
        1,
        racks(3),
        racks(3),
        [ALL3, ALL3, ["t1", "t3"]],
        [
            "t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t3-4",
        ],
        9,
        id="co-partitioned-non-equal-rf1",
    ),
    pytest.param(
        {"t1": 5, "t2": 5, "t3": 5},
        2,
        racks(3),
        racks(3),
        [ALL3, ALL3, ["t1", "t3"]],
        [
            "t1-2, t2-0, t2-1, t2-3, t3-2",
            "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3",
            "t1-1, t1-4, t3-1, t3-4",
        ],
        0,
        id="co-partitioned-non-equal-rf2",
    ),
    pytest.param(
        {"t1": 6, "t2": 6, "t3": 2, "t4": 2},
        1,
        racks(2),
        ["a", "b", "b", "a"],
        [["t1", "t2"], ["t1", "t2"], ["t3", "t4"], ["t3", "t4"]],
        [
            "t1-0, t1-2, t1-4, t2-0, t2-2, t2-4",
            "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5",
            "t3-1, t4-1",
            "t3-0, t4-0",
        ],
        0,
        id="co-partitioning-two-groups",
    ),
    pytest.param(
        {"t1": 6, "t2": 6, "t3": 2, "t4": 2},
        1,
        racks(2),
        ["a", "b", "b", "a"],
        [["t1", "t2", "t3", "t4"]] * 4,
        [
            "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0",
            "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1",
            "t1-5, t2-5",
            "t1-4, t2-4",
        ],
        0,
        id="co-partitioning-all-topics-rf1",
    ),
    pytest.param(
        {"t1": 6, "t2": 6, "t3": 2, "t4": 2},
        1,
        racks(3),
        ["a", "b", "b", "a"],
        [["t1", "t2", "t3", "t4"]] * 4,
        [
            "t1-0, t1-3, t2-0, t2-3, t3-0, t4-0",
            "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1",
            "t1-2, t2-2",
            "t1-5, t2-5",
        ],
        6,
        id="co-partitioning-all-topics-three-racks",
    ),
]


@pytest.mark.parametrize(
    ("topics", "rf", "broker_racks", "consumer_racks", "consumer_topics", "expected", "mismatch"),
    RACK_CASES,
)
def test_kafka_rack_aware_range(
    topics, rf, broker_racks, consumer_racks, consumer_topics, expected, mismatch
) -> None:
    g = rack_group(topics, rf, broker_racks, consumer_racks, consumer_topics)
    got = assign_range(g)
    assert to_sorted_strings(got, len(consumer_racks)) == expected
    if mismatch >= 0:
        assert rack_mismatches(g, got) == mismatch
