"""kgroup.reset.liveness: is a member-less group still committing (a consumer using assign())?

The records are real `__consumer_offsets` bytes from `kgroup.offsets.encode` (the fixtures'
writer), decoded by the same path as `decode --live`. The live read is replaced by a fake
partition whose reads are recorded, so the tail selection (which offsets are read, newest
window first, byte budget, timeouts) is checked without a broker; tansu has no
`__consumer_offsets` (TEST_ENVIRONMENT.md), so against the session's broker only the
"cannot tell" answer can be checked.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from kgroup.core import topic_reader
from kgroup.core.config import ClusterConfig
from kgroup.core.errors import UnreachableError
from kgroup.core.models import TopicMetadata
from kgroup.core.topic_reader import RawMessage
from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for
from kgroup.reset.liveness import (
    LIVE_WINDOW_MS,
    OFFSETS_TOPIC,
    commit_time_ms,
    last_commit_ms,
    looks_live,
    newest_commit_ms,
    tail_windows,
)
from kgroup.scan.local import LocalEngine

NOW = 1_767_225_600_000
GROUP = "orders-reader"
PARTITIONS = 50
PART = partition_for(GROUP, PARTITIONS)


# ---------------------------------------------------------------------------------------------
# looks_live


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (NOW, True),
        (NOW - 60_000, True),
        (NOW - LIVE_WINDOW_MS, True),  # exactly the window: still live
        (NOW - LIVE_WINDOW_MS - 1, False),
        (NOW - 86_400_000, False),
        (NOW + 5_000, True),  # broker clock ahead of ours
        (None, False),  # no commit in the tail
        ("no __consumer_offsets topic on this cluster", False),  # could not tell
    ],
)
def test_looks_live(last, expected) -> None:
    assert looks_live(last, NOW) is expected


def test_looks_live_custom_window() -> None:
    assert looks_live(NOW - 20_000, NOW, window_ms=30_000)
    assert not looks_live(NOW - 40_000, NOW, window_ms=30_000)
    assert not looks_live(True, NOW)  # a bool is no timestamp


# ---------------------------------------------------------------------------------------------
# tail_windows


def test_tail_windows_newest_first_and_bounded() -> None:
    assert tail_windows(0, 5000, max_records=2000, window=500) == [
        (4500, 5000),
        (4000, 4500),
        (3500, 4000),
        (3000, 3500),
    ]


def test_tail_windows_short_log_and_log_start() -> None:
    assert tail_windows(0, 700, max_records=2000, window=500) == [(200, 700), (0, 200)]
    # compaction/retention moved the log start: never read below it
    assert tail_windows(4800, 5000, max_records=2000, window=500) == [(4800, 5000)]
    assert tail_windows(10, 10) == []
    assert tail_windows(0, 3, max_records=0) == []


def test_tail_windows_default_is_2000_records() -> None:
    windows = tail_windows(0, 1_000_000)
    assert windows[0][1] == 1_000_000
    assert windows[-1][0] == 1_000_000 - 2000
    assert sum(end - start for start, end in windows) == 2000


# ---------------------------------------------------------------------------------------------
# Records: synthetic __consumer_offsets messages


def _commit_msg(offset: int, group: str, commit_ts: int, *, version: int = 3) -> RawMessage:
    key, value = enc.offset_commit(
        group, "orders", offset % 3, offset, commit_timestamp=commit_ts, version=version
    )
    return RawMessage(OFFSETS_TOPIC, PART, offset, commit_ts, key, value)


def _tombstone_msg(offset: int, group: str) -> RawMessage:
    key = enc.encode_key(1, {"group": group, "topic": "orders", "partition": 0})
    return RawMessage(OFFSETS_TOPIC, PART, offset, NOW, key, None)


def _group_msg(offset: int, group: str, size: int = 0) -> RawMessage:
    """A record of the group that is no offset commit (group metadata key, padded value)."""
    key = enc.encode_key(2, {"group": group})
    return RawMessage(OFFSETS_TOPIC, PART, offset, NOW, key, b"\0" * size or None)


def _decoded(messages):
    return list(LocalEngine().live_records(messages))


def test_newest_commit_is_the_highest_offset_commit_of_the_group() -> None:
    recs = _decoded(
        [
            _commit_msg(10, GROUP, NOW - 50_000),
            _commit_msg(11, "other", NOW - 1_000),  # newer, but another group
            _commit_msg(12, GROUP, NOW - 30_000),
            _tombstone_msg(13, GROUP),  # offset deletion: no commit
            _group_msg(14, GROUP),  # group metadata tombstone: no commit
        ]
    )
    assert newest_commit_ms(recs, GROUP) == NOW - 30_000
    assert newest_commit_ms(recs, "other") == NOW - 1_000
    assert newest_commit_ms(recs, "nobody") is None
    assert newest_commit_ms([], GROUP) is None


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_commit_time_of_every_value_version(version: int) -> None:
    (rec,) = _decoded([_commit_msg(7, GROUP, NOW - 5, version=version)])
    assert commit_time_ms(rec, GROUP) == NOW - 5
    assert commit_time_ms(rec, "other") is None


def test_commit_time_falls_back_to_the_record_timestamp() -> None:
    key, value = enc.offset_commit(GROUP, "orders", 0, 1, commit_timestamp=-1)
    (rec,) = _decoded([RawMessage(OFFSETS_TOPIC, PART, 3, NOW - 9, key, value)])
    assert commit_time_ms(rec, GROUP) == NOW - 9


# ---------------------------------------------------------------------------------------------
# last_commit_ms over a fake partition


class FakeAdmin:
    """What last_commit_ms needs of GroupAdmin: its config, timeout and topic metadata."""

    def __init__(self, partitions: int | None = PARTITIONS, timeout_s: float = 0.1) -> None:
        self.config = ClusterConfig(bootstrap_servers="fake:9092", timeout_s=timeout_s)
        self.timeout_s = timeout_s
        self.partitions = partitions

    def topics(self, include_internal: bool = False) -> dict[str, TopicMetadata]:
        assert include_internal
        if self.partitions is None:
            return {"orders": TopicMetadata("orders", 3)}
        return {OFFSETS_TOPIC: TopicMetadata(OFFSETS_TOPIC, self.partitions)}


class FakePartition:
    """One partition of __consumer_offsets: records by offset; reads are recorded."""

    def __init__(self, log_start: int, log_end: int, records: dict[int, RawMessage]) -> None:
        self.log_start = log_start
        self.log_end = log_end
        self.records = records
        self.reads: list[tuple[int, int]] = []
        self.closed = 0
        self.stall_at: int | None = None  # stop yielding here, as read_range does on timeout

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def ranges(props, topic, partitions, timeout_s):
            assert topic == OFFSETS_TOPIC and list(partitions) == [PART]
            assert props["bootstrap.servers"] == "fake:9092"
            if self.log_end > self.log_start:
                return [(PART, self.log_start, self.log_end)]
            return []

        def read(props, topic, partition, start, end, *, timeout_s, read_committed=True):
            assert partition == PART and read_committed and timeout_s > 0
            self.reads.append((start, end))

            def gen() -> Iterator[RawMessage]:
                try:
                    for offset in range(start, end):
                        if self.stall_at is not None and offset >= self.stall_at:
                            time.sleep(timeout_s)
                            return
                        if offset in self.records:
                            yield self.records[offset]
                finally:
                    self.closed += 1

            return gen()

        monkeypatch.setattr(topic_reader, "partition_ranges", ranges)
        monkeypatch.setattr(topic_reader, "read_range", read)


def _filler(start: int, end: int, group: str = "other", size: int = 0) -> dict[int, RawMessage]:
    return {o: _group_msg(o, group, size) for o in range(start, end)}


def test_probe_reads_the_newest_window_first_and_stops_at_a_commit(monkeypatch) -> None:
    records = _filler(0, 10_000)
    records[9_100] = _commit_msg(9_100, GROUP, NOW - 70_000)
    records[9_300] = _commit_msg(9_300, GROUP, NOW - 60_000)
    records[9_999] = _commit_msg(9_999, "other", NOW)
    part = FakePartition(0, 10_000, records)
    part.install(monkeypatch)
    assert last_commit_ms(FakeAdmin(), GROUP, 5.0) == NOW - 60_000
    assert part.reads == [(9_500, 10_000), (9_000, 9_500)]
    assert part.closed == 2


def test_probe_looks_no_further_than_the_tail(monkeypatch) -> None:
    records = _filler(0, 10_000)
    records[7_999] = _commit_msg(7_999, GROUP, NOW - 1_000)  # just outside the 2,000 records
    part = FakePartition(0, 10_000, records)
    part.install(monkeypatch)
    assert last_commit_ms(FakeAdmin(), GROUP, 5.0) is None
    assert part.reads == [(9_500, 10_000), (9_000, 9_500), (8_500, 9_000), (8_000, 8_500)]
    assert min(start for start, _ in part.reads) == 8_000


def test_probe_empty_partition_and_smaller_tail(monkeypatch) -> None:
    FakePartition(5, 5, {}).install(monkeypatch)
    assert last_commit_ms(FakeAdmin(), GROUP, 5.0) is None

    records = _filler(0, 300)
    records[250] = _commit_msg(250, GROUP, NOW - 2)
    part = FakePartition(0, 300, records)
    part.install(monkeypatch)
    assert last_commit_ms(FakeAdmin(), GROUP, 5.0, max_records=100) == NOW - 2
    assert part.reads == [(200, 300)]


def test_probe_byte_budget(monkeypatch) -> None:
    # 1 KiB per filler record: a 4 KiB budget ends inside the first window
    records = _filler(0, 1_000, size=1024)
    part = FakePartition(0, 1_000, records)
    part.install(monkeypatch)
    reason = last_commit_ms(FakeAdmin(), GROUP, 5.0, max_bytes=4096)
    assert isinstance(reason, str) and "larger than 4096 bytes" in reason
    assert part.reads == [(500, 1_000)]
    assert part.closed == 1

    # a commit already seen in the cut window is still an answer (a lower bound)
    records[501] = _commit_msg(501, GROUP, NOW - 3)
    part = FakePartition(0, 1_000, records)
    part.install(monkeypatch)
    assert last_commit_ms(FakeAdmin(), GROUP, 5.0, max_bytes=4096) == NOW - 3


def test_probe_reports_a_stalled_read_as_a_timeout(monkeypatch) -> None:
    part = FakePartition(0, 1_000, _filler(0, 1_000))
    part.stall_at = 900
    part.install(monkeypatch)
    started = time.monotonic()
    reason = last_commit_ms(FakeAdmin(), GROUP, 0.3)
    assert isinstance(reason, str) and reason.startswith("timed out after 0.3 s")
    assert f"{OFFSETS_TOPIC}-{PART}" in reason
    assert time.monotonic() - started < 2


def test_probe_returns_reasons_instead_of_raising(monkeypatch) -> None:
    reason = last_commit_ms(FakeAdmin(partitions=None), GROUP, 1.0)
    assert isinstance(reason, str) and "no __consumer_offsets topic" in reason

    def unauthorized(props, topic, partitions, timeout_s):
        raise UnreachableError(
            "cannot read the watermarks of __consumer_offsets-3: Broker: Topic authorization failed"
        )

    monkeypatch.setattr(topic_reader, "partition_ranges", unauthorized)
    reason = last_commit_ms(FakeAdmin(), GROUP, 1.0)
    assert isinstance(reason, str) and "authorization failed" in reason
    assert reason.startswith(f"cannot read {OFFSETS_TOPIC}: ")


# ---------------------------------------------------------------------------------------------
# Against the session's broker


@pytest.mark.integration
def test_probe_on_the_session_broker_answers_quickly(kafka_broker, unique) -> None:
    """tansu has no __consumer_offsets: a reason, within 2 s, no exception. On Apache Kafka a
    group that just committed looks live."""
    from tests.helpers import admin_for, commit_offsets, make_topic

    topic, group = f"live-{unique}", f"live-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1})
    started = time.monotonic()
    result = last_commit_ms(admin_for(kafka_broker.bootstrap), group, 2.0)
    elapsed = time.monotonic() - started
    if kafka_broker.is_tansu:
        assert isinstance(result, str) and "no __consumer_offsets topic" in result
        assert elapsed < 2
    else:
        assert isinstance(result, int)
        assert looks_live(result, int(time.time() * 1000))


@pytest.mark.integration
def test_probe_reads_a_copy_of_the_offsets_topic(kafka_broker, unique) -> None:
    """The real read path (watermarks, bounded read, decode) on a copy of __consumer_offsets
    written with the fixtures' encoder into an ordinary topic (as `decode --offsets-topic`)."""
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request
    from tests.helpers import admin_for

    copy, group = f"offsets-copy-{unique}", f"assign-only-{unique}"
    admin = admin_for(kafka_broker.bootstrap)
    create_topics(admin, {copy: 3})
    part = partition_for(group, 3)
    seeded = [
        (group, NOW - 90_000),
        ("someone-else", NOW - 1_000),
        (group, NOW - 60_000),
        ("someone-else", NOW),
    ]
    records = []
    for i, (g, ts) in enumerate(seeded):
        key, value = enc.offset_commit(g, "orders", 0, i, commit_timestamp=ts)
        records.append(
            SeedRecord(copy, partition_for(g, 3) if g != group else part, ts, key, value)
        )
    produce_one_per_request(admin, records)

    started = time.monotonic()
    assert last_commit_ms(admin, group, 10.0, topic=copy) == NOW - 60_000
    assert last_commit_ms(admin, f"never-{unique}", 10.0, topic=copy) is None
    assert time.monotonic() - started < 10


def test_probe_on_an_unreachable_cluster_is_a_reason() -> None:
    from tests.helpers import admin_for

    started = time.monotonic()
    result = last_commit_ms(admin_for("127.0.0.1:1", timeout_s=30.0), GROUP, 1.0)
    assert isinstance(result, str) and result.startswith(f"cannot read {OFFSETS_TOPIC}: ")
    assert time.monotonic() - started < 5


# ---------------------------------------------------------------------------------------------
# The probe's own admin (a shorter timeout than the run's) is closed on every path


def _metadata_broker(with_offsets_topic: bool):
    from kgroup.protocol import messages as api_table
    from tests.unit.wire.fakebroker import FakeBroker, FakePartition, FakeTopic, metadata_body

    topics = (
        [
            FakeTopic(
                OFFSETS_TOPIC, tuple(FakePartition(p, 1) for p in range(PARTITIONS)), internal=True
            )
        ]
        if with_offsets_topic
        else []
    )
    holder: dict = {}

    def handle(api_key: int, version: int, body: bytes) -> bytes:
        assert api_key == api_table.METADATA.key, api_key
        broker = holder["broker"]
        return metadata_body([(1, "127.0.0.1", broker.port)], version, topics)

    broker = FakeBroker(handle)
    holder["broker"] = broker
    return broker


def _open_sessions(broker) -> int:
    """Connections the client has not closed (the broker's side closes on the client's EOF)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        open_now = [c for c in broker._sessions if c.fileno() != -1]
        if not open_now:
            return 0
        time.sleep(0.02)
    return len(open_now)


@pytest.mark.parametrize("path", ["no_offsets_topic", "answer", "error", "bug"])
def test_the_probes_own_admin_leaves_no_connection_open(monkeypatch, path) -> None:
    from kgroup.core.admin import GroupAdmin

    broker = _metadata_broker(with_offsets_topic=path != "no_offsets_topic")
    records = _filler(0, 600)
    records[550] = _commit_msg(550, GROUP, NOW - 5)
    FakePartition(0, 600, records).install(monkeypatch)
    ranges, read = topic_reader.partition_ranges, topic_reader.read_range
    fake = {"bootstrap.servers": "fake:9092"}  # what FakePartition checks it is handed
    monkeypatch.setattr(topic_reader, "partition_ranges", lambda p, *a: ranges({**p, **fake}, *a))
    monkeypatch.setattr(topic_reader, "read_range", lambda p, *a, **k: read({**p, **fake}, *a, **k))
    if path == "error":

        def unreachable(props, topic, partitions, timeout_s):
            raise UnreachableError("cannot read the watermarks of __consumer_offsets-3")

        monkeypatch.setattr(topic_reader, "partition_ranges", unreachable)
    if path == "bug":

        def broken(props, topic, partitions, timeout_s):
            raise RuntimeError("a bug")

        monkeypatch.setattr(topic_reader, "partition_ranges", broken)
    run_admin = GroupAdmin(ClusterConfig(bootstrap_servers=broker.address, timeout_s=10.0))
    try:
        if path == "bug":
            with pytest.raises(RuntimeError):
                last_commit_ms(run_admin, GROUP, 2.0)
        else:
            result = last_commit_ms(run_admin, GROUP, 2.0)  # shorter: a probe admin of its own
            expected = {"no_offsets_topic": str, "answer": int, "error": str}[path]
            assert isinstance(result, expected), result
        assert broker._sessions, "the probe asked the broker nothing"
        assert _open_sessions(broker) == 0
    finally:
        run_admin.close()
        broker.close()
