"""WireClient: batched group requests (list, find coordinators, describe, committed offsets),
topic metadata and ListOffsets.

Why it exists: librdkafka sends one DescribeGroups request per group, takes one group per
ListConsumerGroupOffsets call, and describes through ConsumerGroupDescribe where a broker offers
it. Kafka's own requests batch: FindCoordinator v4 takes many keys (KIP-699), DescribeGroups
always took many groups, OffsetFetch v8 takes many groups (KIP-709). So the number of requests
here grows with coordinators and batches (up to `BATCH_SIZE` groups each), never with groups.
Metadata (all topics, never by name) and ListOffsets (one request per partition leader and
query, as KafkaAdminClient.listOffsets does) let `describe` run without loading librdkafka.

Message layouts: the Kafka JSON message specs (see `kgroup.core.wire.messages`). Behaviour
follows the Java admin client where it matters (KafkaAdminClient, CoordinatorStrategy,
DescribeConsumerGroupsHandler, ListConsumerGroupOffsetsHandler): retriable coordinator errors
are retried once after a short backoff, with the coordinator looked up again; ListOffsets
partition errors that mean a moved leader are retried once after a metadata refresh.

Errors: every failure is a KgroupError. Per-group failures are returned in place of the group's
result and carry `kafka_error` (Kafka's error name, e.g. "GROUP_AUTHORIZATION_FAILED") as an
attribute; a broker that cannot be reached raises UnreachableError naming its address.
"""

from __future__ import annotations

import base64
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import (
    AuthorizationError,
    ConfigError,
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    GroupListing,
    MemberDescription,
    NextRecord,
    OffsetAtTime,
    TopicMetadata,
    TopicPartition,
)
from kgroup.core.wire import messages as m
from kgroup.core.wire.codec import ProtocolError
from kgroup.core.wire.connection import (
    SECURITY_PROTOCOLS,
    BrokerConnection,
    BrokerTimeout,
    ConnectionLost,
    build_ssl_context,
    security_from_properties,
)
from kgroup.core.wire.sasl import MECHANISMS

T = TypeVar("T")

BATCH_SIZE = 1000
# next_records: at most this many rounds (besides the timeout). A round is needed per group of
# a partition's offsets within one fetch (64 KiB) of each other, so only groups spread over a
# whole log come near it; what is left is unknown, as after the timeout.
MAX_FETCH_ROUNDS = 1000
RETRY_BACKOFF_S = 0.2
MAX_THREADS = 8
DEFAULT_CLIENT_ID = "kgroup"

# librdkafka properties this client implements.
_IMPLEMENTED = {
    "security.protocol",
    "sasl.mechanisms",
    "sasl.mechanism",
    "sasl.username",
    "sasl.password",
    "client.id",
}
_IMPLEMENTED_SSL = {
    "ssl.ca.location",
    "ssl.ca.pem",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.key.password",
    "ssl.endpoint.identification.algorithm",
    "enable.ssl.certificate.verification",
    "ssl.cipher.suites",
}
# Properties that change nothing about how these requests connect or what they return
# (tuning, logging, retries, metadata caching; the deadline is ClusterConfig.timeout_s).
_NO_EFFECT = {
    "client.rack",
    "socket.timeout.ms",
    "socket.connection.setup.timeout.ms",
    "retry.backoff.ms",
    "retry.backoff.max.ms",
    "reconnect.backoff.ms",
    "reconnect.backoff.max.ms",
    "connections.max.idle.ms",
    "topic.metadata.refresh.interval.ms",
    "metadata.max.age.ms",
    "debug",
    "log_level",
    "log.connection.close",
    "api.version.request",
    "api.version.request.timeout.ms",
    "socket.keepalive.enable",
    "socket.nagle.disable",
    "socket.send.buffer.bytes",
    "socket.receive.buffer.bytes",
    "statistics.interval.ms",
    "allow.auto.create.topics",
}
# Properties accepted only with these values (the behaviour this client has).
_ONLY_VALUES = {
    "client.dns.lookup": {"use_all_dns_ips"},
    "broker.address.family": {"any"},
}


def _tag(error: KgroupError, kafka_error: str) -> KgroupError:
    """Attach Kafka's error name to an error returned for one group."""
    error.kafka_error = kafka_error  # type: ignore[attr-defined]
    return error


def unreachable_cluster(
    bootstrap: str, timeout_s: float, failures: Sequence[UnreachableError]
) -> UnreachableError:
    """One error for a cluster none of whose bootstrap servers could be used: what happened to
    each; "did not answer within" and the --timeout hint only when one of them timed out (a
    refused connection or an unknown host fails at once, and waiting longer would not help)."""
    reasons = "; ".join(f.message for f in failures)
    if any(isinstance(f, BrokerTimeout) for f in failures):
        return UnreachableError(
            f"cluster {bootstrap} did not answer within {timeout_s:g} s ({reasons})",
            hint="check -b/--bootstrap-server, the network and the security settings, or raise "
            "--timeout",
        )
    hint = failures[0].hint if len(failures) == 1 else None
    return UnreachableError(
        f"cannot reach cluster {bootstrap}: {reasons}",
        hint=hint or "check -b/--bootstrap-server and that the brokers are running",
    )


def kafka_error_of(error: BaseException) -> str | None:
    """Kafka's error name carried by an error the WireClient returned, if any."""
    return getattr(error, "kafka_error", None)


def group_error(
    code: int, group_id: str, operation: str, message: str | None = None
) -> KgroupError:
    """The KgroupError for a group-level Kafka error code."""
    name = m.error_name(code)
    detail = f": {message}" if message else ""
    if code == m.GROUP_AUTHORIZATION_FAILED:
        error: KgroupError = AuthorizationError(
            f"not authorized to {operation} of group {group_id} ({name})",
            hint=f"ask for an ACL granting Describe on Group:{group_id}",
        )
    elif code == m.TOPIC_AUTHORIZATION_FAILED:
        error = AuthorizationError(
            f"not authorized to {operation} of group {group_id} ({name})",
            hint="ask for an ACL granting Describe on the group's topics",
        )
    elif code == m.CLUSTER_AUTHORIZATION_FAILED:
        error = AuthorizationError(
            f"not authorized to {operation} of group {group_id} ({name})",
            hint="ask for an ACL granting Describe on Cluster:kafka-cluster",
        )
    elif code == m.GROUP_ID_NOT_FOUND:
        error = NotFoundError(
            f"group {group_id} does not exist ({name})",
            hint="check the name with `kgroup list`",
        )
    else:
        error = KafkaOperationError(f"cannot {operation} of group {group_id}: {name}{detail}")
    return _tag(error, name)


def partition_error(code: int, group_id: str, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level OffsetFetch error code."""
    name = m.error_name(code)
    if code == m.TOPIC_AUTHORIZATION_FAILED:
        error: KgroupError = AuthorizationError(
            f"not authorized to fetch the committed offset of group {group_id} for {tp} ({name})",
            hint=f"ask for an ACL granting Describe on Topic:{tp.topic}",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(
            f"group {group_id} has an offset for {tp}, which does not exist ({name})",
            hint="check the topic list",
        )
    else:
        error = KafkaOperationError(
            f"cannot fetch the committed offset of group {group_id} for {tp}: {name}"
        )
    return _tag(error, name)


def offsets_error(code: int, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level ListOffsets (or Metadata) error code."""
    name = m.error_name(code)
    if code == m.TOPIC_AUTHORIZATION_FAILED:
        error: KgroupError = AuthorizationError(
            f"not authorized to list offsets of {tp} ({name})",
            hint=f"ask for an ACL granting Describe on Topic:{tp.topic}",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(
            f"cannot list offsets of {tp}: no such topic or partition ({name})",
            hint="check the name with `kgroup list` or the topic list",
        )
    else:
        error = KafkaOperationError(f"failed to list offsets of {tp}: {name}")
    return _tag(error, name)


def fetch_error(code: int, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level Fetch (or Metadata) error code."""
    name = m.error_name(code)
    if code == m.TOPIC_AUTHORIZATION_FAILED:
        error: KgroupError = AuthorizationError(
            f"not authorized to read a record of {tp} ({name})",
            hint=f"ask for an ACL granting Read on Topic:{tp.topic}",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(
            f"cannot read a record of {tp}: no such topic or partition ({name})",
            hint="check the name with `kgroup list` or the topic list",
        )
    else:
        error = KafkaOperationError(f"failed to read a record of {tp}: {name}")
    return _tag(error, name)


def _settle(
    answer: m.FetchedPartition,
    keys: Sequence[tuple[TopicPartition, int]],
    pending: dict[tuple[TopicPartition, int], int],
    result: dict[tuple[TopicPartition, int], NextRecord],
    read_committed: bool,
) -> bool:
    """Answer the pending positions of one partition from its fetched data: a record or
    nothing goes to `result`, a position the data ended before moves on in `pending`. True when
    the data held no whole batch at a position (a batch larger than the byte limit)."""
    # the record batch reader is imported when records are read (not by describe without it)
    from kgroup.core.wire.first_record import FetchedData, Found, Nothing, ReadFrom
    from kgroup.offsets.records import BatchError

    end = answer.high_watermark
    if read_committed and answer.last_stable_offset >= 0:
        end = answer.last_stable_offset  # a read_committed consumer reads up to the LSO
    tp = TopicPartition(answer.topic, answer.partition)
    try:
        data = FetchedData(
            answer.records, end=end, read_committed=read_committed, aborted=answer.aborted
        )
        outcomes = [(key, data.first_at(pending[key])) for key in keys]
    except BatchError as exc:
        raise KafkaOperationError(
            f"cannot read the records the broker sent for {tp}: {exc.reason}",
            hint="kgroup reads magic 0-2 batches, uncompressed, gzip, snappy, lz4 or zstd; "
            "check the topic's compression.type",
        ) from None
    too_large = False
    for key, outcome in outcomes:
        if isinstance(outcome, Found):
            result[key] = NextRecord(consumable=True, timestamp=outcome.timestamp)
            del pending[key]
        elif isinstance(outcome, Nothing):
            result[key] = NextRecord(consumable=False)
            del pending[key]
        elif isinstance(outcome, ReadFrom):
            pending[key] = outcome.offset
        else:
            too_large = True
    return too_large


def config_error(code: int, topic: str, message: str | None = None) -> KgroupError:
    """The KgroupError for a DescribeConfigs error code of a topic resource."""
    name = m.error_name(code)
    detail = f": {message}" if message else ""
    if code == m.TOPIC_AUTHORIZATION_FAILED:
        error: KgroupError = AuthorizationError(
            f"not authorized to describe the configuration of topic {topic} ({name})",
            hint=f"ask for an ACL granting DescribeConfigs on Topic:{topic}",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(f"topic {topic} does not exist ({name})")
    else:
        error = KafkaOperationError(
            f"cannot describe the configuration of topic {topic}: {name}{detail}"
        )
    return _tag(error, name)


def topic_id_text(raw: bytes | None) -> str | None:
    """Kafka's printed form of a topic id (Uuid.toString: unpadded base64url of the 16 bytes);
    None for a missing or all-zero id (Uuid.ZERO_UUID: the broker has none)."""
    if raw is None or raw == bytes(16):
        return None
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _rack(node: BrokerNode | None) -> str | None:
    return node.rack if node is not None else None


@dataclass(frozen=True)
class OffsetQuery:
    """What to ask ListOffsets: a time in ms, EARLIEST (-2) or LATEST (-1), and whether to read
    the last stable offset (read_committed) instead of the log end."""

    timestamp: int
    read_committed: bool = False


EARLIEST = OffsetQuery(m.EARLIEST_TIMESTAMP)
LATEST = OffsetQuery(m.LATEST_TIMESTAMP)
LAST_STABLE = OffsetQuery(m.LATEST_TIMESTAMP, read_committed=True)


@dataclass(frozen=True)
class ClusterMetadata:
    """One all-topics Metadata answer: brokers by id, topics by name, partitions."""

    brokers: dict[int, BrokerNode]
    topics: dict[str, m.MetadataTopic]
    partitions: dict[TopicPartition, m.MetadataPartition]

    def leader_of(self, tp: TopicPartition) -> tuple[BrokerNode | None, int]:
        """The partition's leader, or None and the error code saying why there is none."""
        topic = self.topics.get(tp.topic)
        if topic is None:
            return None, m.UNKNOWN_TOPIC_OR_PARTITION
        partition = self.partitions.get(tp)
        if partition is None:
            if topic.error_code != m.NONE:
                return None, topic.error_code
            return None, m.UNKNOWN_TOPIC_OR_PARTITION
        leader = self.brokers.get(partition.leader_id) if partition.leader_id >= 0 else None
        if leader is None:
            code = partition.error_code
            return None, code if code != m.NONE else m.LEADER_NOT_AVAILABLE
        return leader, m.NONE


@dataclass(frozen=True)
class _Retry:
    """A retriable per-group failure: retried once, then reported as `error`."""

    error: KgroupError


_Outcomes = dict[str, T | KgroupError | _Retry]


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class WireClient:
    """Batched group requests over plain sockets; see the module docstring."""

    def __init__(self, config: ClusterConfig) -> None:
        ok, reason = self.supports(config)
        if not ok:
            raise ConfigError(f"the wire client cannot use this configuration: {reason}")
        self.config = config
        self.timeout_s = config.timeout_s
        self.security = security_from_properties(config.properties)
        self.client_id = config.properties.get("client.id") or DEFAULT_CLIENT_ID
        self.ssl_context = (
            build_ssl_context(self.security, config.origin_of) if self.security.uses_tls else None
        )
        self.request_counts: Counter[str] = Counter()
        self.retry_backoff_s = RETRY_BACKOFF_S
        self.batch_size = BATCH_SIZE
        self._count_lock = threading.Lock()
        self._pool_lock = threading.Lock()
        self._connections: dict[tuple[str, int], BrokerConnection] = {}
        self._brokers: dict[int, BrokerNode] | None = None
        self._metadata: ClusterMetadata | None = None
        # Coordinators found earlier by this client: describe then fetch offsets of the same
        # groups costs one FindCoordinator round. Dropped for a group on a retriable error.
        self._coordinators: dict[str, BrokerNode] = {}

    # -- configuration ---------------------------------------------------------------------------

    @staticmethod
    def supports(config: ClusterConfig) -> tuple[bool, str]:
        """Whether this client can connect as librdkafka would with `config`, and why not."""
        props = config.properties
        protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
        if protocol not in SECURITY_PROTOCOLS:
            return False, f"security.protocol={protocol} is not one of {SECURITY_PROTOCOLS}"
        uses_sasl = protocol.startswith("SASL_")
        uses_tls = protocol in ("SSL", "SASL_SSL")
        if uses_sasl:
            mechanism = props.get("sasl.mechanisms", props.get("sasl.mechanism", "GSSAPI"))
            mechanism = mechanism.strip().upper()
            if mechanism not in MECHANISMS:
                return (
                    False,
                    f"SASL mechanism {mechanism} is not implemented (only {', '.join(MECHANISMS)})",
                )
            if not props.get("sasl.username") or "sasl.password" not in props:
                return False, "SASL needs sasl.username and sasl.password"
        if uses_tls:
            algorithm = props.get("ssl.endpoint.identification.algorithm", "https").lower()
            if algorithm not in ("https", "none"):
                return False, f"ssl.endpoint.identification.algorithm={algorithm} is unknown"
        for key, value in props.items():
            if key in _IMPLEMENTED or key in _NO_EFFECT:
                continue
            if key in _ONLY_VALUES:
                if value.strip().lower() not in _ONLY_VALUES[key]:
                    return False, f"{key}={value} is not implemented"
                continue
            if key.startswith("ssl.") or key == "enable.ssl.certificate.verification":
                if not uses_tls:
                    continue  # librdkafka ignores TLS settings on a plaintext listener too
                if key in _IMPLEMENTED_SSL:
                    continue
                return (
                    False,
                    f"{key} is not implemented (e.g. PKCS12 keystores, in-memory PEM keys, CRLs)",
                )
            if key.startswith(("sasl.kerberos.", "sasl.oauthbearer.")):
                continue  # settings of mechanisms not in use
            return False, f"property {key} is not implemented by the wire client"
        return True, ""

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._pool_lock:
            connections = list(self._connections.values())
            self._connections.clear()
        for connection in connections:
            connection.close()

    # -- connections -----------------------------------------------------------------------------

    def _count(self, api_name: str) -> None:
        with self._count_lock:
            self.request_counts[api_name] += 1

    def _new_connection(self, host: str, port: int) -> BrokerConnection:
        return BrokerConnection(
            host,
            port,
            security=self.security,
            ssl_context=self.ssl_context,
            client_id=self.client_id,
            timeout_s=self.timeout_s,
            on_request=self._count,
        )

    def _connection(self, host: str, port: int, deadline: float | None = None) -> BrokerConnection:
        key = (host, port)
        with self._pool_lock:
            existing = self._connections.get(key)
        if existing is not None and existing.is_open:
            return existing
        connection = self._new_connection(host, port).open(deadline)
        with self._pool_lock:
            current = self._connections.get(key)
            if current is not None and current.is_open:
                connection.close()
                return current
            self._connections[key] = connection
        return connection

    def _bootstrap_servers(self) -> list[tuple[str, int]]:
        servers = []
        for item in self.config.bootstrap_servers.split(","):
            host, _, port = item.strip().rpartition(":")
            servers.append((host.strip("[]"), int(port)))
        return servers

    def _any_connection(self) -> BrokerConnection:
        """A connection to a bootstrap server (or any open one); tries each within the deadline."""
        with self._pool_lock:
            for connection in self._connections.values():
                if connection.is_open:
                    return connection
        servers = self._bootstrap_servers()
        deadline = time.monotonic() + self.timeout_s
        failures: list[UnreachableError] = []
        for index, (host, port) in enumerate(servers):
            share = (deadline - time.monotonic()) / (len(servers) - index)
            try:
                return self._connection(host, port, time.monotonic() + max(share, 0.001))
            except UnreachableError as exc:
                failures.append(exc)
        raise unreachable_cluster(self.config.bootstrap_servers, self.timeout_s, failures)

    def _on_broker(self, host: str, port: int, work: Callable[[BrokerConnection], T]) -> T:
        """Run `work` on the broker's connection; once more on a fresh one if it was dropped."""
        for attempt in (1, 2):
            connection = self._connection(host, port)
            try:
                return work(connection)
            except ConnectionLost:
                with self._pool_lock:
                    if self._connections.get((host, port)) is connection:
                        del self._connections[(host, port)]
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _on_any(self, work: Callable[[BrokerConnection], T]) -> T:
        connection = self._any_connection()
        return self._on_broker(connection.host, connection.port, work)

    def _parallel(self, tasks: dict[BrokerNode, Callable[[], T]]) -> dict[BrokerNode, T]:
        """Run one task per broker, in threads when there are several; first error re-raised."""
        if len(tasks) <= 1:
            return {node: task() for node, task in tasks.items()}
        with ThreadPoolExecutor(max_workers=min(len(tasks), MAX_THREADS)) as pool:
            futures = {node: pool.submit(task) for node, task in tasks.items()}
            outcomes: dict[BrokerNode, T] = {}
            first_error: BaseException | None = None
            for node, future in futures.items():
                try:
                    outcomes[node] = future.result()
                except BaseException as exc:
                    first_error = first_error or exc
        if first_error is not None:
            raise first_error
        return outcomes

    def api_versions(self) -> dict[int, tuple[int, int]]:
        """API key -> (lowest, highest) version a bootstrap broker offers (ApiVersions)."""
        return dict(self._on_any(lambda connection: connection.versions))

    @staticmethod
    def _version(connection: BrokerConnection, api: m.Api) -> int:
        version = connection.version_for(api)
        if version is None:
            offered = connection.versions.get(api.key)
            span = f"versions {offered[0]}-{offered[1]}" if offered else "no version"
            raise KafkaOperationError(
                f"broker {connection.address} offers {span} of {api.name}; kgroup speaks "
                f"{min(api.versions)}-{max(api.versions)}",
                hint="use a broker of Kafka 0.11 or later",
            )
        return version

    # -- cluster ---------------------------------------------------------------------------------

    def _fetch_metadata(self, all_topics: bool) -> m.MetadataResult:
        def work(connection: BrokerConnection) -> m.MetadataResult:
            version = self._version(connection, m.METADATA)
            request = m.encode_metadata_request(version, all_topics=all_topics)
            body = connection.call(m.METADATA, version, request)
            return m.decode_metadata_response(body, version)

        result = self._on_any(work)
        self._brokers = {
            b.node_id: BrokerNode(b.node_id, b.host, b.port, b.rack) for b in result.brokers
        }
        return result

    def brokers(self) -> list[BrokerNode]:
        """The brokers the cluster advertises (one Metadata request for no topics)."""
        self._fetch_metadata(all_topics=False)
        assert self._brokers is not None
        return sorted(self._brokers.values(), key=lambda node: node.id)

    def metadata(self, refresh: bool = False) -> ClusterMetadata:
        """Brokers and every topic (one Metadata request for all topics), kept for reuse.

        Topics are never asked for by name (a broker may auto-create a name it is asked for);
        the answer is kept, so listing offsets after this costs no second Metadata request
        unless a leader moved (`refresh=True` asks again).
        """
        if self._metadata is None or refresh:
            result = self._fetch_metadata(all_topics=True)
            assert self._brokers is not None
            topics = {t.name: t for t in result.topics if t.name is not None}
            partitions = {
                TopicPartition(t.name, p.partition): p
                for t in result.topics
                if t.name is not None
                for p in t.partitions
            }
            self._metadata = ClusterMetadata(dict(self._brokers), topics, partitions)
        return self._metadata

    def topics(self) -> dict[str, TopicMetadata]:
        """Every topic the cluster reports without an error (internal ones too), with partition
        counts, topic ids (Metadata v10+) and the racks of each partition's replicas.

        Always asks the cluster (a topic created a moment ago is there); `list_offsets` then
        reuses this answer for the partition leaders.
        """
        cluster = self.metadata(refresh=True)
        result: dict[str, TopicMetadata] = {}
        for name, topic in sorted(cluster.topics.items()):
            if topic.error_code != m.NONE:
                continue
            partitions = sorted(topic.partitions, key=lambda p: p.partition)
            racks = tuple(
                tuple(
                    sorted(
                        {
                            rack
                            for replica in p.replicas
                            if (rack := _rack(cluster.brokers.get(replica))) is not None
                        }
                    )
                )
                for p in partitions
            )
            result[name] = TopicMetadata(
                name=name,
                partitions=len(partitions),
                topic_id=topic_id_text(topic.topic_id),
                replica_racks=racks,
            )
        return result

    # -- ListOffsets -----------------------------------------------------------------------------

    def list_offsets(
        self, partitions: Iterable[TopicPartition], queries: Sequence[OffsetQuery]
    ) -> list[dict[TopicPartition, OffsetAtTime]]:
        """The offset of every partition for each query, in the order of `queries`.

        One ListOffsets request per partition leader and query, pipelined on the leader's
        connection, leaders in parallel; leaders come from `metadata()`. A partition whose
        leader moved or is being elected (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, ...) is
        asked once more after a metadata refresh. Any other partition error raises: unknown
        partition -> NotFoundError, TOPIC_AUTHORIZATION_FAILED -> AuthorizationError.
        The offsets are the broker's answers as they are (-1 where it has none).
        """
        wanted = sorted(set(partitions))
        results: list[dict[TopicPartition, OffsetAtTime]] = [{} for _ in queries]
        todo = [(index, tp) for index in range(len(queries)) for tp in wanted]
        for attempt in (1, 2):
            if not todo:
                break
            fetched = self._metadata is None or attempt == 2
            cluster = self.metadata(refresh=attempt == 2)
            retry: list[tuple[int, TopicPartition]] = []
            plan: dict[BrokerNode, dict[int, list[TopicPartition]]] = {}
            for index, tp in todo:
                leader, code = cluster.leader_of(tp)
                if leader is not None:
                    plan.setdefault(leader, {}).setdefault(index, []).append(tp)
                elif attempt == 1 and (
                    code in m.RETRIABLE_LEADER_ERRORS
                    or (code == m.UNKNOWN_TOPIC_OR_PARTITION and not fetched)
                ):
                    retry.append((index, tp))
                else:
                    raise offsets_error(code, tp)

            def task(
                node: BrokerNode, asked: dict[int, list[TopicPartition]]
            ) -> Callable[[], dict[tuple[int, TopicPartition], m.ListedOffset]]:
                return lambda: self._on_broker(
                    node.host, node.port, lambda conn: self._list_offsets_on(conn, queries, asked)
                )

            answers = self._parallel({node: task(node, asked) for node, asked in plan.items()})
            for node, asked in plan.items():
                for index, tps in sorted(asked.items()):
                    for tp in tps:
                        answer = answers[node].get((index, tp))
                        if answer is None:
                            raise KafkaOperationError(
                                f"broker {node.host}:{node.port} did not return the offset of {tp}"
                            )
                        if answer.error_code == m.NONE:
                            results[index][tp] = OffsetAtTime(
                                offset=answer.offset,
                                timestamp=answer.timestamp if answer.timestamp >= 0 else None,
                            )
                        elif attempt == 1 and answer.error_code in m.RETRIABLE_LEADER_ERRORS:
                            retry.append((index, tp))
                        else:
                            raise offsets_error(answer.error_code, tp)
            todo = retry
            if todo and attempt == 1:
                time.sleep(self.retry_backoff_s)
        return results

    def _list_offsets_on(
        self,
        connection: BrokerConnection,
        queries: Sequence[OffsetQuery],
        asked: dict[int, list[TopicPartition]],
    ) -> dict[tuple[int, TopicPartition], m.ListedOffset]:
        version = self._version(connection, m.LIST_OFFSETS)
        order = sorted(asked)
        requests = []
        for index in order:
            query = queries[index]
            if query.read_committed and version < 2:
                raise KafkaOperationError(
                    f"broker {connection.address} offers ListOffsets v1 only, which cannot "
                    "read the last stable offset (read_committed needs v2)",
                    hint="use a broker of Kafka 0.11 or later",
                )
            by_topic: dict[str, list[tuple[int, int]]] = {}
            for tp in asked[index]:
                by_topic.setdefault(tp.topic, []).append((tp.partition, query.timestamp))
            isolation = m.READ_COMMITTED if query.read_committed else m.READ_UNCOMMITTED
            body = m.encode_list_offsets_request(version, list(by_topic.items()), isolation)
            requests.append((m.LIST_OFFSETS, version, body))
        bodies = connection.pipeline(requests)
        found: dict[tuple[int, TopicPartition], m.ListedOffset] = {}
        for index, body in zip(order, bodies, strict=True):
            for answer in m.decode_list_offsets_response(body, version):
                found[(index, TopicPartition(answer.topic, answer.partition))] = answer
        return found

    # -- Fetch: the first record a consumer would get ------------------------------------------

    def next_records(
        self,
        positions: Iterable[tuple[TopicPartition, int]],
        *,
        read_committed: bool = False,
        max_bytes_per_partition: int = 65536,
    ) -> dict[tuple[TopicPartition, int], NextRecord]:
        """What a consumer of each (partition, offset) would get next (see
        `GroupAdmin.next_records` for the rules), with Fetch requests.

        Each round sends every partition once, from its lowest pending offset, in one request
        per leader (chunked at fetch.max.bytes worth of partitions), leaders in parallel; the
        data answers every pending offset of the partition it covers, so rounds grow with how
        far apart a partition's offsets are, not with how many groups sit on them. A partition
        whose first batch is larger than the byte limit is fetched alone next round (KIP-74:
        the first partition of a response gets one whole batch); OFFSET_OUT_OF_RANGE moves a
        position below the log start to the log start (auto.offset.reset=earliest); a moved
        leader is looked up again. What stays unanswered after the timeout is left out.
        """
        pending: dict[tuple[TopicPartition, int], int] = {}
        for tp, offset in positions:
            pending[(tp, offset)] = offset
        result: dict[tuple[TopicPartition, int], NextRecord] = {}
        deadline = time.monotonic() + self.timeout_s
        alone: set[TopicPartition] = set()
        tried_alone: set[TopicPartition] = set()
        refresh = False
        leader_retries = 0
        rounds = 0
        while pending and rounds < MAX_FETCH_ROUNDS and time.monotonic() < deadline:
            rounds += 1
            fresh = self._metadata is None or refresh
            cluster = self.metadata(refresh=refresh)
            refresh = False
            keys_of: dict[TopicPartition, list[tuple[TopicPartition, int]]] = {}
            for key in pending:
                keys_of.setdefault(key[0], []).append(key)
            start = {tp: min(pending[key] for key in keys) for tp, keys in keys_of.items()}
            plan: dict[BrokerNode, list[TopicPartition]] = {}
            for tp in sorted(start):
                leader, code = cluster.leader_of(tp)
                if leader is not None:
                    plan.setdefault(leader, []).append(tp)
                elif leader_retries < 2 and (
                    code in m.RETRIABLE_LEADER_ERRORS
                    or (code == m.UNKNOWN_TOPIC_OR_PARTITION and not fresh)
                ):
                    refresh = True  # a moved leader, or a topic newer than the metadata
                else:
                    raise fetch_error(code, tp)

            def task(
                node: BrokerNode, asked: list[m.FetchPosition], solo: set[TopicPartition]
            ) -> Callable[[], dict[TopicPartition, m.FetchedPartition]]:
                return lambda: self._on_broker(
                    node.host,
                    node.port,
                    lambda conn: self._fetch_records_on(conn, asked, solo, read_committed),
                )

            tried_alone |= alone
            tasks = {
                node: task(
                    node,
                    [
                        m.FetchPosition(tp.topic, tp.partition, start[tp], max_bytes_per_partition)
                        for tp in tps
                    ],
                    alone & set(tps),
                )
                for node, tps in plan.items()
            }
            answers = self._parallel(tasks)
            alone = set()
            out_of_range: list[TopicPartition] = []
            for node, tps in plan.items():
                for tp in tps:
                    answer = answers[node].get(tp)
                    if answer is None:
                        continue  # left out of the response: asked again next round
                    if answer.error_code == m.OFFSET_OUT_OF_RANGE:
                        out_of_range.append(tp)
                    elif answer.error_code in m.RETRIABLE_LEADER_ERRORS and leader_retries < 2:
                        refresh = True
                    elif answer.error_code != m.NONE:
                        raise fetch_error(answer.error_code, tp)
                    elif _settle(answer, keys_of[tp], pending, result, read_committed):
                        if tp in tried_alone:  # even alone, no whole batch: unknown
                            for key in keys_of[tp]:
                                pending.pop(key, None)
                        else:
                            alone.add(tp)
            if refresh:
                leader_retries += 1
                time.sleep(self.retry_backoff_s)
            if out_of_range:
                self._reset_to_log_start(out_of_range, start, pending)
        return result

    def _reset_to_log_start(
        self,
        partitions: list[TopicPartition],
        start: Mapping[TopicPartition, int],
        pending: dict[tuple[TopicPartition, int], int],
    ) -> None:
        """OFFSET_OUT_OF_RANGE: move the positions of `partitions` that cannot be read to the
        log start, as a consumer with auto.offset.reset=earliest does (records deleted)."""
        log_start = self.list_offsets(partitions, [EARLIEST])[0]
        for key, offset in pending.items():
            tp = key[0]
            if tp not in log_start:
                continue
            first = log_start[tp].offset
            if offset < first or offset == start[tp]:
                pending[key] = first

    def _fetch_records_on(
        self,
        connection: BrokerConnection,
        positions: list[m.FetchPosition],
        alone: set[TopicPartition],
        read_committed: bool,
    ) -> dict[TopicPartition, m.FetchedPartition]:
        """Fetch `positions` from one leader: those in `alone` one per request, the others
        sharing requests of at most fetch.max.bytes worth of partitions, all pipelined."""
        version = self._version(connection, m.FETCH)
        isolation = m.READ_COMMITTED if read_committed else m.READ_UNCOMMITTED
        solo = [p for p in positions if TopicPartition(p.topic, p.partition) in alone]
        shared = [p for p in positions if TopicPartition(p.topic, p.partition) not in alone]
        per_request = max(
            1, m.FETCH_MAX_BYTES // max(1, max((p.max_bytes for p in shared), default=1))
        )
        groups = [[p] for p in solo] + [
            shared[i : i + per_request] for i in range(0, len(shared), per_request)
        ]
        requests = [
            (m.FETCH, version, m.encode_fetch_request(version, group, isolation_level=isolation))
            for group in groups
        ]
        found: dict[TopicPartition, m.FetchedPartition] = {}
        for body in connection.pipeline(requests):
            code, partitions = m.decode_fetch_response(body, version)
            if code != m.NONE:
                raise KafkaOperationError(
                    f"broker {connection.address} refused a Fetch request: {m.error_name(code)}"
                )
            for answer in partitions:
                found[TopicPartition(answer.topic, answer.partition)] = answer
        return found

    # -- ListGroups ------------------------------------------------------------------------------

    def list_groups(
        self, states: set[str] | None = None, types: set[str] | None = None
    ) -> list[GroupListing]:
        """Every group of every broker (ListGroups to each), sorted by group id.

        Filters go to the broker where its version has them (states v4+, types v5+). Types are
        also applied here (before v5 every group is `classic`). A listing whose reported state
        is known and not in `states` is dropped here too; one whose state the broker does not
        report (before v4, or "Unknown") is kept: describe it to learn the state.
        """
        wanted_states = {s.lower() for s in states or ()}
        wanted_types = {t.lower() for t in types or ()}
        nodes = self.brokers()

        def on(node: BrokerNode) -> Callable[[], tuple[int, m.ListGroupsResult]]:
            return lambda: self._on_broker(node.host, node.port, list_on)

        def list_on(connection: BrokerConnection) -> tuple[int, m.ListGroupsResult]:
            version = self._version(connection, m.LIST_GROUPS)
            body = m.encode_list_groups_request(version, sorted(states or ()), sorted(wanted_types))
            for attempt in (1, 2):
                result = m.decode_list_groups_response(
                    connection.call(m.LIST_GROUPS, version, body), version
                )
                if (
                    result.error_code
                    in (m.COORDINATOR_LOAD_IN_PROGRESS, m.COORDINATOR_NOT_AVAILABLE)
                    and attempt == 1
                ):
                    time.sleep(self.retry_backoff_s)
                    continue
                break
            if result.error_code != m.NONE:
                name = m.error_name(result.error_code)
                if result.error_code == m.CLUSTER_AUTHORIZATION_FAILED:
                    raise _tag(
                        AuthorizationError(
                            f"not authorized to list groups on {connection.address} ({name})",
                            hint="ask for an ACL granting Describe on Cluster:kafka-cluster (or "
                            "Describe on the groups)",
                        ),
                        name,
                    )
                raise _tag(
                    KafkaOperationError(
                        f"broker {connection.address} failed to list groups: {name}"
                    ),
                    name,
                )
            return version, result

        answers = self._parallel({node: on(node) for node in nodes})
        listings: dict[str, GroupListing] = {}
        for node in nodes:
            version, result = answers[node]
            for group in result.groups:
                state = group.state if group.state else "Unknown"
                group_type = (group.type or "classic").lower() if version >= 5 else "classic"
                if wanted_types and group_type not in wanted_types:
                    continue
                if wanted_states and state != "Unknown" and state.lower() not in wanted_states:
                    continue
                listings.setdefault(
                    group.group_id,
                    GroupListing(
                        group_id=group.group_id,
                        state=state,
                        type=group_type,
                        protocol_type=group.protocol_type or None,  # "": none (models.py)
                    ),
                )
        return [listings[g] for g in sorted(listings)]

    # -- FindCoordinator -------------------------------------------------------------------------

    def find_coordinators(self, group_ids: Iterable[str]) -> dict[str, BrokerNode | KgroupError]:
        """Each group's coordinator; FindCoordinator v4 batches, v1-v3 one group per request.

        COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS are retried once after a
        short backoff; other errors are returned for the group.
        """
        todo = _unique(group_ids)
        results: dict[str, BrokerNode | KgroupError] = {}
        for attempt in (1, 2):
            if not todo:
                break
            found = self._on_any(lambda connection, keys=todo: self._find_on(connection, keys))
            retry = []
            for group_id in todo:
                answer = found.get(group_id)
                if answer is None:
                    results[group_id] = _tag(
                        KafkaOperationError(
                            f"the broker did not return the coordinator of group {group_id}"
                        ),
                        "MISSING",
                    )
                    continue
                if answer.error_code == m.NONE:
                    known = (self._brokers or {}).get(answer.node_id)
                    results[group_id] = BrokerNode(
                        answer.node_id, answer.host, answer.port, known.rack if known else None
                    )
                    continue
                if (
                    answer.error_code
                    in (m.COORDINATOR_NOT_AVAILABLE, m.COORDINATOR_LOAD_IN_PROGRESS)
                    and attempt == 1
                ):
                    retry.append(group_id)
                    continue
                results[group_id] = group_error(
                    answer.error_code, group_id, "find the coordinator", answer.error_message
                )
            todo = retry
            if todo:
                time.sleep(self.retry_backoff_s)
        for group_id, result in results.items():
            if isinstance(result, BrokerNode):
                self._coordinators[group_id] = result
        return {g: results[g] for g in _unique(group_ids)}

    def _find_on(
        self, connection: BrokerConnection, keys: Sequence[str]
    ) -> dict[str, m.CoordinatorResult]:
        version = self._version(connection, m.FIND_COORDINATOR)
        batches = _chunks(keys, self.batch_size) if version >= 4 else [[k] for k in keys]
        bodies = connection.pipeline(
            [
                (m.FIND_COORDINATOR, version, m.encode_find_coordinator_request(version, batch))
                for batch in batches
            ]
        )
        found: dict[str, m.CoordinatorResult] = {}
        for batch, body in zip(batches, bodies, strict=True):
            for answer in m.decode_find_coordinator_response(body, version, batch):
                found[answer.key] = answer
        return found

    # -- per-coordinator plumbing ----------------------------------------------------------------

    def _per_coordinator(
        self,
        group_ids: Iterable[str],
        work: Callable[
            [BrokerConnection, BrokerNode, list[str]], dict[str, T | KgroupError | _Retry]
        ],
    ) -> tuple[dict[str, T | KgroupError], dict[str, BrokerNode]]:
        """Find coordinators, run `work` once per coordinator (in parallel), retry once.

        Coordinators this client found before are reused. `work` returns per-group results;
        `_Retry` ones are retried once with their coordinator looked up again (NOT_COORDINATOR
        after a coordinator moved, LOAD_IN_PROGRESS, ...).
        """
        todo = _unique(group_ids)
        results: dict[str, T | KgroupError] = {}
        coordinators: dict[str, BrokerNode] = {}
        for attempt in (1, 2):
            if attempt == 2:
                for group_id in todo:
                    self._coordinators.pop(group_id, None)
            cached = {g: self._coordinators[g] for g in todo if g in self._coordinators}
            found: dict[str, BrokerNode | KgroupError] = dict(cached)
            missing = [g for g in todo if g not in cached]
            if missing:
                found.update(self.find_coordinators(missing))
            plan: dict[BrokerNode, list[str]] = {}
            for group_id in todo:
                node = found[group_id]
                if isinstance(node, KgroupError):
                    results[group_id] = node
                else:
                    coordinators[group_id] = node
                    plan.setdefault(node, []).append(group_id)

            def task(
                node: BrokerNode, groups: list[str]
            ) -> Callable[[], dict[str, T | KgroupError | _Retry]]:
                return lambda: self._on_broker(
                    node.host, node.port, lambda conn: work(conn, node, groups)
                )

            answers = self._parallel({node: task(node, groups) for node, groups in plan.items()})
            retry = []
            for node, groups in plan.items():
                answer = answers[node]
                for group_id in groups:
                    outcome = answer.get(group_id)
                    if outcome is None:
                        results[group_id] = _tag(
                            KafkaOperationError(
                                f"coordinator {node.host}:{node.port} did not return group "
                                f"{group_id}"
                            ),
                            "MISSING",
                        )
                    elif isinstance(outcome, _Retry):
                        if attempt == 1:
                            retry.append(group_id)
                        else:
                            results[group_id] = outcome.error
                    else:
                        results[group_id] = outcome
            if not retry:
                break
            time.sleep(self.retry_backoff_s)
            todo = retry
        return results, coordinators

    # -- ConsumerGroupDescribe (KIP-848) ---------------------------------------------------------

    def describe_consumer_groups(self, group_ids: Iterable[str]) -> dict[str, GroupDescription]:
        """Describe KIP-848 `consumer` groups: one ConsumerGroupDescribe per coordinator.

        Gives the group and assignment epochs, each member's epoch, subscription, rack, current
        and target assignment. A coordinator that does not speak the API answers for each group
        with an error (UNSUPPORTED_VERSION), as do groups that are not consumer groups
        (GROUP_ID_NOT_FOUND).
        """
        return self._describe_each(group_ids, self._consumer_describe_on, "consumer")

    def _consumer_describe_on(
        self, connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, GroupDescription | KgroupError | _Retry]:
        api = m.CONSUMER_GROUP_DESCRIBE
        version = connection.version_for(api)
        if version is None:
            unsupported = _tag(
                KafkaOperationError(
                    f"broker {connection.address} does not offer ConsumerGroupDescribe (KIP-848)"
                ),
                "UNSUPPORTED_VERSION",
            )
            return dict.fromkeys(groups, unsupported)
        bodies = connection.pipeline(
            [
                (api, version, m.encode_consumer_group_describe_request(version, batch))
                for batch in _chunks(groups, self.batch_size)
            ]
        )
        out: dict[str, GroupDescription | KgroupError | _Retry] = {}
        for body in bodies:
            for group in m.decode_consumer_group_describe_response(body, version):
                if group.error_code == m.NONE:
                    out[group.group_id] = to_consumer_group_description(group, node)
                    continue
                error = group_error(group.error_code, group.group_id, "describe")
                out[group.group_id] = (
                    _Retry(error) if group.error_code in m.RETRIABLE_COORDINATOR_ERRORS else error
                )
        return out

    # -- DescribeGroups --------------------------------------------------------------------------

    def describe_groups(self, group_ids: Iterable[str]) -> dict[str, GroupDescription]:
        """Describe groups: one DescribeGroups request per coordinator and batch.

        A group that fails carries `error` (one line) and `error_code` (Kafka's name) with state
        "Unknown". A group the broker reports as Dead (Kafka's answer for an unknown group
        before DescribeGroups v6) is returned as it is: the caller decides "not found".
        """
        return self._describe_each(group_ids, self._describe_on, "classic")

    def _describe_each(
        self,
        group_ids: Iterable[str],
        work: Callable[
            [BrokerConnection, BrokerNode, list[str]],
            dict[str, GroupDescription | KgroupError | _Retry],
        ],
        group_type: str,
    ) -> dict[str, GroupDescription]:
        """Run a describe request per coordinator; a failing group carries its error."""
        wanted = _unique(group_ids)
        if not wanted:
            return {}
        results, coordinators = self._per_coordinator(wanted, work)
        described: dict[str, GroupDescription] = {}
        for group_id in wanted:
            outcome = results[group_id]
            if isinstance(outcome, KgroupError):
                described[group_id] = GroupDescription(
                    group_id=group_id,
                    state="Unknown",
                    type=group_type,
                    coordinator=coordinators.get(group_id),
                    error=outcome.one_line(),
                    error_code=kafka_error_of(outcome),
                )
            else:
                assert isinstance(outcome, GroupDescription)
                described[group_id] = outcome
        return described

    def _describe_on(
        self, connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, GroupDescription | KgroupError | _Retry]:
        version = self._version(connection, m.DESCRIBE_GROUPS)
        batches = _chunks(groups, self.batch_size)
        bodies = connection.pipeline(
            [
                (m.DESCRIBE_GROUPS, version, m.encode_describe_groups_request(version, batch))
                for batch in batches
            ]
        )
        out: dict[str, GroupDescription | KgroupError | _Retry] = {}
        for body in bodies:
            for group in m.decode_describe_groups_response(body, version):
                if group.error_code == m.NONE:
                    out[group.group_id] = to_group_description(group, node)
                    continue
                error = group_error(group.error_code, group.group_id, "describe")
                out[group.group_id] = (
                    _Retry(error) if group.error_code in m.RETRIABLE_COORDINATOR_ERRORS else error
                )
        return out

    # -- OffsetFetch -----------------------------------------------------------------------------

    def committed_offsets(
        self, group_ids: Iterable[str]
    ) -> dict[str, dict[TopicPartition, CommittedOffset] | KgroupError]:
        """Each group's committed offsets (partitions without a commit are left out).

        OffsetFetch v8 carries all of a coordinator's groups (per batch) in one request; a broker
        without v8 gets one request per group (the highest of v2-v7), pipelined.
        """
        wanted = _unique(group_ids)
        if not wanted:
            return {}
        results, _ = self._per_coordinator(wanted, self._fetch_on)
        return {g: results[g] for g in wanted}  # type: ignore[misc]

    def commit_offsets(
        self, group_id: str, offsets: Mapping[TopicPartition, CommittedOffset]
    ) -> None:
        """Commit `offsets` for an empty group in one OffsetCommit request to its coordinator.

        An administrative commit (generation -1, no member), as Admin.alterConsumerGroupOffsets
        sends it. Retried once only on coordinator errors that mean nothing was written
        (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...); a lost answer is not retried.
        Raises the KgroupError of the first partition the coordinator refused.
        """
        rows = commit_rows(offsets)

        def work(
            connection: BrokerConnection, node: BrokerNode, groups: list[str]
        ) -> dict[str, bool | KgroupError | _Retry]:
            version = self._version(connection, m.OFFSET_COMMIT)
            (body,) = connection.pipeline(
                [
                    (
                        m.OFFSET_COMMIT,
                        version,
                        m.encode_offset_commit_request(version, group_id, rows),
                    )
                ]
            )
            for topic, partition, code in m.decode_offset_commit_response(body, version):
                if code != m.NONE:
                    error = commit_error(code, group_id, TopicPartition(topic, partition))
                    retriable = code in m.RETRIABLE_COORDINATOR_ERRORS
                    return {group_id: _Retry(error) if retriable else error}
            return {group_id: True}

        results, _ = self._per_coordinator([group_id], work)
        outcome = results[group_id]
        if isinstance(outcome, KgroupError):
            raise outcome

    # -- OffsetDelete (KIP-496) -----------------------------------------------------------------

    def delete_offsets(
        self, group_id: str, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, KgroupError | None]:
        """Delete the group's committed offsets of `partitions`: one OffsetDelete request to
        its coordinator, which decides as Kafka does (GroupCoordinator, KIP-496): an empty
        group loses them; an active consumer group loses those of topics it is not subscribed
        to and keeps the others (GROUP_SUBSCRIBED_TO_TOPIC per partition).

        Returns partition -> None (deleted) or the partition's KgroupError. Group-level errors
        are raised (GROUP_ID_NOT_FOUND -> NotFoundError, NON_EMPTY_GROUP -> SafetyRefusal, ...);
        coordinator errors are retried once with the coordinator looked up again, as
        Admin.deleteConsumerGroupOffsets does (DeleteConsumerGroupOffsetsHandler).
        """
        rows = [(tp.topic, tp.partition) for tp in sorted(set(partitions))]
        if not rows:
            return {}

        def work(
            connection: BrokerConnection, node: BrokerNode, groups: list[str]
        ) -> dict[str, m.OffsetDeleteResult | KgroupError | _Retry]:
            version = connection.version_for(m.OFFSET_DELETE)
            if version is None:
                return {
                    group_id: _tag(
                        KafkaOperationError(
                            f"broker {connection.address} does not offer OffsetDelete (KIP-496; "
                            "Kafka has it since 2.4), so it cannot delete committed offsets",
                            hint="kgroup reset-offsets can move the offsets instead",
                        ),
                        "UNSUPPORTED_VERSION",
                    )
                }
            request = m.encode_offset_delete_request(version, group_id, rows)
            result = m.decode_offset_delete_response(
                connection.call(m.OFFSET_DELETE, version, request), version
            )
            if result.error_code != m.NONE:
                error = offset_delete_error(result.error_code, group_id)
                retriable = result.error_code in m.RETRIABLE_COORDINATOR_ERRORS
                return {group_id: _Retry(error) if retriable else error}
            return {group_id: result}

        results, _ = self._per_coordinator([group_id], work)
        outcome = results[group_id]
        if isinstance(outcome, KgroupError):
            raise outcome
        assert isinstance(outcome, m.OffsetDeleteResult)
        answered = {TopicPartition(t, p): code for t, p, code in outcome.partitions}
        deleted: dict[TopicPartition, KgroupError | None] = {}
        for topic, partition in rows:
            tp = TopicPartition(topic, partition)
            code = answered.get(tp)
            if code is None:
                deleted[tp] = _tag(
                    KafkaOperationError(
                        f"the coordinator of group {group_id} did not answer for {tp}: whether "
                        "its offset was deleted is unknown",
                        hint=f"check with `kgroup describe {group_id}`",
                    ),
                    "MISSING",
                )
            else:
                deleted[tp] = None if code == m.NONE else offset_delete_error(code, group_id, tp)
        return deleted

    # -- DescribeConfigs ---------------------------------------------------------------------------

    def describe_topic_configs(
        self, topics: Iterable[str], keys: Sequence[str] | None = None
    ) -> dict[str, dict[str, str | None] | KgroupError]:
        """Configuration of each topic (only `keys` when given): one DescribeConfigs request to
        any broker, as Admin.describeConfigs sends topic resources (any broker answers for
        them). A topic that fails carries its KgroupError (TOPIC_AUTHORIZATION_FAILED ->
        AuthorizationError, UNKNOWN_TOPIC_OR_PARTITION -> NotFoundError)."""
        names = _unique(topics)
        if not names:
            return {}

        def work(connection: BrokerConnection) -> list[m.DescribedResource]:
            version = self._version(connection, m.DESCRIBE_CONFIGS)
            request = m.encode_describe_configs_request(
                version, [(m.RESOURCE_TOPIC, name, keys) for name in names]
            )
            body = connection.call(m.DESCRIBE_CONFIGS, version, request)
            return m.decode_describe_configs_response(body, version)

        answered = {r.resource_name: r for r in self._on_any(work)}
        out: dict[str, dict[str, str | None] | KgroupError] = {}
        for name in names:
            resource = answered.get(name)
            if resource is None:
                out[name] = KafkaOperationError(
                    f"the broker did not return the configuration of topic {name}"
                )
            elif resource.error_code != m.NONE:
                out[name] = config_error(resource.error_code, name, resource.error_message)
            else:
                out[name] = {c.name: c.value for c in resource.configs}
        return out

    def _fetch_on(
        self, connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, dict[TopicPartition, CommittedOffset] | KgroupError | _Retry]:
        version = self._version(connection, m.OFFSET_FETCH)
        batches = _chunks(groups, self.batch_size) if version >= 8 else [[g] for g in groups]
        bodies = connection.pipeline(
            [
                (m.OFFSET_FETCH, version, m.encode_offset_fetch_request(version, batch))
                for batch in batches
            ]
        )
        out: dict[str, dict[TopicPartition, CommittedOffset] | KgroupError | _Retry] = {}
        for batch, body in zip(batches, bodies, strict=True):
            for group in m.decode_offset_fetch_response(body, version, batch):
                out[group.group_id] = to_committed_offsets(group)
        return out


def commit_rows(
    offsets: Mapping[TopicPartition, CommittedOffset],
) -> list[tuple[str, int, int, int, str]]:
    """OffsetCommit rows (topic, partition, offset, leader epoch or -1, metadata), sorted."""
    return [
        (
            tp.topic,
            tp.partition,
            value.offset,
            value.leader_epoch if value.leader_epoch is not None else -1,
            value.metadata or "",
        )
        for tp, value in sorted(offsets.items())
    ]


def commit_error(code: int, group_id: str, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level OffsetCommit error code."""
    name = m.error_name(code)
    if code in (m.TOPIC_AUTHORIZATION_FAILED, m.GROUP_AUTHORIZATION_FAILED):
        error: KgroupError = AuthorizationError(
            f"not authorized to commit offsets for group {group_id} ({tp}: {name})",
            hint=f"ask for an ACL granting Read on Group:{group_id} and Read on its topics",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(
            f"cannot commit an offset of group {group_id} for {tp}: it does not exist ({name})",
            hint="check the topic list",
        )
    elif code in (m.UNKNOWN_MEMBER_ID, m.ILLEGAL_GENERATION, m.REBALANCE_IN_PROGRESS):
        error = SafetyRefusal(
            f"group {group_id} is not empty: the coordinator refused the commit ({name})",
            hint="stop the group's consumers first",
        )
    else:
        error = KafkaOperationError(f"cannot commit offsets of group {group_id} for {tp}: {name}")
    return _tag(error, name)


def offset_delete_error(code: int, group_id: str, tp: TopicPartition | None = None) -> KgroupError:
    """The KgroupError for an OffsetDelete error code, group-level or for partition `tp`.

    Kafka's coordinator answers GROUP_SUBSCRIBED_TO_TOPIC for a partition of a topic the active
    group consumes, NON_EMPTY_GROUP for an active group whose subscriptions it cannot read (not
    the consumer protocol), GROUP_ID_NOT_FOUND for a group it does not know. The operation needs
    Delete on the group and Read on each topic (KafkaApis.handleOffsetDeleteRequest).
    """
    name = m.error_name(code)
    where = f" for {tp}" if tp is not None else ""
    if code == m.GROUP_SUBSCRIBED_TO_TOPIC:
        topic = tp.topic if tp is not None else "(unknown)"
        error: KgroupError = SafetyRefusal(
            f"group {group_id} is subscribed to topic {topic}: Kafka refuses to delete its "
            f"offsets while members consume it ({name})",
            hint="stop the group's consumers, or take the topic out of their subscription, first",
        )
    elif code == m.NON_EMPTY_GROUP:
        error = SafetyRefusal(
            f"group {group_id} has members and does not use the consumer protocol, so Kafka "
            f"cannot tell which topics they consume and refuses to delete offsets ({name})",
            hint="stop the group's members first",
        )
    elif code == m.GROUP_ID_NOT_FOUND:
        error = NotFoundError(
            f"group {group_id} does not exist ({name})", hint="check the name with `kgroup list`"
        )
    elif code == m.GROUP_AUTHORIZATION_FAILED:
        error = AuthorizationError(
            f"not authorized to delete committed offsets of group {group_id} ({name})",
            hint=f"ask for an ACL granting Delete on Group:{group_id}",
        )
    elif code == m.TOPIC_AUTHORIZATION_FAILED:
        topic = tp.topic if tp is not None else "the topics"
        error = AuthorizationError(
            f"not authorized to delete the committed offset of group {group_id}{where} ({name})",
            hint=f"ask for an ACL granting Read on Topic:{topic}",
        )
    elif code == m.UNKNOWN_TOPIC_OR_PARTITION:
        error = NotFoundError(
            f"cannot delete the committed offset of group {group_id}{where}: no such topic or "
            f"partition ({name})",
            hint="check the topic list",
        )
    else:
        error = KafkaOperationError(
            f"cannot delete committed offsets of group {group_id}{where}: {name}"
        )
    return _tag(error, name)


def to_committed_offsets(
    group: m.FetchedGroup,
) -> dict[TopicPartition, CommittedOffset] | KgroupError | _Retry:
    """One group's OffsetFetch answer as offsets, an error, or a retriable error."""
    if group.error_code != m.NONE:
        error = group_error(group.error_code, group.group_id, "fetch the committed offsets")
        return _Retry(error) if group.error_code in m.RETRIABLE_COORDINATOR_ERRORS else error
    offsets: dict[TopicPartition, CommittedOffset] = {}
    for item in group.partitions:
        tp = TopicPartition(item.topic, item.partition)
        if item.error_code != m.NONE:
            error = partition_error(item.error_code, group.group_id, tp)
            if item.error_code in m.RETRIABLE_COORDINATOR_ERRORS:
                return _Retry(error)
            return error
        if item.offset < 0:  # -1: no committed offset for this partition
            continue
        offsets[tp] = CommittedOffset(
            offset=item.offset,
            leader_epoch=item.leader_epoch if item.leader_epoch >= 0 else None,
            metadata=item.metadata or "",
        )
    return dict(sorted(offsets.items()))


def to_group_description(
    group: m.DescribedGroup, coordinator: BrokerNode | None
) -> GroupDescription:
    """A DescribeGroups answer as a GroupDescription (consumer protocol bytes decoded)."""
    members = sorted(
        (to_member(member, group.protocol_type) for member in group.members),
        key=lambda member: member.member_id,
    )
    return GroupDescription(
        group_id=group.group_id,
        state=group.state or "Unknown",
        type="classic",
        # "" (a group only committing offsets, Kafka's isSimpleConsumerGroup): no protocol type
        protocol_type=group.protocol_type or None,
        assignor=group.protocol_data or None,
        coordinator=coordinator,
        members=tuple(members),
    )


# KIP-848 state names as ConsumerGroupDescribe spells them -> the names kgroup shows.
_CONSUMER_GROUP_STATES = {
    "empty": "Empty",
    "assigning": "Assigning",
    "reconciling": "Reconciling",
    "stable": "Stable",
    "dead": "Dead",
}


# ConsumerGroupDescribeResponse v1 MemberType (KIP-1099): -1 unknown, 0 classic, 1 consumer
_MEMBER_TYPES = {0: "classic", 1: "consumer"}


def to_consumer_group_description(
    group: m.ConsumerGroupDescribed, coordinator: BrokerNode | None
) -> GroupDescription:
    """A ConsumerGroupDescribe answer as a GroupDescription (type `consumer`)."""
    members = tuple(
        sorted(
            (
                MemberDescription(
                    member_id=member.member_id,
                    group_instance_id=member.instance_id,
                    client_id=member.client_id or None,
                    host=member.client_host or None,
                    assignment=tuple(TopicPartition(t, p) for t, p in member.assignment),
                    target_assignment=tuple(
                        TopicPartition(t, p) for t, p in member.target_assignment
                    ),
                    subscription=tuple(sorted(member.subscribed_topic_names)),
                    rack=member.rack_id,
                    member_epoch=member.member_epoch,
                    subscribed_topic_regex=member.subscribed_topic_regex or None,
                    member_type=_MEMBER_TYPES.get(member.member_type),
                )
                for member in group.members
            ),
            key=lambda item: item.member_id,
        )
    )
    return GroupDescription(
        group_id=group.group_id,
        state=_CONSUMER_GROUP_STATES.get(group.state.lower(), group.state or "Unknown"),
        type="consumer",
        protocol_type="consumer",
        assignor=group.assignor or None,
        coordinator=coordinator,
        members=members,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
    )


def to_member(member: m.DescribedMember, protocol_type: str) -> MemberDescription:
    """A described member; its subscription and assignment decoded for `consumer` groups.

    Bytes that do not decode are kept raw, with no subscription or assignment.
    """
    assignment: tuple[TopicPartition, ...] = ()
    subscription: tuple[str, ...] | None = None
    rack: str | None = None
    if protocol_type == "consumer":
        if member.metadata:
            try:
                decoded = m.decode_subscription(member.metadata)
                subscription = tuple(sorted(decoded.topics))
                rack = decoded.rack_id
            except ProtocolError:
                pass
        if member.assignment:
            try:
                assigned = m.decode_assignment(member.assignment)
                assignment = tuple(sorted({TopicPartition(t, p) for t, p in assigned.partitions}))
            except ProtocolError:
                pass
    return MemberDescription(
        member_id=member.member_id,
        group_instance_id=member.group_instance_id,
        client_id=member.client_id or None,
        host=member.client_host or None,
        assignment=assignment,
        subscription=subscription,
        rack=rack,
        raw_metadata=member.metadata or None,
        raw_assignment=member.assignment or None,
    )
