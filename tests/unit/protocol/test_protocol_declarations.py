"""The declarations agree with what the wire client speaks, and every message of every API
round-trips through the generic writer and reader at every version kgroup speaks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from kgroup.core.wire import messages as m
from kgroup.protocol import codec
from kgroup.protocol import messages as p
from tests.unit.protocol.strategies import message_values, present_only

# First flexible version of each API, from the flexibleVersions of Kafka's
# clients/src/main/resources/common/message/*Request.json (None: never flexible)
KAFKA_FLEXIBLE_FROM = {
    "Fetch": 12,
    "ListOffsets": 6,
    "Metadata": 9,
    "OffsetCommit": 8,
    "OffsetFetch": 6,
    "FindCoordinator": 3,
    "JoinGroup": 6,
    "LeaveGroup": 4,
    "SyncGroup": 4,
    "DescribeGroups": 5,
    "ListGroups": 3,
    "SaslHandshake": None,
    "ApiVersions": 3,
    "DescribeConfigs": 4,
    "SaslAuthenticate": 2,
    "OffsetDelete": None,
    "ConsumerGroupDescribe": 0,
}


def test_every_api_the_client_speaks_has_kafkas_flexible_versions_and_headers() -> None:
    assert m.APIS is p.APIS  # one table: the client negotiates the declared versions
    assert {api.name for api in m.APIS.values()} == set(KAFKA_FLEXIBLE_FROM)
    for api in m.APIS.values():
        flexible_from = KAFKA_FLEXIBLE_FROM[api.name]
        assert api.flexible_from == flexible_from, api.name
        for version in api.versions:
            flexible = flexible_from is not None and version >= flexible_from
            assert api.request_header_version(version) == (2 if flexible else 1)
            # ApiVersionsResponse keeps header v0 so that any client can read its error
            expected = 1 if flexible and api.name != "ApiVersions" else 0
            assert api.response_header_version(version) == expected, (api.name, version)


@pytest.mark.parametrize(
    ("api", "version"),
    [pytest.param(api, v, id=f"{api.name}-v{v}") for api in p.APIS.values() for v in api.versions],
)
@pytest.mark.parametrize("direction", ["request", "response"])
def test_round_trip(api, version: int, direction: str) -> None:
    msg = getattr(api, direction)

    @settings(max_examples=25, deadline=None)
    @given(message_values(msg, version, unknown_tags=True))
    def check(values: dict[str, Any]) -> None:
        raw = codec.encode(msg, version, values)
        back = codec.decode(msg, version, raw)
        assert present_only(msg.struct, version, back) == values
        assert codec.encode(msg, version, back) == raw

    check()


def test_fields_absent_from_a_version_read_as_their_defaults() -> None:
    # MetadataResponse v1: no throttle (3+), cluster id (2+), leader epoch (7+), offline (5+)
    body = codec.encode(
        p.METADATA.response,
        1,
        {"topics": [{"name": "t", "partitions": [{"partition_index": 3}]}]},
    )
    d = codec.decode(p.METADATA.response, 1, body)
    assert (d["throttle_time_ms"], d["cluster_id"]) == (0, None)
    assert d["controller_id"] == -1  # 1+: not given, written as its default
    (partition,) = d["topics"][0]["partitions"]
    assert (partition["leader_epoch"], partition["offline_replicas"]) == (-1, [])
    assert d["topics"][0]["topic_authorized_operations"] == -(2**31)
