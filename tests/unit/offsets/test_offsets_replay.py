"""Semantics: group -> partition, tombstones, transactional commits, --latest and --as-of."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.core.errors import CorruptInputError
from kgroup.offsets import encode as enc
from kgroup.offsets.replay import java_string_hashcode, kafka_abs, partition_for
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments, type_ids_for


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("hello", 99162322),  # Java: "hello".hashCode()
        ("polygenelubricants", -(2**31)),  # the classic Integer.MIN_VALUE string
        ("\U0001f600", 31 * 0xD83D + 0xDE00),  # surrogate pair counts as two UTF-16 units
    ],
)
def test_java_string_hashcode(text: str, expected: int) -> None:
    assert java_string_hashcode(text) == expected


def test_partition_for_uses_kafka_abs_rule() -> None:
    assert kafka_abs(-(2**31)) == 0
    assert partition_for("polygenelubricants", 50) == 0  # Math.abs would give 48
    assert partition_for("", 50) == 0
    assert partition_for("hello", 50) == 99162322 % 50
    assert partition_for("hello", 7) == 99162322 % 7


def _write(tmp_path: Path, batches: list[bytes], name: str = "__consumer_offsets-3") -> list:
    d = tmp_path / name
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return find_segments([str(d)])


def _commit(offset: int, committed: int, ts: int, **kw: object) -> bytes:
    return enc.encode_batch(
        [enc.offset_commit("g", "t", 0, committed, commit_timestamp=ts)],
        base_offset=offset,
        timestamp=ts,
        **kw,  # type: ignore[arg-type]
    )


def _txn(offset: int, committed: int, pid: int) -> bytes:
    return _commit(offset, committed, 10, producer_id=pid, producer_epoch=0, transactional=True)


def _marker(offset: int, pid: int, marker: str) -> bytes:
    return enc.encode_control_batch(
        marker, base_offset=offset, timestamp=11, producer_id=pid, producer_epoch=0
    )


def _latest_offsets(inputs: list) -> tuple[list[int], LocalEngine]:
    engine = LocalEngine()
    latest = engine.latest(engine.segment_records(inputs))
    return [r.value["offset"] for r in latest if r.record_type == "offset_commit"], engine


def test_transactional_commit_applies_on_commit_marker(tmp_path: Path) -> None:
    offsets, _ = _latest_offsets(
        _write(tmp_path, [_commit(0, 5, 1), _txn(1, 9, 7), _marker(2, 7, "COMMIT")])
    )
    assert offsets == [9]


def test_abort_drops_pending_offsets(tmp_path: Path) -> None:
    offsets, _ = _latest_offsets(
        _write(tmp_path, [_commit(0, 5, 1), _txn(1, 9, 7), _marker(2, 7, "ABORT")])
    )
    assert offsets == [5]


def test_later_plain_commit_wins_over_earlier_transactional_one(tmp_path: Path) -> None:
    batches = [_txn(0, 9, 7), _commit(1, 5, 12), _marker(2, 7, "COMMIT")]
    offsets, _ = _latest_offsets(_write(tmp_path, batches))
    assert offsets == [5]


def test_tombstone_clears_pending_transactional_offsets(tmp_path: Path) -> None:
    key, _ = enc.offset_commit("g", "t", 0, 0)
    tomb = enc.encode_batch([(key, None)], base_offset=1, timestamp=12)
    offsets, _ = _latest_offsets(_write(tmp_path, [_txn(0, 9, 7), tomb, _marker(2, 7, "COMMIT")]))
    assert offsets == []


def test_marker_of_another_producer_does_not_commit(tmp_path: Path) -> None:
    offsets, engine = _latest_offsets(_write(tmp_path, [_txn(0, 9, 7), _marker(1, 8, "COMMIT")]))
    assert offsets == []
    assert engine.stats.open_transactions == [(3, 7, 1)]


def test_plain_mode_shows_markers_and_transactional_flags(tmp_path: Path) -> None:
    inputs = _write(tmp_path, [_txn(0, 9, 7), _marker(1, 7, "COMMIT")])
    engine = LocalEngine()
    out = [r.to_dict() for r in engine.plain(engine.segment_records(inputs))]
    assert [(o["record_type"], o["transactional"], o["producer_id"]) for o in out] == [
        ("offset_commit", True, 7),
        ("txn_marker", True, 7),
    ]
    assert out[1]["value"] == {"marker": "COMMIT", "coordinator_epoch": 0}
    assert out[0]["source"] == "__consumer_offsets-3/00000000000000000000.log"
    assert out[0]["partition"] == 3
    # a group filter hides markers (they belong to no group)
    engine = LocalEngine(DecodeFilter(groups=frozenset({"g"})))
    assert [r.record_type for r in engine.plain(engine.segment_records(inputs))] == [
        "offset_commit"
    ]


def test_as_of_gives_committed_offsets_at_that_time(tmp_path: Path) -> None:
    inputs = _write(tmp_path, [_commit(0, 5, 100), _commit(1, 9, 200), _commit(2, 12, 300)])
    engine = LocalEngine(DecodeFilter(type_ids=type_ids_for("offset")))
    assert [r.value["offset"] for r in engine.as_of(engine.segment_records(inputs), 250)] == [9]
    engine = LocalEngine()
    assert engine.as_of(engine.segment_records(inputs), 50) == []


def test_since_until_and_topic_filters(tmp_path: Path) -> None:
    other = enc.encode_batch([enc.offset_commit("g", "u", 0, 1)], base_offset=3, timestamp=150)
    inputs = _write(tmp_path, [_commit(0, 5, 100), _commit(1, 9, 200), _commit(2, 12, 300), other])
    engine = LocalEngine(DecodeFilter(since=150, until=250))
    assert [r.offset for r in engine.plain(engine.segment_records(inputs))] == [1, 3]
    engine = LocalEngine(DecodeFilter(topics=frozenset({"u"})))
    assert [r.key["topic"] for r in engine.plain(engine.segment_records(inputs))] == ["u"]


def test_corrupt_batch_stops_with_file_and_position_unless_skipped(tmp_path: Path) -> None:
    good = _commit(0, 5, 1)
    bad = bytearray(_commit(1, 6, 1))
    bad[-3] ^= 0x55
    inputs = _write(tmp_path, [good, bytes(bad), _commit(2, 7, 1)])
    engine = LocalEngine()
    with pytest.raises(CorruptInputError) as err:
        list(engine.plain(engine.segment_records(inputs)))
    assert err.value.exit_code == 7
    assert err.value.position == len(good)
    assert err.value.source == "__consumer_offsets-3/00000000000000000000.log"
    assert "CRC-32C mismatch" in err.value.message

    seen = []
    engine = LocalEngine(skip_corrupt=True, on_problem=seen.append)
    assert [r.offset for r in engine.plain(engine.segment_records(inputs))] == [0, 2]
    assert [p.position for p in seen] == [len(good)]


def test_segments_are_read_in_base_offset_order(tmp_path: Path) -> None:
    d = tmp_path / "__consumer_offsets-0"
    d.mkdir()
    (d / "00000000000000000010.log").write_bytes(_commit(10, 2, 1))
    (d / "00000000000000000000.log").write_bytes(_commit(0, 1, 1))
    (d / "00000000000000000000.index").write_bytes(bytes(80))
    (tmp_path / "__consumer_offsets-1-delete").mkdir()
    inputs = find_segments([str(tmp_path)])
    assert [i.source for i in inputs] == [
        "__consumer_offsets-0/00000000000000000000.log",
        "__consumer_offsets-0/00000000000000000010.log",
    ]


def test_unknown_type_filter_is_a_usage_error() -> None:
    from kgroup.core.errors import UsageError

    with pytest.raises(UsageError):
        type_ids_for("nonsense")
    assert type_ids_for("consumer_group_metadata") == frozenset({3})


def test_topic_ids_resolve_to_names_even_when_the_naming_record_is_filtered(
    tmp_path: Path,
) -> None:
    tid = "MKXx1fIkQy2J9jXHhK8m1w"
    t4 = enc.encode_value(
        4,
        0,
        {
            "topics": [
                {
                    "topic_id": tid,
                    "topic_name": "orders",
                    "num_partitions": 1,
                    "partition_metadata": [],
                }
            ]
        },
    )
    t8 = enc.encode_value(
        8,
        0,
        {
            "member_epoch": 1,
            "previous_member_epoch": 0,
            "state": 0,
            "assigned_partitions": [{"topic_id": tid, "partitions": [0]}],
            "partitions_pending_revocation": [],
        },
    )
    batches = [
        enc.encode_batch([(enc.encode_key(4, {"group_id": "g"}), t4)], base_offset=0, timestamp=1),
        enc.encode_batch(
            [(enc.encode_key(8, {"group_id": "g", "member_id": "m"}), t8)],
            base_offset=1,
            timestamp=2,
        ),
    ]
    inputs = _write(tmp_path, batches)
    engine = LocalEngine(
        DecodeFilter(type_ids=type_ids_for("consumer_group_current_member_assignment"))
    )
    (rec,) = list(engine.plain(engine.segment_records(inputs)))
    assert rec.value["assigned_partitions"] == [
        {"topic_id": tid, "partitions": [0], "topic_name": "orders"}
    ]
