"""GroupAdmin: the cluster calls every command needs, on confluent-kafka (librdkafka).

The only module (with its siblings in core/) that imports confluent_kafka, lazily. Every Kafka
error leaves here as a KgroupError with a hint: unreachable -> exit 6 within the timeout, unknown
group or topic -> exit 3, authorization -> exit 1 naming the ACL needed. The translation lives
in `kgroup.core.rdkafka_errors` (librdkafka's errors) and `kgroup.core.rdkafka_convert` (its
results as models); this module holds the operations.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KafkaOperationError, KgroupError, NotFoundError, UnreachableError
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    GroupListing,
    NextRecord,
    OffsetAtTime,
    TopicMetadata,
    TopicPartition,
    Watermarks,
)
from kgroup.core.rdkafka_convert import (
    STATE_NAMES,
    group_description,
    state_name,
    topic_id_of,
    type_name,
)
from kgroup.core.rdkafka_errors import (
    UNREACHABLE_ERRORS,
    as_exception,
    connection_failures,
    kafka_error_name,
    map_kafka_error,
    rdkafka_config_error,
)

if TYPE_CHECKING:
    from kgroup.core.wire.delete_topics import DeletionProgress

# Names kept importable from here (callers import them from this module).
__all__ = [
    "GROUP_STATES",
    "GROUP_TYPES",
    "STATE_NAMES",
    "GroupAdmin",
    "as_exception",
    "connection_failures",
    "kafka_error_name",
    "map_kafka_error",
    "rdkafka_config_error",
    "rdkafka_log",
    "state_name",
    "type_name",
]

log = logging.getLogger("kgroup.admin")
rdkafka_log = logging.getLogger("kgroup.rdkafka")

# The group states and types kgroup accepts in filters (Kafka's names).
GROUP_STATES = (
    "PreparingRebalance",
    "CompletingRebalance",
    "Stable",
    "Dead",
    "Empty",
    "Assigning",
    "Reconciling",
    "Unknown",
)
GROUP_TYPES = ("classic", "consumer", "share", "streams")


def _not_a_classic_group(description: GroupDescription) -> bool:
    """DescribeGroups' answer for a group it does not hold: GROUP_ID_NOT_FOUND, or Dead with no
    error (Kafka before DescribeGroups v6, also for KIP-848 `consumer` groups)."""
    if description.error_code == "GROUP_ID_NOT_FOUND":
        return True
    return description.error is None and description.state == "Dead"


class _RequestCounter(logging.Handler):
    """Counts the requests librdkafka logs as sent (its `debug=protocol` lines), per API."""

    _SENT = re.compile(r"Sent (\w+?)Request ")

    def __init__(self, counts: Counter[str]) -> None:
        super().__init__(logging.DEBUG)
        self.counts = counts

    def emit(self, record: logging.LogRecord) -> None:
        match = self._SENT.search(record.getMessage())
        if match:
            api = match.group(1)
            self.counts["ApiVersions" if api == "ApiVersion" else api] += 1


class GroupAdmin:
    """Cluster operations for consumer groups, on one librdkafka AdminClient and, where the
    configuration allows, the wire client (kgroup.core.wire): groups, topic metadata and
    ListOffsets go through it, so `describe` and `list` never load librdkafka.

    With `count_requests` (on with --verbose), every request librdkafka sends is counted per API
    in `request_counts` (from its protocol debug log, which goes nowhere else).
    """

    def __init__(
        self, config: ClusterConfig, *, count_requests: bool = False, use_wire: bool = True
    ) -> None:
        self.config = config
        self.timeout_s = config.timeout_s
        self._admin: Any = None
        self._wire: Any = None
        self._wire_checked = not use_wire  # use_wire=False: librdkafka does everything
        # librdkafka's connection errors (error_cb), to say why a cluster was unreachable.
        self._transport_errors: deque[tuple[str, str]] = deque(maxlen=64)
        self._no_wire_reason = "" if use_wire else "the admin was made with use_wire=False"
        self.request_counts: Counter[str] = Counter()
        # group id -> type (`classic`, `consumer`, ...) as the last ListGroups reported it, so
        # describe_groups asks each group with the API of its type (KIP-848)
        self._group_types: dict[str, str] = {}
        self._protocol_log: logging.Logger | None = None
        if count_requests:
            self._protocol_log = logging.getLogger(f"kgroup.rdkafka.protocol.{id(self)}")
            self._protocol_log.propagate = False
            self._protocol_log.setLevel(logging.DEBUG)
            self._protocol_log.addHandler(_RequestCounter(self.request_counts))

    # -- plumbing --------------------------------------------------------------------------

    def client_conf(self, **extra: Any) -> dict[str, Any]:
        """librdkafka configuration for a client of this cluster (logs go to kgroup's logger)."""
        conf: dict[str, Any] = dict(self.config.client_properties())
        conf.setdefault("socket.connection.setup.timeout.ms", int(self.timeout_s * 1000))
        conf.setdefault("enable.metrics.push", False)  # KIP-714 telemetry: not ours to send
        conf["allow.auto.create.topics"] = False  # a topic asked for by name is never created
        conf["logger"] = rdkafka_log
        if self._protocol_log is not None and "debug" not in conf:
            conf["debug"] = "protocol"
            conf["logger"] = self._protocol_log
        conf.update(extra)
        return conf

    def counted_requests(self) -> Counter[str]:
        """Requests sent so far per API (librdkafka's need count_requests; the wire client's are
        always counted); serves pending log callbacks."""
        if self._admin is not None and self._protocol_log is not None:
            self._admin.poll(0)
        total = Counter(self.request_counts)
        if self._wire is not None:
            total.update(self._wire.request_counts)
        return total

    @property
    def wire(self) -> Any:
        """The batched wire client (kgroup.core.wire), or None when the configuration needs
        something only librdkafka does (GSSAPI, CRLs, ...) or the admin was made
        with use_wire=False: then every call goes through librdkafka, one request per group
        where librdkafka works that way."""
        if not self._wire_checked:
            self._wire_checked = True
            from kgroup.core.wire.client import WireClient

            ok, reason = WireClient.supports(self.config)
            if ok:
                self._wire = WireClient(self.config)
            else:
                self._no_wire_reason = reason
                log.debug("batched group requests off, librdkafka does them: %s", reason)
        return self._wire

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()

    @property
    def admin(self) -> Any:
        if self._admin is None:
            from confluent_kafka.admin import AdminClient

            try:
                self._admin = AdminClient(self.client_conf(error_cb=self._note_error))
            except Exception as exc:  # librdkafka refuses unknown or invalid properties here
                raise rdkafka_config_error(exc, self.config) from exc
        return self._admin

    def _note_error(self, error: Any) -> None:
        """librdkafka's error callback (served by poll): keep connection errors."""
        self._transport_errors.append((error.name(), error.str()))

    def error_for(
        self,
        exc: BaseException,
        operation: str,
        subject: str = "",
        acl: str | Mapping[str, str] | None = None,
    ) -> KgroupError:
        """The KgroupError a user sees for librdkafka's `exc` while trying to `operation`
        `subject` (`acl`: the ACL such a call needs), with why the cluster was unreachable."""
        if self._admin is not None and kafka_error_name(exc) in UNREACHABLE_ERRORS:
            self._admin.poll(0)  # serve the error callbacks of the connection attempts
        return map_kafka_error(
            exc,
            operation=operation,
            subject=subject,
            acl=acl,
            timeout_s=self.timeout_s,
            bootstrap=self.config.bootstrap_servers,
            transport_errors=list(self._transport_errors),
        )

    def _result(
        self,
        future: Any,
        operation: str,
        subject: str = "",
        acl: str | Mapping[str, str] | None = None,
    ) -> Any:
        try:
            return future.result()
        except Exception as exc:
            raise self.error_for(exc, operation, subject, acl) from exc

    # -- cluster and topics ----------------------------------------------------------------

    def ping(self) -> list[BrokerNode]:
        """The brokers of the cluster; raises UnreachableError when it does not answer."""
        try:
            metadata = self.admin.list_topics(timeout=self.timeout_s)
        except Exception as exc:
            raise self.error_for(exc, "fetch cluster metadata") from exc
        return [BrokerNode(b.id, b.host, b.port) for b in metadata.brokers.values()]

    def topics(self, include_internal: bool = False) -> dict[str, TopicMetadata]:
        """All topics with their partition counts (one Metadata request for all topics).

        Asking for all topics, never for one by name, also keeps brokers that auto-create topics
        on metadata requests from creating the names a user mistyped.
        """
        if self.wire is not None:
            return {
                name: TopicMetadata(name=name, partitions=topic.partitions)
                for name, topic in self.wire.topics().items()
                if include_internal or not name.startswith("__")
            }
        try:
            metadata = self.admin.list_topics(timeout=self.timeout_s)
        except Exception as exc:
            raise self.error_for(exc, "fetch topic metadata") from exc
        result: dict[str, TopicMetadata] = {}
        for name, topic in metadata.topics.items():
            if topic.error is not None:
                continue
            if not include_internal and name.startswith("__"):
                continue
            result[name] = TopicMetadata(name=name, partitions=len(topic.partitions))
        return result

    def topic_details(self, topics: Sequence[str]) -> dict[str, TopicMetadata]:
        """Partition counts, topic ids (Kafka's base64url form) and the racks of each
        partition's replicas (DescribeTopics, or the wire client's all-topics Metadata);
        unknown topics raise NotFoundError."""
        if not topics:
            return {}
        if self.wire is not None:
            known = self.wire.topics()
            for name in topics:
                if name not in known:
                    raise NotFoundError(
                        f"cannot describe topic {name}: the cluster has no such topic",
                        hint="check the name with the topic list",
                    )
            return {name: known[name] for name in topics}
        from confluent_kafka import TopicCollection

        futures = self.admin.describe_topics(
            TopicCollection(list(topics)), request_timeout=self.timeout_s
        )
        result: dict[str, TopicMetadata] = {}
        for name, future in futures.items():
            described = self._result(
                future, "describe topic", name, acl=f"Describe on Topic:{name}"
            )
            partitions = sorted(described.partitions, key=lambda p: p.id)
            result[name] = TopicMetadata.from_replica_racks(
                name,
                ([getattr(n, "rack", None) or None for n in p.replicas] for p in partitions),
                topic_id=topic_id_of(described.topic_id),
            )
        return result

    # -- groups ----------------------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        """Every group the cluster lists (ListGroups to every broker).

        librdkafka answers "no groups" when it reaches no broker at all, so the cluster's
        metadata is fetched first: an unreachable cluster fails here instead of looking empty.
        """
        if self.wire is not None:
            listed = sorted(self.wire.list_groups(), key=lambda g: g.group_id)
            self._group_types.update({g.group_id: g.type for g in listed})
            return listed
        self.ping()
        future = self.admin.list_consumer_groups(request_timeout=self.timeout_s)
        result = self._result(future, "list groups", acl="Describe on Cluster:kafka-cluster")
        errors = list(getattr(result, "errors", []) or [])
        for error in errors:
            log.debug("list groups: a broker answered with %s", error)
        if errors and not result.valid:
            raise self.error_for(errors[0], "list groups", acl="Describe on Cluster:kafka-cluster")
        listings = []
        for group in result.valid:
            listings.append(
                GroupListing(
                    group_id=group.group_id,
                    state=state_name(group.state),
                    type=type_name(getattr(group, "type", "classic")),
                    protocol_type=None if group.is_simple_consumer_group else "consumer",
                )
            )
        self._group_types.update({g.group_id: g.type for g in listings})
        return sorted(listings, key=lambda g: g.group_id)

    def describe_groups(
        self, group_ids: Sequence[str], types: Mapping[str, str] | None = None
    ) -> dict[str, GroupDescription]:
        """Describe groups; a group that fails carries its `error` instead of raising.

        Each group is asked with the API of its type where the type is known (`types`, or the
        last `list_groups`, ListGroups v5): KIP-848 `consumer` groups with ConsumerGroupDescribe,
        the others with DescribeGroups, one request per coordinator and batch (wire client).
        Kafka 4.x answers DescribeGroups for a consumer group as a Dead group (error NONE before
        DescribeGroups v6) or GROUP_ID_NOT_FOUND, so such answers are asked again with
        ConsumerGroupDescribe; a consumer-typed group ConsumerGroupDescribe does not know is asked
        with DescribeGroups. Brokers without ConsumerGroupDescribe: librdkafka.
        """
        wanted = list(dict.fromkeys(group_ids))
        if not wanted:
            return {}
        if self.wire is None:
            return self._describe_with_librdkafka(wanted)
        known = {**self._group_types, **(types or {})}
        described: dict[str, GroupDescription] = {}
        share = [g for g in wanted if known.get(g) == "share"]
        if share:  # KIP-932 share groups: ShareGroupDescribe (kgroup.core.wire.share_groups)
            described.update(self._describe_share_groups(share))
        streams = [g for g in wanted if known.get(g) == "streams"]
        if streams:  # KIP-1071 streams groups: StreamsGroupDescribe
            from kgroup.core.wire.streams_groups import describe_streams_groups

            described.update(describe_streams_groups(self.wire, streams))
            share += streams
        consumer = [g for g in wanted if known.get(g) == "consumer"]
        if consumer:
            for group_id, answer in self.wire.describe_consumer_groups(consumer).items():
                if answer.error_code not in ("GROUP_ID_NOT_FOUND", "UNSUPPORTED_VERSION"):
                    described[group_id] = answer
        classic = [g for g in wanted if g not in described and g not in share]
        if classic:
            answers = self.wire.describe_groups(classic)
            described.update(answers)
            retry = [g for g in classic if g not in consumer and _not_a_classic_group(answers[g])]
            if retry:
                self._describe_unknown_to_describe_groups(retry, described)
                unknown = [g for g in retry if _not_a_classic_group(described[g])]
                if unknown:  # a share group is known to neither API
                    self._describe_unknown_as_share(unknown, described)
        return {g: described[g] for g in wanted}

    def _describe_unknown_as_share(
        self, unknown: list[str], described: dict[str, GroupDescription]
    ) -> None:
        """Groups no other API knows, asked with ShareGroupDescribe, then StreamsGroupDescribe.
        Where the broker lacks the API of the type ListGroups gives a group (`share` or
        `streams`), the group carries that error (exit 1), not "not found"."""
        from kgroup.core.wire.streams_groups import describe_streams_groups

        by_type = {"share": self._describe_share_groups(unknown)}
        rest = [g for g, a in by_type["share"].items() if a.error is not None]
        by_type["streams"] = describe_streams_groups(self.wire, rest) if rest else {}
        for answers in by_type.values():
            for group_id, answer in answers.items():
                if answer.error is None:
                    described[group_id] = answer
                    self._group_types[group_id] = answer.type
        lacking = [
            g
            for answers in by_type.values()
            for g, a in answers.items()
            if a.error_code == "UNSUPPORTED_VERSION" and g not in self._group_types
        ]
        if lacking:
            for listing in self.wire.list_groups(types={"share", "streams"}):
                answer = by_type[listing.type].get(listing.group_id)
                if answer is not None and answer.error_code == "UNSUPPORTED_VERSION":
                    described[listing.group_id] = answer

    def _describe_share_groups(self, group_ids: Sequence[str]) -> dict[str, GroupDescription]:
        """ShareGroupDescribe; groups it knows are remembered as `share` for the offsets."""
        from kgroup.core.wire.share_groups import describe_share_groups

        answers = describe_share_groups(self.wire, group_ids)
        self._group_types.update({g: "share" for g, a in answers.items() if a.error is None})
        return answers

    def knows_type(self, group_id: str) -> bool:
        """Whether a listing or a describe told this admin the group's type."""
        return group_id in self._group_types

    def group_type(self, group_id: str) -> str | None:
        """The group's type as a listing or a describe told this admin, else None."""
        return self._group_types.get(group_id)

    def is_share_group(self, group_id: str) -> bool:
        """Whether the group is known (listed or described) as a KIP-932 share group."""
        return self._group_types.get(group_id) == "share"

    def _describe_unknown_to_describe_groups(
        self, retry: list[str], described: dict[str, GroupDescription]
    ) -> None:
        """Groups DescribeGroups reported as Dead / GROUP_ID_NOT_FOUND (KIP-848 groups among them):
        ConsumerGroupDescribe over the wire (epochs, target assignments), librdkafka for brokers
        that do not offer it.
        A group neither API knows keeps DescribeGroups' answer (the caller says "not found")."""
        for group_id, again in self.wire.describe_consumer_groups(retry).items():
            if again.error is None:
                if again.state != "Dead" and (again.members or (again.group_epoch or 0) > 0):
                    described[group_id] = again
            elif again.error_code == "UNSUPPORTED_VERSION":
                if described[group_id].error_code != "GROUP_ID_NOT_FOUND":
                    continue  # Dead on a broker without KIP-848: an unknown group
                fallback = self._describe_with_librdkafka([group_id])[group_id]
                if fallback.error is None and (fallback.members or fallback.state != "Empty"):
                    described[group_id] = fallback

    def _describe_with_librdkafka(self, group_ids: Sequence[str]) -> dict[str, GroupDescription]:
        futures = self.admin.describe_consumer_groups(
            list(group_ids), request_timeout=self.timeout_s
        )
        result: dict[str, GroupDescription] = {}
        for group_id, future in futures.items():
            try:
                described = future.result()
            except Exception as exc:
                error = self.error_for(
                    exc, "describe group", group_id, acl=f"Describe on Group:{group_id}"
                )
                if isinstance(error, UnreachableError):
                    raise error from exc
                result[group_id] = GroupDescription(
                    group_id=group_id, state="Unknown", error=error.one_line()
                )
                continue
            result[group_id] = group_description(described)
        return result

    def committed_offsets(self, group_id: str) -> dict[TopicPartition, CommittedOffset]:
        """The group's committed offsets for every partition it has one for (OffsetFetch)."""
        answer = self.committed_offsets_many([group_id])[group_id]
        if isinstance(answer, KgroupError):
            raise answer
        return answer

    def committed_offsets_or_none(self, group_id: str) -> dict[TopicPartition, CommittedOffset]:
        """Committed offsets, or {} for a group that does not exist (yet)."""
        try:
            return self.committed_offsets(group_id)
        except NotFoundError:
            return {}

    def check_can_delete_offsets(self, group_id: str) -> None:
        """Raise when this configuration cannot send OffsetDelete: only kgroup's own client
        does (confluent-kafka 2.16 exposes no DeleteConsumerGroupOffsets)."""
        if self.wire is None:
            raise KafkaOperationError(
                f"cannot delete committed offsets of group {group_id}: kgroup sends OffsetDelete "
                f"(KIP-496) with its own Kafka client, which cannot use this configuration "
                f"({self._no_wire_reason}), and librdkafka offers no OffsetDelete call",
                hint="use kafka-consumer-groups.sh --delete-offsets for this cluster, or a "
                "configuration kgroup's client implements (PLAINTEXT, SSL with PEM, JKS or PKCS12 "
                "stores, SASL PLAIN, SCRAM or OAUTHBEARER)",
            )

    def delete_offsets_each(
        self, group_id: str, partitions: Sequence[TopicPartition]
    ) -> dict[TopicPartition, KgroupError | None]:
        """OffsetDelete (KIP-496) in one request to the group's coordinator; the broker decides
        per partition as Kafka does. Returns partition -> None (deleted) or its error; raises
        group-level errors (unknown group, NON_EMPTY_GROUP, authorization)."""
        self.check_can_delete_offsets(group_id)
        return self.wire.delete_offsets(group_id, partitions)

    def delete_offsets(self, group_id: str, partitions: Sequence[TopicPartition]) -> None:
        """Remove committed offsets (OffsetDelete, KIP-496); raises the first partition's
        error if the coordinator kept any."""
        outcome = self.delete_offsets_each(group_id, partitions)
        for error in outcome.values():
            if error is not None:
                raise error

    def committed_offsets_many(
        self, group_ids: Sequence[str]
    ) -> dict[str, dict[TopicPartition, CommittedOffset] | KgroupError]:
        """Committed offsets of many groups; a group that fails carries its error.

        librdkafka takes one group per ListConsumerGroupOffsets call: all calls are started
        before any is awaited, so they run concurrently. The wire client does all of a
        coordinator's groups in one OffsetFetch (v8+).
        """
        if self.wire is not None:
            share = [g for g in group_ids if self.is_share_group(g)]
            if not share:
                return self.wire.committed_offsets(group_ids)
            from kgroup.core.wire.share_groups import share_group_offsets

            # a share group's "committed offsets" are its share-partition start offsets
            answers = {
                **self.wire.committed_offsets([g for g in group_ids if g not in share]),
                **share_group_offsets(self.wire, share),
            }
            return {g: answers[g] for g in group_ids}
        from confluent_kafka import ConsumerGroupTopicPartitions

        futures = {
            group_id: self.admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group_id)], request_timeout=self.timeout_s
            )[group_id]
            for group_id in group_ids
        }
        result: dict[str, dict[TopicPartition, CommittedOffset] | KgroupError] = {}
        for group_id, future in futures.items():
            try:
                answer = future.result()
            except Exception as exc:
                error = self.error_for(
                    exc,
                    "fetch committed offsets of group",
                    group_id,
                    acl=f"Describe on Group:{group_id}",
                )
                if isinstance(error, UnreachableError):
                    raise error from exc
                result[group_id] = error
                continue
            result[group_id] = self._committed_from(group_id, answer.topic_partitions or [])
        return result

    def _committed_from(
        self, group_id: str, partitions: Iterable[Any]
    ) -> dict[TopicPartition, CommittedOffset] | KgroupError:
        """librdkafka's OffsetFetch answer as offsets (-1 = none, left out); a partition error
        fails the group, as the wire client does."""
        offsets: dict[TopicPartition, CommittedOffset] = {}
        for tp in partitions:
            if tp.error is not None:
                return self.error_for(
                    as_exception(tp.error),
                    "fetch the committed offsets of group",
                    f"{group_id} ({tp.topic}:{tp.partition})",
                    acl=f"Describe on Topic:{tp.topic}",
                )
            if tp.offset < 0:
                continue
            offsets[TopicPartition(tp.topic, tp.partition)] = CommittedOffset(
                offset=tp.offset,
                leader_epoch=tp.leader_epoch if tp.leader_epoch not in (None, -1) else None,
                metadata=tp.metadata or "",
            )
        return offsets

    def next_records(
        self,
        positions: Iterable[tuple[TopicPartition, int]],
        *,
        read_committed: bool = False,
        max_bytes_per_partition: int = 65536,
    ) -> dict[tuple[TopicPartition, int], NextRecord]:
        """What a consumer of each (partition, offset) would get next: one bounded fetch each.

        A consumer with no group membership assigns the partitions at those offsets and reads
        one record from each (at most `max_bytes_per_partition` per fetch). Transaction markers
        are never delivered to consumers, and with `read_committed` neither are aborted records:
        a position with nothing but those before the end of the log is not consumable. A
        position whose record is gone (deleted) gets the next record, as a consumer would. A
        position that yields nothing within the timeout is left out (unknown).

        The wire client answers with Fetch requests, one per leader and round, whatever the
        number of positions per partition (WireClient.next_records); librdkafka's consumer,
        which reads one offset per partition per assign/poll round, is the fallback where the
        wire client cannot serve the configuration.
        """
        if self.wire is not None:
            return self.wire.next_records(  # type: ignore[no-any-return]
                positions,
                read_committed=read_committed,
                max_bytes_per_partition=max_bytes_per_partition,
            )
        from confluent_kafka import Consumer
        from confluent_kafka import TopicPartition as RdTopicPartition

        by_partition: dict[TopicPartition, list[int]] = {}
        for tp, offset in positions:
            by_partition.setdefault(tp, []).append(offset)
        result: dict[tuple[TopicPartition, int], NextRecord] = {}
        if not by_partition:
            return result
        conf = self.client_conf(
            **{
                "group.id": "kgroup-lag-reader",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "max.partition.fetch.bytes": max_bytes_per_partition,
                "isolation.level": "read_committed" if read_committed else "read_uncommitted",
                "enable.partition.eof": True,
                # A committed offset below the log start (records deleted) resets to the first
                # record that still exists: the first one the group has not consumed.
                "auto.offset.reset": "earliest",
            }
        )
        try:
            consumer = Consumer(conf)
        except Exception as exc:
            raise rdkafka_config_error(exc, self.config) from exc
        try:
            rounds = max(len(offsets) for offsets in by_partition.values())
            for index in range(rounds):
                wanted = {
                    tp: sorted(offsets)[index]
                    for tp, offsets in by_partition.items()
                    if index < len(offsets)
                }
                consumer.assign(
                    [
                        RdTopicPartition(tp.topic, tp.partition, offset)
                        for tp, offset in wanted.items()
                    ]
                )
                pending = dict(wanted)
                deadline = time.monotonic() + self.timeout_s
                while pending and time.monotonic() < deadline:
                    message = consumer.poll(0.2)
                    if message is None:
                        continue
                    tp = TopicPartition(message.topic(), message.partition())
                    if tp not in pending:
                        continue
                    error = message.error()
                    if error is not None:
                        if error.code() == error._PARTITION_EOF:
                            result[(tp, pending.pop(tp))] = NextRecord(consumable=False)
                            continue
                        raise self.error_for(
                            as_exception(error),
                            "read a record of",
                            str(tp),
                            acl=f"Read on Topic:{tp.topic}",
                        )
                    _kind, timestamp = message.timestamp()
                    result[(tp, pending.pop(tp))] = NextRecord(
                        consumable=True, timestamp=timestamp if timestamp >= 0 else None
                    )
                    consumer.pause([RdTopicPartition(tp.topic, tp.partition)])
                # librdkafka keeps a partition paused across unassign/assign: without this the
                # next round's offset of the same partition is never fetched (unknown after
                # the timeout)
                consumer.resume([RdTopicPartition(tp.topic, tp.partition) for tp in wanted])
                consumer.unassign()
        finally:
            consumer.close()
        return result

    def list_offsets(
        self,
        partitions: Iterable[TopicPartition],
        spec: str | int,
        *,
        read_committed: bool = False,
    ) -> dict[TopicPartition, OffsetAtTime]:
        """ListOffsets for `spec` = "earliest", "latest" or a timestamp in ms.

        Both the wire client and librdkafka send one request per partition leader. The broker's
        answer is returned as it is (offset -1 where it has none for the time).
        """
        if self.wire is not None:
            from kgroup.core.wire.client import OffsetQuery

            timestamp = {"earliest": -2, "latest": -1}.get(str(spec))
            query = OffsetQuery(int(spec) if timestamp is None else timestamp, read_committed)
            return self.wire.list_offsets(partitions, [query])[0]
        from confluent_kafka import IsolationLevel
        from confluent_kafka import TopicPartition as RdTopicPartition
        from confluent_kafka.admin import OffsetSpec

        if spec == "earliest":
            offset_spec = OffsetSpec.earliest()
        elif spec == "latest":
            offset_spec = OffsetSpec.latest()
        else:
            offset_spec = OffsetSpec.for_timestamp(int(spec))
        request = {RdTopicPartition(tp.topic, tp.partition): offset_spec for tp in partitions}
        if not request:
            return {}
        isolation = (
            IsolationLevel.READ_COMMITTED if read_committed else IsolationLevel.READ_UNCOMMITTED
        )
        futures = self.admin.list_offsets(
            request, isolation_level=isolation, request_timeout=self.timeout_s
        )
        result: dict[TopicPartition, OffsetAtTime] = {}
        for rd_tp, future in futures.items():
            tp = TopicPartition(rd_tp.topic, rd_tp.partition)
            info = self._result(
                future, "list offsets of", str(tp), acl=f"Describe on Topic:{tp.topic}"
            )
            timestamp = (
                info.timestamp if info.timestamp is not None and info.timestamp >= 0 else None
            )
            result[tp] = OffsetAtTime(offset=info.offset, timestamp=timestamp)
        return result

    def watermarks(
        self, partitions: Iterable[TopicPartition], *, read_committed: bool = False
    ) -> dict[TopicPartition, Watermarks]:
        """Log start and log end (or last stable) offsets per partition.

        The wire client sends the two or three queries to each leader back to back.
        """
        wanted = list(partitions)
        if self.wire is not None:
            from kgroup.core.wire.client import EARLIEST, LAST_STABLE, LATEST

            queries = [EARLIEST, LATEST, LAST_STABLE] if read_committed else [EARLIEST, LATEST]
            answers = self.wire.list_offsets(wanted, queries)
            return {
                tp: Watermarks(
                    log_start=answers[0][tp].offset,
                    log_end=answers[1][tp].offset,
                    last_stable=answers[2][tp].offset if read_committed else None,
                )
                for tp in wanted
            }
        earliest = self.list_offsets(wanted, "earliest")
        latest = self.list_offsets(wanted, "latest")
        stable = self.list_offsets(wanted, "latest", read_committed=True) if read_committed else {}
        return {
            tp: Watermarks(
                log_start=earliest[tp].offset,
                log_end=latest[tp].offset,
                last_stable=stable[tp].offset if tp in stable else None,
            )
            for tp in wanted
        }

    def describe_topic_configs(self, topics: Sequence[str]) -> dict[str, Any]:
        """Topic -> configuration entries (name -> value) or KgroupError: the wire client's
        DescribeConfigs, or librdkafka's when the configuration needs librdkafka. All keys are
        asked for (tansu drops a request that names keys; TEST_ENVIRONMENT.md)."""
        if self.wire is not None:
            return self.wire.describe_topic_configs(topics)
        from confluent_kafka.admin import ConfigResource, ResourceType

        futures = self.admin.describe_configs(
            [ConfigResource(ResourceType.TOPIC, t) for t in topics],
            request_timeout=self.timeout_s,
        )
        out: dict[str, Any] = {}
        for resource, future in futures.items():
            try:
                entries = future.result()
            except Exception as exc:
                out[resource.name] = self.error_for(
                    exc,
                    "describe the configuration of topic",
                    resource.name,
                    acl=f"DescribeConfigs on Topic:{resource.name}",
                )
                continue
            out[resource.name] = {name: entry.value for name, entry in entries.items()}
        return out

    def group_fence(self, group_id: str) -> Any:
        """A broker-side fence for `group_id` (kgroup.core.wire.fence.GroupFence, not yet
        acquired), or None when the wire client cannot serve this configuration."""
        wire = self.wire
        if wire is None:
            return None
        if self._group_types.get(group_id) in ("share", "streams"):
            from kgroup.core.wire.fence import ShareGroupFence

            return ShareGroupFence(group_id, self._group_types[group_id])
        from kgroup.core.wire.fence import GroupFence

        return GroupFence(wire, group_id)

    def alter_offsets(
        self, group_id: str, offsets: Mapping[TopicPartition, CommittedOffset]
    ) -> None:
        """Commit `offsets` for the group in one request: OffsetCommit through kgroup's own
        client when it can reach the cluster, else librdkafka's AlterConsumerGroupOffsets.

        Own client first because librdkafka can abort the whole process when a broker answers
        a coordinator request it has given up on (confluentinc/librdkafka#4605), which a reset
        of several groups would meet after a timed-out commit.
        """
        wire = self.wire
        if wire is not None and self.is_share_group(group_id):
            from kgroup.core.wire.share_groups import alter_share_group_offsets

            alter_share_group_offsets(wire, group_id, {tp: v.offset for tp, v in offsets.items()})
            return
        if wire is not None:
            wire.commit_offsets(group_id, offsets)
            return
        from confluent_kafka import ConsumerGroupTopicPartitions
        from confluent_kafka import TopicPartition as RdTopicPartition

        request = [
            RdTopicPartition(
                tp.topic,
                tp.partition,
                value.offset,
                metadata=value.metadata or "",
                leader_epoch=value.leader_epoch if value.leader_epoch is not None else -1,
            )
            for tp, value in sorted(offsets.items())
        ]
        futures = self.admin.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group_id, request)], request_timeout=self.timeout_s
        )
        result = self._result(
            futures[group_id],
            "commit offsets for group",
            group_id,
            acl={
                "Group": f"Read on Group:{group_id}",
                "Topic": "Read on "
                + " and ".join(f"Topic:{t}" for t in sorted({tp.topic for tp in offsets})),
            },
        )
        failed = [tp for tp in result.topic_partitions or [] if tp.error is not None]
        if failed:
            first = failed[0]
            raise self.error_for(
                as_exception(first.error),
                "commit offsets for group",
                f"{group_id} ({first.topic}:{first.partition})",
                acl={"Group": f"Read on Group:{group_id}", "Topic": f"Read on Topic:{first.topic}"},
            )

    def delete_groups(
        self, group_ids: Sequence[str], progress: DeletionProgress | None = None
    ) -> dict[str, KgroupError | None]:
        """Delete groups of any type; returns group -> None (deleted) or its error (a
        SafetyRefusal for NON_EMPTY_GROUP: nothing deleted). Sent with kgroup's own client
        (kgroup.core.wire.delete_groups), which retries a coordinator that moved, is loading or
        died as Kafka's admin client does; librdkafka only where that client cannot go (it
        returns NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS as the group's error).
        `progress` follows the deletion for a caller interrupted meanwhile (Ctrl-C, SIGTERM)."""
        if self.wire is not None:
            from kgroup.core.wire.delete_groups import delete_groups

            return delete_groups(self.wire, group_ids, progress)
        from kgroup.core.wire.delete_groups import non_empty_refusal

        if progress is not None:  # librdkafka's futures: all asked until the answers are read
            progress.asked.update(group_ids)

        futures = self.admin.delete_consumer_groups(list(group_ids), request_timeout=self.timeout_s)
        outcome: dict[str, KgroupError | None] = {}
        for group_id, future in futures.items():
            try:
                future.result()
                outcome[group_id] = None
            except Exception as exc:
                if kafka_error_name(exc) == "NON_EMPTY_GROUP":
                    outcome[group_id] = non_empty_refusal(group_id)
                    continue
                outcome[group_id] = self.error_for(
                    exc, "delete group", group_id, acl=f"Delete on Group:{group_id}"
                )
        if progress is not None:
            progress.asked.clear()
            progress.answered.update(outcome)
        return outcome
