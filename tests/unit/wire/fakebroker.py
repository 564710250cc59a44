"""A scripted Kafka broker on a loopback socket, for the WireClient's behaviour tests.

It answers ApiVersions with a configurable version table and hands every other request to a
handler the test writes (api key, version, body bytes) -> response body bytes, so tests can
play brokers that lack FindCoordinator v4 or OffsetFetch v8, move a coordinator, or hang.
`kill()` stops it as a killed broker process stops: open connections are cut and new ones are
refused (nothing listens on its port any more).
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from kgroup.core.wire.delete_topics import DELETE_TOPICS
from kgroup.protocol import messages as api_table
from kgroup.protocol.messages.share_groups import SHARE_APIS
from kgroup.protocol.messages.streams_groups import STREAMS_GROUP_DESCRIBE
from tests.unit.wire.wirecodec import Reader, Writer, decode_request_header, encode_response_header

Handler = Callable[[int, int, bytes], bytes]

# APIs kgroup sends outside the client's table (`messages.APIS`): share and streams groups
OTHER_APIS = {
    **SHARE_APIS,
    STREAMS_GROUP_DESCRIBE.key: STREAMS_GROUP_DESCRIBE,
    DELETE_TOPICS.key: DELETE_TOPICS,
}

FULL_VERSIONS = {
    api_table.FETCH.key: (0, 17),
    api_table.LIST_OFFSETS.key: (0, 9),
    api_table.METADATA.key: (0, 12),
    api_table.OFFSET_FETCH.key: (0, 9),
    api_table.FIND_COORDINATOR.key: (0, 6),
    api_table.DESCRIBE_GROUPS.key: (0, 6),
    api_table.LIST_GROUPS.key: (0, 5),
    api_table.SASL_HANDSHAKE.key: (0, 1),
    api_table.API_VERSIONS.key: (0, 4),
    api_table.SASL_AUTHENTICATE.key: (0, 2),
}


@dataclass
class FakeBroker:
    handler: Handler
    versions: dict[int, tuple[int, int]] = field(default_factory=lambda: dict(FULL_VERSIONS))
    node_id: int = 1
    received: list[tuple[int, int]] = field(default_factory=list)
    client_ids: list[str | None] = field(default_factory=list)
    tls: ssl.SSLContext | None = None

    def __post_init__(self) -> None:
        # The request being handled, per connection thread: handlers that need the client id
        # (a coordinator naming members "<client id>-<uuid>", as Kafka does) read it here.
        self.current = threading.local()
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(8)
        self.port = self._server.getsockname()[1]
        self._stop = False
        self._sessions: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self._stop = True
        self._server.close()

    def kill(self) -> None:
        """Stop as a killed broker: cut every open connection, refuse new ones."""
        self.close()
        for conn in list(self._sessions):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    @property
    def killed(self) -> bool:
        return self._stop

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            if self._stop:
                conn.close()
                return
            self._sessions.append(conn)
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        if self.tls is not None:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                conn.close()
                return
        with conn:
            while True:
                head = _read(conn, 4)
                if head is None:
                    return
                data = _read(conn, struct.unpack(">i", head)[0])
                if data is None:
                    return
                api_key = struct.unpack(">h", data[:2])[0]
                version = struct.unpack(">h", data[2:4])[0]
                api = api_table.APIS.get(api_key) or OTHER_APIS.get(api_key)
                flexible = api.flexible(version) if api else False
                _, _, correlation, client_id, offset = decode_request_header(
                    data, flexible=flexible
                )
                self.received.append((api_key, version))
                self.client_ids.append(client_id)
                self.current.client_id = client_id
                if api_key == api_table.API_VERSIONS.key:
                    body = api_versions_body(self.versions, version)
                else:
                    body = self.handler(api_key, version, data[offset:])
                    if body == b"DROP":
                        return
                    if body == b"HANG":
                        threading.Event().wait(30)
                        return
                header_flexible = api.response_header_version(version) == 1 if api else False
                payload = encode_response_header(correlation, flexible=header_flexible) + body
                conn.sendall(struct.pack(">i", len(payload)) + payload)


def _read(conn: socket.socket, size: int) -> bytes | None:
    buf = b""
    while len(buf) < size:
        try:
            chunk = conn.recv(size - len(buf))
        except OSError:
            return None
        if not chunk:
            return None
        buf += chunk
    return buf


def api_versions_body(versions: dict[int, tuple[int, int]], version: int = 0) -> bytes:
    """ApiVersionsResponse v0-v3 (v1+ ThrottleTimeMs, v3+ flexible: librdkafka asks v3)."""
    flexible = version >= 3
    writer = Writer(flexible=flexible).int16(0)

    def entry(w: Writer, kv: tuple[int, tuple[int, int]]) -> None:
        w.int16(kv[0]).int16(kv[1][0]).int16(kv[1][1])
        if flexible:
            w.tagged_fields()

    writer.array(sorted(versions.items()), entry)
    if version >= 1:
        writer.int32(0)  # ThrottleTimeMs
    if flexible:
        writer.tagged_fields()
    return writer.getvalue()


@dataclass(frozen=True)
class FakePartition:
    index: int
    leader: int
    replicas: tuple[int, ...] = ()
    error: int = 0


@dataclass(frozen=True)
class FakeTopic:
    name: str
    partitions: tuple[FakePartition, ...]
    topic_id: bytes = bytes(16)
    error: int = 0
    internal: bool = False


def metadata_body(
    brokers: list[tuple[int, str, int]] | list[tuple[int, str, int, str | None]],
    version: int = 1,
    topics: tuple[FakeTopic, ...] | list[FakeTopic] = (),
) -> bytes:
    """A MetadataResponse v1-v12 body, laid out field by field from MetadataResponse.json."""
    flexible = version >= 9
    writer = Writer(flexible=flexible)
    if version >= 3:
        writer.int32(0)  # ThrottleTimeMs 3+

    def broker(w: Writer, b: tuple) -> None:
        rack = b[3] if len(b) > 3 else None
        w.int32(b[0]).string(b[1]).int32(b[2]).nullable_string(rack)  # NodeId Host Port Rack
        w.tagged_fields()

    def partition(w: Writer, p: FakePartition) -> None:
        w.int16(p.error).int32(p.index).int32(p.leader)
        if version >= 7:
            w.int32(0)  # LeaderEpoch 7+
        replicas = list(p.replicas or (p.leader,))
        w.array(replicas, Writer.int32)  # ReplicaNodes
        w.array(replicas, Writer.int32)  # IsrNodes
        if version >= 5:
            w.array([], Writer.int32)  # OfflineReplicas 5+
        w.tagged_fields()

    def topic(w: Writer, t: FakeTopic) -> None:
        w.int16(t.error).string(t.name)
        if version >= 10:
            w.buf += t.topic_id  # TopicId 10+
        w.boolean(t.internal)  # IsInternal 1+
        w.array(t.partitions, partition)
        if version >= 8:
            w.int32(-(2**31))  # TopicAuthorizedOperations 8+
        w.tagged_fields()

    writer.array(brokers, broker)
    if version >= 2:
        writer.nullable_string("fake-cluster")  # ClusterId 2+
    writer.int32(brokers[0][0])  # ControllerId 1+
    writer.array(topics, topic)
    if 8 <= version <= 10:
        writer.int32(-(2**31))  # ClusterAuthorizedOperations 8-10
    writer.tagged_fields()
    return writer.getvalue()


def read_list_offsets_request(body: bytes, version: int) -> tuple[int, list[tuple[str, int, int]]]:
    """(isolation level, [(topic, partition, timestamp)]) of a ListOffsetsRequest v1-v8."""
    reader = Reader(body, flexible=version >= 6)
    assert reader.int32() == -1  # ReplicaId: a consumer
    isolation = reader.int8() if version >= 2 else 0

    def topic(r: Reader) -> list[tuple[str, int, int]]:
        name = r.string()

        def partition(p: Reader) -> tuple[str, int, int]:
            index = p.int32()
            if version >= 4:
                assert p.int32() == -1  # CurrentLeaderEpoch
            timestamp = p.int64()
            p.tagged_fields()
            return name, index, timestamp

        found = r.array(partition)
        r.tagged_fields()
        return found

    items = [x for t in reader.array(topic) for x in t]
    reader.tagged_fields()
    reader.expect_end()
    return isolation, items


def list_offsets_body(version: int, answers: list[tuple[str, int, int, int, int]]) -> bytes:
    """A ListOffsetsResponse v1-v8 body from [(topic, partition, error, timestamp, offset)]."""
    writer = Writer(flexible=version >= 6)
    if version >= 2:
        writer.int32(0)  # ThrottleTimeMs 2+
    by_topic: dict[str, list[tuple[int, int, int, int]]] = {}
    for topic, partition, error, timestamp, offset in answers:
        by_topic.setdefault(topic, []).append((partition, error, timestamp, offset))

    def partition(w: Writer, item: tuple[int, int, int, int]) -> None:
        w.int32(item[0]).int16(item[1]).int64(item[2]).int64(item[3])
        if version >= 4:
            w.int32(0)  # LeaderEpoch 4+
        w.tagged_fields()

    def topic(w: Writer, item: tuple[str, list[tuple[int, int, int, int]]]) -> None:
        w.string(item[0]).array(item[1], partition).tagged_fields()

    writer.array(by_topic.items(), topic)
    writer.tagged_fields()
    return writer.getvalue()


@dataclass(frozen=True)
class FetchAsked:
    topic: str
    partition: int
    offset: int
    max_bytes: int


def read_fetch_request(body: bytes, version: int) -> tuple[int, int, list[FetchAsked]]:
    """(isolation level, max wait ms, partitions in request order) of a FetchRequest v4-v11,
    checking the consumer fields: ReplicaId -1, no fetch session, no leader epoch."""
    reader = Reader(body)
    assert reader.int32() == -1  # ReplicaId
    max_wait = reader.int32()  # MaxWaitMs
    reader.int32()  # MinBytes
    reader.int32()  # MaxBytes 3+
    isolation = reader.int8()  # IsolationLevel 4+
    if version >= 7:
        assert reader.int32() == 0  # SessionId
        assert reader.int32() == -1  # SessionEpoch

    def topic(r: Reader) -> list[FetchAsked]:
        name = r.string()

        def partition(p: Reader) -> FetchAsked:
            index = p.int32()
            if version >= 9:
                assert p.int32() == -1  # CurrentLeaderEpoch
            offset = p.int64()
            if version >= 5:
                assert p.int64() == -1  # LogStartOffset
            return FetchAsked(name, index, offset, p.int32())

        return r.array(partition)

    asked = [x for t in reader.array(topic) for x in t]
    if version >= 7:
        assert reader.array(lambda r: r.string()) == []  # Forgotten
    if version >= 11:
        reader.string()  # RackId
    reader.expect_end()
    return isolation, max_wait, asked


@dataclass(frozen=True)
class FetchAnswer:
    topic: str
    partition: int
    records: bytes = b""
    error: int = 0
    high_watermark: int = 0
    last_stable: int = -1
    log_start: int = 0
    aborted: tuple[tuple[int, int], ...] | None = None


def fetch_body(version: int, answers: list[FetchAnswer]) -> bytes:
    """A FetchResponse v4-v11 body, laid out from FetchResponse.json."""
    writer = Writer()
    writer.int32(0)  # ThrottleTimeMs 1+
    if version >= 7:
        writer.int16(0).int32(0)  # ErrorCode 7+, SessionId 7+
    by_topic: dict[str, list[FetchAnswer]] = {}
    for answer in answers:
        by_topic.setdefault(answer.topic, []).append(answer)

    def partition(w: Writer, a: FetchAnswer) -> None:
        w.int32(a.partition).int16(a.error).int64(a.high_watermark).int64(a.last_stable)
        if version >= 5:
            w.int64(a.log_start)
        w.nullable_array(a.aborted, lambda w2, t: w2.int64(t[0]).int64(t[1]))
        if version >= 11:
            w.int32(-1)  # PreferredReadReplica
        w.nullable_bytes(a.records)

    writer.array(by_topic.items(), lambda w, item: w.string(item[0]).array(item[1], partition))
    return writer.getvalue()
