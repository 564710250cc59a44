"""WireClient: batched group requests (list, find coordinators, describe, committed offsets),
topic metadata and ListOffsets.

Why it exists: librdkafka sends one DescribeGroups request per group, takes one group per
ListConsumerGroupOffsets call, and describes through ConsumerGroupDescribe where a broker offers
it. Kafka's own requests batch: FindCoordinator v4 takes many keys (KIP-699), DescribeGroups
always took many groups, OffsetFetch v8 takes many groups (KIP-709). So the number of requests
here grows with coordinators and batches (up to `BATCH_SIZE` groups each), never with groups.
Metadata (all topics, never by name) and ListOffsets (one request per partition leader and
query, as KafkaAdminClient.listOffsets does) let `describe` run without loading librdkafka.

Message layouts: the Kafka JSON message specs (see `kgroup.protocol.messages`). Behaviour
follows the Java clients where it matters: each error code of each group request is retried as
they retry it (`kgroup.core.wire.retry_policy`: with the coordinator looked up again, or in
place) until the operation's deadline (--timeout), with their backoff; a coordinator whose
connection fails (a stopped broker) is looked up again too, while the groups of the coordinators
that answer are served at once. ListOffsets partitions whose leader moved or stopped are asked
again after a metadata refresh, until the deadline too (`kgroup.core.wire.leaders`).

Errors: every failure is a KgroupError. Per-group failures are returned in place of the group's
result and carry `kafka_error` (Kafka's error name, e.g. "GROUP_AUTHORIZATION_FAILED") as an
attribute, a coordinator still unreachable at the deadline included (an UnreachableError naming
its address); a cluster none of whose brokers can be reached raises UnreachableError.

Layout by job: the connections and metadata are `kgroup.core.wire.pool` (BrokerPool), the
partition leaders' requests `kgroup.core.wire.leaders` (LeaderClient), the error mapping
`kgroup.core.wire.kafka_errors`, the answers as models `kgroup.core.wire.convert`; this module
holds the group coordinators' requests and keeps every name it had importable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from kgroup.core.commands import group_command
from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KafkaOperationError, KgroupError, UnreachableError, timed_out
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    GroupListing,
    TopicPartition,
)
from kgroup.core.wire.calls import ResponseModule, read_answer
from kgroup.core.wire.cluster_calls import encode_describe_configs_request
from kgroup.core.wire.connection import BrokerConnection
from kgroup.core.wire.convert import (
    commit_rows,
    to_committed_offsets,
    to_consumer_group_description,
    to_group_description,
    to_member,
    topic_id_text,
)
from kgroup.core.wire.error_codes import NONE
from kgroup.core.wire.group_calls import (
    decode_find_coordinator_response,
    encode_consumer_group_describe_request,
    encode_describe_groups_request,
    encode_find_coordinator_request,
    encode_list_groups_request,
)
from kgroup.core.wire.kafka_errors import (
    Retry,
    commit_error,
    config_error,
    connection_failure,
    coordinator_failure,
    fetch_error,
    group_error,
    kafka_error_of,
    list_groups_error,
    missing_answer,
    offset_delete_error,
    offsets_error,
    partition_error,
    stopped_broker,
    unreachable_cluster,
    unsupported_api,
)
from kgroup.core.wire.leaders import (
    EARLIEST,
    LAST_STABLE,
    LATEST,
    MAX_FETCH_ROUNDS,
    LeaderClient,
    OffsetQuery,
)
from kgroup.core.wire.offset_calls import (
    decode_offset_commit_response,
    decode_offset_fetch_response,
    encode_offset_commit_request,
    encode_offset_delete_request,
    encode_offset_fetch_request,
)
from kgroup.core.wire.pool import (
    BATCH_SIZE,
    DEFAULT_CLIENT_ID,
    MAX_THREADS,
    RETRY_BACKOFF_S,
    BrokerPool,
    ClusterMetadata,
)
from kgroup.core.wire.results import RESOURCE_TOPIC, CoordinatorResult, FetchedGroup
from kgroup.core.wire.retry_policy import Retries, connection_retriable
from kgroup.protocol import messages as api_table
from kgroup.protocol.fields import has_field
from kgroup.protocol.model import Api

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire.describe_configs_response import DescribeConfigsResponse
    from kgroup.protocol.generated.wire.list_groups_response import ListGroupsResponse
    from kgroup.protocol.generated.wire.offset_delete_response import OffsetDeleteResponse

# Names kept importable from here (callers and tests import them from this module).
__all__ = [
    "BATCH_SIZE",
    "DEFAULT_CLIENT_ID",
    "EARLIEST",
    "LAST_STABLE",
    "LATEST",
    "MAX_FETCH_ROUNDS",
    "MAX_THREADS",
    "RETRY_BACKOFF_S",
    "BrokerPool",
    "ClusterMetadata",
    "LeaderClient",
    "OffsetQuery",
    "WireClient",
    "commit_error",
    "commit_rows",
    "config_error",
    "fetch_error",
    "group_error",
    "kafka_error_of",
    "offset_delete_error",
    "offsets_error",
    "partition_error",
    "to_committed_offsets",
    "to_consumer_group_description",
    "to_group_description",
    "to_member",
    "topic_id_text",
    "unreachable_cluster",
]

T = TypeVar("T")


class _GroupAnswer(Protocol):
    """A group in a describe response: its id and error code."""

    @property
    def group_id(self) -> str: ...

    @property
    def error_code(self) -> int: ...


_Group = TypeVar("_Group", bound=_GroupAnswer)
_Group_co = TypeVar("_Group_co", bound=_GroupAnswer, covariant=True)


class _Described(Protocol[_Group_co]):
    """A describe response: its groups."""

    @property
    def groups(self) -> tuple[_Group_co, ...]: ...


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class WireClient(LeaderClient):
    """Batched group requests over plain sockets; see the module docstring."""

    def __init__(self, config: ClusterConfig) -> None:
        super().__init__(config)
        # Coordinators found earlier by this client: describe then fetch offsets of the same
        # groups costs one FindCoordinator round. Dropped for a group on a retriable error.
        self._coordinators: dict[str, BrokerNode] = {}

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

        from kgroup.protocol.generated.wire import list_groups_response

        def on(node: BrokerNode) -> Callable[[], ListGroupsResponse | Retry]:
            return lambda: self.on_broker(node.host, node.port, list_on, retries.deadline)

        def list_on(connection: BrokerConnection) -> ListGroupsResponse | Retry:
            version = self._version(connection, api_table.LIST_GROUPS)
            body = encode_list_groups_request(version, sorted(states or ()), sorted(wanted_types))
            result = read_answer(
                list_groups_response,
                connection.call(api_table.LIST_GROUPS, version, body),
                version,
            )
            if result.error_code != NONE:
                error = list_groups_error(result.error_code, connection.address)
                failure = coordinator_failure(result.error_code, error, "ListGroups")
                if isinstance(failure, Retry):
                    return failure
                raise failure
            return result

        # A broker that is loading or stopped is asked again until the deadline; one that left
        # the cluster's metadata (the controller fenced it: its groups moved to other brokers)
        # is dropped, and every broker is asked again, since they now hold its groups.
        retries = self._retries()
        nodes = self.brokers()
        answers: dict[BrokerNode, ListGroupsResponse] = {}
        pending = list(nodes)
        while pending:
            outcomes = self.settled({node: on(node) for node in pending})
            again: list[BrokerNode] = []
            last: KgroupError | None = None
            for node in pending:
                outcome = outcomes[node]
                if isinstance(outcome, Retry):
                    last = outcome.error
                elif connection_retriable(outcome):
                    assert isinstance(outcome, KgroupError)
                    last = stopped_broker(outcome, node.id, "asked for its groups")
                elif isinstance(outcome, BaseException):
                    raise outcome
                else:
                    answers[node] = outcome
                    continue
                again.append(node)
            if not again:
                break
            assert last is not None
            if not retries.wait(last):
                raise retries.expired(last)
            current = self.brokers()
            if any(node not in current for node in again):
                nodes, pending, answers = current, list(current), {}
            else:
                pending = again
        listings: dict[str, GroupListing] = {}
        for node in nodes:
            for group in answers[node].groups:
                # "": the answer's version has no GroupState (v4+) or GroupType (v5+)
                state = group.group_state or "Unknown"
                group_type = (group.group_type or "classic").lower()
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

    def _retries(self) -> Retries:
        """The retry budget of one operation: --timeout, Kafka's backoff (`retry_backoff_s`)."""
        return Retries(self.timeout_s, initial_s=self.retry_backoff_s)

    def find_coordinators(self, group_ids: Iterable[str]) -> dict[str, BrokerNode | KgroupError]:
        """Each group's coordinator; FindCoordinator v4 batches, v1-v3 one group per request.

        COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS are retried until the
        deadline (retry_policy: CoordinatorStrategy); other errors are returned for the group.
        """
        retries = self._retries()
        todo = _unique(group_ids)
        results: dict[str, BrokerNode | KgroupError] = {}
        while todo:
            found = self._find_once(todo)
            again = [g for g in todo if isinstance(found[g], Retry)]
            for group_id in todo:
                answer = found[group_id]
                if not isinstance(answer, Retry):
                    results[group_id] = answer
            if not again:
                break
            last = found[again[0]]
            assert isinstance(last, Retry)
            if not retries.wait(last.error):
                for group_id in again:
                    failed = found[group_id]
                    assert isinstance(failed, Retry)
                    results[group_id] = retries.expired(failed.error)
                break
            todo = again
        return {g: results[g] for g in _unique(group_ids)}

    def _find_once(self, todo: list[str]) -> dict[str, BrokerNode | KgroupError | Retry]:
        """One round of FindCoordinator for `todo` on any broker; found ones are kept."""
        found = self._on_any(lambda connection: self._find_on(connection, todo))
        results: dict[str, BrokerNode | KgroupError | Retry] = {}
        for group_id in todo:
            answer = found.get(group_id)
            if answer is None:
                results[group_id] = missing_answer(
                    f"the broker did not return the coordinator of group {group_id}"
                )
            elif answer.error_code == NONE:
                known = (self._brokers or {}).get(answer.node_id)
                node = BrokerNode(
                    answer.node_id, answer.host, answer.port, known.rack if known else None
                )
                self._coordinators[group_id] = node
                results[group_id] = node
            else:
                error = group_error(
                    answer.error_code, group_id, "find the coordinator", answer.error_message
                )
                results[group_id] = coordinator_failure(answer.error_code, error, "FindCoordinator")
        return results

    def _find_on(
        self, connection: BrokerConnection, keys: Sequence[str]
    ) -> dict[str, CoordinatorResult]:
        version = self._version(connection, api_table.FIND_COORDINATOR)
        sent = self._pipelined(
            connection,
            api_table.FIND_COORDINATOR,
            version,
            keys,
            encode_find_coordinator_request,
            # KIP-699: many keys per request where the version has CoordinatorKeys
            batched=has_field("FindCoordinatorRequest", "CoordinatorKeys", version),
        )
        return {
            answer.key: answer
            for batch, body in sent
            for answer in decode_find_coordinator_response(body, version, batch)
        }

    def _pipelined(
        self,
        connection: BrokerConnection,
        api: Api,
        version: int,
        keys: Sequence[str],
        encode: Callable[[int, list[str]], bytes],
        *,
        batched: bool = True,
    ) -> list[tuple[list[str], bytes]]:
        """One `api` request per batch of `keys` (up to `batch_size` each; one key each when not
        `batched`), pipelined on `connection`: each batch with its answer's body."""
        batches = _chunks(keys, self.batch_size) if batched else [[key] for key in keys]
        bodies = connection.pipeline([(api, version, encode(version, batch)) for batch in batches])
        return list(zip(batches, bodies, strict=True))

    def _described(
        self,
        connection: BrokerConnection,
        node: BrokerNode,
        groups: list[str],
        api: Api,
        version: int,
        encode: Callable[[int, list[str]], bytes],
        answer: ResponseModule[_Described[_Group]],
        describe: Callable[[_Group, BrokerNode], GroupDescription],
    ) -> dict[str, GroupDescription | KgroupError | Retry]:
        """Describe `groups` on their coordinator `node`: `api` requests per batch, each group of
        the `answer` read as `describe` makes it, or its error (retried when the coordinator
        moved)."""
        out: dict[str, GroupDescription | KgroupError | Retry] = {}
        for _batch, body in self._pipelined(connection, api, version, groups, encode):
            for group in read_answer(answer, body, version).groups:
                if group.error_code == NONE:
                    out[group.group_id] = describe(group, node)
                else:
                    error = group_error(group.error_code, group.group_id, "describe")
                    out[group.group_id] = coordinator_failure(group.error_code, error, api.name)
        return out

    # -- per-coordinator plumbing ----------------------------------------------------------------

    def _per_coordinator(
        self,
        group_ids: Iterable[str],
        work: Callable[
            [BrokerConnection, BrokerNode, list[str]], dict[str, T | KgroupError | Retry]
        ],
    ) -> tuple[dict[str, T | KgroupError], dict[str, BrokerNode]]:
        """Find coordinators, run `work` once per coordinator (in parallel), retry what failed.

        Coordinators this client found before are reused. `work` returns per-group results;
        `Retry` ones (retry_policy: NOT_COORDINATOR after a coordinator moved, LOAD_IN_PROGRESS,
        ...) and the groups of a coordinator whose connection failed (a stopped broker: Kafka
        moves its groups within the broker session timeout) are tried again after a backoff
        until the deadline, their coordinator looked up again where the rule says so; the
        others are answered at once. A group still failing at the deadline gets its last error.
        """
        retries = self._retries()
        todo = _unique(group_ids)
        results: dict[str, T | KgroupError] = {}
        coordinators: dict[str, BrokerNode] = {}
        last: dict[str, KgroupError] = {}

        def task(
            node: BrokerNode, groups: list[str]
        ) -> Callable[[], dict[str, T | KgroupError | Retry]]:
            return lambda: self.on_broker(
                node.host, node.port, lambda conn: work(conn, node, groups), retries.deadline
            )

        while todo:
            cached = {g: self._coordinators[g] for g in todo if g in self._coordinators}
            found: dict[str, BrokerNode | KgroupError | Retry] = dict(cached)
            missing = [g for g in todo if g not in cached]
            if missing:
                found.update(self._find_once(missing))
            plan: dict[BrokerNode, list[str]] = {}
            again: list[str] = []
            for group_id in todo:
                node = found[group_id]
                if isinstance(node, Retry):
                    again.append(group_id)
                    last[group_id] = node.error
                elif isinstance(node, KgroupError):
                    results[group_id] = node
                else:
                    coordinators[group_id] = node
                    plan.setdefault(node, []).append(group_id)
            outcomes = self.settled({node: task(node, groups) for node, groups in plan.items()})
            for node, groups in plan.items():
                answer = outcomes[node]
                if connection_retriable(answer):
                    assert isinstance(answer, KgroupError)
                    answer = dict.fromkeys(groups, connection_failure(answer, node.id, groups))
                elif isinstance(answer, UnreachableError):  # timed out, or refuses the request
                    answer = dict.fromkeys(groups, answer)
                elif isinstance(answer, BaseException):
                    raise answer
                for group_id in groups:
                    outcome = answer.get(group_id)
                    if outcome is None:
                        results[group_id] = missing_answer(
                            f"coordinator {node.host}:{node.port} did not return group {group_id}"
                        )
                    elif isinstance(outcome, Retry):
                        again.append(group_id)
                        last[group_id] = outcome.error
                        if outcome.new_coordinator:
                            self._coordinators.pop(group_id, None)
                    else:
                        results[group_id] = outcome
            if not again:
                break
            if not retries.wait(last[again[0]]):
                for group_id in again:
                    results[group_id] = retries.expired(last[group_id])
                break
            todo = again
        return results, coordinators

    def _for_group(
        self,
        group_id: str,
        work: Callable[
            [BrokerConnection, BrokerNode, list[str]], dict[str, T | KgroupError | Retry]
        ],
    ) -> T:
        """`work` for the one group `group_id` on its coordinator, retried as `_per_coordinator`
        retries it: its result, or its error raised."""
        results, _ = self._per_coordinator([group_id], work)
        outcome = results[group_id]
        if isinstance(outcome, KgroupError):
            raise outcome
        return outcome

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
    ) -> dict[str, GroupDescription | KgroupError | Retry]:
        from kgroup.protocol.generated.wire import consumer_group_describe_response

        api = api_table.CONSUMER_GROUP_DESCRIBE
        version = connection.version_for(api)
        if version is None:
            unsupported = unsupported_api(
                f"broker {connection.address} does not offer ConsumerGroupDescribe (KIP-848)"
            )
            return dict.fromkeys(groups, unsupported)
        return self._described(
            connection,
            node,
            groups,
            api,
            version,
            encode_consumer_group_describe_request,
            consumer_group_describe_response,
            to_consumer_group_description,
        )

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
            dict[str, GroupDescription | KgroupError | Retry],
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
                    unreachable=timed_out(outcome),
                )
            else:
                assert isinstance(outcome, GroupDescription)
                described[group_id] = outcome
        return described

    def _describe_on(
        self, connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, GroupDescription | KgroupError | Retry]:
        from kgroup.protocol.generated.wire import describe_groups_response

        return self._described(
            connection,
            node,
            groups,
            api_table.DESCRIBE_GROUPS,
            self._version(connection, api_table.DESCRIBE_GROUPS),
            encode_describe_groups_request,
            describe_groups_response,
            to_group_description,
        )

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
        sends it, retried as AlterConsumerGroupOffsetsHandler retries it (retry_policy: errors
        that mean nothing was written, e.g. NOT_COORDINATOR on a just-started broker) and after
        a coordinator's connection failed (the same absolute offsets again), until the deadline.
        Raises the KgroupError of the first partition the coordinator refused.
        """
        rows = commit_rows(offsets)

        def work(
            connection: BrokerConnection, node: BrokerNode, groups: list[str]
        ) -> dict[str, bool | KgroupError | Retry]:
            version = self._version(connection, api_table.OFFSET_COMMIT)
            (body,) = connection.pipeline(
                [
                    (
                        api_table.OFFSET_COMMIT,
                        version,
                        encode_offset_commit_request(version, group_id, rows),
                    )
                ]
            )
            for topic, partition, code in decode_offset_commit_response(body, version):
                if code != NONE:
                    error = commit_error(code, group_id, TopicPartition(topic, partition))
                    return {group_id: coordinator_failure(code, error, "OffsetCommit")}
            return {group_id: True}

        self._for_group(group_id, work)

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
        coordinator errors are retried as Admin.deleteConsumerGroupOffsets retries them
        (DeleteConsumerGroupOffsetsHandler), until the deadline.
        """
        from kgroup.protocol.generated.wire import offset_delete_response

        rows = [(tp.topic, tp.partition) for tp in sorted(set(partitions))]
        if not rows:
            return {}

        def work(
            connection: BrokerConnection, node: BrokerNode, groups: list[str]
        ) -> dict[str, OffsetDeleteResponse | KgroupError | Retry]:
            version = connection.version_for(api_table.OFFSET_DELETE)
            if version is None:
                return {
                    group_id: unsupported_api(
                        f"broker {connection.address} does not offer OffsetDelete (KIP-496; "
                        "Kafka has it since 2.4), so it cannot delete committed offsets",
                        hint="kgroup reset-offsets can move the offsets instead",
                    )
                }
            request = encode_offset_delete_request(version, group_id, rows)
            result = read_answer(
                offset_delete_response,
                connection.call(api_table.OFFSET_DELETE, version, request),
                version,
            )
            if result.error_code != NONE:
                error = offset_delete_error(result.error_code, group_id)
                return {group_id: coordinator_failure(result.error_code, error, "OffsetDelete")}
            return {group_id: result}

        outcome = self._for_group(group_id, work)
        answered = {
            TopicPartition(t.name, x.partition_index): x.error_code
            for t in outcome.topics
            for x in t.partitions
        }
        deleted: dict[TopicPartition, KgroupError | None] = {}
        for topic, partition in rows:
            tp = TopicPartition(topic, partition)
            code = answered.get(tp)
            if code is None:
                deleted[tp] = missing_answer(
                    f"the coordinator of group {group_id} did not answer for {tp}: whether "
                    "its offset was deleted is unknown",
                    hint=f"check with `{group_command('describe', group_id)}`",
                )
            else:
                deleted[tp] = None if code == NONE else offset_delete_error(code, group_id, tp)
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

        from kgroup.protocol.generated.wire import describe_configs_response

        def work(connection: BrokerConnection) -> DescribeConfigsResponse:
            version = self._version(connection, api_table.DESCRIBE_CONFIGS)
            request = encode_describe_configs_request(
                version, [(RESOURCE_TOPIC, name, keys) for name in names]
            )
            body = connection.call(api_table.DESCRIBE_CONFIGS, version, request)
            # strict, as kgroup always read it: bytes after the answer are an error
            return read_answer(describe_configs_response, body, version, strict=True)

        answered = {r.resource_name: r for r in self._on_any(work).results}
        out: dict[str, dict[str, str | None] | KgroupError] = {}
        for name in names:
            resource = answered.get(name)
            if resource is None:
                out[name] = KafkaOperationError(
                    f"the broker did not return the configuration of topic {name}"
                )
            elif resource.error_code != NONE:
                out[name] = config_error(resource.error_code, name, resource.error_message)
            else:
                out[name] = {c.name: c.value for c in resource.configs}
        return out

    def _fetch_on(
        self, connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, dict[TopicPartition, CommittedOffset] | KgroupError | Retry]:
        version = self._version(connection, api_table.OFFSET_FETCH)
        sent = self._pipelined(
            connection,
            api_table.OFFSET_FETCH,
            version,
            groups,
            encode_offset_fetch_request,
            # KIP-709: many groups per request where the version has Groups
            batched=has_field("OffsetFetchRequest", "Groups", version),
        )
        return {
            group.group_id: _fetched(group)
            for batch, body in sent
            for group in decode_offset_fetch_response(body, version, batch)
        }


def _fetched(
    group: FetchedGroup,
) -> dict[TopicPartition, CommittedOffset] | KgroupError | Retry:
    """One group's OffsetFetch answer; its error codes retried as OffsetFetch's rule says
    (UNSTABLE_OFFSET_COMMIT on a partition: a transaction's offsets are pending, ask again)."""
    for code in [group.error_code, *(p.error_code for p in group.partitions)]:
        if code != NONE:
            failure = to_committed_offsets(group)
            if isinstance(failure, KgroupError):
                return coordinator_failure(code, failure, "OffsetFetch")
            return failure
    return to_committed_offsets(group)
