"""The scan engines' pure parts: summary fold, batch-aligned ranges, flat rows, Spark readers
through a pickle round trip (no cluster), executor error translation."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from kgroup.core.errors import CorruptInputError, NotFoundError
from kgroup.offsets import encode as enc
from kgroup.offsets.decode import DecodedRecord
from kgroup.scan import rows as rw
from kgroup.scan.api import LocalScan, segment_scope_order, summarise
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments
from kgroup.scan.ranges import batch_boundaries, plan_splits

T0 = 1_767_225_600_000


def _batch(entries: list, base_offset: int, timestamp: int, **kw: object) -> bytes:
    return enc.encode_batch(entries, base_offset=base_offset, timestamp=timestamp, **kw)  # type: ignore[arg-type]


def _marker(marker: str, base_offset: int, timestamp: int, **kw: object) -> bytes:
    return enc.encode_control_batch(marker, base_offset=base_offset, timestamp=timestamp, **kw)  # type: ignore[arg-type]


def _log(tmp_path: Path, batches: list[bytes], name: str = "__consumer_offsets-4") -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return d


def _group_meta(group: str, members: int, generation: int) -> bytes | None:
    return enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": generation,
            "protocol": "range",
            "leader": "m0",
            "current_state_timestamp": T0,
            "members": [
                {
                    "member_id": f"m{i}",
                    "group_instance_id": None,
                    "client_id": "c",
                    "client_host": "/h",
                    "rebalance_timeout": 1000,
                    "session_timeout": 1000,
                    "subscription": {},
                    "assignment": {},
                }
                for i in range(members)
            ],
        },
    )


def _summary_log(tmp_path: Path) -> Path:
    g = "billing"
    c = enc.offset_commit
    return _log(
        tmp_path,
        [
            _batch([(enc.encode_key(2, {"group": g}), _group_meta(g, 3, 5))], 0, T0),
            _batch([c(g, "orders", 0, 10, commit_timestamp=T0 + 1)], 1, T0 + 1),
            # transactional commits: producer 7 commits, producer 8 aborts
            _batch(
                [c(g, "payments", 0, 5, commit_timestamp=T0 + 2)],
                2,
                T0 + 2,
                producer_id=7,
                producer_epoch=0,
                transactional=True,
            ),
            _batch(
                [c(g, "refunds", 0, 5, commit_timestamp=T0 + 9)],
                3,
                T0 + 3,
                producer_id=8,
                producer_epoch=0,
                transactional=True,
            ),
            _marker("COMMIT", 4, T0 + 4, producer_id=7, producer_epoch=0),
            _marker("ABORT", 5, T0 + 5, producer_id=8, producer_epoch=0),
            # an offset-only group whose single offset expires
            _batch([c("old", "orders", 1, 3, commit_timestamp=T0 + 6)], 6, T0 + 6),
            _batch([(c("old", "orders", 1, 0)[0], None)], 7, T0 + 7),
            # a classic group that is deleted afterwards
            _batch([(enc.encode_key(2, {"group": "gone"}), _group_meta("gone", 1, 2))], 8, T0),
            _batch([(enc.encode_key(2, {"group": "gone"}), None)], 9, T0 + 8),
        ],
    )


def test_summary_rows_by_hand(tmp_path: Path) -> None:
    inputs = find_segments([str(_summary_log(tmp_path))])
    eng = LocalEngine()
    rows = summarise(eng.segment_records(inputs), segment_scope_order(inputs))
    assert rows == [
        {
            "group": "billing",
            "type": "classic",
            "protocol": "consumer/range",
            "last_commit": T0 + 2,  # the aborted commit (T0 + 9) does not count
            "commits": 2,
            "topics": ["orders", "payments"],
            "partitions": 2,
            "generation": 5,
            "members": 3,
            "deleted": False,
        },
        {
            "group": "gone",
            "type": "classic",
            "protocol": "consumer/range",
            "last_commit": None,
            "commits": 0,
            "topics": [],
            "partitions": 0,
            "generation": 2,
            "members": 1,
            "deleted": True,
        },
        {
            "group": "old",
            "type": None,
            "protocol": None,
            "last_commit": T0 + 6,
            "commits": 1,
            "topics": ["orders"],
            "partitions": 1,
            "generation": None,
            "members": None,
            "deleted": True,
        },
    ]


def test_a_partial_travels_as_json_with_its_sets_sorted() -> None:
    from kgroup.scan.summary import Partial

    part = Partial(
        "g",
        type="consumer",
        protocol="range",
        last_commit=T0,
        commits=3,
        topics={"t2", "t1"},
        partitions={("t2", 0), ("t1", 1), ("t1", 0)},
        generation=4,
        members=2,
        member_ids={"m2", "m1"},
        metadata_state="live",
        live_offsets={("t1", 1), ("t1", 0)},
        removed_offsets={("t2", 0)},
    )
    doc = part.to_json()
    assert doc == {
        "group": "g",
        "type": "consumer",
        "protocol": "range",
        "last_commit": T0,
        "commits": 3,
        "topics": ["t1", "t2"],
        "partitions": [["t1", 0], ["t1", 1], ["t2", 0]],
        "generation": 4,
        "members": 2,
        "member_ids": ["m1", "m2"],
        "metadata_state": "live",
        "live_offsets": [["t1", 0], ["t1", 1]],
        "removed_offsets": [["t2", 0]],
    }
    assert Partial.from_json(json.loads(json.dumps(doc))) == part
    assert Partial.from_json(Partial("h").to_json()) == Partial("h")


def test_batch_boundaries_cut_only_at_batch_starts(tmp_path: Path) -> None:
    batches = [
        _batch([enc.offset_commit("g", "t", 0, i, commit_timestamp=T0)], i, T0) for i in range(10)
    ]
    size = len(batches[0])  # every batch has the same length here
    d = _log(tmp_path, [*batches, b"\x00" * 40])  # zero padding stays in the last range
    path = str(d / "00000000000000000000.log")
    assert batch_boundaries(path, 3 * size) == [3 * size, 6 * size, 9 * size]
    assert batch_boundaries(path, 3 * size + 1) == [4 * size, 8 * size]
    splits = plan_splits(find_segments([str(d)]), 3 * size)
    assert [(s.start, s.end) for s in splits] == [
        (0, 3 * size),
        (3 * size, 6 * size),
        (6 * size, 9 * size),
        (9 * size, 10 * size + 40),
    ]


def test_flat_row_of_an_offset_commit_and_back() -> None:
    rec = DecodedRecord("__consumer_offsets-4/0.log", 4, 61, 12, T0, -1, -1, False)
    rec.key_type = 1
    rec.record_type = "offset_commit"
    rec.key = {"group": "g", "topic": "orders", "partition": 3}
    rec.value_version = 3
    rec.value = {"offset": 42, "leader_epoch": 7, "metadata": "m", "commit_timestamp": T0}
    [row] = rw.records_to_batch([rec], file_index=2).to_pylist()
    assert row["group"] == "g" and row["topic"] == "orders" and row["partition"] == 3
    assert row["committed_offset"] == 42 and row["leader_epoch"] == 7
    assert row["metadata"] == "m" and row["commit_timestamp"] == T0
    assert row["expire_timestamp"] is None and row["tombstone"] is False
    assert row["log_partition"] == 4 and row["file_index"] == 2 and row["position"] == 61
    assert json.loads(row["key_json"]) == {"group": "g", "topic": "orders", "partition": 3}
    assert rw.row_to_record(row).to_dict() == rec.to_dict()


def _reader_rows(reader, view_rows_only: bool = True) -> list[dict]:
    reader = pickle.loads(pickle.dumps(reader))
    rows = []
    for part in reader.partitions():
        part = pickle.loads(pickle.dumps(part))
        for batch in reader.read(part):
            rows.extend(batch.to_pylist())
    return rows


def _options(d: Path, **extra: str) -> dict[str, str]:
    inputs = find_segments([str(d)])
    return {
        "inputs": json.dumps([[i.path, i.source, i.partition, i.size] for i in inputs]),
        **extra,
    }


def test_segment_reader_after_pickling_equals_local_engine(tmp_path: Path) -> None:
    spark = pytest.importorskip("kgroup.scan.spark")
    from tests.scan_data import write_segments

    root = write_segments(tmp_path / "logs", 300_000)
    inputs = find_segments([str(root)])
    eng = LocalEngine()
    local = [r.to_dict() for r in eng.plain(eng.segment_records(inputs))]
    source = spark.SegmentSource(_options(root, split_bytes="20000"))
    reader = source.reader(source.schema())
    assert len(reader.partitions()) > len(inputs)  # large files were cut into byte ranges
    records, problems, _ = rw.split_notes(_reader_rows(reader))
    assert problems == []
    assert [rw.row_to_record(r).to_dict() for r in records] == local

    scan = LocalScan(
        LocalEngine(), lambda: LocalEngine().segment_records(inputs), segment_scope_order(inputs)
    )
    source = spark.SegmentSource(_options(root, view="summary"))
    rows = _reader_rows(source.reader(source.schema()))
    from kgroup.scan.summary import Partial, merge_partials

    parts = sorted(
        ((r["scope_order"], Partial.from_json(json.loads(r["partial_json"]))) for r in rows),
        key=lambda pair: pair[0],
    )
    assert merge_partials(p for _o, p in parts) == scan.summary()


def test_reader_reports_padding_and_raises_on_corruption(tmp_path: Path) -> None:
    spark = pytest.importorskip("kgroup.scan.spark")
    good = _batch([enc.offset_commit("g", "t", 0, 1, commit_timestamp=T0)], 0, T0)
    bad = bytearray(_batch([enc.offset_commit("g", "t", 0, 1, commit_timestamp=T0)], 1, T0))
    bad[-1] ^= 0xFF
    later = _batch([enc.offset_commit("g", "t", 0, 1, commit_timestamp=T0)], 2, T0)
    d = _log(tmp_path, [good, bytes(bad), later, b"\x00" * 30])
    source = spark.SegmentSource(_options(d, skip_corrupt="true"))
    records, problems, _ = rw.split_notes(_reader_rows(source.reader(source.schema())))
    assert len(records) == 2
    kinds = [json.loads(p["error"])["kind"] for p in problems]
    assert kinds == ["corrupt", "zero_padding"]
    assert [p["position"] for p in problems] == [len(good), 3 * len(good)]
    source = spark.SegmentSource(_options(d))
    with pytest.raises(CorruptInputError, match=f"at byte {len(good)}"):
        _reader_rows(source.reader(source.schema()))


def test_executor_errors_come_back_as_kgroup_errors() -> None:
    spark = pytest.importorskip("kgroup.scan.spark")
    text = (
        "PythonException: An exception was thrown from the Python worker.\n"
        "Traceback (most recent call last):\n  ...\n"
        "kgroup.core.errors.CorruptInputError: corrupt input: p-3/0.log at byte 61: CRC-32C "
        "mismatch\n\tat org.apache.spark..."
    )
    err = spark.translate(Exception(text))
    assert isinstance(err, CorruptInputError)
    assert err.message == "corrupt input: p-3/0.log at byte 61: CRC-32C mismatch"
    err = spark.translate(Exception("kgroup.core.errors.NotFoundError: topic x does not exist"))
    assert isinstance(err, NotFoundError)
    assert spark.translate(Exception("java.lang.OutOfMemoryError")) is None


def test_filter_travels_as_json() -> None:
    spark = pytest.importorskip("kgroup.scan.spark")
    flt = DecodeFilter(groups=frozenset({"a", "b"}), type_ids=frozenset({0, 1}), since=5)
    assert spark.filter_from_json(spark.filter_to_json(flt)) == flt
