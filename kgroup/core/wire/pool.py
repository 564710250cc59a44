"""BrokerPool: the wire client's plumbing. Whether a configuration can be served without
librdkafka, one connection per broker (bootstrap servers, then the other brokers known, tried in
turn within the deadline; a dropped connection opened again once), one task per broker in
threads, the API versions a broker offers, and the cluster's metadata (brokers, topics,
partition leaders), kept for reuse.

The operations build on it: partition leaders' in `kgroup.core.wire.leaders`, group
coordinators' in `kgroup.core.wire.client` (WireClient).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import ConfigError, KafkaOperationError, UnreachableError
from kgroup.core.models import BrokerNode, TopicMetadata, TopicPartition
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.cluster_calls import encode_metadata_request
from kgroup.core.wire.connection import (
    SECURITY_PROTOCOLS,
    BrokerConnection,
    ConnectionLost,
    build_ssl_context,
    security_from_properties,
)
from kgroup.core.wire.convert import rack_of, topic_id_text
from kgroup.core.wire.error_codes import LEADER_NOT_AVAILABLE, NONE, UNKNOWN_TOPIC_OR_PARTITION
from kgroup.core.wire.kafka_errors import unreachable_cluster
from kgroup.core.wire.sasl import MECHANISMS
from kgroup.core.wire.sasl_oauth import token_source_problem as oauth_problem
from kgroup.protocol import messages as api_table
from kgroup.protocol.model import Api

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire.metadata_response import (
        MetadataResponse,
        MetadataResponsePartition,
        MetadataResponseTopic,
    )

T = TypeVar("T")
_Pool = TypeVar("_Pool", bound="BrokerPool")

BATCH_SIZE = 1000
RETRY_BACKOFF_S = 0.1  # Kafka's retry.backoff.ms default; doubles up to 10x (retry_policy)
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
    "enable.sasl.oauthbearer.unsecure.jwt",
    "kgroup.aws.region",
}
_IMPLEMENTED_SSL = {
    "ssl.ca.location",
    "ssl.ca.pem",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.key.password",
    "ssl.certificate.pem",
    "ssl.key.pem",
    "ssl.keystore.location",
    "ssl.keystore.password",
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


@dataclass(frozen=True)
class ClusterMetadata:
    """One all-topics Metadata answer: brokers by id, topics by name, partitions."""

    brokers: dict[int, BrokerNode]
    topics: dict[str, MetadataResponseTopic]
    partitions: dict[TopicPartition, MetadataResponsePartition]

    def leader_of(self, tp: TopicPartition) -> tuple[BrokerNode | None, int]:
        """The partition's leader, or None and the error code saying why there is none."""
        topic = self.topics.get(tp.topic)
        if topic is None:
            return None, UNKNOWN_TOPIC_OR_PARTITION
        partition = self.partitions.get(tp)
        if partition is None:
            if topic.error_code != NONE:
                return None, topic.error_code
            return None, UNKNOWN_TOPIC_OR_PARTITION
        leader = self.brokers.get(partition.leader_id) if partition.leader_id >= 0 else None
        if leader is None:
            code = partition.error_code
            return None, code if code != NONE else LEADER_NOT_AVAILABLE
        return leader, NONE


class BrokerPool:
    """Connections to a cluster's brokers and its metadata; see the module docstring."""

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
            if mechanism == "OAUTHBEARER":
                problem = oauth_problem(props)
                if problem:
                    return False, problem
            elif mechanism not in MECHANISMS:
                return (
                    False,
                    f"SASL mechanism {mechanism} is not implemented (only "
                    f"{', '.join(MECHANISMS)}, OAUTHBEARER)",
                )
            elif not props.get("sasl.username") or "sasl.password" not in props:
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
                    f"{key} is not implemented (e.g. CRLs, OpenSSL engines)",
                )
            if key.startswith(("sasl.kerberos.", "sasl.oauthbearer.")):
                continue  # settings of mechanisms not in use
            return False, f"property {key} is not implemented by the wire client"
        return True, ""

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self: _Pool) -> _Pool:
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

    def new_connection(self, host: str, port: int) -> BrokerConnection:
        """A connection to a broker with this client's settings, not yet opened nor pooled."""
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
        connection = self.new_connection(host, port).open(deadline)
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

    def _candidates(self) -> list[tuple[str, int]]:
        """Where a request any broker can answer may go: open connections first, then the
        bootstrap servers in the order given, then the other brokers the cluster advertised."""
        with self._pool_lock:
            open_ones = [key for key, c in self._connections.items() if c.is_open]
        known = [(b.host, b.port) for b in (self._brokers or {}).values()]
        return list(dict.fromkeys([*open_ones, *self._bootstrap_servers(), *known]))

    def _any_connection(self) -> BrokerConnection:
        """A connection to a bootstrap server (or any open one); tries each within the deadline."""
        return self._on_any(lambda connection: connection)

    def _on_any(self, work: Callable[[BrokerConnection], T]) -> T:
        """`work` on any broker: each candidate in turn (`_candidates`) until one serves it, so
        a stopped bootstrap server or a connection closed under a request falls over to the
        next; all failing is one UnreachableError naming what happened to each."""
        candidates = self._candidates()
        deadline = time.monotonic() + self.timeout_s
        failures: list[UnreachableError] = []
        for index, (host, port) in enumerate(candidates):
            share = (deadline - time.monotonic()) / (len(candidates) - index)
            try:
                return self.on_broker(
                    host, port, work, deadline=time.monotonic() + max(share, 0.001)
                )
            except UnreachableError as exc:
                failures.append(exc)
        raise unreachable_cluster(self.config.bootstrap_servers, self.timeout_s, failures)

    def on_broker(
        self,
        host: str,
        port: int,
        work: Callable[[BrokerConnection], T],
        deadline: float | None = None,
    ) -> T:
        """Run `work` on the broker's connection; once more on a fresh one if it was dropped.
        `deadline`: when a new connection must be open by (default: the timeout from now).

        A broker that accepts the fresh connection and closes it again on the same work is
        alive and refusing that request (tansu closes the connection on requests it does not
        implement): the ConnectionLost is marked `repeated`, and retrying it is pointless."""
        for attempt in (1, 2):
            connection = self._connection(host, port, deadline)
            try:
                return work(connection)
            except ConnectionLost as exc:
                with self._pool_lock:
                    if self._connections.get((host, port)) is connection:
                        del self._connections[(host, port)]
                if attempt == 2:
                    exc.repeated = True
                    exc.hint = (
                        "it accepted a new connection and closed it again on the same request: "
                        "it may not implement this request"
                    )
                    raise
        raise AssertionError("unreachable")

    def parallel(self, tasks: dict[BrokerNode, Callable[[], T]]) -> dict[BrokerNode, T]:
        """Run one task per broker, in threads when there are several; first error re-raised."""
        outcomes = self.settled(tasks)
        for outcome in outcomes.values():
            if isinstance(outcome, BaseException):
                raise outcome
        return outcomes  # type: ignore[return-value]

    def settled(
        self, tasks: dict[BrokerNode, Callable[[], T]]
    ) -> dict[BrokerNode, T | BaseException]:
        """Run one task per broker, in threads when there are several; each task's result or
        the exception it raised (one broker failing never hides the others' answers).

        An interrupt of the waiting thread (Ctrl-C, or reset's SIGTERM exception) leaves at
        once, re-raised: no task is started after it, and those under way are left to end on
        their own (daemon threads; their outcome is unknown, as the callers' progress says)
        instead of being waited for, up to the timeout."""
        outcomes: dict[BrokerNode, T | BaseException] = {}
        if len(tasks) <= 1:
            for node, task in tasks.items():
                try:
                    outcomes[node] = task()
                except Exception as exc:
                    outcomes[node] = exc
            return outcomes
        # taken in the given order by popleft, atomic as reset's queues (kgroup.reset.apply):
        # no lock; emptied on an interrupt, so no thread takes a task after it
        todo = deque(tasks.items())

        def work() -> None:
            while True:
                try:
                    node, task = todo.popleft()
                except IndexError:
                    return
                try:
                    outcomes[node] = task()
                except BaseException as exc:
                    outcomes[node] = exc

        threads = [
            threading.Thread(target=work, daemon=True, name="kgroup-wire")
            for _ in range(min(len(tasks), MAX_THREADS))
        ]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        except BaseException:
            todo.clear()  # an interrupt: nothing more is sent; nobody waits for the rest
            raise
        return {node: outcomes[node] for node in tasks}

    def api_versions(self) -> dict[int, tuple[int, int]]:
        """API key -> (lowest, highest) version a bootstrap broker offers (ApiVersions)."""
        return dict(self._on_any(lambda connection: connection.versions))

    @staticmethod
    def _version(connection: BrokerConnection, api: Api) -> int:
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

    def _fetch_metadata(self, all_topics: bool) -> MetadataResponse:
        from kgroup.protocol.generated.wire import metadata_response

        def work(connection: BrokerConnection) -> MetadataResponse:
            version = self._version(connection, api_table.METADATA)
            request = encode_metadata_request(version, all_topics=all_topics)
            body = connection.call(api_table.METADATA, version, request)
            return read_answer(metadata_response, body, version)

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
                TopicPartition(t.name, p.partition_index): p
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
            if topic.error_code != NONE:
                continue
            partitions = sorted(topic.partitions, key=lambda p: p.partition_index)
            result[name] = TopicMetadata.from_replica_racks(
                name,
                ([rack_of(cluster.brokers.get(r)) for r in p.replica_nodes] for p in partitions),
                # the zero uuid where the version has no TopicId (before v10): none
                topic_id=topic_id_text(topic.topic_id),
            )
        return result
