"""ConsumerGroupDescribe v1 bytes by hand, against ConsumerGroupDescribe{Request,Response}.json.

v1 (KIP-1099) keeps the request as v0 and adds `Members.MemberType` (int8, versions 1+,
default -1: -1 unknown, 0 classic member, 1 consumer member) after `TargetAssignment`: a
KIP-848 group with classic members (a mixed group) says which member speaks which protocol.
"""

from __future__ import annotations

from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.group_calls import encode_consumer_group_describe_request
from kgroup.protocol import messages as api_table
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
from tests.unit.wire.test_wire_messages import cs, h


def test_consumer_group_describe_is_offered_in_v0_and_v1() -> None:
    assert api_table.CONSUMER_GROUP_DESCRIBE.versions == (0, 1)


def test_consumer_group_describe_v1_request_is_v0s() -> None:
    assert encode_consumer_group_describe_request(1, ["g"]) == h(
        "02",
        cs("g"),  # GroupIds: compact array of 1
        "00",  # IncludeAuthorizedOperations: false
        "00",  # tags
    )


def test_consumer_group_describe_v1_response_with_a_classic_and_a_consumer_member() -> None:
    empty = "01" + "00"  # Assignment: TopicPartitions empty, tags

    def member(member_id: str, member_type: str, regex: str) -> str:
        return "".join(
            (
                cs(member_id),  # MemberId
                "00",  # InstanceId: null
                "00",  # RackId: null
                "00000002",  # MemberEpoch 2
                cs("app"),  # ClientId
                cs("/10.0.0.7"),  # ClientHost
                "01",  # SubscribedTopicNames: []
                regex,  # SubscribedTopicRegex
                empty,  # Assignment
                empty,  # TargetAssignment
                member_type,  # MemberType (1+)
                "00",  # member tags
            )
        )

    body = h(
        "00000000",  # ThrottleTimeMs
        "02",  # Groups: 1
        "0000",  # ErrorCode
        "00",  # ErrorMessage: null
        cs("mixed"),  # GroupId
        cs("Stable"),  # GroupState
        "00000002",  # GroupEpoch
        "00000002",  # AssignmentEpoch
        cs("range"),  # AssignorName
        "03",  # Members: 2
        member("m-classic", "00", "00"),  # MemberType 0: classic, regex null
        member("m-new", "01", cs("orders.*")),  # MemberType 1: consumer, regex "orders.*"
        "80000000",  # AuthorizedOperations
        "00",  # group tags
        "00",  # top-level tags
    )
    (group,) = read_answer(cgd_res, body, 1).groups
    assert [(x.member_id, x.member_type) for x in group.members] == [
        ("m-classic", 0),
        ("m-new", 1),
    ]
    assert group.members[1].subscribed_topic_regex == "orders.*"


def test_consumer_group_describe_v0_member_type_is_unknown() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs
        "02",  # Groups: 1
        "0000",  # ErrorCode
        "00",  # ErrorMessage: null
        cs("g"),  # GroupId
        cs("Empty"),  # GroupState
        "00000001",  # GroupEpoch
        "00000001",  # AssignmentEpoch
        cs("uniform"),  # AssignorName
        "02",  # Members: 1
        cs("m"),  # MemberId
        "00",  # InstanceId: null
        "00",  # RackId: null
        "00000001",  # MemberEpoch
        cs("c"),  # ClientId
        cs("h"),  # ClientHost
        "01",  # SubscribedTopicNames: []
        "00",  # SubscribedTopicRegex: null
        "0100",  # Assignment: empty, tags
        "0100",  # TargetAssignment: empty, tags
        "00",  # member tags (no MemberType in v0)
        "80000000",  # AuthorizedOperations
        "00",  # group tags
        "00",  # top-level tags
    )
    (group,) = read_answer(cgd_res, body, 0).groups
    assert group.members[0].member_type == -1
