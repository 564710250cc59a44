"""A partition's log as the broker holds it: Fetch (read_uncommitted) from the log start to the
high watermark, written batch by batch, control batches (transaction markers) and aborted data
included, i.e. the bytes of its segment files.

For readers that need what a consumer never gets: `reset-offsets --to-committed-at` live,
where a transactional offset commit counts from its COMMIT marker (KIP-98, KIP-447) and
librdkafka delivers no marker. Source of truth: Kafka's FetchRequest/FetchResponse (whole
batches from the one holding the fetch offset; KIP-74: the first batch even when larger than
the limit) and the v2 batch header (`kgroup.offsets.framing`). An answer may end in a partial
batch (LogSegment.read slices at the byte limit): the next Fetch starts at that batch, and a
partial first batch (no KIP-74) asks again with four times the bytes. OFFSET_OUT_OF_RANGE
follows a log start that moved (retention, DeleteRecords); a log truncated below what was read
is an error. Empty answers below the end wait a backoff before the next Fetch.
"""

from __future__ import annotations

import time
from typing import Any, BinaryIO

from kgroup.core.errors import KafkaOperationError, UnreachableError
from kgroup.core.models import TopicPartition
from kgroup.core.wire.error_codes import NONE, OFFSET_OUT_OF_RANGE
from kgroup.core.wire.kafka_errors import fetch_error
from kgroup.core.wire.leaders import EARLIEST, LATEST
from kgroup.core.wire.results import FetchPosition
from kgroup.core.wire.retry_policy import RETRIABLE_LEADER_ERRORS
from kgroup.offsets.framing import last_offset, split_batches

FIRST_MAX_BYTES = 1 << 20


def copy_partition_log(wire: Any, tp: TopicPartition, out: BinaryIO) -> int:
    """Write every batch of `tp` from its log start to its high watermark (as seen at start)
    to `out`; returns the number of batches. Raises as Fetch fails (exit 6 when the broker
    keeps answering nothing until the client's timeout)."""
    offset = wire.list_offsets([tp], [EARLIEST])[0][tp].offset
    end = wire.list_offsets([tp], [LATEST])[0][tp].offset
    deadline = time.monotonic() + wire.timeout_s
    max_bytes = FIRST_MAX_BYTES
    refresh = False
    batches = 0
    while offset < end:
        if time.monotonic() > deadline:
            raise UnreachableError(
                f"reading {tp} from offset {offset} (of {end}) timed out",
                hint="raise --timeout, or copy the partition's segments and use --segments",
            )
        leader, code = wire.metadata(refresh=refresh).leader_of(tp)
        refresh = False
        if leader is None:
            if code not in RETRIABLE_LEADER_ERRORS:
                raise fetch_error(code, tp)
            refresh = True
            time.sleep(wire.retry_backoff_s)
            continue
        asked = [FetchPosition(tp.topic, tp.partition, offset, max_bytes)]
        answer = wire.on_broker(
            leader.host,
            leader.port,
            lambda conn: wire._fetch_records_on(conn, asked, set(), False),  # noqa: B023
        ).get(tp)
        if answer is None or answer.error_code in RETRIABLE_LEADER_ERRORS:
            refresh = answer is not None
            continue  # left out of the answer (tansu fills partitions only while MaxWaitMs)
        if answer.error_code == OFFSET_OUT_OF_RANGE:
            offset = _after_out_of_range(wire, tp, offset)
            continue
        if answer.error_code != NONE:
            raise fetch_error(answer.error_code, tp)
        data = answer.records
        after = offset
        for pos, size in split_batches(data):
            last = last_offset(data, pos)
            if last < offset:
                continue
            out.write(data[pos : pos + size])
            batches += 1
            after = last + 1
        if after == offset:
            if data:
                max_bytes *= 4  # only part of a batch came back: ask for more
            else:  # nothing yet below the end (a new leader's high watermark lagging): back off
                time.sleep(wire.retry_backoff_s)
        offset = after
    return batches


def _after_out_of_range(wire: Any, tp: TopicPartition, offset: int) -> int:
    """Where to go on after OFFSET_OUT_OF_RANGE at `offset` (Kafka: below the log start or past
    the log end): the new log start when retention or DeleteRecords moved it past `offset`.
    A log that now ends below `offset` was truncated (a leader without those records took over:
    an unclean election), so batches already copied no longer exist: raised, not retried."""
    start = wire.list_offsets([tp], [EARLIEST])[0][tp].offset
    if start > offset:
        return start
    end = wire.list_offsets([tp], [LATEST])[0][tp].offset
    if end < offset:
        raise KafkaOperationError(
            f"the log of {tp} was truncated to offset {end} while kgroup copied it (read up to "
            f"offset {offset}): a leader without those records took over",
            hint="run the command again: it reads the log as it is now",
        )
    time.sleep(wire.retry_backoff_s)  # not out of range any more: a leader change under way
    return offset
