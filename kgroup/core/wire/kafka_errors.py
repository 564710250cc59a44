"""Kafka error codes in the wire client's answers, as KgroupErrors.

Each mapper turns the error code of one answer (a group's, a partition's, a topic's) into the
KgroupError kgroup shows: authorization failures name the ACL to ask for (KafkaApis checks
Describe/Read/Delete on Group and Topic), unknown groups and topics are NotFoundError, refusals
that protect a live group are SafetyRefusal. Every error carries `kafka_error`, Kafka's error
name (Errors.java), read back with `kafka_error_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgroup.core.errors import (
    AuthorizationError,
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import TopicPartition
from kgroup.core.wire import messages as m
from kgroup.core.wire.connection import BrokerTimeout


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


@dataclass(frozen=True)
class _Retry:
    """A retriable per-group failure: retried once, then reported as `error`."""

    error: KgroupError
