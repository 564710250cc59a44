"""Requests: the declarations write the same bytes as the hand-written encoders, for every API
and every version kgroup sends (the wire client's encoders are the reference)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.core.wire.cluster_calls import (
    encode_api_versions_request,
    encode_describe_configs_request,
    encode_metadata_request,
    encode_sasl_authenticate_request,
    encode_sasl_handshake_request,
)
from kgroup.core.wire.group_calls import (
    encode_consumer_group_describe_request,
    encode_describe_groups_request,
    encode_find_coordinator_request,
    encode_join_group_request,
    encode_leave_group_request,
    encode_list_groups_request,
    encode_sync_group_request,
)
from kgroup.core.wire.member_protocol import encode_assignment, encode_subscription
from kgroup.core.wire.offset_calls import (
    encode_fetch_request,
    encode_list_offsets_request,
    encode_offset_commit_request,
    encode_offset_delete_request,
    encode_offset_fetch_request,
)
from kgroup.core.wire.results import READ_COMMITTED, READ_UNCOMMITTED, FetchPosition
from kgroup.protocol import messages as api_table
from tests.unit.protocol import handwritten as h
from tests.unit.protocol.strategies import TEXT

FAST = settings(max_examples=25, deadline=None)
INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
NAMES = st.lists(TEXT, max_size=4)
OPT_TEXT = st.none() | TEXT


def test_api_versions_v0_is_an_empty_body() -> None:
    assert encode_api_versions_request(0) == h.encode_api_versions_request(0) == b""


@pytest.mark.parametrize("version", api_table.METADATA.versions)
@pytest.mark.parametrize("all_topics", [False, True])
def test_metadata(version: int, all_topics: bool) -> None:
    assert encode_metadata_request(version, all_topics=all_topics) == h.encode_metadata_request(
        version, all_topics=all_topics
    )


@pytest.mark.parametrize("version", api_table.LIST_OFFSETS.versions)
@FAST
@given(
    topics=st.lists(
        st.tuples(TEXT, st.lists(st.tuples(INT32, st.sampled_from([-2, -1, 0, 10**12])))),
        max_size=3,
    ),
    committed=st.booleans(),
)
def test_list_offsets(version: int, topics: list, committed: bool) -> None:
    level = READ_COMMITTED if committed and version >= 2 else READ_UNCOMMITTED
    assert encode_list_offsets_request(version, topics, level) == h.encode_list_offsets_request(
        version, topics, level
    )


@pytest.mark.parametrize("version", api_table.FETCH.versions)
@FAST
@given(
    positions=st.lists(
        st.builds(
            FetchPosition,
            st.sampled_from(["t", "u", "ü"]),
            INT32,
            INT64,
            INT32,
        ),
        max_size=5,
    ),
    committed=st.booleans(),
    wait=INT32,
    min_bytes=INT32,
    max_bytes=INT32,
    rack=TEXT,
)
def test_fetch(version, positions, committed, wait, min_bytes, max_bytes, rack) -> None:
    kwargs = {
        "isolation_level": READ_COMMITTED if committed else READ_UNCOMMITTED,
        "max_wait_ms": wait,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "rack_id": rack,
    }
    assert encode_fetch_request(version, positions, **kwargs) == h.encode_fetch_request(
        version, positions, **kwargs
    )


def test_fetch_other_versions_are_refused_like_the_hand_written_one() -> None:
    for version in (3, 12):
        with pytest.raises(ValueError, match="Fetch v4-v11"):
            h.encode_fetch_request(version, [])
        with pytest.raises(ValueError, match="Fetch v4-v11"):
            encode_fetch_request(version, [])


@pytest.mark.parametrize("version", api_table.FIND_COORDINATOR.versions)
@FAST
@given(keys=st.lists(TEXT, min_size=1, max_size=4))
def test_find_coordinator(version: int, keys: list[str]) -> None:
    keys = keys if version >= 4 else keys[:1]
    assert encode_find_coordinator_request(version, keys) == h.encode_find_coordinator_request(
        version, keys
    )


def test_find_coordinator_before_v4_refuses_two_keys_like_the_hand_written_one() -> None:
    with pytest.raises(ValueError, match="exactly one key"):
        encode_find_coordinator_request(3, ["a", "b"])


@pytest.mark.parametrize("version", api_table.DESCRIBE_GROUPS.versions)
@FAST
@given(groups=NAMES)
def test_describe_groups(version: int, groups: list[str]) -> None:
    assert encode_describe_groups_request(version, groups) == h.encode_describe_groups_request(
        version, groups
    )


@pytest.mark.parametrize("version", api_table.CONSUMER_GROUP_DESCRIBE.versions)
@FAST
@given(groups=NAMES)
def test_consumer_group_describe(version: int, groups: list[str]) -> None:
    assert encode_consumer_group_describe_request(
        version, groups
    ) == h.encode_consumer_group_describe_request(version, groups)


OFFSET_ROWS = st.lists(
    st.tuples(st.sampled_from(["t", "u", "v"]), INT32, INT64, INT32, OPT_TEXT), max_size=6
)


@pytest.mark.parametrize("version", api_table.OFFSET_COMMIT.versions)
@FAST
@given(group=TEXT, rows=OFFSET_ROWS, generation=INT32, member=TEXT)
def test_offset_commit(version: int, group: str, rows: list, generation: int, member: str) -> None:
    ours = encode_offset_commit_request(
        version, group, rows, generation=generation, member_id=member
    )
    assert ours == h.encode_offset_commit_request(
        version, group, rows, generation=generation, member_id=member
    )


@FAST
@given(group=TEXT, partitions=st.lists(st.tuples(st.sampled_from(["t", "u"]), INT32), max_size=6))
def test_offset_delete(group: str, partitions: list) -> None:
    assert encode_offset_delete_request(0, group, partitions) == h.encode_offset_delete_request(
        0, group, partitions
    )


def test_offset_delete_other_versions_are_refused_like_the_hand_written_one() -> None:
    with pytest.raises(ValueError, match="v0 only"):
        encode_offset_delete_request(1, "g", [])


@pytest.mark.parametrize("version", api_table.OFFSET_FETCH.versions)
@FAST
@given(groups=st.lists(TEXT, min_size=1, max_size=3), stable=st.booleans())
def test_offset_fetch(version: int, groups: list[str], stable: bool) -> None:
    groups = groups if version >= 8 else groups[:1]
    assert encode_offset_fetch_request(version, groups, stable) == h.encode_offset_fetch_request(
        version, groups, stable
    )


@pytest.mark.parametrize("version", api_table.LIST_GROUPS.versions)
@FAST
@given(states=NAMES, types=NAMES)
def test_list_groups(version: int, states: list[str], types: list[str]) -> None:
    assert encode_list_groups_request(version, states, types) == h.encode_list_groups_request(
        version, states, types
    )


@pytest.mark.parametrize("version", api_table.JOIN_GROUP.versions)
@FAST
@given(
    group=TEXT,
    member=TEXT,
    timeouts=st.tuples(INT32, INT32),
    protocols=st.lists(st.tuples(TEXT, st.binary(max_size=8)), max_size=3),
    reason=OPT_TEXT,
)
def test_join_group(version: int, group: str, member: str, timeouts, protocols, reason) -> None:
    kwargs = dict(
        session_timeout_ms=timeouts[0],
        rebalance_timeout_ms=timeouts[1],
        protocol_type="consumer",
        protocols=protocols,
        reason=reason,
    )
    assert encode_join_group_request(version, group, member, **kwargs) == (
        h.encode_join_group_request(version, group, member, **kwargs)
    )


@pytest.mark.parametrize("version", api_table.SYNC_GROUP.versions)
@FAST
@given(
    group=TEXT,
    generation=INT32,
    member=TEXT,
    name=OPT_TEXT,
    assignments=st.lists(st.tuples(TEXT, st.binary(max_size=8)), max_size=3),
)
def test_sync_group(version: int, group: str, generation: int, member: str, name, assignments):
    kwargs = dict(protocol_type="consumer", protocol_name=name, assignments=assignments)
    assert encode_sync_group_request(version, group, generation, member, **kwargs) == (
        h.encode_sync_group_request(version, group, generation, member, **kwargs)
    )


@pytest.mark.parametrize("version", api_table.LEAVE_GROUP.versions)
@FAST
@given(group=TEXT, member=TEXT, reason=OPT_TEXT)
def test_leave_group(version: int, group: str, member: str, reason: str | None) -> None:
    assert encode_leave_group_request(version, group, member, reason) == (
        h.encode_leave_group_request(version, group, member, reason)
    )


@FAST
@given(mechanism=TEXT)
def test_sasl_handshake(mechanism: str) -> None:
    assert encode_sasl_handshake_request(mechanism) == h.encode_sasl_handshake_request(mechanism)


@pytest.mark.parametrize("version", api_table.SASL_AUTHENTICATE.versions)
@FAST
@given(token=st.binary(max_size=300))
def test_sasl_authenticate(version: int, token: bytes) -> None:
    assert encode_sasl_authenticate_request(version, token) == (
        h.encode_sasl_authenticate_request(version, token)
    )


TPS = st.lists(st.tuples(st.sampled_from(["t", "u"]), INT32), max_size=5)


@FAST
@given(
    version=st.integers(0, 5),
    topics=NAMES,
    user_data=st.none() | st.binary(max_size=8),
    owned=TPS,
    generation=INT32,
    rack=OPT_TEXT,
)
def test_subscription(version, topics, user_data, owned, generation, rack) -> None:
    sub = h.Subscription(version, topics, user_data, owned, generation, rack)
    assert encode_subscription(h.versioned(sub)) == h.encode_subscription(sub)


@FAST
@given(version=st.integers(0, 5), partitions=TPS, user_data=st.none() | st.binary(max_size=8))
def test_assignment(version, partitions, user_data) -> None:
    assignment = h.Assignment(version, partitions, user_data)
    assert encode_assignment(h.versioned(assignment)) == h.encode_assignment(assignment)


@pytest.mark.parametrize("version", api_table.DESCRIBE_CONFIGS.versions)
@FAST
@given(resources=st.lists(st.tuples(st.sampled_from([2, 4]), TEXT, st.none() | NAMES), max_size=3))
def test_describe_configs(version: int, resources: list) -> None:
    assert encode_describe_configs_request(version, resources) == (
        h.encode_describe_configs_request(version, resources)
    )
