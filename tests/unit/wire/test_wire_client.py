"""WireClient behaviour against scripted brokers: batching, fallbacks, retries, errors, timeouts."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import (
    AuthorizationError,
    ConfigError,
    KafkaOperationError,
    NotFoundError,
    UnreachableError,
)
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.core.wire.client import WireClient, kafka_error_of
from kgroup.core.wire.error_codes import (
    COORDINATOR_NOT_AVAILABLE,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    INVALID_GROUP_ID,
    NOT_COORDINATOR,
    SASL_AUTHENTICATION_FAILED,
)
from kgroup.core.wire.member_protocol import (
    Versioned,
    assignment,
    encode_assignment,
    encode_subscription,
    subscription,
)
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import FULL_VERSIONS, FakeBroker, metadata_body
from tests.unit.wire.wirecodec import Reader, Writer

SUBSCRIPTION = encode_subscription(Versioned(3, subscription(["orders"], None, [], 4, "rack-a")))
ASSIGNMENT = encode_assignment(Versioned(0, assignment([("orders", 1), ("orders", 0)])))


# --- a scripted cluster --------------------------------------------------------------------------


class Cluster:
    """One or two fake brokers; groups named "x..." live on broker 2 when there are two."""

    def __init__(self, versions: dict[int, tuple[int, int]] | None = None, brokers: int = 1):
        self.fail_once: dict[tuple[int, str], int] = {}  # (api key, group) -> error code, once
        self.offsets: dict[str, list[tuple[str, int, int, int]]] = {}
        self.group_errors: dict[str, int] = {}
        self.states: dict[str, str] = {}
        self.received_groups: list[tuple[int, list[str]]] = []
        self.fc_errors: dict[str, int] = {}
        self.brokers = [
            FakeBroker(self.handler, versions=dict(versions or FULL_VERSIONS), node_id=i + 1)
            for i in range(brokers)
        ]

    def close(self) -> None:
        for broker in self.brokers:
            broker.close()

    def config(self, timeout_s: float = 5.0, **props: str) -> ClusterConfig:
        return ClusterConfig(self.brokers[0].address, properties=dict(props), timeout_s=timeout_s)

    def owner(self, group: str) -> FakeBroker:
        return (
            self.brokers[1] if group.startswith("x") and len(self.brokers) > 1 else self.brokers[0]
        )

    def _once(self, api: int, group: str) -> int:
        return self.fail_once.pop((api, group), 0)

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.METADATA.key:
            return metadata_body([(b.node_id, "127.0.0.1", b.port) for b in self.brokers], version)
        if api == api_table.FIND_COORDINATOR.key:
            return self.find_coordinator(version, body)
        if api == api_table.DESCRIBE_GROUPS.key:
            return self.describe(version, body)
        if api == api_table.OFFSET_FETCH.key:
            return self.offset_fetch(version, body)
        if api == api_table.LIST_GROUPS.key:
            return self.list_groups(version, body)
        raise AssertionError(f"unexpected api {api}")

    def find_coordinator(self, version: int, body: bytes) -> bytes:
        reader = Reader(body, flexible=version >= 3)
        if version >= 4:
            reader.int8()
            keys = reader.array(lambda r: r.string())
        else:
            keys = [reader.string()]
        self.received_groups.append((api_table.FIND_COORDINATOR.key, keys))
        writer = Writer(flexible=version >= 3).int32(0)

        def entry(w: Writer, key: str) -> None:
            code = self.fc_errors.pop(key, 0)
            node = self.owner(key)
            if version >= 4:
                w.string(key)
            if version < 4:
                w.int16(code).nullable_string(None)
            w.int32(node.node_id).string("127.0.0.1").int32(node.port)
            if version >= 4:
                w.int16(code).nullable_string(None)
            w.tagged_fields()

        if version >= 4:
            writer.array(keys, entry)
            writer.tagged_fields()
        else:
            entry(writer, keys[0])
        return writer.getvalue()

    def describe(self, version: int, body: bytes) -> bytes:
        reader = Reader(body, flexible=version >= 5)
        groups = reader.array(lambda r: r.string())
        self.received_groups.append((api_table.DESCRIBE_GROUPS.key, groups))
        writer = Writer(flexible=version >= 5).int32(0)

        def group(w: Writer, group_id: str) -> None:
            code = self._once(api_table.DESCRIBE_GROUPS.key, group_id) or self.group_errors.get(
                group_id, 0
            )
            state = self.states.get(group_id, "Dead")
            w.int16(code).string(group_id).string(state)
            members = []
            if state == "Stable":
                w.string("consumer").string("range")
                members = [("m-2", "static"), ("m-1", None)]
            else:
                w.string("").string("")

            def member(mw: Writer, item: tuple[str, str | None]) -> None:
                mw.string(item[0])
                if version >= 4:
                    mw.nullable_string(item[1])
                mw.string("client-" + item[0]).string("/127.0.0.1")
                mw.bytes_(SUBSCRIPTION).bytes_(ASSIGNMENT).tagged_fields()

            w.array(members, member)
            if version >= 3:
                w.int32(-(2**31))
            w.tagged_fields()

        writer.array(groups, group).tagged_fields()
        return writer.getvalue()

    def offset_fetch(self, version: int, body: bytes) -> bytes:
        flexible = version >= 6
        reader = Reader(body, flexible=flexible)
        if version >= 8:

            def read_group(r: Reader) -> str:
                name = r.string()
                assert r.nullable_array(lambda x: x.string()) is None  # all partitions
                r.tagged_fields()
                return name

            groups = reader.array(read_group)
        else:
            groups = [reader.string()]
            assert reader.nullable_array(lambda x: x.string()) is None
        self.received_groups.append((api_table.OFFSET_FETCH.key, groups))
        writer = Writer(flexible=flexible)
        if version >= 3:
            writer.int32(0)

        def topics(w: Writer, group_id: str) -> None:
            rows = self.offsets.get(group_id, [])
            by_topic: dict[str, list[tuple[int, int, int]]] = {}
            for topic, partition, offset, epoch in rows:
                by_topic.setdefault(topic, []).append((partition, offset, epoch))

            def topic(tw: Writer, item: tuple[str, list[tuple[int, int, int]]]) -> None:
                tw.string(item[0])

                def part(pw: Writer, p: tuple[int, int, int]) -> None:
                    pw.int32(p[0]).int64(p[1])
                    if version >= 5:
                        pw.int32(p[2])
                    pw.nullable_string("").int16(0).tagged_fields()

                tw.array(item[1], part).tagged_fields()

            w.array(by_topic.items(), topic)

        def code_of(group_id: str) -> int:
            return self._once(api_table.OFFSET_FETCH.key, group_id) or self.group_errors.get(
                group_id, 0
            )

        if version >= 8:

            def group(w: Writer, group_id: str) -> None:
                w.string(group_id)
                topics(w, group_id)
                w.int16(code_of(group_id)).tagged_fields()

            writer.array(groups, group)
        else:
            topics(writer, groups[0])
            writer.int16(code_of(groups[0]))
        writer.tagged_fields()
        return writer.getvalue()

    def list_groups(self, version: int, body: bytes) -> bytes:
        writer = Writer(flexible=version >= 3)
        if version >= 1:
            writer.int32(0)
        writer.int16(0)

        def group(w: Writer, item: tuple[str, str]) -> None:
            w.string(item[0]).string("consumer")
            if version >= 4:
                w.string(item[1])
            if version >= 5:
                w.string("classic")
            w.tagged_fields()

        writer.array(sorted(self.states.items()), group).tagged_fields()
        return writer.getvalue()


@pytest.fixture()
def cluster() -> Iterator[Cluster]:
    made = Cluster()
    yield made
    made.close()


def versions_with(**overrides: tuple[int, int]) -> dict[int, tuple[int, int]]:
    keys = {"find_coordinator": 10, "describe_groups": 15, "offset_fetch": 9, "list_groups": 16}
    table = dict(FULL_VERSIONS)
    for name, span in overrides.items():
        table[keys[name]] = span
    return table


# --- supports() ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "props",
    [
        {},
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanisms": "SCRAM-SHA-512",
            "sasl.username": "u",
            "sasl.password": "p",
            "ssl.ca.location": "/x/ca.pem",
        },
        {
            "security.protocol": "sasl_plaintext",
            "sasl.mechanisms": "PLAIN",
            "sasl.username": "u",
            "sasl.password": "p",
            "client.id": "ops",
        },
        {"ssl.keystore.location": "/x/client.p12"},  # ignored on a plaintext listener
        {
            "security.protocol": "SSL",
            "ssl.endpoint.identification.algorithm": "none",
            "ssl.certificate.location": "/c.pem",
            "ssl.key.location": "/k.pem",
            "ssl.key.password": "p",
        },
        {"debug": "broker", "socket.timeout.ms": "1000", "client.dns.lookup": "use_all_dns_ips"},
        # Java keystores become PEM text in memory; librdkafka's own PKCS12 keystore is read too
        {"security.protocol": "SSL", "ssl.key.pem": "-----BEGIN", "ssl.certificate.pem": "x"},
        {"security.protocol": "SSL", "ssl.keystore.location": "/x/c.p12"},
    ],
)
def test_supports_configs_it_implements(props: dict[str, str]) -> None:
    assert WireClient.supports(ClusterConfig("b:9092", properties=props)) == (True, "")


@pytest.mark.parametrize(
    ("props", "reason"),
    [
        ({"security.protocol": "SASL_PLAINTEXT"}, "GSSAPI"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "OAUTHBEARER"}, "OAUTHBEARER"),
        ({"security.protocol": "SSL", "ssl.crl.location": "/crl"}, "ssl.crl.location"),
        ({"client.dns.lookup": "resolve_canonical_bootstrap_servers_only"}, "client.dns.lookup"),
        ({"socks5.proxy": "h:1080"}, "socks5.proxy"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN"}, "sasl.username"),
    ],
)
def test_does_not_support_what_it_does_not_implement(props: dict[str, str], reason: str) -> None:
    ok, why = WireClient.supports(ClusterConfig("b:9092", properties=props))
    assert not ok
    assert reason in why


def test_refuses_to_start_with_an_unsupported_config_without_leaking_secrets() -> None:
    config = ClusterConfig(
        "b:9092",
        properties={
            "security.protocol": "SASL_SSL",
            "sasl.mechanisms": "GSSAPI",
            "sasl.password": "hunter2",
        },
    )
    with pytest.raises(ConfigError) as caught:
        WireClient(config)
    assert "hunter2" not in caught.value.one_line()


# --- describe_groups -----------------------------------------------------------------------------


def test_describe_batches_groups_into_one_request_per_coordinator(cluster: Cluster) -> None:
    cluster.states.update({"a": "Stable", "b": "Empty"})
    with WireClient(cluster.config()) as client:
        described = client.describe_groups(["b", "a", "gone", "a"])
        counts = dict(client.request_counts)
    assert list(described) == ["b", "a", "gone"]
    a = described["a"]
    assert (a.state, a.protocol_type, a.assignor, a.type) == (
        "Stable",
        "consumer",
        "range",
        "classic",
    )
    assert a.coordinator is not None and a.coordinator.id == 1
    assert [x.member_id for x in a.members] == ["m-1", "m-2"]
    first, second = a.members
    assert (first.client_id, first.host, first.group_instance_id) == (
        "client-m-1",
        "/127.0.0.1",
        None,
    )
    assert second.group_instance_id == "static"
    assert first.assignment == (TopicPartition("orders", 0), TopicPartition("orders", 1))
    assert first.subscription == ("orders",)
    assert first.rack == "rack-a"
    assert first.raw_metadata == SUBSCRIPTION and first.raw_assignment == ASSIGNMENT
    assert described["b"].state == "Empty" and described["b"].members == ()
    assert described["gone"].state == "Dead" and described["gone"].error is None
    assert counts["DescribeGroups"] == 1
    assert counts["FindCoordinator"] == 1


def test_describe_falls_back_to_v4_and_find_coordinator_v3_one_key_per_request() -> None:
    cluster = Cluster(versions_with(describe_groups=(0, 4), find_coordinator=(0, 3)))
    cluster.states.update({"a": "Stable", "b": "Empty", "c": "Empty"})
    try:
        with WireClient(cluster.config()) as client:
            described = client.describe_groups(["a", "b", "c"])
            counts = dict(client.request_counts)
        received = cluster.brokers[0].received
    finally:
        cluster.close()
    assert described["a"].members[1].group_instance_id == "static"
    assert (api_table.DESCRIBE_GROUPS.key, 4) in received
    assert (api_table.FIND_COORDINATOR.key, 3) in received
    assert counts["FindCoordinator"] == 3  # v3 has one key per request
    assert counts["DescribeGroups"] == 1


def test_describe_two_coordinators_one_request_each() -> None:
    cluster = Cluster(brokers=2)
    cluster.states.update({"a": "Empty", "b": "Empty", "x1": "Empty", "x2": "Empty"})
    try:
        with WireClient(cluster.config()) as client:
            described = client.describe_groups(["a", "x1", "b", "x2"])
            counts = dict(client.request_counts)
    finally:
        cluster.close()
    assert described["x1"].coordinator is not None and described["x1"].coordinator.id == 2
    assert described["a"].coordinator is not None and described["a"].coordinator.id == 1
    assert counts["DescribeGroups"] == 2
    assert sorted(
        groups for api, groups in cluster.received_groups if api == api_table.DESCRIBE_GROUPS.key
    ) == [["a", "b"], ["x1", "x2"]]


def test_describe_group_errors_are_carried_not_raised(cluster: Cluster) -> None:
    cluster.states.update({"ok": "Empty", "denied": "", "bad": ""})
    cluster.group_errors.update({"denied": GROUP_AUTHORIZATION_FAILED, "bad": INVALID_GROUP_ID})
    with WireClient(cluster.config()) as client:
        described = client.describe_groups(["ok", "denied", "bad"])
    assert described["ok"].error is None
    denied = described["denied"]
    assert denied.error_code == "GROUP_AUTHORIZATION_FAILED"
    assert denied.state == "Unknown"
    assert denied.error is not None and "Describe on Group:denied" in denied.error
    assert described["bad"].error_code == "INVALID_GROUP_ID"


def test_describe_not_coordinator_refinds_and_retries_once(cluster: Cluster) -> None:
    cluster.states["a"] = "Empty"
    cluster.fail_once[(api_table.DESCRIBE_GROUPS.key, "a")] = NOT_COORDINATOR
    with WireClient(cluster.config()) as client:
        client.retry_backoff_s = 0.01
        described = client.describe_groups(["a"])
        counts = dict(client.request_counts)
    assert described["a"].state == "Empty" and described["a"].error is None
    assert counts["DescribeGroups"] == 2
    assert counts["FindCoordinator"] == 2


def test_describe_batches_are_capped(cluster: Cluster) -> None:
    groups = [f"g{i:03d}" for i in range(25)]
    with WireClient(cluster.config()) as client:
        client.batch_size = 10
        described = client.describe_groups(groups)
        counts = dict(client.request_counts)
    assert list(described) == groups
    assert counts["DescribeGroups"] == 3
    assert counts["FindCoordinator"] == 3


# --- committed_offsets ---------------------------------------------------------------------------


def test_committed_offsets_v8_one_request_for_all_groups(cluster: Cluster) -> None:
    cluster.offsets["a"] = [("t", 1, 10, 3), ("t", 0, 5, -1), ("t", 2, -1, -1)]
    cluster.offsets["b"] = [("u", 0, 7, 0)]
    with WireClient(cluster.config()) as client:
        offsets = client.committed_offsets(["a", "b", "none"])
        counts = dict(client.request_counts)
    assert offsets["a"] == {
        TopicPartition("t", 0): CommittedOffset(5, None, ""),
        TopicPartition("t", 1): CommittedOffset(10, 3, ""),
    }
    assert offsets["b"] == {TopicPartition("u", 0): CommittedOffset(7, 0, "")}
    assert offsets["none"] == {}
    assert counts["OffsetFetch"] == 1


def test_committed_offsets_fall_back_to_one_group_per_request() -> None:
    cluster = Cluster(versions_with(offset_fetch=(0, 5)))
    cluster.offsets["a"] = [("t", 0, 5, 2)]
    cluster.offsets["b"] = [("t", 0, 6, 2)]
    try:
        with WireClient(cluster.config()) as client:
            offsets = client.committed_offsets(["a", "b"])
            counts = dict(client.request_counts)
        received = cluster.brokers[0].received
    finally:
        cluster.close()
    assert offsets["a"] == {TopicPartition("t", 0): CommittedOffset(5, 2, "")}
    assert offsets["b"] == {TopicPartition("t", 0): CommittedOffset(6, 2, "")}
    assert counts["OffsetFetch"] == 2
    assert (api_table.OFFSET_FETCH.key, 5) in received


def test_committed_offsets_errors_map_to_kgroup_errors(cluster: Cluster) -> None:
    cluster.group_errors.update(
        {"denied": GROUP_AUTHORIZATION_FAILED, "missing": GROUP_ID_NOT_FOUND}
    )
    with WireClient(cluster.config()) as client:
        offsets = client.committed_offsets(["denied", "missing"])
    denied, missing = offsets["denied"], offsets["missing"]
    assert isinstance(denied, AuthorizationError)
    assert denied.hint is not None and "Describe on Group:denied" in denied.hint
    assert kafka_error_of(denied) == "GROUP_AUTHORIZATION_FAILED"
    assert isinstance(missing, NotFoundError) and missing.exit_code == 3


def test_committed_offsets_not_coordinator_refinds_once(cluster: Cluster) -> None:
    cluster.offsets["a"] = [("t", 0, 1, -1)]
    cluster.fail_once[(api_table.OFFSET_FETCH.key, "a")] = NOT_COORDINATOR
    with WireClient(cluster.config()) as client:
        client.retry_backoff_s = 0.01
        offsets = client.committed_offsets(["a", "b"])
        counts = dict(client.request_counts)
    assert offsets["a"] == {TopicPartition("t", 0): CommittedOffset(1, None, "")}
    assert counts["OffsetFetch"] == 2
    assert cluster.received_groups[-1] == (api_table.OFFSET_FETCH.key, ["a"])  # only the failed one


def test_committed_offsets_persistent_not_coordinator_is_an_error_at_the_timeout(
    cluster: Cluster,
) -> None:
    """NOT_COORDINATOR: the coordinator is looked up again before every retry (ListConsumer-
    GroupOffsetsHandler unmaps the group), until --timeout; then the last error, saying so."""
    cluster.group_errors["a"] = NOT_COORDINATOR
    started = time.monotonic()
    with WireClient(cluster.config(timeout_s=1.0)) as client:
        client.retry_backoff_s = 0.01
        offsets = client.committed_offsets(["a"])
        counts = dict(client.request_counts)
    assert 0.9 < time.monotonic() - started < 2.5
    assert isinstance(offsets["a"], KafkaOperationError)
    assert kafka_error_of(offsets["a"]) == "NOT_COORDINATOR"
    assert "still failing after" in offsets["a"].message
    assert counts["OffsetFetch"] > 3 and counts["FindCoordinator"] == counts["OffsetFetch"]


# --- find_coordinators ---------------------------------------------------------------------------


def test_find_coordinators_retries_coordinator_not_available_once(cluster: Cluster) -> None:
    cluster.fc_errors["a"] = COORDINATOR_NOT_AVAILABLE
    with WireClient(cluster.config()) as client:
        client.retry_backoff_s = 0.01
        found = client.find_coordinators(["a", "b"])
        counts = dict(client.request_counts)
    assert {g: getattr(n, "id", None) for g, n in found.items()} == {"a": 1, "b": 1}
    assert counts["FindCoordinator"] == 2
    assert cluster.received_groups == [(10, ["a", "b"]), (10, ["a"])]


def test_find_coordinators_authorization_error_is_returned(cluster: Cluster) -> None:
    cluster.fc_errors["a"] = GROUP_AUTHORIZATION_FAILED
    with WireClient(cluster.config()) as client:
        found = client.find_coordinators(["a"])
    assert isinstance(found["a"], AuthorizationError)


# --- list_groups ---------------------------------------------------------------------------------


def test_list_groups_v5_and_v2(cluster: Cluster) -> None:
    cluster.states.update({"b": "Stable", "a": "Empty"})
    with WireClient(cluster.config()) as client:
        listed = client.list_groups()
        stable = client.list_groups(states={"stable"})
    assert [(g.group_id, g.state, g.type, g.protocol_type) for g in listed] == [
        ("a", "Empty", "classic", "consumer"),
        ("b", "Stable", "classic", "consumer"),
    ]
    assert [g.group_id for g in stable] == ["b"]
    old = Cluster(versions_with(list_groups=(0, 2)))
    old.states.update({"a": "Empty"})
    try:
        with WireClient(old.config()) as client:
            assert [(g.group_id, g.state) for g in client.list_groups(states={"Stable"})] == [
                ("a", "Unknown")
            ]
            assert client.list_groups(types={"consumer"}) == []
    finally:
        old.close()


# --- connections ---------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_refused_connection_is_unreachable_naming_the_address() -> None:
    port = closed_port()
    config = ClusterConfig(f"127.0.0.1:{port}", timeout_s=2)
    with WireClient(config) as client, pytest.raises(UnreachableError) as caught:
        client.brokers()
    assert f"127.0.0.1:{port}" in caught.value.message
    assert caught.value.exit_code == 6


def test_a_broker_that_never_answers_times_out_within_the_timeout() -> None:
    def hang(api: int, version: int, body: bytes) -> bytes:
        return b"HANG"

    broker = FakeBroker(hang)
    try:
        started = time.monotonic()
        with (
            WireClient(ClusterConfig(broker.address, timeout_s=0.5)) as client,
            pytest.raises(UnreachableError, match="did not answer Metadata"),
        ):
            client.brokers()
        assert time.monotonic() - started < 1.5
    finally:
        broker.close()


def test_a_dropped_connection_is_retried_once_on_a_fresh_one(cluster: Cluster) -> None:
    drops = {"left": 1}
    inner: Callable[[int, int, bytes], bytes] = cluster.handler

    def flaky(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.METADATA.key and drops["left"]:
            drops["left"] -= 1
            return b"DROP"
        return inner(api, version, body)

    cluster.brokers[0].handler = flaky
    with WireClient(cluster.config()) as client:
        assert [b.id for b in client.brokers()] == [1]
        assert client.request_counts["ApiVersions"] == 2


def test_client_id_is_sent(cluster: Cluster) -> None:
    with WireClient(cluster.config(**{"client.id": "ops-tool"})) as client:
        client.brokers()
    assert set(cluster.brokers[0].client_ids) == {"ops-tool"}


# --- SASL over a scripted broker -----------------------------------------------------------------


def sasl_broker(password: str, seen: list[bytes]) -> FakeBroker:
    def handler(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.SASL_HANDSHAKE.key:
            assert Reader(body).string() == "PLAIN"
            return Writer().int16(0).array(["PLAIN"], Writer.string).getvalue()
        if api == api_table.SASL_AUTHENTICATE.key:
            token = Reader(body, flexible=version >= 2).bytes_()
            seen.append(token)
            ok = token == b"\x00alice\x00" + password.encode()
            writer = Writer(flexible=version >= 2).int16(0 if ok else SASL_AUTHENTICATION_FAILED)
            writer.nullable_string(None if ok else "Authentication failed: invalid credentials")
            writer.bytes_(b"")
            if version >= 1:
                writer.int64(0)
            return writer.tagged_fields().getvalue()
        if api == api_table.METADATA.key:
            return metadata_body([(1, "127.0.0.1", broker.port)], version)
        raise AssertionError(api)

    broker = FakeBroker(handler)
    return broker


@pytest.mark.parametrize("sent", ["right", "wrong-pass"])
def test_sasl_plain(sent: str) -> None:
    seen: list[bytes] = []
    broker = sasl_broker("right", seen)
    config = ClusterConfig(
        broker.address,
        timeout_s=3,
        properties={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "PLAIN",
            "sasl.username": "alice",
            "sasl.password": sent,
        },
    )
    try:
        with WireClient(config) as client:
            if sent == "right":
                assert [b.id for b in client.brokers()] == [1]
            else:
                with pytest.raises(KafkaOperationError) as caught:
                    client.brokers()
                assert "SASL_AUTHENTICATION_FAILED" in caught.value.message
                assert "wrong-pass" not in caught.value.one_line()
    finally:
        broker.close()
    assert seen == [b"\x00alice\x00" + sent.encode()]
    assert (api_table.SASL_AUTHENTICATE.key, 2) in broker.received


def test_a_listener_that_is_not_kafka_is_named_as_such() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        address = f"127.0.0.1:{listener.getsockname()[1]}"

        def answer_http() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(100)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                time.sleep(0.5)

        threading.Thread(target=answer_http, daemon=True).start()
        with (
            WireClient(ClusterConfig(address, timeout_s=3)) as client,
            pytest.raises(UnreachableError, match="does not answer with the Kafka protocol"),
        ):
            client.brokers()


def test_describe_then_offsets_finds_coordinators_once(cluster: Cluster) -> None:
    cluster.states.update({"a": "Empty", "b": "Empty"})
    cluster.offsets["a"] = [("t", 0, 1, -1)]
    with WireClient(cluster.config()) as client:
        client.describe_groups(["a", "b"])
        client.committed_offsets(["a", "b"])
        counts = dict(client.request_counts)
    assert counts == {"ApiVersions": 1, "FindCoordinator": 1, "DescribeGroups": 1, "OffsetFetch": 1}


def test_many_pipelined_requests_on_one_connection() -> None:
    # FindCoordinator v3 takes one key per request: 400 requests share one connection.
    cluster = Cluster(versions_with(find_coordinator=(0, 3)))
    groups = [f"group-{i:03d}" for i in range(400)]
    try:
        with WireClient(cluster.config()) as client:
            found = client.find_coordinators(groups)
            counts = dict(client.request_counts)
    finally:
        cluster.close()
    assert all(getattr(node, "id", None) == 1 for node in found.values())
    assert counts == {"ApiVersions": 1, "FindCoordinator": 400}
    assert [keys[0] for _, keys in cluster.received_groups] == groups


def test_sasl_scram_sha256_exchange_with_rfc7677_messages(monkeypatch) -> None:
    from tests.unit.wire.test_wire_sasl import (
        RFC7677_CLIENT_FINAL,
        RFC7677_CLIENT_NONCE,
        RFC7677_SERVER_FINAL,
        RFC7677_SERVER_FIRST,
    )

    monkeypatch.setattr(
        "kgroup.core.wire.sasl.secrets.token_urlsafe", lambda n: RFC7677_CLIENT_NONCE
    )
    tokens: list[bytes] = []

    def handler(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.SASL_HANDSHAKE.key:
            assert Reader(body).string() == "SCRAM-SHA-256"
            return Writer().int16(0).array(["SCRAM-SHA-256"], Writer.string).getvalue()
        if api == api_table.SASL_AUTHENTICATE.key:
            tokens.append(Reader(body, flexible=version >= 2).bytes_())
            reply = RFC7677_SERVER_FIRST if len(tokens) == 1 else RFC7677_SERVER_FINAL
            writer = Writer(flexible=version >= 2).int16(0).nullable_string(None).bytes_(reply)
            if version >= 1:
                writer.int64(0)
            return writer.tagged_fields().getvalue()
        return metadata_body([(1, "127.0.0.1", broker.port)], version)

    broker = FakeBroker(handler)
    config = ClusterConfig(
        broker.address,
        timeout_s=3,
        properties={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "SCRAM-SHA-256",
            "sasl.username": "user",
            "sasl.password": "pencil",
        },
    )
    try:
        with WireClient(config) as client:
            assert len(client.brokers()) == 1
    finally:
        broker.close()
    assert tokens == [b"n,,n=user,r=" + RFC7677_CLIENT_NONCE.encode(), RFC7677_CLIENT_FINAL]


def test_a_call_may_wait_longer_than_the_connection_timeout() -> None:
    """A request the broker holds on purpose (the fence's JoinGroup during a rebalance delay)
    gets its own timeout; a timeout names the limit that ran out."""

    def slow(api: int, version: int, body: bytes) -> bytes:
        if body == b"hang":
            return b"HANG"
        time.sleep(0.6)
        return b"answer"

    broker = FakeBroker(slow)
    try:
        with WireClient(ClusterConfig(broker.address, timeout_s=0.3)) as client:
            connection = client.new_connection("127.0.0.1", broker.port).open()
            try:
                assert connection.call(api_table.METADATA, 1, b"", timeout_s=3) == b"answer"
                with pytest.raises(
                    UnreachableError, match=r"did not answer Metadata within 0\.3 s"
                ):
                    connection.call(api_table.METADATA, 1, b"")
                connection = client.new_connection("127.0.0.1", broker.port).open()
                with pytest.raises(
                    UnreachableError, match=r"did not answer Metadata within 0\.5 s"
                ):
                    connection.call(api_table.METADATA, 1, b"hang", timeout_s=0.5)
            finally:
                connection.close()
    finally:
        broker.close()
