"""`--from-group`: consumer-protocol bytes written by hand, and a live group turned into a scenario.

Byte vectors are laid out field by field from apache/kafka
clients/src/main/resources/common/message/ConsumerProtocolSubscription.json and
ConsumerProtocolAssignment.json, and from the StickyAssignor userData schemas (V1:
previous_assignment [topic, partitions], generation; V0: previous_assignment only).
"""

from __future__ import annotations

import pytest

from kgroup.assign.consumer_protocol import (
    MalformedData,
    decode_assignment,
    decode_cooperative_user_data,
    decode_sticky_user_data,
    decode_subscription,
    generation,
    member_claim,
    rack,
)
from kgroup.assign.from_group import scenario_from_group
from kgroup.assign.simulate import simulate
from kgroup.core.errors import CorruptInputError, KafkaOperationError, NotFoundError
from kgroup.core.models import (
    GroupDescription,
    GroupSnapshot,
    MemberDescription,
    TopicMetadata,
    TopicPartition,
)
from kgroup.core.wire.member_protocol import pairs


def h(*parts: str) -> bytes:
    """Hex pieces (spaces allowed) to bytes."""
    return bytes.fromhex("".join(parts).replace(" ", ""))


def s16(text: str) -> str:
    """A classic string: int16 length then UTF-8, as hex."""
    raw = text.encode()
    return f"{len(raw):04x}" + raw.hex()


# --- ConsumerProtocolSubscription -----------------------------------------------------------

SUB_V0 = h(
    "0000",  # Version 0
    "00000001",
    s16("orders"),  # Topics ["orders"]
    "ffffffff",  # UserData null
)

SUB_V1 = h(
    "0001",  # Version 1
    "00000002",
    s16("a"),
    s16("b"),  # Topics ["a", "b"]
    "ffffffff",  # UserData null
    "00000001",  # OwnedPartitions (1+): one topic
    s16("a"),
    "00000002",
    "00000000",
    "00000001",  # a: [0, 1]
)

SUB_V2 = h(
    "0002",  # Version 2
    "00000001",
    s16("t"),  # Topics ["t"]
    "00000000",  # UserData: empty (not null)
    "00000001",
    s16("t"),
    "00000001",
    "00000002",  # OwnedPartitions t: [2]
    "00000007",  # GenerationId (2+) = 7
)

SUB_V3 = h(
    "0003",  # Version 3
    "00000001",
    s16("t"),  # Topics ["t"]
    "ffffffff",  # UserData null
    "00000000",  # OwnedPartitions: none
    "ffffffff",  # GenerationId -1: a new member
    s16("r1"),  # RackId (3+) "r1"
)


def test_subscription_v0_topics_only() -> None:
    sub = decode_subscription(SUB_V0)
    assert (sub.version, sub.message.topics, sub.message.user_data) == (0, ("orders",), None)
    assert (member_claim("range", sub), rack(sub)) == (((), None), None)


def test_subscription_v1_owned_partitions() -> None:
    sub = decode_subscription(SUB_V1)
    assert sub.message.topics == ("a", "b")
    assert member_claim("range", sub) == ((("a", 0), ("a", 1)), None)


def test_subscription_v2_generation_and_empty_user_data() -> None:
    sub = decode_subscription(SUB_V2)
    assert sub.message.user_data == b""
    assert member_claim("range", sub) == ((("t", 2),), 7)


def test_subscription_v3_rack_and_negative_generation() -> None:
    sub = decode_subscription(SUB_V3)
    assert rack(sub) == "r1"
    assert generation(sub) is None  # Subscription(): a negative generation is none
    empty_rack = SUB_V3[: -len(h(s16("r1")))] + h(s16(""))
    assert rack(decode_subscription(empty_rack)) is None  # ConsumerProtocol: "" is no rack


def test_newer_subscription_version_reads_the_v3_prefix() -> None:
    v5 = h("0005") + SUB_V3[2:] + h("cafe")  # fields a newer client appends are ignored
    sub = decode_subscription(v5)
    assert (sub.version, sub.message.topics, rack(sub)) == (5, ("t",), "r1")


@pytest.mark.parametrize(
    ("data", "position", "field"),
    [
        (SUB_V0[:-2], 14, "UserData"),  # 2 + 4 + 2 + 6 bytes in, truncated
        (h("ffff"), 0, "Version"),  # negative version
        (h("0000", "00000009", s16("t")), 2, "Topics"),  # 9 topics announced, 3 bytes left
    ],
)
def test_malformed_subscription_names_field_and_byte(data: bytes, position: int, field) -> None:
    with pytest.raises(MalformedData) as info:
        decode_subscription(data)
    assert (info.value.position, info.value.field_name) == (position, field)


def test_assignment_v0() -> None:
    data = h(
        "0000",  # Version
        "00000001",
        s16("t"),
        "00000002",
        "00000003",
        "00000000",  # AssignedPartitions t: [3, 0] (order kept)
        "ffffffff",  # UserData null
    )
    assigned = decode_assignment(data).message
    assert pairs(assigned.assigned_partitions) == (("t", 3), ("t", 0))
    assert assigned.user_data is None


# --- sticky and cooperative-sticky userData ------------------------------------------------

STICKY_V1 = h(
    "00000002",  # previous_assignment: two topics
    s16("t"),
    "00000002",
    "00000000",
    "00000002",  # t: [0, 2]
    s16("u"),
    "00000001",
    "00000001",  # u: [1]
    "00000005",  # generation 5
)
STICKY_V0 = STICKY_V1[:-4]


def test_sticky_user_data_v1_previous_assignment_and_generation() -> None:
    assert decode_sticky_user_data(STICKY_V1) == ((("t", 0), ("t", 2), ("u", 1)), 5)


def test_sticky_user_data_v0_has_no_generation() -> None:
    assert decode_sticky_user_data(STICKY_V0) == ((("t", 0), ("t", 2), ("u", 1)), None)


def test_sticky_user_data_absent_or_unreadable() -> None:
    assert decode_sticky_user_data(None) == ((), None)
    assert decode_sticky_user_data(b"") == ((), None)
    # Neither schema parses: Java ignores the claim and uses DEFAULT_GENERATION.
    assert decode_sticky_user_data(h("00000001", "0005", "61")) == ((), -1)


def test_cooperative_user_data_generation() -> None:
    assert decode_cooperative_user_data(h("00000004")) == 4
    assert decode_cooperative_user_data(None) is None
    assert decode_cooperative_user_data(h("01")) == -1


# --- snapshot -> scenario --------------------------------------------------------------------


def sub_v2(topics: list[str], owned: list[int], generation: int, user_data: str = "ffffffff"):
    """A v2 subscription to `topics` owning partitions of topics[0]."""
    return h(
        "0002",
        f"{len(topics):08x}",
        *[s16(t) for t in topics],
        user_data,
        "00000001" if owned else "00000000",
        *([s16(topics[0]), f"{len(owned):08x}", *[f"{p:08x}" for p in owned]] if owned else []),
        f"{generation & 0xFFFFFFFF:08x}",
    )


def assignment(topic: str, partitions: list[int]) -> bytes:
    return h(
        "0000",
        "00000001",
        s16(topic),
        f"{len(partitions):08x}",
        *[f"{p:08x}" for p in partitions],
        "ffffffff",
    )


TOPIC_T = TopicMetadata(
    "t",
    4,
    topic_id="T1-A4s3VTwiI5CTbEp6POw",
    replica_racks=(("r1", "r2"), ("r2",), ("r1",), ("r2", "r3")),
)


def classic(members, protocol="cooperative-sticky", state="Stable", via="DescribeGroups"):
    group = GroupDescription("g", state, "classic", "consumer", protocol, members=tuple(members))
    return GroupSnapshot(group, {"t": TOPIC_T}, via)


def test_stable_group_owned_is_the_current_assignment_at_one_generation() -> None:
    snapshot = classic(
        [
            MemberDescription(
                "c1",
                group_instance_id="pod-1",
                raw_metadata=sub_v2(["t"], [0, 1], 3),
                raw_assignment=assignment("t", [0, 1, 2]),
            ),
            MemberDescription("c2", raw_metadata=SUB_V3, raw_assignment=assignment("t", [3])),
        ]
    )
    built = scenario_from_group(snapshot)
    assert built.protocol == "cooperative-sticky" and built.strategy == "cooperative-sticky"
    c1, c2 = built.scenario.members
    assert (c1.member_id, c1.topics, c1.instance_id, c1.rack) == ("c1", ("t",), "pod-1", None)
    assert c1.owned == (("t", 0), ("t", 1), ("t", 2))  # now, not the v2 ownedPartitions [0, 1]
    assert (c2.owned, c2.rack) == ((("t", 3),), "r1")
    # c1 sent generation 3 at the last join; that rebalance made generation 4 for both
    assert (c1.generation, c2.generation) == (4, 4)
    meta = built.scenario.topics["t"]
    assert meta.partitions == 4 and meta.topic_id == "T1-A4s3VTwiI5CTbEp6POw"
    assert meta.racks == (
        frozenset({"r1", "r2"}),
        frozenset({"r2"}),
        frozenset({"r1"}),
        frozenset({"r2", "r3"}),
    )
    assert built.notes == []


def test_member_without_assignment_keeps_its_sticky_user_data_claim() -> None:
    old_sticky = h("0000", "00000001", s16("t"), f"{len(STICKY_V1):08x}") + STICKY_V1
    topics = {"t": TOPIC_T, "u": TopicMetadata("u", 2)}
    group = GroupDescription(
        "g",
        "Stable",
        "classic",
        "consumer",
        "sticky",
        members=(MemberDescription("c1", raw_metadata=old_sticky),),
    )
    built = scenario_from_group(GroupSnapshot(group, topics))
    (c1,) = built.scenario.members
    assert c1.owned == (("t", 0), ("t", 2), ("u", 1))
    assert c1.generation == 5
    assert any("no current assignment" in n for n in built.notes)


def test_range_group_resimulated_moves_nothing() -> None:
    # Range on c1, c2 over t:4 gives c1 t:0-1, c2 t:2-3 (RangeAssignor: 4 / 2 each, in id
    # order); a group that holds exactly that keeps everything on the next rebalance.
    snapshot = classic(
        [
            MemberDescription(
                "c1", raw_metadata=sub_v2(["t"], [], 1), raw_assignment=assignment("t", [0, 1])
            ),
            MemberDescription(
                "c2", raw_metadata=sub_v2(["t"], [], 1), raw_assignment=assignment("t", [2, 3])
            ),
        ],
        protocol="range",
    )
    built = scenario_from_group(snapshot)
    assert built.strategy == "range"
    step = simulate(built.scenario, "range").steps[0]
    assert step.assignment == {"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}
    assert (step.metrics["moved"], step.metrics["kept"]) == (0, 4)


def test_no_metadata_from_the_broker_is_a_clear_failure() -> None:
    snapshot = classic([MemberDescription("m-1"), MemberDescription("m-2")], protocol=None)
    with pytest.raises(KafkaOperationError) as info:
        scenario_from_group(snapshot)
    assert info.value.exit_code == 1
    assert "returned no subscription data" in info.value.message
    assert "m-1, m-2" in info.value.message
    assert "--scenario" in (info.value.hint or "")


def test_rebalancing_group_says_why_there_is_no_metadata() -> None:
    snapshot = classic([MemberDescription("m-1")], protocol=None, state="PreparingRebalance")
    with pytest.raises(KafkaOperationError) as info:
        scenario_from_group(snapshot)
    assert "only for a Stable group" in info.value.message


def test_librdkafka_describe_says_so() -> None:
    snapshot = classic([MemberDescription("m-1")], via="librdkafka")
    with pytest.raises(KafkaOperationError) as info:
        scenario_from_group(snapshot)
    assert "through librdkafka" in info.value.message


def test_group_without_members_exits_3_with_a_hint() -> None:
    with pytest.raises(NotFoundError) as info:
        scenario_from_group(classic([], state="Empty"))
    assert info.value.exit_code == 3
    assert "nothing to simulate" in info.value.message
    assert "--members" in (info.value.hint or "")


def test_malformed_metadata_is_corrupt_input_naming_the_member() -> None:
    snapshot = classic([MemberDescription("c1", raw_metadata=SUB_V0[:-2])])
    with pytest.raises(CorruptInputError) as info:
        scenario_from_group(snapshot)
    assert info.value.exit_code == 7
    assert info.value.source == "member c1 subscription metadata"
    assert info.value.position == 14  # version 2, count 4, "orders" 2 + 6


def test_missing_topics_and_partitions_are_left_out_with_notes() -> None:
    metadata = h("0001", "00000002", s16("t"), s16("gone"), "ffffffff", "00000000")
    gone = h("0000", "00000001", s16("gone"), "00000001", "00000000", "ffffffff")
    snapshot = classic(
        [MemberDescription("c1", raw_metadata=metadata, raw_assignment=gone)], protocol="custom"
    )
    built = scenario_from_group(snapshot)
    (c1,) = built.scenario.members
    assert c1.topics == ("t", "gone") and c1.owned == ()
    assert built.strategy is None
    text = " ".join(built.notes)
    assert "do not exist are left out" in text and "gone" in text
    assert "gone-0" in text
    assert "'custom'" in text


def test_kip848_group_owned_is_the_target_assignment() -> None:
    tp = TopicPartition
    group = GroupDescription(
        "g848",
        "Stable",
        "consumer",
        "consumer",
        "range",
        members=(
            MemberDescription(
                "m1",
                assignment=(tp("t", 0), tp("t", 1)),
                target_assignment=(tp("t", 0),),
            ),
            MemberDescription("m2", group_instance_id="i2", assignment=(tp("t", 2),)),
        ),
    )
    built = scenario_from_group(GroupSnapshot(group, {"t": TOPIC_T}, "librdkafka"))
    assert built.strategy == "server-range"  # KIP-848's server-side "range"
    m1, m2 = built.scenario.members
    assert m1.owned == (("t", 0),) and m2.owned == (("t", 2),)
    assert m1.topics == m2.topics == ("t",)
    assert m2.instance_id == "i2"
    assert any("does not report" in n for n in built.notes)


def test_kip848_members_subscribe_to_their_names_and_regex_matches() -> None:
    tp = TopicPartition
    meta = {
        name: TopicMetadata(name, n) for name, n in (("t", 3), ("t-eu", 1), ("u", 2), ("xt", 1))
    }
    group = GroupDescription(
        "g848",
        "Stable",
        "consumer",
        "consumer",
        "uniform",
        members=(
            MemberDescription("m1", assignment=(tp("t", 0),), subscription=("u",), rack="r1"),
            MemberDescription(
                "m2", assignment=(tp("t", 1),), subscription=(), subscribed_topic_regex="t.*"
            ),
            MemberDescription("m3", subscription=("t",), subscribed_topic_regex="t("),
        ),
    )
    built = scenario_from_group(GroupSnapshot(group, meta, "ConsumerGroupDescribe"))
    m1, m2, m3 = built.scenario.members
    assert m1.topics == ("u",) and m1.rack == "r1"
    assert m2.topics == ("t", "t-eu")  # "xt" does not match as a whole name
    assert m3.topics == ("t",)
    assert any("'t('" in n and "does not compile" in n for n in built.notes)
    assert not any("does not report" in n for n in built.notes)
