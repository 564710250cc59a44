"""Kafka's `AbstractStickyAssignorTest` / `StickyAssignorTest` scenarios, as golden tests.

Inputs and expected assignments come from Kafka's clients tests
(internals/AbstractStickyAssignorTest.java, run there for both `StickyAssignor` and
`CooperativeStickyAssignor`). Members are put into `new HashMap<>()` as in those tests (or
`new HashMap<>(n)` for the rack cases), so the Java iteration order — which decides who keeps
`maxQuota` partitions — is the one Kafka's tests ran with. Cases needing the test-only
`preferRackAwareLogic` switch are left out.
"""

from __future__ import annotations

import pytest
from kafka_helpers import null_racks, rack_group, rack_mismatches, racks, to_sorted_strings

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta, sorted_assignment
from kgroup.assign.sticky import assign_cooperative_sticky, assign_sticky, cooperative_result

BOTH = [assign_sticky, assign_cooperative_sticky]


def tps(*items: str) -> list[tuple[str, int]]:
    out = []
    for item in items:
        t, _, p = item.rpartition("-")
        out.append((t, int(p)))
    return sorted(out)


def group(topics: dict[str, int], members: list[tuple], generation: int = 1) -> GroupInput:
    built = []
    for entry in members:
        member_id, subscribed = entry[0], entry[1]
        owned = tuple(tps(*entry[2])) if len(entry) > 2 else ()
        built.append(MemberMeta(member_id, tuple(subscribed), owned=owned, generation=generation))
    return GroupInput({t: TopicMeta(t, n) for t, n in topics.items()}, built)


@pytest.mark.parametrize("assign", BOTH)
def test_one_consumer_multiple_topics(assign) -> None:
    g = group({"topic1": 1, "topic2": 2}, [("consumer", ["topic1", "topic2"])])
    assert sorted(assign(g)["consumer"]) == tps("topic1-0", "topic2-0", "topic2-1")


@pytest.mark.parametrize("assign", BOTH)
def test_only_assigns_partitions_from_subscribed_topics(assign) -> None:
    g = group(
        {"topic": 2},
        [("consumer", ["topic"], ["topic-0", "topic-1", "other-0", "other-1"])],
    )
    assert sorted(assign(g)["consumer"]) == tps("topic-0", "topic-1")


@pytest.mark.parametrize("assign", BOTH)
def test_two_consumers_two_topics_six_partitions(assign) -> None:
    both = ["topic1", "topic2"]
    g = group({"topic1": 3, "topic2": 3}, [("consumer1", both), ("consumer2", both)])
    assert sorted_assignment(assign(g)) == {
        "consumer1": tps("topic1-0", "topic1-2", "topic2-1"),
        "consumer2": tps("topic1-1", "topic2-0", "topic2-2"),
    }


@pytest.mark.parametrize("assign", BOTH)
def test_multiple_consumers_mixed_topic_subscriptions(assign) -> None:
    g = group(
        {"topic1": 3, "topic2": 2},
        [("consumer1", ["topic1"]), ("consumer2", ["topic1", "topic2"]), ("consumer3", ["topic1"])],
    )
    assert sorted_assignment(assign(g)) == {
        "consumer1": tps("topic1-0", "topic1-2"),
        "consumer2": tps("topic2-0", "topic2-1"),
        "consumer3": tps("topic1-1"),
    }


@pytest.mark.parametrize("assign", BOTH)
def test_consumer_owning_min_quota_expected_max_quota(assign) -> None:
    both = ["topic1", "topic2"]
    g = group(
        {"topic1": 2, "topic2": 3},
        [
            ("consumer1", both, ["topic1-0", "topic2-1"]),
            ("consumer2", both, ["topic1-1", "topic2-2"]),
        ],
    )
    assert sorted_assignment(assign(g)) == {
        "consumer1": tps("topic1-0", "topic2-0", "topic2-1"),
        "consumer2": tps("topic1-1", "topic2-2"),
    }


def test_max_quota_consumer_more_than_expected_max_capacity_members() -> None:
    both = ["topic1", "topic2"]
    g = group(
        {"topic1": 2, "topic2": 2},
        [
            ("consumer1", both, ["topic1-0", "topic2-0"]),
            ("consumer2", both, ["topic1-1", "topic2-1"]),
            ("consumer3", both, []),
        ],
    )
    expected = {
        "consumer1": tps("topic1-0"),
        "consumer2": tps("topic1-1", "topic2-1"),
        "consumer3": tps("topic2-0"),
    }
    assert sorted_assignment(assign_sticky(g)) == expected
    # cooperative: topic2-0 must first be revoked from consumer1
    assignment, transferring = cooperative_result(g)
    assert transferring == {("topic2", 0): "consumer3"}
    assert sorted_assignment(assignment) == {**expected, "consumer3": []}


@pytest.mark.parametrize("assign", BOTH)
def test_all_consumers_are_under_min_quota(assign) -> None:
    both = ["topic1", "topic2"]
    g = group(
        {"topic1": 2, "topic2": 3},
        [
            ("consumer1", both, ["topic1-0"]),
            ("consumer2", both, ["topic1-1"]),
            ("consumer3", both, []),
        ],
    )
    assert sorted_assignment(assign(g)) == {
        "consumer1": tps("topic1-0", "topic2-1"),
        "consumer2": tps("topic1-1", "topic2-2"),
        "consumer3": tps("topic2-0"),
    }


def test_add_consumer_one_topic_transfers_one_partition() -> None:
    g = group({"topic": 3}, [("consumer1", ["topic"])])
    first = assign_cooperative_sticky(g)
    assert sorted(first["consumer1"]) == tps("topic-0", "topic-1", "topic-2")
    g2 = group(
        {"topic": 3},
        [("consumer1", ["topic"], ["topic-0", "topic-1", "topic-2"]), ("consumer2", ["topic"], [])],
    )
    _assignment, transferring = cooperative_result(g2)
    assert transferring == {("topic", 2): "consumer2"}


def test_javadoc_example_two_sticky_vs_leave() -> None:
    g = group(
        {"t0": 1, "t1": 2, "t2": 3},
        [("C0", ["t0"]), ("C1", ["t0", "t1"]), ("C2", ["t0", "t1", "t2"])],
    )
    first = assign_sticky(g)
    assert sorted_assignment(first) == {
        "C0": tps("t0-0"),
        "C1": tps("t1-0", "t1-1"),
        "C2": tps("t2-0", "t2-1", "t2-2"),
    }
    g2 = group(
        {"t0": 1, "t1": 2, "t2": 3},
        [
            ("C1", ["t0", "t1"], ["t1-0", "t1-1"]),
            ("C2", ["t0", "t1", "t2"], ["t2-0", "t2-1", "t2-2"]),
        ],
    )
    assert sorted_assignment(assign_sticky(g2)) == {
        "C1": tps("t0-0", "t1-0", "t1-1"),
        "C2": tps("t2-0", "t2-1", "t2-2"),
    }


ALL3 = ["t1", "t2", "t3"]
T = {"t1": 6, "t2": 7, "t3": 2}
UNIFORM = [
    "t1-0, t1-3, t2-0, t2-3, t2-6",
    "t1-1, t1-4, t2-1, t2-4, t3-0",
    "t1-2, t1-5, t2-2, t2-5, t3-1",
]
NON_EQUAL = [
    "t1-5, t2-0, t2-2, t2-4, t2-6",
    "t1-3, t2-1, t2-3, t2-5, t3-0",
    "t1-0, t1-1, t1-2, t1-4, t3-1",
]
NON_EQUAL_RF1 = [
    "t1-3, t2-0, t2-2, t2-3, t2-6",
    "t1-4, t2-1, t2-4, t2-5, t3-0",
    "t1-0, t1-1, t1-2, t1-5, t3-1",
]
NON_EQUAL_RF2 = [
    "t1-3, t2-0, t2-2, t2-5, t2-6",
    "t1-0, t2-1, t2-3, t2-4, t3-0",
    "t1-1, t1-2, t1-4, t1-5, t3-1",
]
MISALIGNED = [
    "t1-0, t1-1, t1-2, t1-3, t1-4",
    "t1-5, t2-0, t2-1, t2-2, t2-3",
    "t2-4, t2-5, t2-6, t3-0, t3-1",
]
SUBS_EQ = [ALL3] * 3
SUBS_NE = [ALL3, ALL3, ["t1", "t3"]]

# (rf, broker racks, consumer racks, consumer topics, expected, mismatches)
RACK_CASES = [
    pytest.param(3, null_racks(3), racks(3), SUBS_EQ, UNIFORM, -1, id="eq-no-broker-racks"),
    pytest.param(3, racks(3), null_racks(3), SUBS_EQ, UNIFORM, -1, id="eq-no-consumer-racks"),
    pytest.param(3, racks(3), racks(3), SUBS_EQ, UNIFORM, 0, id="eq-all-racks-match"),
    pytest.param(3, racks(3), ["d", "e", "f"], SUBS_EQ, UNIFORM, -1, id="eq-disjoint"),
    pytest.param(3, racks(3), [None, "e", "f"], SUBS_EQ, UNIFORM, -1, id="eq-some-none"),
    pytest.param(1, racks(3), racks(3), SUBS_EQ, UNIFORM, 0, id="eq-rf1"),
    pytest.param(2, racks(3), racks(3), SUBS_EQ, UNIFORM, 0, id="eq-rf2"),
    pytest.param(3, racks(2), racks(3), SUBS_EQ, UNIFORM, 5, id="eq-rack-without-partitions"),
    pytest.param(3, null_racks(3), racks(3), SUBS_NE, NON_EQUAL, -1, id="ne-no-broker-racks"),
    pytest.param(3, racks(3), null_racks(3), SUBS_NE, NON_EQUAL, -1, id="ne-no-consumer-racks"),
    pytest.param(3, racks(3), racks(3), SUBS_NE, NON_EQUAL, 0, id="ne-all-racks-match"),
    pytest.param(3, racks(3), ["d", "e", "f"], SUBS_NE, NON_EQUAL, -1, id="ne-disjoint"),
    pytest.param(3, racks(3), [None, "e", "f"], SUBS_NE, NON_EQUAL, -1, id="ne-some-none"),
    pytest.param(1, racks(3), racks(3), SUBS_NE, NON_EQUAL_RF1, 4, id="ne-rf1"),
    pytest.param(2, racks(3), racks(3), SUBS_NE, NON_EQUAL_RF2, 0, id="ne-rf2"),
    pytest.param(3, racks(2), racks(3), SUBS_NE, NON_EQUAL, 5, id="ne-rack-without-partitions"),
]


@pytest.mark.parametrize("assign", BOTH, ids=["sticky", "cooperative"])
@pytest.mark.parametrize("owned_is_expected", [False, True], ids=["fresh", "owned"])
@pytest.mark.parametrize(("rf", "brokers", "consumers", "subs", "expected", "mismatch"), RACK_CASES)
def test_kafka_rack_aware_sticky(
    assign, owned_is_expected, rf, brokers, consumers, subs, expected, mismatch
) -> None:
    # Kafka's verifyUniformSubscription / verifyNonEqualSubscription: once fresh, once with the
    # expected assignment as ownedPartitions (which the eager StickyAssignor ignores).
    owned = expected if owned_is_expected and assign is assign_cooperative_sticky else ()
    g = rack_group(T, rf, brokers, consumers, subs, owned=owned)
    got = assign(g)
    assert to_sorted_strings(got, 3) == expected
    if mismatch >= 0:
        assert rack_mismatches(g, got) == mismatch


@pytest.mark.parametrize("assign", BOTH, ids=["sticky", "cooperative"])
def test_kafka_rack_awareness_improved_for_misaligned_owned_uniform(assign) -> None:
    # Since KAFKA-15170 an owned partition on a mismatched rack that goes to another member is
    # transferring ownership, so CooperativeStickyAssignor first returns the intermediate
    # assignment (Kafka's testRackAwareAssignmentWithUniformSubscription, cooperative branch).
    owned = MISALIGNED if assign is assign_cooperative_sticky else ()
    g = rack_group(T, 1, racks(3), racks(3), SUBS_EQ, owned=owned)
    got = assign(g)
    if assign is assign_cooperative_sticky:
        assert to_sorted_strings(got, 3) == ["t1-0, t1-3", "t2-1", "t2-5, t3-1"]
    else:
        assert to_sorted_strings(got, 3) == UNIFORM
    assert rack_mismatches(g, got) == 0


def test_kafka_rack_awareness_misaligned_owned_non_equal_cooperative_two_phases() -> None:
    g = rack_group(T, 1, racks(3), racks(3), SUBS_NE, owned=MISALIGNED)
    intermediate = ["t1-3", "t2-1", "t3-1"]
    got = assign_cooperative_sticky(g)
    assert to_sorted_strings(got, 3) == intermediate
    g2 = rack_group(T, 1, racks(3), racks(3), SUBS_NE, owned=intermediate)
    got2 = assign_cooperative_sticky(g2)
    assert to_sorted_strings(got2, 3) == NON_EQUAL_RF1
    assert rack_mismatches(g2, got2) == 4


def test_kafka_all_racks_match_non_equal_cooperative_two_phases() -> None:
    g = rack_group(T, 3, racks(3), racks(3), SUBS_NE, owned=MISALIGNED)
    intermediate = ["t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"]
    assert to_sorted_strings(assign_cooperative_sticky(g), 3) == intermediate
    g2 = rack_group(T, 3, racks(3), racks(3), SUBS_NE, owned=intermediate)
    assert to_sorted_strings(assign_cooperative_sticky(g2), 3) == [
        "t1-2, t1-3, t1-4, t2-4, t2-5",
        "t2-0, t2-1, t2-2, t2-3, t2-6",
        "t1-0, t1-1, t1-5, t3-0, t3-1",
    ]
