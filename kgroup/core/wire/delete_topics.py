"""Deleting topics with DeleteTopics (API 20), through a WireClient.

Used by `reset-offsets --delete-all-internal-topics` / `--delete-internal-topic` for streams
groups (KIP-1071), as Kafka's `kafka-streams-groups --reset-offsets --execute` deletes a group's
internal topics after resetting its input offsets. Kafka's Admin sends DeleteTopics to the
controller its Metadata names (a KRaft broker forwards it to the quorum); so does this module,
and asks again for the topics answered NOT_CONTROLLER (the controller looked up again) or
THROTTLING_QUOTA_EXCEEDED, with the backoff, until --timeout, as Kafka's Admin does.

Versions 1-6 (v0 is gone from Kafka 4.0, KIP-896); v6 names each topic in `Topics` (name and
a zero topic id), v1-v5 in `TopicNames`. The answer is per topic: None when deleted, else a
KgroupError (a topic already gone is a NotFoundError, which callers may take as done). A
caller's `DeletionProgress` keeps what an interrupted call had done (topics asked, answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kgroup.core.errors import (
    AuthorizationError,
    KafkaOperationError,
    KgroupError,
    NotFoundError,
)
from kgroup.core.wire.error_codes import (
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
    error_name,
)
from kgroup.core.wire.frames import translated
from kgroup.core.wire.kafka_errors import tagged, unsupported_api
from kgroup.protocol.fields import has_field
from kgroup.protocol.generated.wire import delete_topics_request, delete_topics_response
from kgroup.protocol.messages import wire_api
from kgroup.protocol.runtime import Readable

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.core.wire.connection import BrokerConnection

# Sent by this module, so not in the client's table (`messages.APIS`)
WIRE_API = DELETE_TOPICS = wire_api("DeleteTopics", (1, 2, 3, 4, 5, 6))

REQUEST_TIMED_OUT = 7
NOT_CONTROLLER = 41
TOPIC_DELETION_DISABLED = 73
THROTTLING_QUOTA_EXCEEDED = 89
# asked again until --timeout (Kafka's Admin: a new controller; the quota's window)
RETRIED = frozenset({NOT_CONTROLLER, THROTTLING_QUOTA_EXCEEDED})
ZERO_ID = bytes(16)


@dataclass
class DeletionProgress:
    """How far `delete_topics` got, kept as it goes, for a caller interrupted meanwhile (Ctrl-C,
    SIGTERM): the topics in a request not yet answered for good (`asked`: maybe deleted) and the
    topics answered for good (`answered`: None when deleted, else the error)."""

    asked: set[str] = field(default_factory=set)
    answered: dict[str, KgroupError | None] = field(default_factory=dict)

    def outcome(self, name: str) -> KgroupError | str | None:
        """What is known of `name` (a topic or group) once the deletion stopped: its answer
        (None: deleted, else the error); unanswered, `unknown` when its request was sent (it
        may be deleted), else `not_deleted` (never asked, or answered with an error to retry
        and not asked again)."""
        if name in self.answered:
            return self.answered[name]
        return "unknown" if name in self.asked else "not_deleted"


class UnansweredDeletion(KafkaOperationError):
    """A topic's DeleteTopics was sent and its answer never came (the connection failed): the
    controller may have deleted it."""


def outcome_unknown(error: KgroupError) -> bool:
    """Whether a topic's error leaves its deletion unknown rather than refused: its answer
    lost (`UnansweredDeletion`), or REQUEST_TIMED_OUT (the controller started the deletion and
    did not see it complete within the request's timeout; it may still complete)."""
    from kgroup.core.wire.kafka_errors import kafka_error_of

    return isinstance(error, UnansweredDeletion) or kafka_error_of(error) == "REQUEST_TIMED_OUT"


def encode_delete_topics_request(version: int, topics: Sequence[str], timeout_ms: int) -> bytes:
    """DeleteTopicsRequest v1-v6 for `topics` by name."""
    if version not in WIRE_API.versions:
        raise ValueError("kgroup sends DeleteTopics v1-v6")
    # Topics (v6+, names and ids) or TopicNames (v1-v5), as the declaration has them
    if has_field("DeleteTopicsRequest", "Topics", version):
        states = tuple(delete_topics_request.DeleteTopicState(t, ZERO_ID) for t in topics)
        request = delete_topics_request.DeleteTopicsRequest(topics=states, timeout_ms=timeout_ms)
    else:
        request = delete_topics_request.DeleteTopicsRequest(
            topic_names=tuple(topics), timeout_ms=timeout_ms
        )
    return delete_topics_request.write(request, version)


@translated
def decode_delete_topics_response(body: bytes, version: int) -> list[tuple[str, int, str | None]]:
    """(topic, error code, error message) per topic of a DeleteTopicsResponse v1-v6."""
    d = delete_topics_response.read_from(Readable(body), version)
    return [(r.name or "", r.error_code, r.error_message) for r in d.responses]


def topic_error(code: int, topic: str, message: str | None = None) -> KgroupError:
    """What one topic's error code means to a user."""
    name = error_name(code)
    if code == UNKNOWN_TOPIC_OR_PARTITION:
        error: KgroupError = NotFoundError(f"topic {topic} does not exist (already deleted?)")
    elif code == TOPIC_AUTHORIZATION_FAILED:
        error = AuthorizationError(
            f"not allowed to delete topic {topic}",
            hint=f"ask for an ACL granting Delete on Topic:{topic}",
        )
    elif code == TOPIC_DELETION_DISABLED:
        error = KafkaOperationError(
            f"the cluster does not delete topics (delete.topic.enable=false): {topic} kept",
            hint="delete it once the cluster allows it, with kafka-topics --delete",
        )
    elif code == REQUEST_TIMED_OUT:
        error = KafkaOperationError(
            f"the deletion of topic {topic} was not confirmed before the request's timeout; it "
            "may still complete",
            hint="check with kafka-topics --describe (kgroup has no topic listing)",
        )
    else:
        detail = f": {message}" if message else ""
        error = KafkaOperationError(f"could not delete topic {topic}: {name}{detail}")
    return tagged(error, name)


def delete_topics(
    client: WireClient,
    topics: Sequence[str],
    timeout_ms: int,
    progress: DeletionProgress | None = None,
) -> dict[str, KgroupError | None]:
    """Delete `topics`; per topic None (deleted) or its error, never raised (a request that
    could not be sent or answered: its error for each topic left unanswered). Topics answered
    NOT_CONTROLLER or THROTTLING_QUOTA_EXCEEDED are asked again (the controller looked up
    again), with the backoff, until --timeout, as Kafka's Admin does (`handleNotControllerError`,
    `retryOnQuotaViolation`). `progress`, when given, follows the requests as they go."""
    wanted = list(dict.fromkeys(topics))
    if progress is None:
        progress = DeletionProgress()
    if not wanted:
        return {}

    def work(pending: list[str]):  # type: ignore[no-untyped-def]
        def call(connection: BrokerConnection) -> list[tuple[str, int, str | None]]:
            version = connection.version_for(DELETE_TOPICS)
            if version is None:
                raise unsupported_api(
                    f"broker {connection.address} does not offer DeleteTopics v1-v6, so kgroup "
                    f"cannot delete topics {', '.join(pending)}",
                    hint="delete them with kafka-topics --delete",
                )
            body = encode_delete_topics_request(version, pending, timeout_ms)
            progress.asked.update(pending)
            answer = connection.call(DELETE_TOPICS, version, body)
            return decode_delete_topics_response(answer, version)

        return call

    by_topic: dict[str, tuple[int, str | None]] = {}
    retries = client._retries()
    pending = wanted
    failed: KgroupError | None = None  # the request could not be sent or answered
    unanswered: set[str] = set()  # sent when the request failed: maybe deleted
    while pending:
        try:
            answers = _on_controller(client, work(pending))
        except KgroupError as exc:
            failed = exc
            unanswered = set(progress.asked)
            break
        for name, code, message in answers:
            if name in pending:
                by_topic[name] = (code, message)
                progress.asked.discard(name)  # answered: deleted, or not (yet)
                if code not in RETRIED:
                    progress.answered[name] = (
                        None if code == NONE else topic_error(code, name, message)
                    )
        pending = [t for t in pending if by_topic.get(t, (0, None))[0] in RETRIED]
        if pending and not retries.wait():
            break
    out: dict[str, KgroupError | None] = {}
    lost = None  # one error for the topics of the request whose answer was lost
    if failed is not None and unanswered:
        lost = UnansweredDeletion(
            f"DeleteTopics for {', '.join(t for t in wanted if t in unanswered)} was sent, its "
            f"answer lost ({failed.message.rstrip('.')})",
            hint="check with kafka-topics --describe (kgroup has no topic listing)",
        )
    for topic in wanted:
        if lost is not None and topic in unanswered:
            out[topic] = lost
        elif failed is not None and (topic not in by_topic or by_topic[topic][0] in RETRIED):
            out[topic] = failed
        elif topic not in by_topic:
            out[topic] = KafkaOperationError(f"the broker's answer left out topic {topic}")
        else:
            code, message = by_topic[topic]
            out[topic] = None if code == NONE else topic_error(code, topic, message)
    progress.asked.clear()
    progress.answered.update(out)
    return out


def _on_controller(client: WireClient, work):  # type: ignore[no-untyped-def]
    """`work` on the controller the cluster's Metadata names, else on any broker."""
    result = client._fetch_metadata(all_topics=False)
    node = (client._brokers or {}).get(result.controller_id)
    if node is None:
        return client._on_any(work)
    return client.on_broker(node.host, node.port, work)
