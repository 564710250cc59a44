"""`kgroup decode` of `__share_group_state` segments (KIP-932) through a real process.

The records are encoded here from Kafka 4.1's share-coordinator JSON definitions
(share-coordinator/src/main/resources/common/message/Share{Snapshot,Update}{Key,Value}.json),
field by field, with this file's own encoder: never kgroup's.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup

TOPIC_ID = uuid.UUID("6f1c2a3b-4d5e-4f60-8172-8394a5b6c7d8")
TOPIC_ID_JSON = base64.urlsafe_b64encode(TOPIC_ID.bytes).decode().rstrip("=")


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(api_key: int, group: str, partition: int) -> bytes:
    """ShareSnapshotKey (apiKey 0) / ShareUpdateKey (apiKey 1), version 0, not flexible:
    GroupId string (int16 length), TopicId uuid (16 bytes), Partition int32."""
    g = group.encode()
    return (
        struct.pack(">h", api_key)
        + struct.pack(">h", len(g))
        + g
        + TOPIC_ID.bytes
        + struct.pack(">i", partition)
    )


def _batches(batches: list[tuple[int, int, int, int]]) -> bytes:
    """[]StateBatch, compact array (flexible): FirstOffset int64, LastOffset int64,
    DeliveryState int8, DeliveryCount int16, then the struct's empty tagged fields."""
    out = _uvarint(len(batches) + 1)
    for first, last, state, count in batches:
        out += struct.pack(">qqbh", first, last, state, count) + _uvarint(0)
    return out


def _snapshot(snapshot_epoch: int, state_epoch: int, leader_epoch: int, start: int) -> bytes:
    """ShareSnapshotValue v0 (flexible 0+): SnapshotEpoch int32, StateEpoch int32, LeaderEpoch
    int32, StartOffset int64, CreateTimestamp int64, WriteTimestamp int64, StateBatches,
    tagged fields."""
    return (
        struct.pack(">h", 0)
        + struct.pack(">iiiqqq", snapshot_epoch, state_epoch, leader_epoch, start, 1000, 2000)
        + _batches([(start, start + 4, 2, 1)])
        + _uvarint(0)
    )


def _update(snapshot_epoch: int, leader_epoch: int, start: int) -> bytes:
    """ShareUpdateValue v0 (flexible 0+): SnapshotEpoch int32, LeaderEpoch int32, StartOffset
    int64 (-1: not updated), StateBatches, tagged fields."""
    return (
        struct.pack(">h", 0)
        + struct.pack(">iiq", snapshot_epoch, leader_epoch, start)
        + _batches([(20, 24, 0, 2)])
        + _uvarint(0)
    )


def _segments(tmp_path: Path, name: str = "__share_group_state-3", prefix: str = "") -> Path:
    d = tmp_path / name
    d.mkdir()
    sg1, sg2 = f"{prefix}sg1", f"{prefix}sg2"
    records = [
        (_key(0, sg1, 0), _snapshot(1, 7, 4, 10)),
        (_key(1, sg1, 0), _update(1, 5, 18)),
        (_key(1, sg1, 0), _update(1, -1, -1)),
        (_key(0, sg2, 1), _snapshot(1, 2, 0, 0)),
        (_key(0, sg2, 1), None),  # tombstone: sg2's state deleted
        (_key(0, sg1, 0), _snapshot(2, 7, 5, 30)),
        (_key(1, sg1, 0), _update(2, 6, -1)),
    ]
    batches = [
        enc.encode_batch([kv], base_offset=i, timestamp=1_700_000_000_000 + i)
        for i, kv in enumerate(records)
    ]
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return d


def test_jsonl_decodes_snapshot_and_update_records_field_by_field(tmp_path: Path) -> None:
    result = run_kgroup("decode", "--segments", str(_segments(tmp_path)), "-o", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["record_type"] for r in lines] == [
        "share_snapshot",
        "share_update",
        "share_update",
        "share_snapshot",
        "share_snapshot",
        "share_snapshot",
        "share_update",
    ]
    first = lines[0]
    assert first["source"] == "__share_group_state-3/00000000000000000000.log"
    assert first["partition"] == 3
    assert first["key"] == {"group_id": "sg1", "topic_id": TOPIC_ID_JSON, "partition": 0}
    assert first["value_version"] == 0
    assert first["value"] == {
        "snapshot_epoch": 1,
        "state_epoch": 7,
        "leader_epoch": 4,
        "start_offset": 10,
        "create_timestamp": 1000,
        "write_timestamp": 2000,
        "state_batches": [
            {"first_offset": 10, "last_offset": 14, "delivery_state": 2, "delivery_count": 1}
        ],
    }
    assert lines[1]["value"] == {
        "snapshot_epoch": 1,
        "leader_epoch": 5,
        "start_offset": 18,
        "state_batches": [
            {"first_offset": 20, "last_offset": 24, "delivery_state": 0, "delivery_count": 2}
        ],
    }
    assert lines[4]["value"] is None
    assert result.stderr == ""


def test_json_and_table_outputs(tmp_path: Path) -> None:
    seg = str(_segments(tmp_path))
    doc = json.loads(run_kgroup("decode", "--segments", seg, "--group", "sg2", "-o", "json").stdout)
    assert [r["record_type"] for r in doc["records"]] == ["share_snapshot", "share_snapshot"]
    assert doc["summary"]["problems"] == []
    table = run_kgroup("decode", "--segments", seg).stdout
    assert "share_snapshot" in table and "share_update" in table and "sg1" in table
    assert f"{TOPIC_ID_JSON}-0" in table  # the KEY cell: topic id and partition
    csv_rows = run_kgroup("decode", "--segments", seg, "--group", "sg2", "-o", "csv").stdout
    assert csv_rows.splitlines()[1].count('"share_snapshot","sg2"') == 1


def test_latest_keeps_the_last_snapshot_and_the_updates_after_it(tmp_path: Path) -> None:
    seg = str(_segments(tmp_path))
    lines = [
        json.loads(line)
        for line in run_kgroup(
            "decode", "--segments", seg, "--latest", "-o", "jsonl"
        ).stdout.splitlines()
    ]
    assert [(r["offset"], r["record_type"]) for r in lines] == [
        (5, "share_snapshot"),
        (6, "share_update"),
    ]


def test_summary_gives_start_offsets_and_state_epochs(tmp_path: Path) -> None:
    seg = str(_segments(tmp_path))
    doc = json.loads(run_kgroup("decode", "--segments", seg, "--summary", "-o", "json").stdout)
    # sg1: snapshot at 30 (state epoch 7, leader 5), then an update with start -1 (kept) and
    # leader epoch 6; sg2 deleted by its tombstone.
    assert doc["share_partitions"] == [
        {
            "group": "sg1",
            "topic_id": TOPIC_ID_JSON,
            "partition": 0,
            "start_offset": 30,
            "state_epoch": 7,
            "leader_epoch": 6,
            "snapshot_epoch": 2,
            "updates_since_snapshot": 1,
        }
    ]
    table = run_kgroup("decode", "--segments", seg, "--summary").stdout
    assert "START OFFSET" in table and "sg1" in table and "sg2" not in table


def test_log_directory_with_both_topics_is_refused_and_topic_options_too(tmp_path: Path) -> None:
    _segments(tmp_path)
    off = tmp_path / "__consumer_offsets-0"
    off.mkdir()
    (off / "00000000000000000000.log").write_bytes(
        enc.encode_batch([enc.offset_commit("g", "t", 0, 5)], base_offset=0, timestamp=1)
    )
    mixed = run_kgroup("decode", "--segments", str(tmp_path), expect=2)
    assert "mix __share_group_state and __consumer_offsets" in mixed.stderr
    seg = str(tmp_path / "__share_group_state-3")
    typed = run_kgroup("decode", "--segments", seg, "--type", "offset", expect=2)
    assert "--type and --topic select __consumer_offsets records" in typed.stderr
    as_of = run_kgroup("decode", "--segments", seg, "--as-of", "2024-01-01T00:00:00Z", expect=2)
    assert "--as-of replays offset commits; __share_group_state holds none" in as_of.stderr


def test_spark_asked_for_the_printed_record_stream_keeps_it_local(tmp_path: Path) -> None:
    """As for __consumer_offsets: a record stream printed to stdout comes through the driver
    row by row, so it stays local (and says so); the other views run on Spark (below)."""
    seg = str(_segments(tmp_path))
    result = run_kgroup("decode", "--segments", seg, "--engine", "spark", "-o", "jsonl")
    assert "the record stream printed to stdout is read by the local engine" in result.stderr
    assert len(result.stdout.splitlines()) == 7


def _two_partitions(tmp_path: Path) -> str:
    _segments(tmp_path, "__share_group_state-3")
    _segments(tmp_path, "__share_group_state-7", prefix="other-")
    return str(tmp_path)


@pytest.mark.spark
def test_spark_engine_gives_the_local_engine_s_views(tmp_path: Path, spark_session) -> None:
    """ShareSparkScan (a task per partition) against the local ShareScan, view by view."""
    from kgroup.scan.api import segment_scope_order
    from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments
    from kgroup.scan.share_scan import ShareScan
    from kgroup.scan.share_spark import ShareSparkScan

    inputs = find_segments([_two_partitions(tmp_path)])

    def local() -> ShareScan:
        eng = LocalEngine(DecodeFilter())
        return ShareScan(eng, lambda: eng.segment_records(inputs), segment_scope_order(inputs))

    def spark() -> ShareSparkScan:
        return ShareSparkScan(spark_session, DecodeFilter(), inputs=inputs)

    def dicts(recs) -> list[dict]:
        return [r.to_dict() for r in recs]

    records = dicts(local().records())
    assert len(records) == 14 and {r["partition"] for r in records} == {3, 7}
    assert dicts(spark().records()) == records
    assert dicts(spark().latest()) == dicts(local().latest())
    ran, want = spark(), local()
    summary = ran.summary()
    assert summary == want.summary() and len(summary) == 2
    assert (ran.stats.files, ran.stats.batches, ran.stats.records) == (
        want.stats.files,
        want.stats.batches,
        want.stats.records,
    )
    # --out DIR: the local engine's JSON Lines
    written = Path(spark().write(str(tmp_path / "out"), "latest")).read_text().splitlines()
    assert written == [r.to_json() for r in local().latest()]


@pytest.mark.spark
def test_engine_spark_summary_matches_the_local_engine(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    (tmp_path / "in").mkdir()
    seg = _two_partitions(tmp_path / "in")
    conf = ("--spark-conf", "spark.default.parallelism=2")
    local = run_kgroup("decode", "--segments", seg, "--summary", "-o", "json")
    spark = run_kgroup(
        "decode", "--segments", seg, "--summary", "-o", "json", "--engine", "spark", *conf
    )
    assert json.loads(spark.stdout) == json.loads(local.stdout)
    assert len(json.loads(local.stdout)["share_partitions"]) == 2
    assert "local engine" not in spark.stderr  # before: "decoded by the local engine only"


def test_copy_without_the_partition_directory_name_reads_as_consumer_offsets(
    tmp_path: Path,
) -> None:
    """The directory name tells the topic: a copy under another name is read as
    __consumer_offsets (README), where these keys are not offset commits."""
    seg = _segments(tmp_path, "copy")
    result = run_kgroup("decode", "--segments", str(seg), "-o", "jsonl", expect=None)
    assert "share_snapshot" not in result.stdout


def test_live_read_of_the_share_state_topic_is_refused_before_connecting() -> None:
    result = run_kgroup(
        "decode",
        "--live",
        "--offsets-topic",
        "__share_group_state",
        "--bootstrap-server",
        "127.0.0.1:1",
        expect=2,
    )
    assert "is decoded from its segments only" in result.stderr
