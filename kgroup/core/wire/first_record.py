"""What a consumer gets first from fetched partition data: pure, bytes in, answers out.

Rules from the Java consumer's `CompletedFetch` (org.apache.kafka.clients.consumer.internals):
control batches (transaction markers, KIP-98) are never delivered; with read_committed a batch of
a transactional producer is dropped while that producer has an aborted transaction open, which
starts at the transaction's FirstOffset in the response's AbortedTransactions list and ends at
the producer's ABORT marker (`ControlRecordType.ABORT`); records before the fetch offset in the
first batch are skipped. The broker sends data up to the high watermark (read_uncommitted) or
the last stable offset (read_committed), so a position with no deliverable record before that
end has nothing to consume.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass

from kgroup.offsets.framing import split_batches
from kgroup.offsets.records import Batch

ABORT = 0  # ControlRecordType.ABORT (COMMIT = 1)
_CONTROL_KEY = struct.Struct(">hh")  # control record key: version, type


@dataclass(frozen=True)
class Found:
    """The record a consumer at the position gets next: its offset and timestamp (None when
    it has none, i.e. -1)."""

    offset: int
    timestamp: int | None


@dataclass(frozen=True)
class Nothing:
    """Nothing deliverable between the position and the end of the log (HW or LSO)."""


@dataclass(frozen=True)
class ReadFrom:
    """The fetched data ended before anything deliverable (or held nothing for the partition):
    fetch again from `offset`."""

    offset: int


@dataclass(frozen=True)
class TooLarge:
    """The fetched data held no complete batch at the position (a batch larger than the
    partition's byte limit, which KIP-74 returns whole only to the response's first partition)."""


Outcome = Found | Nothing | ReadFrom | TooLarge


class FetchedData:
    """The deliverable batches of one partition's fetched records, in offset order.

    `aborted` is the response's AbortedTransactions list ((producer id, first offset) pairs),
    used only with `read_committed`. `end` is the offset where the log ends for this consumer
    (high watermark, or last stable offset with read_committed).
    """

    def __init__(
        self,
        records: bytes,
        *,
        end: int,
        read_committed: bool = False,
        aborted: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        self.end = end
        self.partial = bool(records)  # bytes came, perhaps only part of a batch
        self.batches: list[Batch] = []  # deliverable batches (non-control, not aborted)
        self._last_offsets: list[int] = []  # their last offsets, for bisect
        self.covered_until: int | None = None  # offset after the last complete batch
        pending = sorted(aborted or (), key=lambda item: item[1]) if read_committed else []
        open_aborts: set[int] = set()
        for start, size in split_batches(records):
            batch = Batch(records[start : start + size], start)
            self.covered_until = batch.last_offset + 1
            while pending and pending[0][1] <= batch.base_offset:
                open_aborts.add(pending.pop(0)[0])
            if batch.control:
                if read_committed and _is_abort_marker(batch):
                    open_aborts.discard(batch.producer_id)
                continue
            if read_committed and batch.transactional and batch.producer_id in open_aborts:
                continue
            if batch.records_count == 0:
                continue  # emptied by compaction (KIP-58), still carries its offsets
            self.batches.append(batch)
            self._last_offsets.append(batch.last_offset)

    def first_at(self, offset: int) -> Outcome:
        """What a consumer positioned at `offset` (at or after the fetch offset) gets first."""
        index = bisect.bisect_left(self._last_offsets, offset)
        while index < len(self.batches):
            for record in self.batches[index].records():
                if record[0] >= offset:
                    timestamp = record[1]
                    return Found(record[0], timestamp if timestamp >= 0 else None)
            index += 1  # compaction can leave a batch's last records gone
        covered = self.covered_until
        if covered is None:
            if offset >= self.end:
                return Nothing()
            # no bytes: the response was full or the broker's wait ran out; a partial batch:
            # larger than the partition's byte limit
            return TooLarge() if self.partial else ReadFrom(offset)
        if max(offset, covered) >= self.end:
            return Nothing()
        return ReadFrom(max(offset, covered))


def _is_abort_marker(batch: Batch) -> bool:
    """Whether a control batch holds an ABORT marker (its record key: version, type)."""
    for record in batch.records():
        key = record[2]
        if key is not None and len(key) >= 4 and _CONTROL_KEY.unpack_from(key)[1] == ABORT:
            return True
    return False
