"""copy_partition_log (kgroup.core.wire.log_copy) against a scripted leader: the bytes it writes
are the partition's batches, whatever the Fetch answers look like.

The broker answers Fetch as Kafka's ReplicaManager / LogSegment.read do (FetchResponse.json laid
out by tests/unit/wire/fakebroker.fetch_body): from the batch holding the fetch offset, whole
batches up to PartitionMaxBytes, then the bytes of the next batch that still fit (a partial batch:
`LogSegment.read` slices the file, it does not stop at a batch boundary); KIP-74 (Fetch v3+): the
first batch whole even when larger than the limit, unless `no_kip74` (a pre-KIP-74 answer: the cut
bytes only). OFFSET_OUT_OF_RANGE for an offset below the log start or above the log end. Between
answers a test moves the log start (retention, DeleteRecords) or truncates the log (an unclean
leader election). Expected bytes are the batches, concatenated by hand.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KgroupError, UnreachableError
from kgroup.core.models import TopicPartition
from kgroup.core.wire import log_copy
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.error_codes import OFFSET_OUT_OF_RANGE
from kgroup.core.wire.log_copy import copy_partition_log
from kgroup.core.wire.results import EARLIEST_TIMESTAMP
from kgroup.offsets.encode import encode_batch
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import (
    FakeBroker,
    FakePartition,
    FakeTopic,
    FetchAnswer,
    FetchAsked,
    fetch_body,
    list_offsets_body,
    metadata_body,
    read_fetch_request,
    read_list_offsets_request,
)

TP = TopicPartition("__consumer_offsets", 0)


def batch(base: int, count: int) -> bytes:
    return encode_batch(
        [(b"k%d" % i, b"v" * 40) for i in range(count)], base_offset=base, timestamp=1000 + base
    )


B0, B1, B2 = batch(0, 3), batch(3, 4), batch(7, 3)  # offsets 0-2, 3-6, 7-9


@dataclass
class Leader:
    """One broker leading TP; `batches` (base, last, bytes) from the log start."""

    batches: list[tuple[int, int, bytes]] = field(
        default_factory=lambda: [(0, 2, B0), (3, 6, B1), (7, 9, B2)]
    )
    no_kip74: bool = False
    asked: list[FetchAsked] = field(default_factory=list)
    # called before each Fetch is answered, with the number of Fetches answered so far
    before_fetch: Callable[[Leader, int], None] = lambda leader, n: None

    def __post_init__(self) -> None:
        self.log_start = self.batches[0][0]
        self.broker = FakeBroker(self.handle)

    @property
    def log_end(self) -> int:
        return self.batches[-1][1] + 1 if self.batches else self.log_start

    def delete_records(self, before: int) -> None:
        """Retention or DeleteRecords: the log starts at `before` (a batch boundary here)."""
        self.batches = [b for b in self.batches if b[0] >= before]
        self.log_start = before

    def truncate(self, end: int) -> None:
        """An unclean leader election: the new leader's log ends at `end`."""
        self.batches = [b for b in self.batches if b[1] < end]

    def handle(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.METADATA.key:
            brokers = [(1, "127.0.0.1", self.broker.port)]
            topics = [FakeTopic(TP.topic, (FakePartition(TP.partition, 1),))]
            return metadata_body(brokers, version, topics)
        if api == api_table.LIST_OFFSETS.key:
            _isolation, items = read_list_offsets_request(body, version)
            answers = [
                (t, p, 0, -1, self.log_start if ts == EARLIEST_TIMESTAMP else self.log_end)
                for t, p, ts in items
            ]
            return list_offsets_body(version, answers)
        if api == api_table.FETCH.key:
            return self.fetch(version, body)
        raise AssertionError(f"unexpected api {api}")

    def fetch(self, version: int, body: bytes) -> bytes:
        _isolation, _wait, (item,) = read_fetch_request(body, version)
        self.before_fetch(self, len(self.asked))
        self.asked.append(item)
        if not self.log_start <= item.offset <= self.log_end:
            answer = FetchAnswer(TP.topic, TP.partition, error=OFFSET_OUT_OF_RANGE)
            return fetch_body(version, [answer])
        data = b"".join(b for _base, last, b in self.batches if last >= item.offset)
        whole_first = next((b for _base, last, b in self.batches if last >= item.offset), b"")
        limit = item.max_bytes
        if not self.no_kip74 and len(whole_first) > limit:
            limit = len(whole_first)  # KIP-74: the first batch whole
        answer = FetchAnswer(
            TP.topic,
            TP.partition,
            records=data[:limit],  # LogSegment.read: a slice, possibly ending mid-batch
            high_watermark=self.log_end,
            last_stable=self.log_end,
            log_start=self.log_start,
        )
        return fetch_body(version, [answer])


@pytest.fixture()
def make() -> Iterator[Callable[..., Leader]]:
    made: list[Leader] = []

    def build(**kw: object) -> Leader:
        leader = Leader(**kw)  # type: ignore[arg-type]
        made.append(leader)
        return leader

    yield build
    for leader in made:
        leader.broker.close()


def copy(leader: Leader, timeout_s: float = 5.0, backoff_s: float = 0.01) -> tuple[bytes, int]:
    out = io.BytesIO()
    client = WireClient(ClusterConfig(leader.broker.address, timeout_s=timeout_s))
    client.retry_backoff_s = backoff_s
    with client:
        batches = copy_partition_log(client, TP, out)
    return out.getvalue(), batches


def test_the_whole_log_in_one_answer(make) -> None:
    leader = make()
    assert copy(leader) == (B0 + B1 + B2, 3)
    assert [a.offset for a in leader.asked] == [0]


def test_answers_ending_in_a_partial_batch(make, monkeypatch) -> None:
    # each answer: one whole batch and the first 30 bytes of the next (max bytes cut it)
    monkeypatch.setattr(log_copy, "FIRST_MAX_BYTES", len(B0) + 30)
    leader = make()
    assert copy(leader) == (B0 + B1 + B2, 3)
    assert [a.offset for a in leader.asked] == [0, 3, 7]  # each from the cut batch's base


def test_a_partial_first_batch_asks_again_with_more_bytes(make, monkeypatch) -> None:
    # a broker before KIP-74 returns only the bytes that fit: no whole batch at all
    monkeypatch.setattr(log_copy, "FIRST_MAX_BYTES", 20)
    leader = make(no_kip74=True)
    assert copy(leader) == (B0 + B1 + B2, 3)
    sizes = [a.max_bytes for a in leader.asked]
    assert sizes[0] == 20 and sizes == sorted(sizes) and len(set(sizes)) > 1
    assert all(a.offset in (0, 3, 7) for a in leader.asked)


def test_the_log_start_moved_before_the_first_fetch(make) -> None:
    def retention(leader: Leader, answered: int) -> None:
        if answered == 0:
            leader.delete_records(3)  # B0 deleted after kgroup listed the log start

    leader = make(before_fetch=retention)
    assert copy(leader) == (B1 + B2, 2)
    assert [a.offset for a in leader.asked] == [0, 3]  # OFFSET_OUT_OF_RANGE, then the new start


def test_the_log_start_moved_past_the_copy_in_the_middle(make, monkeypatch) -> None:
    monkeypatch.setattr(log_copy, "FIRST_MAX_BYTES", len(B0))

    def retention(leader: Leader, answered: int) -> None:
        if answered == 1:
            leader.delete_records(7)  # B1 deleted while kgroup copied B0

    leader = make(before_fetch=retention)
    assert copy(leader) == (B0 + B2, 2)
    assert [a.offset for a in leader.asked] == [0, 3, 7]


def test_the_log_start_moved_past_the_end_seen_at_start(make) -> None:
    def retention(leader: Leader, answered: int) -> None:
        if answered == 0:
            leader.batches.append((10, 12, batch(10, 3)))
            leader.delete_records(10)  # everything kgroup set out to copy is gone

    leader = make(before_fetch=retention)
    assert copy(leader) == (b"", 0)


def test_a_log_truncated_below_the_copy_fails_at_once(make, monkeypatch) -> None:
    monkeypatch.setattr(log_copy, "FIRST_MAX_BYTES", len(B0) + len(B1))

    def unclean(leader: Leader, answered: int) -> None:
        if answered == 1:
            leader.truncate(3)  # a new leader without B1 and B2: offset 7 is past its end

    leader = make(before_fetch=unclean)
    with pytest.raises(KgroupError) as caught:
        copy(leader, timeout_s=10)
    assert not isinstance(caught.value, UnreachableError)
    text = caught.value.one_line()
    assert f"{TP}" in text and "truncated" in text and "7" in text
    assert len(leader.asked) == 2  # no retry loop until --timeout


def test_empty_answers_below_the_end_are_retried_with_a_backoff(make) -> None:
    started: list[float] = []

    def lagging(leader: Leader, answered: int) -> None:
        # a new leader whose high watermark lags for 0.5 s: empty answers, no error
        if answered == 0:
            started.append(time.monotonic())
            leader.saved = leader.batches  # type: ignore[attr-defined]
            leader.batches = []
        elif time.monotonic() - started[0] > 0.5:
            leader.batches = leader.saved  # type: ignore[attr-defined]

    leader = make(before_fetch=lagging)
    assert copy(leader, backoff_s=0.05) == (B0 + B1 + B2, 3)
    assert 3 <= len(leader.asked) <= 15  # one Fetch per backoff, not a busy loop
