"""DescribeConfigs v1-v2 bytes (Kafka's DescribeConfigs{Request,Response}.json, field by field)
and WireClient.describe_topic_configs against a scripted broker."""

from __future__ import annotations

import struct

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import AuthorizationError
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.cluster_calls import encode_describe_configs_request
from kgroup.core.wire.error_codes import TOPIC_AUTHORIZATION_FAILED
from kgroup.protocol import messages as api_table
from kgroup.protocol.generated.wire import describe_configs_response
from tests.unit.wire.fakebroker import FULL_VERSIONS, FakeBroker


def s(text: str) -> bytes:
    """A non-flexible STRING: int16 length, UTF-8 bytes."""
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def test_request_v1_all_keys_of_one_topic() -> None:
    expected = (
        struct.pack(">i", 1)  # Resources: 1 element
        + struct.pack(">b", 2)  # ResourceType TOPIC
        + s("orders")  # ResourceName
        + struct.pack(">i", -1)  # ConfigurationKeys: null = all
        + b"\x00"  # IncludeSynonyms false (v1+)
    )
    assert encode_describe_configs_request(1, [(2, "orders", None)]) == expected


def test_request_v2_named_keys() -> None:
    expected = (
        struct.pack(">i", 1)
        + struct.pack(">b", 2)
        + s("t")
        + struct.pack(">i", 2)
        + s("retention.ms")
        + s("cleanup.policy")
        + b"\x00"
    )
    assert encode_describe_configs_request(2, [(2, "t", ["retention.ms", "cleanup.policy"])]) == (
        expected
    )


def test_request_refuses_versions_kgroup_does_not_speak() -> None:
    with pytest.raises(ValueError, match="v1-v2"):
        encode_describe_configs_request(0, [(2, "t", None)])


def config_entry(name: str, value: str | None, source: int, synonyms: int = 0) -> bytes:
    raw = s(name) + (struct.pack(">h", -1) if value is None else s(value))
    raw += b"\x00"  # ReadOnly
    raw += struct.pack(">b", source)  # ConfigSource 1+
    raw += b"\x01" if value is None else b"\x00"  # IsSensitive
    raw += struct.pack(">i", synonyms)  # Synonyms 1+
    for _ in range(synonyms):
        raw += s(name) + s("x") + struct.pack(">b", 5)  # Name Value Source
    return raw


def response_body(*results: bytes) -> bytes:
    return struct.pack(">i", 0) + struct.pack(">i", len(results)) + b"".join(results)


def result(name: str, entries: list[bytes], error: int = 0, message: str | None = None) -> bytes:
    raw = struct.pack(">h", error)
    raw += struct.pack(">h", -1) if message is None else s(message)
    raw += struct.pack(">b", 2) + s(name) + struct.pack(">i", len(entries)) + b"".join(entries)
    return raw


def test_response_v1_entries_synonyms_and_sensitive_values() -> None:
    body = response_body(
        result(
            "t",
            [
                config_entry("retention.ms", "3600000", 1, synonyms=1),
                config_entry("secret.thing", None, 5),
            ],
        )
    )
    (described,) = read_answer(describe_configs_response, body, 1, strict=True).results
    assert (described.error_code, described.resource_type, described.resource_name) == (0, 2, "t")
    assert [
        (c.name, c.value, c.read_only, c.config_source, c.is_sensitive) for c in described.configs
    ] == [("retention.ms", "3600000", False, 1, False), ("secret.thing", None, False, 5, True)]


def test_response_with_trailing_bytes_is_refused() -> None:
    from kgroup.core.wire.frames import ProtocolError

    with pytest.raises(ProtocolError):
        read_answer(describe_configs_response, response_body() + b"\x00", 1, strict=True)


def broker_answering(body: bytes) -> FakeBroker:
    versions = dict(FULL_VERSIONS)
    versions[api_table.DESCRIBE_CONFIGS.key] = (0, 4)
    return FakeBroker(handler=lambda key, version, request: body, versions=versions)


def test_client_maps_entries_and_per_topic_errors() -> None:
    body = response_body(
        result("t", [config_entry("retention.ms", "600000", 1)]),
        result("secret", [], error=TOPIC_AUTHORIZATION_FAILED, message="denied"),
    )
    broker = broker_answering(body)
    try:
        client = WireClient(ClusterConfig(broker.address, timeout_s=5))
        with client:
            out = client.describe_topic_configs(["t", "secret"])
            counts = dict(client.request_counts)
    finally:
        broker.close()
    assert out["t"] == {"retention.ms": "600000"}
    assert isinstance(out["secret"], AuthorizationError)
    assert "DescribeConfigs on Topic:secret" in out["secret"].one_line()
    # the highest version both speak is v2; one request for both topics
    assert (api_table.DESCRIBE_CONFIGS.key, 2) in broker.received
    assert counts == {"ApiVersions": 1, "DescribeConfigs": 1}
