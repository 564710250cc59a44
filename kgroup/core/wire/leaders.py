"""LeaderClient: the requests sent to partition leaders. ListOffsets (one request per leader
and query, as KafkaAdminClient.listOffsets sends them) and the Fetch requests that tell what a
consumer at an offset would read next (`next_records`). Leaders come from the kept metadata; a
moved leader is looked up again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kgroup.core.errors import KafkaOperationError, KgroupError
from kgroup.core.models import BrokerNode, NextRecord, OffsetAtTime, TopicPartition
from kgroup.core.wire.connection import BrokerConnection
from kgroup.core.wire.error_codes import (
    NONE,
    OFFSET_OUT_OF_RANGE,
    UNKNOWN_TOPIC_OR_PARTITION,
    error_name,
)
from kgroup.core.wire.kafka_errors import fetch_error, offsets_error
from kgroup.core.wire.offset_calls import (
    decode_fetch_response,
    decode_list_offsets_response,
    encode_fetch_request,
    encode_list_offsets_request,
)
from kgroup.core.wire.pool import BrokerPool
from kgroup.core.wire.results import (
    EARLIEST_TIMESTAMP,
    FETCH_MAX_BYTES,
    LATEST_TIMESTAMP,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    FetchedPartition,
    FetchPosition,
    ListedOffset,
)
from kgroup.core.wire.retry_policy import RETRIABLE_LEADER_ERRORS, Retries, connection_retriable
from kgroup.protocol import messages as api_table
from kgroup.protocol.fields import field_versions, has_field

# next_records: at most this many rounds (besides the timeout). A round is needed per group of
# a partition's offsets within one fetch (64 KiB) of each other, so only groups spread over a
# whole log come near it; what is left is unknown, as after the timeout.
MAX_FETCH_ROUNDS = 1000


def _settle(
    answer: FetchedPartition,
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


@dataclass(frozen=True)
class OffsetQuery:
    """What to ask ListOffsets: a time in ms, EARLIEST (-2) or LATEST (-1), and whether to read
    the last stable offset (read_committed) instead of the log end."""

    timestamp: int
    read_committed: bool = False


EARLIEST = OffsetQuery(EARLIEST_TIMESTAMP)
LATEST = OffsetQuery(LATEST_TIMESTAMP)
LAST_STABLE = OffsetQuery(LATEST_TIMESTAMP, read_committed=True)


class LeaderClient(BrokerPool):
    """ListOffsets and Fetch to partition leaders; see the module docstring."""

    # -- ListOffsets -----------------------------------------------------------------------------

    def list_offsets(
        self, partitions: Iterable[TopicPartition], queries: Sequence[OffsetQuery]
    ) -> list[dict[TopicPartition, OffsetAtTime]]:
        """The offset of every partition for each query, in the order of `queries`.

        One ListOffsets request per partition leader and query, pipelined on the leader's
        connection, leaders in parallel; leaders come from `metadata()`. A partition whose
        leader moved or is being elected (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, ...) is
        asked again after a metadata refresh, as is one whose leader stopped (refused or closed
        connections), until the deadline. Any other partition error raises: unknown
        partition -> NotFoundError, TOPIC_AUTHORIZATION_FAILED -> AuthorizationError.
        The offsets are the broker's answers as they are (-1 where it has none).
        """
        wanted = sorted(set(partitions))
        results: list[dict[TopicPartition, OffsetAtTime]] = [{} for _ in queries]
        todo = [(index, tp) for index in range(len(queries)) for tp in wanted]
        retries = Retries(self.timeout_s, initial_s=self.retry_backoff_s)
        attempt = 0
        while todo:
            attempt += 1
            fetched = self._metadata is None or attempt > 1
            cluster = self.metadata(refresh=attempt > 1)
            retry: list[tuple[int, TopicPartition]] = []
            last: KgroupError | None = None
            plan: dict[BrokerNode, dict[int, list[TopicPartition]]] = {}
            for index, tp in todo:
                leader, code = cluster.leader_of(tp)
                if leader is not None:
                    plan.setdefault(leader, {}).setdefault(index, []).append(tp)
                elif code in RETRIABLE_LEADER_ERRORS or (
                    code == UNKNOWN_TOPIC_OR_PARTITION and not fetched
                ):
                    retry.append((index, tp))
                    last = offsets_error(code, tp)
                else:
                    raise offsets_error(code, tp)

            def task(
                node: BrokerNode, asked: dict[int, list[TopicPartition]]
            ) -> Callable[[], dict[tuple[int, TopicPartition], ListedOffset]]:
                return lambda: self.on_broker(
                    node.host,
                    node.port,
                    lambda conn: self._list_offsets_on(conn, queries, asked),
                    retries.deadline,
                )

            outcomes = self.settled({node: task(node, asked) for node, asked in plan.items()})
            for node, asked in plan.items():
                answers = outcomes[node]
                if isinstance(answers, BaseException):
                    if not connection_retriable(answers):
                        raise answers
                    # a stopped leader: its partitions get new leaders (PartitionLeaderStrategy
                    # looks them up again after a disconnect, as for coordinators)
                    assert isinstance(answers, KgroupError)
                    retry += [(index, tp) for index, tps in asked.items() for tp in tps]
                    last = answers
                    continue
                for index, tps in sorted(asked.items()):
                    for tp in tps:
                        answer = answers.get((index, tp))
                        if answer is None:
                            raise KafkaOperationError(
                                f"broker {node.host}:{node.port} did not return the offset of {tp}"
                            )
                        if answer.error_code == NONE:
                            results[index][tp] = OffsetAtTime(
                                offset=answer.offset,
                                timestamp=answer.timestamp if answer.timestamp >= 0 else None,
                            )
                        elif answer.error_code in RETRIABLE_LEADER_ERRORS:
                            retry.append((index, tp))
                            last = offsets_error(answer.error_code, tp)
                        else:
                            raise offsets_error(answer.error_code, tp)
            todo = retry
            if todo:
                assert last is not None
                if not retries.wait(last):
                    raise retries.expired(last)
        return results

    def _list_offsets_on(
        self,
        connection: BrokerConnection,
        queries: Sequence[OffsetQuery],
        asked: dict[int, list[TopicPartition]],
    ) -> dict[tuple[int, TopicPartition], ListedOffset]:
        version = self._version(connection, api_table.LIST_OFFSETS)
        order = sorted(asked)
        requests = []
        for index in order:
            query = queries[index]
            if query.read_committed and not has_field(
                "ListOffsetsRequest", "IsolationLevel", version
            ):
                first = field_versions("ListOffsetsRequest", "IsolationLevel")[0]
                raise KafkaOperationError(
                    f"broker {connection.address} offers ListOffsets v{version} at most, which "
                    f"cannot read the last stable offset (read_committed needs v{first})",
                    hint="use a broker of Kafka 0.11 or later",
                )
            by_topic: dict[str, list[tuple[int, int]]] = {}
            for tp in asked[index]:
                by_topic.setdefault(tp.topic, []).append((tp.partition, query.timestamp))
            isolation = READ_COMMITTED if query.read_committed else READ_UNCOMMITTED
            body = encode_list_offsets_request(version, list(by_topic.items()), isolation)
            requests.append((api_table.LIST_OFFSETS, version, body))
        bodies = connection.pipeline(requests)
        found: dict[tuple[int, TopicPartition], ListedOffset] = {}
        for index, body in zip(order, bodies, strict=True):
            for answer in decode_list_offsets_response(body, version):
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
        leader is looked up again, as are the partitions of a leader that stopped (refused or
        closed connections). What stays unanswered after the timeout is left out.
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
                    code in RETRIABLE_LEADER_ERRORS
                    or (code == UNKNOWN_TOPIC_OR_PARTITION and not fresh)
                ):
                    refresh = True  # a moved leader, or a topic newer than the metadata
                else:
                    raise fetch_error(code, tp)

            def task(
                node: BrokerNode, asked: list[FetchPosition], solo: set[TopicPartition]
            ) -> Callable[[], dict[TopicPartition, FetchedPartition]]:
                return lambda: self.on_broker(
                    node.host,
                    node.port,
                    lambda conn: self._fetch_records_on(conn, asked, solo, read_committed),
                )

            tried_alone |= alone
            tasks = {
                node: task(
                    node,
                    [
                        FetchPosition(tp.topic, tp.partition, start[tp], max_bytes_per_partition)
                        for tp in tps
                    ],
                    alone & set(tps),
                )
                for node, tps in plan.items()
            }
            answers: dict[BrokerNode, dict[TopicPartition, FetchedPartition]] = {}
            for node, got in self.settled(tasks).items():
                if isinstance(got, BaseException):
                    if not connection_retriable(got):
                        raise got
                    refresh = True  # a stopped leader: its partitions get new leaders
                    got = {}
                answers[node] = got
            alone = set()
            out_of_range: list[TopicPartition] = []
            for node, tps in plan.items():
                for tp in tps:
                    answer = answers[node].get(tp)
                    if answer is None:
                        continue  # left out of the response: asked again next round
                    if answer.error_code == OFFSET_OUT_OF_RANGE:
                        out_of_range.append(tp)
                    elif answer.error_code in RETRIABLE_LEADER_ERRORS and leader_retries < 2:
                        refresh = True
                    elif answer.error_code != NONE:
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
        positions: list[FetchPosition],
        alone: set[TopicPartition],
        read_committed: bool,
    ) -> dict[TopicPartition, FetchedPartition]:
        """Fetch `positions` from one leader: those in `alone` one per request, the others
        sharing requests of at most fetch.max.bytes worth of partitions, all pipelined."""
        version = self._version(connection, api_table.FETCH)
        isolation = READ_COMMITTED if read_committed else READ_UNCOMMITTED
        solo = [p for p in positions if TopicPartition(p.topic, p.partition) in alone]
        shared = [p for p in positions if TopicPartition(p.topic, p.partition) not in alone]
        per_request = max(
            1, FETCH_MAX_BYTES // max(1, max((p.max_bytes for p in shared), default=1))
        )
        groups = [[p] for p in solo] + [
            shared[i : i + per_request] for i in range(0, len(shared), per_request)
        ]
        requests = [
            (
                api_table.FETCH,
                version,
                encode_fetch_request(version, group, isolation_level=isolation),
            )
            for group in groups
        ]
        found: dict[TopicPartition, FetchedPartition] = {}
        for body in connection.pipeline(requests):
            code, partitions = decode_fetch_response(body, version)
            if code != NONE:
                raise KafkaOperationError(
                    f"broker {connection.address} refused a Fetch request: {error_name(code)}"
                )
            for answer in partitions:
                found[TopicPartition(answer.topic, answer.partition)] = answer
        return found
