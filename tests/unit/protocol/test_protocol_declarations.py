"""The declarations are what the wire client speaks, and every message of every API round-trips
through the generic writer and reader at every version kgroup speaks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from kgroup.protocol import messages as p
from tests.unit.protocol import dict_codec as dicts
from tests.unit.protocol.strategies import message_values, present_only


def test_the_client_negotiates_the_declared_versions() -> None:
    assert p.APIS is p.APIS  # one table (Kafka's flexible versions: test_protocol_kafka_reference)


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
        raw = dicts.encode(msg, version, values)
        back = dicts.decode(msg, version, raw)
        assert present_only(msg.struct, version, back) == values
        assert dicts.encode(msg, version, back) == raw

    check()


def test_fields_absent_from_a_version_read_as_their_defaults() -> None:
    # MetadataResponse v1: no throttle (3+), cluster id (2+), leader epoch (7+), offline (5+)
    body = dicts.encode(
        p.METADATA.response,
        1,
        {"topics": [{"name": "t", "partitions": [{"partition_index": 3}]}]},
    )
    d = dicts.decode(p.METADATA.response, 1, body)
    assert (d["throttle_time_ms"], d["cluster_id"]) == (0, None)
    assert d["controller_id"] == -1  # 1+: not given, written as its default
    (partition,) = d["topics"][0]["partitions"]
    assert (partition["leader_epoch"], partition["offline_replicas"]) == (-1, [])
    assert d["topics"][0]["topic_authorized_operations"] == -(2**31)
