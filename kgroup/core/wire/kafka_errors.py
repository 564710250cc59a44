"""Kafka error codes in the wire client's answers, as KgroupErrors.

Each mapper turns the error code of one answer (a group's, a partition's, a topic's) into the
KgroupError kgroup shows, through that answer's ErrorTable (error code -> class, message, hint;
any other code is a KafkaOperationError): authorization failures name the ACL to ask for
(KafkaApis checks Describe/Read/Delete on Group and Topic), unknown groups and topics are
NotFoundError, refusals that protect a live group are SafetyRefusal. Every error carries
`kafka_error`, Kafka's error name (Errors.java), read back with `kafka_error_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kgroup.core.errors import (
    AuthorizationError,
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import TopicPartition
from kgroup.core.wire.connection import BrokerTimeout
from kgroup.core.wire.error_codes import (
    CLUSTER_AUTHORIZATION_FAILED,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    GROUP_SUBSCRIBED_TO_TOPIC,
    ILLEGAL_GENERATION,
    NON_EMPTY_GROUP,
    REBALANCE_IN_PROGRESS,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
    error_name,
)
from kgroup.core.wire.retry_policy import Action, action


def tagged(error: KgroupError, kafka_error: str) -> KgroupError:
    """`error` carrying Kafka's error name (read back with `kafka_error_of`)."""
    error.kafka_error = kafka_error  # type: ignore[attr-defined]
    return error


class ErrorTemplate(NamedTuple):
    """How one Kafka error code reads to a user: the KgroupError class, its message and hint.

    Message and hint are `str.format` templates over the mapper's fields and `name` (Kafka's
    error name)."""

    kind: type[KgroupError]
    message: str
    hint: str | None = None

    def error(self, name: str, **fields: object) -> KgroupError:
        """The error this template describes, tagged with Kafka's error name."""
        hint = self.hint.format(name=name, **fields) if self.hint is not None else None
        return tagged(self.kind(self.message.format(name=name, **fields), hint=hint), name)


class ErrorTable(NamedTuple):
    """The errors of one kind of answer: a template per error code that has its own, and the
    message of the KafkaOperationError every other code gets."""

    otherwise: str
    templates: Mapping[int, ErrorTemplate]

    def error(self, code: int, **fields: object) -> KgroupError:
        """The KgroupError for error `code`, its templates filled in with `fields`; an
        authorization code without a template still names the ACL to ask for."""
        template = self.templates.get(code)
        if template is None and code in _AUTHORIZATION_RESOURCES:
            template = ErrorTemplate(
                AuthorizationError,
                self.otherwise,
                f"ask for an ACL granting Describe on "
                f"{_resource(_AUTHORIZATION_RESOURCES[code], fields)}",
            )
        template = template or ErrorTemplate(KafkaOperationError, self.otherwise)
        return template.error(error_name(code), **fields)


_AUTHORIZATION_RESOURCES = {
    GROUP_AUTHORIZATION_FAILED: "Group",
    TOPIC_AUTHORIZATION_FAILED: "Topic",
    CLUSTER_AUTHORIZATION_FAILED: "Cluster",
}


def _resource(kind: str, fields: Mapping[str, object]) -> str:
    """The resource of an authorization error as Kafka's ACL tools name it, from the fields
    of the answer it came in (braces doubled: the hint is a format template)."""
    if kind == "Cluster":
        return "Cluster:kafka-cluster"
    if kind == "Group":
        name = fields.get("group_id")
    else:
        tp = fields.get("tp")
        name = fields.get("topic") or (tp.topic if isinstance(tp, TopicPartition) else None)
    text = f"{kind}:{name}" if name else f"the {kind.lower()}s involved"
    return text.replace("{", "{{").replace("}", "}}")


def missing_answer(message: str, hint: str | None = None) -> KgroupError:
    """A broker's answer left out something asked for (Kafka error name "MISSING")."""
    return tagged(KafkaOperationError(message, hint=hint), "MISSING")


def unsupported_api(message: str, hint: str | None = None) -> KgroupError:
    """A broker does not offer a request kgroup needs (Kafka error name "UNSUPPORTED_VERSION")."""
    return tagged(KafkaOperationError(message, hint=hint), "UNSUPPORTED_VERSION")


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


_LIST_GROUPS_ERRORS = ErrorTable(
    "broker {address} failed to list groups: {name}",
    {
        CLUSTER_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to list groups on {address} ({name})",
            "ask for an ACL granting Describe on Cluster:kafka-cluster (or Describe on the groups)",
        ),
    },
)


def list_groups_error(code: int, address: str) -> KgroupError:
    """The KgroupError for the error code of a broker's ListGroups answer."""
    return _LIST_GROUPS_ERRORS.error(code, address=address)


_GROUP_NOT_FOUND = ErrorTemplate(
    NotFoundError, "group {group_id} does not exist ({name})", "check the name with `kgroup list`"
)

_GROUP_ERRORS = ErrorTable(
    "cannot {operation} of group {group_id}: {name}{detail}",
    {
        GROUP_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to {operation} of group {group_id} ({name})",
            "ask for an ACL granting Describe on Group:{group_id}",
        ),
        TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to {operation} of group {group_id} ({name})",
            "ask for an ACL granting Describe on the group's topics",
        ),
        CLUSTER_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to {operation} of group {group_id} ({name})",
            "ask for an ACL granting Describe on Cluster:kafka-cluster",
        ),
        GROUP_ID_NOT_FOUND: _GROUP_NOT_FOUND,
    },
)


def group_error(
    code: int, group_id: str, operation: str, message: str | None = None
) -> KgroupError:
    """The KgroupError for a group-level Kafka error code."""
    detail = f": {message}" if message else ""
    return _GROUP_ERRORS.error(code, group_id=group_id, operation=operation, detail=detail)


_PARTITION_ERRORS = ErrorTable(
    "cannot fetch the committed offset of group {group_id} for {tp}: {name}",
    {
        TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to fetch the committed offset of group {group_id} for {tp} ({name})",
            "ask for an ACL granting Describe on Topic:{tp.topic}",
        ),
        UNKNOWN_TOPIC_OR_PARTITION: ErrorTemplate(
            NotFoundError,
            "group {group_id} has an offset for {tp}, which does not exist ({name})",
            "check the topic list",
        ),
    },
)


def partition_error(code: int, group_id: str, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level OffsetFetch error code."""
    return _PARTITION_ERRORS.error(code, group_id=group_id, tp=tp)


def _leader_errors(action: str, acl: str) -> ErrorTable:
    """The errors of a partition leader's request that does `action` ("list offsets of",
    "read a record of") and needs `acl` on the topic."""
    return ErrorTable(
        f"failed to {action} {{tp}}: {{name}}",
        {
            TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
                AuthorizationError,
                f"not authorized to {action} {{tp}} ({{name}})",
                f"ask for an ACL granting {acl} on Topic:{{tp.topic}}",
            ),
            UNKNOWN_TOPIC_OR_PARTITION: ErrorTemplate(
                NotFoundError,
                f"cannot {action} {{tp}}: no such topic or partition ({{name}})",
                "check the name with `kgroup list` or the topic list",
            ),
        },
    )


_OFFSETS_ERRORS = _leader_errors("list offsets of", "Describe")
_FETCH_ERRORS = _leader_errors("read a record of", "Read")


def offsets_error(code: int, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level ListOffsets (or Metadata) error code."""
    return _OFFSETS_ERRORS.error(code, tp=tp)


def fetch_error(code: int, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level Fetch (or Metadata) error code."""
    return _FETCH_ERRORS.error(code, tp=tp)


_CONFIG_ERRORS = ErrorTable(
    "cannot describe the configuration of topic {topic}: {name}{detail}",
    {
        TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to describe the configuration of topic {topic} ({name})",
            "ask for an ACL granting DescribeConfigs on Topic:{topic}",
        ),
        UNKNOWN_TOPIC_OR_PARTITION: ErrorTemplate(
            NotFoundError, "topic {topic} does not exist ({name})"
        ),
    },
)


def config_error(code: int, topic: str, message: str | None = None) -> KgroupError:
    """The KgroupError for a DescribeConfigs error code of a topic resource."""
    return _CONFIG_ERRORS.error(code, topic=topic, detail=f": {message}" if message else "")


_COMMIT_ERRORS = ErrorTable(
    "cannot commit offsets of group {group_id} for {tp}: {name}",
    {
        GROUP_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to commit offsets for group {group_id} ({tp}: {name})",
            "ask for an ACL granting Read on Group:{group_id}",
        ),
        TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to commit offsets for group {group_id} ({tp}: {name})",
            "ask for an ACL granting Read on Topic:{tp.topic}",
        ),
        UNKNOWN_TOPIC_OR_PARTITION: ErrorTemplate(
            NotFoundError,
            "cannot commit an offset of group {group_id} for {tp}: it does not exist ({name})",
            "check the topic list",
        ),
        **dict.fromkeys(
            (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS),
            ErrorTemplate(
                SafetyRefusal,
                "group {group_id} is not empty: the coordinator refused the commit ({name})",
                "stop the group's consumers first",
            ),
        ),
    },
)


def commit_error(code: int, group_id: str, tp: TopicPartition) -> KgroupError:
    """The KgroupError for a partition-level OffsetCommit error code."""
    return _COMMIT_ERRORS.error(code, group_id=group_id, tp=tp)


_OFFSET_DELETE_ERRORS = ErrorTable(
    "cannot delete committed offsets of group {group_id}{where}: {name}",
    {
        GROUP_SUBSCRIBED_TO_TOPIC: ErrorTemplate(
            SafetyRefusal,
            "group {group_id} is subscribed to topic {subscribed}: Kafka refuses to delete its "
            "offsets while members consume it ({name})",
            "stop the group's consumers, or take the topic out of their subscription, first",
        ),
        NON_EMPTY_GROUP: ErrorTemplate(
            SafetyRefusal,
            "group {group_id} has members and does not use the consumer protocol, so Kafka "
            "cannot tell which topics they consume and refuses to delete offsets ({name})",
            "stop the group's members first",
        ),
        GROUP_ID_NOT_FOUND: _GROUP_NOT_FOUND,
        GROUP_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to delete committed offsets of group {group_id} ({name})",
            "ask for an ACL granting Delete on Group:{group_id}",
        ),
        TOPIC_AUTHORIZATION_FAILED: ErrorTemplate(
            AuthorizationError,
            "not authorized to delete the committed offset of group {group_id}{where} ({name})",
            "ask for an ACL granting Read on Topic:{acl_topic}",
        ),
        UNKNOWN_TOPIC_OR_PARTITION: ErrorTemplate(
            NotFoundError,
            "cannot delete the committed offset of group {group_id}{where}: no such topic or "
            "partition ({name})",
            "check the topic list",
        ),
    },
)


def offset_delete_error(code: int, group_id: str, tp: TopicPartition | None = None) -> KgroupError:
    """The KgroupError for an OffsetDelete error code, group-level or for partition `tp`.

    Kafka's coordinator answers GROUP_SUBSCRIBED_TO_TOPIC for a partition of a topic the active
    group consumes, NON_EMPTY_GROUP for an active group whose subscriptions it cannot read (not
    the consumer protocol), GROUP_ID_NOT_FOUND for a group it does not know. The operation needs
    Delete on the group and Read on each topic (KafkaApis.handleOffsetDeleteRequest).
    """
    return _OFFSET_DELETE_ERRORS.error(
        code,
        group_id=group_id,
        where=f" for {tp}" if tp is not None else "",
        subscribed=tp.topic if tp is not None else "(unknown)",
        acl_topic=tp.topic if tp is not None else "the topics",
    )


@dataclass(frozen=True)
class Retry:
    """A retriable per-group failure: retried until the deadline, then reported as `error`.

    `new_coordinator`: find the group's coordinator again first (it moved, is unavailable, or
    its connection failed); otherwise retry on the same one (it is loading, ...)."""

    error: KgroupError
    new_coordinator: bool = True


def coordinator_failure(
    code: int, error: KgroupError, api: str | None = None
) -> KgroupError | Retry:
    """`error`, for a group's error `code` in an answer to `api`: to retry (a Retry) when Kafka's
    clients retry that code for that API (kgroup.core.wire.retry_policy), else final. Without
    `api`: the rule every coordinator request shares (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE:
    new coordinator; COORDINATOR_LOAD_IN_PROGRESS: in place)."""
    decided = action(api or "DescribeGroups", code)
    if decided is Action.FATAL:
        return error
    return Retry(error, new_coordinator=decided is Action.NEW_COORDINATOR)


def stopped_broker(error: KgroupError, node_id: int, role: str) -> UnreachableError:
    """`error` of a cluster's broker `node_id` (refused or closed connections), saying which
    broker it is and what it was asked as (`role`), with what Kafka does about a stopped one."""
    return UnreachableError(
        f"{error.message.rstrip('.')} (broker {node_id}, {role})",
        hint="the broker may have stopped: Kafka moves its groups to a live broker once the "
        "controller fences it (broker.session.timeout.ms); retry then, or raise --timeout",
    )


def connection_failure(error: KgroupError, node_id: int, groups: Sequence[str]) -> Retry:
    """The groups of coordinator `node_id`, whose connection failed (refused, closed, reset):
    find it again and retry, as AdminApiDriver.onFailure does on a DisconnectException. The error
    says whose coordinator it was, and that Kafka moves the groups of a stopped broker."""
    named = ", ".join(groups[:3]) + (f" and {len(groups) - 3} more" if len(groups) > 3 else "")
    return Retry(stopped_broker(error, node_id, f"the coordinator of {named}"))
