"""Partition sizes on disk with DescribeLogDirs (API 35, KIP-113), through a WireClient.

One request per partition leader for all of its wanted partitions, leaders in parallel, as
Kafka's `Admin.describeReplicaLogDirs` asks each broker for its replicas. The size is the
leader's: `retention.bytes` applies per replica (`UnifiedLog.deleteRetentionSizeBreachedSegments`)
and the leader's log is the one consumers read. A replica being moved between log directories
(`IsFutureKey`) is not counted: the current log is what retention deletes from.

The broker answers only with Describe on the Cluster resource (KafkaApis
`handleDescribeLogDirsRequest`: v3+ say CLUSTER_AUTHORIZATION_FAILED, older versions an empty
list). Failures are per partition (a KgroupError in the result), never raised: sizes are an
extra the caller can do without.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgroup.core.errors import AuthorizationError, KafkaOperationError, KgroupError
from kgroup.core.models import BrokerNode, TopicPartition
from kgroup.core.wire.error_codes import CLUSTER_AUTHORIZATION_FAILED, NONE, error_name
from kgroup.core.wire.frames import translated
from kgroup.protocol.generated.wire import describe_log_dirs_request, describe_log_dirs_response
from kgroup.protocol.messages import wire_api
from kgroup.protocol.runtime import Readable

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.core.wire.connection import BrokerConnection

# Sent by this module, so not in the client's table (`messages.APIS`); v1-v4: v0 is gone from
# Kafka 4.0 (KIP-896) and says nothing v1 does not
WIRE_API = DESCRIBE_LOG_DIRS = wire_api("DescribeLogDirs", (1, 2, 3, 4))

Sizes = dict[TopicPartition, int | KgroupError]

CLUSTER_ACL = "ask for an ACL granting Describe on Cluster:kafka-cluster"


@dataclass(frozen=True)
class LogDirsAnswer:
    """One broker's answer: the top-level error (v3+, else 0), the size of each current
    replica, and the log directories that failed (path, error code)."""

    error_code: int
    sizes: dict[TopicPartition, int]
    failed_dirs: tuple[tuple[str, int], ...] = ()


def encode_describe_log_dirs_request(version: int, partitions: Iterable[TopicPartition]) -> bytes:
    """DescribeLogDirsRequest v1-v4 for the partitions, topics in first-seen order."""
    if version not in WIRE_API.versions:
        raise ValueError("kgroup sends DescribeLogDirs v1-v4")
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    topics = tuple(
        describe_log_dirs_request.DescribableLogDirTopic(t, tuple(ps)) for t, ps in by_topic.items()
    )
    request = describe_log_dirs_request.DescribeLogDirsRequest(topics)
    return describe_log_dirs_request.write(request, version)


@translated
def decode_describe_log_dirs_response(body: bytes, version: int) -> LogDirsAnswer:
    """A DescribeLogDirsResponse v1-v4 body (bytes after the message ignored, as Kafka's
    NetworkClient does)."""
    d = describe_log_dirs_response.read_from(Readable(body), version)
    sizes: dict[TopicPartition, int] = {}
    failed = []
    for result in d.results:
        if result.error_code != NONE:
            failed.append((result.log_dir, result.error_code))
        for topic in result.topics:
            for p in topic.partitions:
                if not p.is_future_key:
                    sizes[TopicPartition(topic.name, p.partition_index)] = p.partition_size
    return LogDirsAnswer(d.error_code, sizes, tuple(failed))


def partition_sizes(
    client: WireClient, partitions: Iterable[TopicPartition]
) -> dict[TopicPartition, int | KgroupError]:
    """The size in bytes of each partition's log on its leader, or why it is unknown."""
    wanted = sorted(set(partitions))
    if not wanted:
        return {}
    cluster = client.metadata()
    out: dict[TopicPartition, int | KgroupError] = {}
    plan: dict[BrokerNode, list[TopicPartition]] = {}
    for tp in wanted:
        leader, code = cluster.leader_of(tp)
        if leader is None:
            out[tp] = KafkaOperationError(
                f"no leader for {tp.topic}:{tp.partition} ({error_name(code)})"
            )
        else:
            plan.setdefault(leader, []).append(tp)

    def task(node: BrokerNode, tps: list[TopicPartition]) -> Callable[[], Sizes]:
        def run() -> Sizes:
            try:
                return client.on_broker(node.host, node.port, lambda c: _sizes_on(c, tps))
            except KgroupError as exc:
                return dict.fromkeys(tps, exc)

        return run

    for answers in client.parallel({n: task(n, tps) for n, tps in plan.items()}).values():
        out.update(answers)
    return out


def _sizes_on(
    connection: BrokerConnection, tps: list[TopicPartition]
) -> dict[TopicPartition, int | KgroupError]:
    version = connection.version_for(WIRE_API)
    if version is None:
        error: KgroupError = KafkaOperationError(
            f"broker {connection.address} does not answer DescribeLogDirs v1-v4 "
            "(partition sizes unknown)"
        )
        return dict.fromkeys(tps, error)
    body = connection.call(WIRE_API, version, encode_describe_log_dirs_request(version, tps))
    answer = decode_describe_log_dirs_response(body, version)
    if answer.error_code == CLUSTER_AUTHORIZATION_FAILED:
        error = AuthorizationError(
            f"not authorized to describe the log directories of broker {connection.address} "
            "(CLUSTER_AUTHORIZATION_FAILED)",
            hint=CLUSTER_ACL,
        )
        return dict.fromkeys(tps, error)
    if answer.error_code != NONE:
        error = KafkaOperationError(
            f"broker {connection.address} refused DescribeLogDirs ({error_name(answer.error_code)})"
        )
        return dict.fromkeys(tps, error)
    out: dict[TopicPartition, int | KgroupError] = {}
    for tp in tps:
        size = answer.sizes.get(tp)
        if size is not None:
            out[tp] = size
            continue
        why = ", ".join(f"{path}: {error_name(code)}" for path, code in answer.failed_dirs)
        out[tp] = KafkaOperationError(
            f"broker {connection.address} did not report the size of {tp.topic}:{tp.partition}"
            + (f" (failed log directories: {why})" if why else ""),
            hint=None
            if why
            else f"the broker lists only what Describe on Cluster allows: {CLUSTER_ACL}",
        )
    return out
